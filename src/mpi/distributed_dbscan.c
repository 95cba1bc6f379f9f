/* mpi/distributed_dbscan.c — partition, halo exchange, local DBSCAN, merge, numbering, return (distributed_dbscan.h).
 *
 * Every per-point loop runs on the rank's threads over fixed ranges of its points
 * (mpi_dbscan_range_first): a loop's counting pass and its writing pass split the points the same way,
 * so what each rank builds is the one stable order whatever its thread count. A rank's share for itself
 * never goes through MPI: it is written straight where the receiver keeps it (one rank sends nothing
 * at all).
 *
 * This file runs the phases (mpi_dbscan_run) and the local DBSCAN; the phases themselves are in
 * distributed_dbscan_{exchange,merge,numbering,return}.c over distributed_dbscan_routing.c, their
 * shared types in distributed_dbscan_internal.h. */
#include "mpi/distributed_dbscan.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/threads.h"
#include "mpi/cpu_time.h"
#include "mpi/distributed_dbscan_internal.h"
#include "mpi/kd_partition.h"

/* ------------------------------------------------------------------ the run */

/* CPU seconds of this process (all its threads): the work a phase did, whatever else loads the machine. */
static parac_status run_local(const parac_dbscan_options *options, const mpi_points *block, const local_points *local,
                              int32_t **labels, uint8_t **core, parac_dbscan_info *info, parac_error *error)
{
    *labels = malloc((local->count + 1) * sizeof(int32_t));
    *core = malloc(local->count + 1);
    if (!*labels || !*core) return parac_fail_no_memory(error, "mpi dbscan local labels", (unsigned long long)local->count * 5);
    if (block->f64) return parac_dbscan_run(options, local->values, local->count, block->dim, *labels, *core, info, error);
    return parac_dbscan_run_f32(options, local->values, local->count, block->dim, *labels, *core, info, error);
}

static void count_results(MPI_Comm comm, const mpi_points *block, const int32_t *labels, const uint8_t *core,
                          int threads, mpi_dbscan_info *info)
{
    uint64_t mine[2] = {0, 0}, sums[2], core_count = 0, noise_count = 0;
#pragma omp parallel for reduction(+ : core_count, noise_count) num_threads(threads)
    for (size_t i = 0; i < block->count; i++) {
        core_count += core[i];
        noise_count += labels[i] == PARAC_DBSCAN_NOISE;
    }
    mine[0] = core_count;
    mine[1] = noise_count;
    MPI_Allreduce(mine, sums, 2, MPI_UINT64_T, MPI_SUM, comm);
    info->core = sums[0];
    info->noise = sums[1];
    info->border = block->total - sums[0] - sums[1];
    MPI_Allreduce(&info->halo, &info->halo_total, 1, MPI_UINT64_T, MPI_SUM, comm);
}

/* The per-cluster arrays of the merge and the numbering. */
typedef struct cluster_tables {
    uint64_t *rep, *first_owned, *root;
    int32_t *id;
} cluster_tables;

static void cluster_tables_free(cluster_tables *tables)
{
    free(tables->rep);
    free(tables->first_owned);
    free(tables->root);
    free(tables->id);
    memset(tables, 0, sizeof *tables);
}

static parac_status cluster_tables_alloc(cluster_tables *tables, size_t clusters, parac_error *error)
{
    tables->rep = malloc((clusters + 1) * sizeof(uint64_t));
    tables->first_owned = malloc((clusters + 1) * sizeof(uint64_t));
    tables->root = malloc((clusters + 1) * sizeof(uint64_t));
    tables->id = malloc((clusters + 1) * sizeof(int32_t));
    if (tables->rep && tables->first_owned && tables->root && tables->id) return PARAC_OK;
    cluster_tables_free(tables);
    return parac_fail_no_memory(error, "mpi dbscan cluster tables", (unsigned long long)clusters * 28);
}

/* Merge and numbering: the final id of every local cluster that this rank owns points of. */
static parac_status resolve_clusters(MPI_Comm comm, MPI_Datatype pair_type, const local_points *local,
                                     const int32_t *local_labels, const uint8_t *local_core, int threads,
                                     cluster_tables *tables, mpi_dbscan_info *info, parac_error *error)
{
    size_t clusters = info->local.clusters, link_count = 0, table_count = 0;
    pair64 *links = NULL, *table = NULL;
    double clock = MPI_Wtime();
    parac_status status = cluster_tables_alloc(tables, clusters, error);
    if (status != PARAC_OK) return status;
    local_view view = {local, local_labels, local_core, tables->rep, tables->first_owned, tables->root};
    mpi_dbscan_cluster_firsts(local, local_labels, local_core, clusters, threads, tables->rep, tables->first_owned);
    if ((status = mpi_dbscan_collect_links(&view, threads, &links, &link_count, error)) != PARAC_OK) goto done;
    info->merge_links = link_count;
    status = mpi_dbscan_merge_links(comm, pair_type, links, link_count, &table, &table_count, &info->links_total, error);
    if (status != PARAC_OK) goto done;
    mpi_dbscan_roots_of_clusters(tables->rep, clusters, table, table_count, threads, tables->root);
    info->seconds_merge = MPI_Wtime() - clock, clock = MPI_Wtime();
    status = mpi_dbscan_number_local_clusters(comm, pair_type, &view, clusters, threads, tables->id, &info->clusters, error);
    info->seconds_relabel = MPI_Wtime() - clock;
done:
    free(links);
    free(table);
    return status;
}

parac_status mpi_dbscan_run(MPI_Comm comm, const parac_dbscan_options *options, const mpi_points *block,
                            int32_t *labels, uint8_t *core_mask, mpi_dbscan_info *info, parac_error *error)
{
    mpi_kd_partition partition;
    parac_dbscan_options local_options = *options;
    local_points local = {0};
    int32_t *local_labels = NULL;
    uint8_t *local_core = NULL;
    cluster_tables tables = {0};
    MPI_Datatype pair_type;
    double reach = 3.0 * options->eps, clock = MPI_Wtime();
    int threads = parac_threads_for_run(options->exec.threads); /* once: the local run gets the same team */
    parac_status status;
    memset(info, 0, sizeof *info);
    local_options.exec.threads = threads;
    MPI_Type_contiguous(2, MPI_UINT64_T, &pair_type);
    MPI_Type_commit(&pair_type);
    if ((status = mpi_kd_partition_build(comm, block, &partition, error)) != PARAC_OK) goto done;
    info->seconds_partition = MPI_Wtime() - clock, clock = MPI_Wtime();
    status = mpi_dbscan_exchange_points(comm, block, &partition, reach, threads, &local, error);
    mpi_kd_partition_free(&partition);
    if (status != PARAC_OK) goto done;
    info->owned = mpi_dbscan_count_owned(&local, threads);
    info->halo = local.count - info->owned;
    info->seconds_exchange = MPI_Wtime() - clock, clock = MPI_Wtime();
    info->cpu_seconds_local = mpi_process_cpu_seconds();
    if ((status = run_local(&local_options, block, &local, &local_labels, &local_core, &info->local, error)) != PARAC_OK)
        goto done;
    info->cpu_seconds_local = mpi_process_cpu_seconds() - info->cpu_seconds_local;
    info->seconds_local = MPI_Wtime() - clock;
    status = resolve_clusters(comm, pair_type, &local, local_labels, local_core, threads, &tables, info, error);
    if (status != PARAC_OK) goto done;
    clock = MPI_Wtime();
    status = mpi_dbscan_return_labels(comm, pair_type, &local, local_labels, local_core, tables.id, block, threads, labels,
                                      core_mask, error);
    if (status != PARAC_OK) goto done;
    count_results(comm, block, labels, core_mask, threads, info);
    info->seconds_return = MPI_Wtime() - clock;
done:
    MPI_Type_free(&pair_type);
    mpi_dbscan_local_free(&local);
    free(local_labels);
    free(local_core);
    cluster_tables_free(&tables);
    return status;
}
