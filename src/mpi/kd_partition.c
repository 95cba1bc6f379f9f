/* mpi/kd_partition.c — sampled kd-style splits and halo destinations (kd_partition.h). */
#include "mpi/kd_partition.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static double coordinate(const mpi_points *points, size_t row, size_t axis)
{
    size_t at = row * points->dim + axis;
    return points->f64 ? ((const double *)points->values)[at] : (double)((const float *)points->values)[at];
}

/* Evenly spaced rows of the block, as doubles: sample[count * dim]. */
static size_t take_sample(const mpi_points *points, double *sample)
{
    size_t wanted = points->count < MPI_KD_SAMPLE_PER_RANK ? points->count : MPI_KD_SAMPLE_PER_RANK;
    for (size_t s = 0; s < wanted; s++) {
        size_t row = (size_t)((unsigned long long)s * points->count / wanted);
        for (size_t a = 0; a < points->dim; a++) sample[s * points->dim + a] = coordinate(points, row, a);
    }
    return wanted;
}

static int widest_axis(const double *sample, size_t count, size_t dim)
{
    int best = 0;
    double best_span = -1.0;
    for (size_t a = 0; a < dim && count; a++) {
        double low = sample[a], high = sample[a];
        for (size_t s = 1; s < count; s++) {
            double x = sample[s * dim + a];
            low = x < low ? x : low;
            high = x > high ? x : high;
        }
        if (high - low > best_span) {
            best_span = high - low;
            best = (int)a;
        }
    }
    return best;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Moves the rows with x[axis] < value to the front; returns how many. Order within each side does
 * not matter: every later choice is made from sorted values. */
static size_t partition_rows(double *sample, size_t count, size_t dim, int axis, double value, double *row_scratch)
{
    size_t left = 0;
    for (size_t s = 0; s < count; s++) {
        if (sample[s * dim + (size_t)axis] < value) {
            if (s != left) {
                memcpy(row_scratch, sample + left * dim, dim * sizeof(double));
                memcpy(sample + left * dim, sample + s * dim, dim * sizeof(double));
                memcpy(sample + s * dim, row_scratch, dim * sizeof(double));
            }
            left++;
        }
    }
    return left;
}

/* Splits ranks [lo, hi) over sample[count]; scratch holds count doubles plus one row. */
static void split_node(mpi_kd_partition *partition, double *sample, size_t count, int lo, int hi, double *scratch)
{
    size_t dim = partition->dim, left;
    int mid = lo + (hi - lo) / 2, axis;
    double value = 0.0;
    if (hi - lo < 2) return;
    axis = widest_axis(sample, count, dim);
    if (count) {
        size_t k = (size_t)((unsigned long long)count * (unsigned long long)(mid - lo) / (unsigned long long)(hi - lo));
        for (size_t s = 0; s < count; s++) scratch[s] = sample[s * dim + (size_t)axis];
        qsort(scratch, count, sizeof(double), compare_doubles);
        value = scratch[k < count ? k : count - 1];
    }
    partition->axis[mid] = axis;
    partition->value[mid] = value;
    left = partition_rows(sample, count, dim, axis, value, scratch + count);
    split_node(partition, sample, left, lo, mid, scratch);
    split_node(partition, sample + left * dim, count - left, mid, hi, scratch);
}

static parac_status gather_samples(MPI_Comm comm, const mpi_points *points, double **all, size_t *all_count,
                                   parac_error *error)
{
    int ranks, *counts, *offsets, total = 0;
    size_t dim = points->dim;
    double *mine = malloc((MPI_KD_SAMPLE_PER_RANK * dim + 1) * sizeof(double));
    int my_values;
    MPI_Comm_size(comm, &ranks);
    counts = malloc((size_t)ranks * sizeof(int));
    offsets = malloc((size_t)ranks * sizeof(int));
    *all = NULL;
    if (!mine || !counts || !offsets) goto no_memory;
    if ((double)MPI_KD_SAMPLE_PER_RANK * (double)dim * (double)ranks > (double)INT_MAX) {
        free(mine), free(counts), free(offsets);
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "mpi: the kd sample of %d ranks x %zu dimensions is too large",
                          ranks, dim);
    }
    my_values = (int)(take_sample(points, mine) * dim);
    MPI_Allgather(&my_values, 1, MPI_INT, counts, 1, MPI_INT, comm);
    for (int r = 0; r < ranks; r++) {
        offsets[r] = total;
        total += counts[r];
    }
    *all = malloc(((size_t)total + 1) * sizeof(double));
    if (!*all) goto no_memory;
    MPI_Allgatherv(mine, my_values, MPI_DOUBLE, *all, counts, offsets, MPI_DOUBLE, comm);
    *all_count = dim ? (size_t)total / dim : 0;
    free(mine), free(counts), free(offsets);
    return PARAC_OK;
no_memory:
    free(mine), free(counts), free(offsets), free(*all);
    *all = NULL;
    return parac_fail_no_memory(error, "kd sample", (unsigned long long)MPI_KD_SAMPLE_PER_RANK * dim * sizeof(double) * 2);
}

parac_status mpi_kd_partition_build(MPI_Comm comm, const mpi_points *points, mpi_kd_partition *partition,
                                    parac_error *error)
{
    double *sample = NULL, *scratch;
    size_t count = 0;
    parac_status status;
    memset(partition, 0, sizeof *partition);
    MPI_Comm_size(comm, &partition->ranks);
    partition->dim = points->dim;
    if ((status = gather_samples(comm, points, &sample, &count, error)) != PARAC_OK) return status;
    partition->axis = calloc((size_t)partition->ranks, sizeof(int));
    partition->value = calloc((size_t)partition->ranks, sizeof(double));
    scratch = malloc((count + points->dim + 1) * sizeof(double));
    if (!partition->axis || !partition->value || !scratch) {
        free(sample), free(scratch);
        mpi_kd_partition_free(partition);
        return parac_fail_no_memory(error, "kd partition", (count + 1) * sizeof(double));
    }
    split_node(partition, sample, count, 0, partition->ranks, scratch);
    free(sample);
    free(scratch);
    return PARAC_OK;
}

void mpi_kd_partition_free(mpi_kd_partition *partition)
{
    free(partition->axis);
    free(partition->value);
    memset(partition, 0, sizeof *partition);
}

/* Within reach of the half-space x[axis] < value (resp. >= value)? The difference is computed as
 * the distance test computes it (a rounded subtraction), so no rounding of a shifted bound enters. */
static int near_left(double x, double value, double reach) { return x < value || x - value <= reach; }
static int near_right(double x, double value, double reach) { return x >= value || value - x <= reach; }

static void visit(const mpi_kd_partition *partition, const double *x, double reach, int lo, int hi, int *ranks,
                  int *found)
{
    int mid = lo + (hi - lo) / 2;
    double coordinate_value;
    if (hi - lo < 2) {
        ranks[(*found)++] = lo;
        return;
    }
    coordinate_value = x[partition->axis[mid]];
    if (near_left(coordinate_value, partition->value[mid], reach)) visit(partition, x, reach, lo, mid, ranks, found);
    if (near_right(coordinate_value, partition->value[mid], reach)) visit(partition, x, reach, mid, hi, ranks, found);
}

int mpi_kd_destinations(const mpi_kd_partition *partition, const double *x, double reach, int *owner, int *ranks)
{
    int found = 0, lo = 0, hi = partition->ranks;
    while (hi - lo >= 2) {
        int mid = lo + (hi - lo) / 2;
        if (x[partition->axis[mid]] < partition->value[mid]) hi = mid;
        else lo = mid;
    }
    *owner = lo;
    visit(partition, x, reach, 0, partition->ranks, ranks, &found);
    return found;
}
