/* mpi/distributed_birch.c — per-rank CF trees merged on rank 0, then the global step (distributed_birch.h). */
#include "mpi/distributed_birch.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "birch/nearest.h"
#include "birch/subcluster_features.h"
#include "core/error.h"
#include "core/finite.h"
#include "core/threads.h"
#include "mpi/cpu_time.h"

/* The block as doubles, as `parac birch` holds its input (float32 widens exactly). */
static parac_status block_as_doubles(const mpi_points *block, mpi_birch *run, parac_error *error)
{
    size_t values = block->count * block->dim;
    const float *narrow = (const float *)block->values;
    run->count = block->count;
    run->dims = block->dim;
    if (block->f64) {
        run->points = (const double *)block->values;
        return PARAC_OK;
    }
    run->owned_points = malloc((values + 1) * sizeof(double));
    if (!run->owned_points) return parac_fail_no_memory(error, "points as doubles", values * sizeof(double));
    for (size_t i = 0; i < values; i++) run->owned_points[i] = (double)narrow[i];
    run->points = run->owned_points;
    return PARAC_OK;
}

/* partial_fit would name the point by its row in this block: check first, naming the global row in
 * the library's words (parac/birch.h says why such coordinates are refused). */
static parac_status check_range(const mpi_birch *run, const char *path, uint64_t first_row, parac_error *error)
{
    size_t values = run->count * run->dims;
    size_t bad = parac_first_beyond(run->points, values, PARAC_BIRCH_MAX_COORDINATE, run->threads);
    if (bad == values) return PARAC_OK;
    return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, path, 0,
                         "birch: point %llu, coordinate %zu is %g: out of the supported range |x| <= %g (squared "
                         "distances would overflow); scale the data",
                      (unsigned long long)(first_row + bad / run->dims), bad % run->dims, run->points[bad],
                      PARAC_BIRCH_MAX_COORDINATE);
}

parac_status mpi_birch_fit_local(const parac_birch_options *options, const mpi_points *block, const char *path,
                                 mpi_birch *run, mpi_birch_info *info, parac_error *error)
{
    double started = MPI_Wtime(), cpu_started = mpi_process_cpu_seconds();
    parac_status status;
    memset(run, 0, sizeof *run);
    memset(info, 0, sizeof *info);
    run->threads = parac_threads_for_lockstep_run(options->exec.threads); /* birch.c: lockstep phases */
    status = block_as_doubles(block, run, error);
    if (status == PARAC_OK) status = check_range(run, path, block->first, error);
    if (status == PARAC_OK) status = parac_birch_create(options, block->dim, &run->model, error);
    if (status == PARAC_OK && run->count > 0)
        status = parac_birch_partial_fit(run->model, run->points, run->count, error);
    if (status == PARAC_OK) info->local_subclusters = parac_birch_subcluster_count(run->model);
    info->seconds_fit = MPI_Wtime() - started;
    info->cpu_seconds_fit = mpi_process_cpu_seconds() - cpu_started;
    return status;
}

/* A rank's subclusters as CFs, in leaf-chain order. */
typedef struct cf_list {
    uint64_t count;
    int64_t *counts;
    double *ssd;
    double *means; /* count x dims */
} cf_list;

static parac_status cf_list_alloc(cf_list *list, uint64_t count, size_t dims, parac_error *error)
{
    list->count = count;
    list->counts = malloc((count + 1) * sizeof(int64_t));
    list->ssd = malloc((count + 1) * sizeof(double));
    list->means = malloc((count * dims + 1) * sizeof(double));
    if (!list->counts || !list->ssd || !list->means)
        return parac_fail_no_memory(error, "subcluster CFs", count * (dims + 2) * 8);
    return PARAC_OK;
}

static void cf_list_free(cf_list *list)
{
    free(list->counts), free(list->ssd), free(list->means);
    memset(list, 0, sizeof *list);
}

/* Rank 0's status, broadcast: its failure stops every rank at the same step (the others return
 * PARAC_OK with failed_everywhere set; the caller's agreement prints rank 0's message). */
static int root_failed(MPI_Comm comm, int rank, parac_status status, mpi_birch *run)
{
    int failed = rank == 0 && status != PARAC_OK;
    MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
    run->failed_everywhere = failed;
    return failed;
}

/* A limit every rank checked on the same numbers: every rank fails alike, no abort needed. */
static parac_status failed_everywhere(mpi_birch *run, parac_status status)
{
    run->failed_everywhere = 1;
    return status;
}

/* MPI counts are int: the entries of all ranks together must stay below 2^31 values a message. */
static parac_status check_int_counts(const uint64_t *sizes, int ranks, size_t dims, parac_error *error)
{
    uint64_t total = 0;
    for (int r = 0; r < ranks; r++) total += sizes[r];
    if (total * (uint64_t)dims > (uint64_t)INT_MAX)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED,
                          "birch: %llu subclusters of %zu coordinates over the ranks: more values than one MPI "
                          "message carries (2^31 - 1); raise --threshold",
                          (unsigned long long)total, dims);
    return PARAC_OK;
}

/* Gathers the subclusters of ranks 1..R-1 on rank 0, in rank order, into *gathered (rank 0 sends
 * none: its tree is the base). Every rank knows every size (all-gathered), so the limit check fails
 * on all ranks alike. */
static parac_status gather_cfs(MPI_Comm comm, mpi_birch *run, cf_list *gathered, uint64_t *gathered_total,
                               parac_error *error)
{
    int rank, ranks;
    uint64_t mine, *sizes;
    int *counts = NULL, *displs = NULL, *value_counts = NULL, *value_displs = NULL, send, send_values;
    cf_list local = {0};
    parac_status status;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    mine = rank == 0 ? 0 : parac_birch_subcluster_count(run->model);
    sizes = malloc((size_t)ranks * sizeof(uint64_t));
    if (!sizes) return parac_fail_no_memory(error, "subcluster counts", (size_t)ranks * 8);
    MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, comm);
    *gathered_total = 0;
    for (int r = 0; r < ranks; r++) *gathered_total += sizes[r];
    if ((status = check_int_counts(sizes, ranks, run->dims, error)) != PARAC_OK) {
        failed_everywhere(run, status);
        goto done;
    }
    if ((status = cf_list_alloc(&local, mine, run->dims, error)) != PARAC_OK) goto done; /* the caller aborts */
    if (rank != 0) birch_model_leaf_features(run->model, local.means, local.counts, local.ssd);
    if (rank == 0) {
        uint64_t total = 0;
        counts = malloc(4 * (size_t)ranks * sizeof(int));
        if (counts) {
            displs = counts + ranks, value_counts = displs + ranks, value_displs = value_counts + ranks;
            for (int r = 0; r < ranks; r++) {
                counts[r] = (int)sizes[r], displs[r] = (int)total;
                value_counts[r] = (int)(sizes[r] * run->dims), value_displs[r] = (int)(total * run->dims);
                total += sizes[r];
            }
            status = cf_list_alloc(gathered, total, run->dims, error);
        } else status = parac_fail_no_memory(error, "gather counts", 16 * (size_t)ranks);
    }
    if (root_failed(comm, rank, status, run)) goto done;
    send = (int)mine, send_values = (int)(mine * run->dims);
    MPI_Gatherv(local.counts, send, MPI_INT64_T, gathered->counts, counts, displs, MPI_INT64_T, 0, comm);
    MPI_Gatherv(local.ssd, send, MPI_DOUBLE, gathered->ssd, counts, displs, MPI_DOUBLE, 0, comm);
    MPI_Gatherv(local.means, send_values, MPI_DOUBLE, gathered->means, value_counts, value_displs, MPI_DOUBLE, 0, comm);
done:
    cf_list_free(&local);
    free(counts);
    free(sizes);
    return status;
}

/* Rank 0: the gathered CFs into its tree, the global step, and the centroids with their clusters. */
static parac_status merge_on_root(mpi_birch *run, const cf_list *gathered, mpi_birch_info *info, parac_error *error)
{
    double started = MPI_Wtime();
    parac_status status =
        birch_model_insert_features(run->model, gathered->means, gathered->counts, gathered->ssd, gathered->count, error);
    info->seconds_insert = MPI_Wtime() - started;
    started = MPI_Wtime();
    if (status == PARAC_OK) status = parac_birch_global_step(run->model, error);
    if (status != PARAC_OK) return status;
    run->subclusters = parac_birch_subcluster_count(run->model);
    run->clusters = parac_birch_cluster_count(run->model);
    run->too_few = parac_birch_too_few_subclusters(run->model);
    run->centers = malloc((run->subclusters * run->dims + 1) * sizeof(double));
    run->cluster_of = malloc((run->subclusters + 1) * sizeof(int32_t));
    if (!run->centers || !run->cluster_of)
        return parac_fail_no_memory(error, "subcluster centroids", run->subclusters * (run->dims + 1) * 8);
    status = parac_birch_subclusters(run->model, run->centers, NULL, run->cluster_of, error);
    info->seconds_global = MPI_Wtime() - started;
    return status;
}

/* Every rank gets the global subclusters' centroids and clusters from rank 0. */
static parac_status broadcast_global(MPI_Comm comm, int rank, mpi_birch *run, parac_error *error)
{
    uint64_t header[3] = {run->subclusters, run->clusters, (uint64_t)run->too_few};
    MPI_Bcast(header, 3, MPI_UINT64_T, 0, comm);
    if (header[0] * run->dims > (uint64_t)INT_MAX) { /* every rank sees the same header */
        parac_fail(error, PARAC_ERR_UNSUPPORTED,
                   "birch: %llu subclusters of %zu coordinates: more values than one MPI message carries (2^31 - 1); "
                   "raise --threshold",
                   (unsigned long long)header[0], run->dims);
        return failed_everywhere(run, error->status);
    }
    if (rank != 0) {
        run->subclusters = header[0], run->clusters = header[1], run->too_few = (int)header[2];
        run->centers = malloc((run->subclusters * run->dims + 1) * sizeof(double));
        run->cluster_of = malloc((run->subclusters + 1) * sizeof(int32_t));
        if (!run->centers || !run->cluster_of) /* rank 0 is broadcasting: the caller aborts */
            return parac_fail_no_memory(error, "subcluster centroids", run->subclusters * (run->dims + 1) * 8);
    }
    MPI_Bcast(run->centers, (int)(run->subclusters * run->dims), MPI_DOUBLE, 0, comm);
    MPI_Bcast(run->cluster_of, (int)run->subclusters, MPI_INT32_T, 0, comm);
    return PARAC_OK;
}

parac_status mpi_birch_merge(MPI_Comm comm, mpi_birch *run, mpi_birch_info *info, parac_error *error)
{
    cf_list gathered = {0};
    int rank;
    double started = MPI_Wtime();
    parac_status status;
    MPI_Comm_rank(comm, &rank);
    status = gather_cfs(comm, run, &gathered, &info->gathered_subclusters, error);
    info->seconds_gather = MPI_Wtime() - started;
    if (status != PARAC_OK || run->failed_everywhere) goto done;
    if (rank == 0) status = merge_on_root(run, &gathered, info, error);
    if (root_failed(comm, rank, status, run)) goto done;
    started = MPI_Wtime();
    status = broadcast_global(comm, rank, run, error);
    info->seconds_broadcast = MPI_Wtime() - started;
done:
    cf_list_free(&gathered);
    return status;
}

parac_status mpi_birch_label(mpi_birch *run, int32_t *labels, mpi_birch_info *info, parac_error *error)
{
    birch_kdtree index;
    double started = MPI_Wtime(), cpu_started = mpi_process_cpu_seconds();
    parac_status status;
    if (run->count == 0) return PARAC_OK;
    status = birch_kdtree_build(&index, run->centers, (size_t)run->subclusters, run->dims, error);
    if (status != PARAC_OK) return status;
    birch_kdtree_nearest_all(&index, run->points, run->count, run->threads, run->cluster_of, labels);
    birch_kdtree_free(&index);
    info->seconds_label = MPI_Wtime() - started;
    info->cpu_seconds_label = mpi_process_cpu_seconds() - cpu_started;
    return PARAC_OK;
}

void mpi_birch_free(mpi_birch *run)
{
    parac_birch_destroy(run->model);
    free(run->owned_points);
    free(run->centers);
    free(run->cluster_of);
    memset(run, 0, sizeof *run);
}
