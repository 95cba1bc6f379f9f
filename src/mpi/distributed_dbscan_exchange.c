/* mpi/distributed_dbscan_exchange.c — phase 2 of the distributed DBSCAN: every point of the block
 * goes to its owner box's rank and, as halo, to every rank whose box lies within reach of it
 * (MPI_Alltoallv); the received points are this rank's local points, in global index order.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "mpi/distributed_dbscan_internal.h"

/* ------------------------------------------------------------------ exchange */

/* The two passes over the block: per-range scratch (a row as doubles, its destination ranks), and what
 * the counting pass learnt of each row: its one destination, or -1 when it goes to several (a halo
 * point, a few per cent of them), so the writing pass walks the kd tree again only for those. */
typedef struct route_scratch {
    double *x;         /* [range * (dim + 1)] */
    int *destinations; /* [range * ranks] */
    int32_t *only_destination; /* [row] */
} route_scratch;

/* The ranks that need block row `row` (its owner's box holds it: *owner). */
static int row_destinations(const mpi_points *block, const mpi_kd_partition *partition, double reach, size_t row,
                            double *x, int *owner, int *destinations)
{
    for (size_t a = 0; a < block->dim; a++)
        x[a] = block->f64 ? ((const double *)block->values)[row * block->dim + a]
                          : (double)((const float *)block->values)[row * block->dim + a];
    return mpi_kd_destinations(partition, x, reach, owner, destinations);
}

static void count_destinations(const mpi_points *block, const mpi_kd_partition *partition, double reach,
                               routing *route, const route_scratch *scratch)
{
#pragma omp parallel for schedule(static, 1) num_threads(route->ranges)
    for (int range = 0; range < route->ranges; range++) {
        double *x = scratch->x + (size_t)range * (block->dim + 1);
        int *destinations = scratch->destinations + (size_t)range * (size_t)route->ranks, owner;
        size_t *count = route->cursor + (size_t)range * route->stride;
        size_t end = mpi_dbscan_range_first(block->count, route->ranges, range + 1);
        for (size_t i = mpi_dbscan_range_first(block->count, route->ranges, range); i < end; i++) {
            int found = row_destinations(block, partition, reach, i, x, &owner, destinations);
            for (int k = 0; k < found; k++) count[destinations[k]]++;
            scratch->only_destination[i] = found == 1 ? destinations[0] : -1;
        }
    }
}

/* Puts row i with its tag at the next position for rank `to`: the send buffers, or for this rank
 * straight into local. */
static void place_row(const mpi_points *block, size_t i, int to, uint64_t tag, size_t row_bytes, routing *route,
                      size_t *cursor, char *send_rows, uint64_t *send_tags, local_points *local)
{
    int mine = to == route->rank;
    size_t at = cursor[to]++;
    memcpy((mine ? (char *)local->values_owned : send_rows) + at * row_bytes, (const char *)block->values + i * row_bytes,
           row_bytes);
    (mine ? local->tags : send_tags)[at] = tag;
}

/* The writing pass, over the counting pass's ranges. */
static void scatter_points(const mpi_points *block, const mpi_kd_partition *partition, double reach, routing *route,
                           const route_scratch *scratch, char *send_rows, uint64_t *send_tags, local_points *local)
{
    size_t row_bytes = block->dim * (block->f64 ? sizeof(double) : sizeof(float));
#pragma omp parallel for schedule(static, 1) num_threads(route->ranges)
    for (int range = 0; range < route->ranges; range++) {
        double *x = scratch->x + (size_t)range * (block->dim + 1);
        int *destinations = scratch->destinations + (size_t)range * (size_t)route->ranks, owner;
        size_t *cursor = route->cursor + (size_t)range * route->stride;
        size_t end = mpi_dbscan_range_first(block->count, route->ranges, range + 1);
        for (size_t i = mpi_dbscan_range_first(block->count, route->ranges, range); i < end; i++) {
            int found, only = scratch->only_destination[i];
            if (only >= 0) { /* its owner only */
                place_row(block, i, only, (block->first + i) | TAG_OWNED, row_bytes, route, cursor, send_rows,
                          send_tags, local);
                continue;
            }
            found = row_destinations(block, partition, reach, i, x, &owner, destinations);
            for (int k = 0; k < found; k++) {
                uint64_t tag = (block->first + i) | (destinations[k] == owner ? TAG_OWNED | TAG_SHARED : 0);
                place_row(block, i, destinations[k], tag, row_bytes, route, cursor, send_rows, send_tags, local);
            }
        }
    }
}

/* One rank: its points are the block itself, in order, all owned and none shared; they are used in
 * place (no copy of the coordinates), only the tags are written. */
static parac_status keep_block(const mpi_points *block, int threads, local_points *local, parac_error *error)
{
    local->values = block->values;
    local->count = block->count;
    if (!(local->tags = malloc((block->count + 1) * sizeof(uint64_t))))
        return parac_fail_no_memory(error, "mpi dbscan local points", (unsigned long long)block->count * 8);
#pragma omp parallel for num_threads(threads)
    for (size_t i = 0; i < block->count; i++) local->tags[i] = (block->first + i) | TAG_OWNED;
    return PARAC_OK;
}

/* Sends every point to its owner and halo ranks. Sources are taken in rank order (this rank's own
 * share written in its slot) and each source's block is a contiguous, increasing index range, so what
 * arrives is in index order. */
parac_status mpi_dbscan_exchange_points(MPI_Comm comm, const mpi_points *block, const mpi_kd_partition *partition,
                                        double reach, int threads, local_points *local, parac_error *error)
{
    size_t row_bytes = block->dim * (block->f64 ? sizeof(double) : sizeof(float));
    routing route;
    route_scratch scratch = {0};
    char *send_rows = NULL;
    uint64_t *send_tags = NULL;
    MPI_Datatype row_type;
    parac_status status;
    memset(local, 0, sizeof *local);
    if (partition->ranks == 1) return keep_block(block, threads, local, error);
    if ((status = mpi_dbscan_routing_alloc(comm, threads, &route, error)) != PARAC_OK) return status;
    scratch.x = malloc((size_t)threads * (block->dim + 1) * sizeof(double));
    scratch.destinations = malloc((size_t)threads * (size_t)route.ranks * sizeof(int));
    scratch.only_destination = malloc((block->count + 1) * sizeof(int32_t));
    if (!scratch.x || !scratch.destinations || !scratch.only_destination) {
        status = parac_fail_no_memory(error, "mpi dbscan exchange", (unsigned long long)block->count * 4);
        goto done;
    }
    count_destinations(block, partition, reach, &route, &scratch);
    if ((status = mpi_dbscan_routing_finish(comm, &route, 1, error)) != PARAC_OK) goto done;
    send_rows = malloc(route.send_total * row_bytes + 1);
    send_tags = malloc((route.send_total + 1) * sizeof(uint64_t));
    local->values = local->values_owned = malloc(route.recv_total * row_bytes + 1);
    local->tags = malloc((route.recv_total + 1) * sizeof(uint64_t));
    local->count = route.recv_total;
    if (!send_rows || !send_tags || !local->values || !local->tags) {
        status = parac_fail_no_memory(error, "mpi dbscan exchange buffers",
                                      (unsigned long long)(route.send_total + route.recv_total) * (row_bytes + 8));
        goto done;
    }
    scatter_points(block, partition, reach, &route, &scratch, send_rows, send_tags, local);
    MPI_Type_contiguous((int)(row_bytes ? row_bytes : 1), MPI_BYTE, &row_type);
    MPI_Type_commit(&row_type);
    MPI_Alltoallv(send_rows, route.send_counts, route.send_offsets, row_type, local->values_owned, route.recv_counts,
                  route.recv_offsets, row_type, comm);
    MPI_Alltoallv(send_tags, route.send_counts, route.send_offsets, MPI_UINT64_T, local->tags, route.recv_counts,
                  route.recv_offsets, MPI_UINT64_T, comm);
    MPI_Type_free(&row_type);
done:
    free(scratch.x);
    free(scratch.destinations);
    free(scratch.only_destination);
    free(send_rows);
    free(send_tags);
    mpi_dbscan_routing_free(&route);
    return status;
}

void mpi_dbscan_local_free(local_points *local)
{
    free(local->values_owned);
    free(local->tags);
    memset(local, 0, sizeof *local);
}

size_t mpi_dbscan_count_owned(const local_points *local, int threads)
{
    size_t owned = 0;
#pragma omp parallel for reduction(+ : owned) num_threads(threads)
    for (size_t i = 0; i < local->count; i++) owned += (local->tags[i] & TAG_OWNED) != 0;
    return owned;
}
