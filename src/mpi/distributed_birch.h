/* mpi/distributed_birch.h — BIRCH over the ranks of an MPI communicator: per-rank CF trees merged by
 * CF additivity into one tree, then `parac birch`'s global step.
 *
 * The phases (docs/DISTRIBUTED.md):
 *   1. local fit (mpi_birch_fit_local, not collective): each rank builds a CF tree on its block with
 *      parac_birch_partial_fit (CPU threads or the GPU, as options.exec allows);
 *   2. merge (mpi_birch_merge, collective): the subclusters of ranks 1..R-1, as CFs (count, mean,
 *      sum of squared deviations), are gathered on rank 0 in rank order and inserted, each as one
 *      entry, into rank 0's tree (birch/subcluster_features.h); rank 0 runs the global step (Ward
 *      into options.n_clusters) and broadcasts the subcluster centroids and their clusters;
 *   3. labels (mpi_birch_label, not collective): every rank gives each of its points the cluster of
 *      its nearest subcluster centroid, the rule and code of parac_birch_predict (CPU k-d tree).
 * With one rank nothing is inserted: the tree, the clusters and the labels are `parac birch`'s, byte
 * for byte. With more, a subcluster merges with another rank's only when their union's radius stays
 * within the threshold, so the global tree has more, and other, subclusters than one process's
 * insertion builds, and Ward groups other centroids: the partition is close to, not equal to, the
 * serial one (docs/DISTRIBUTED.md gives the measured agreement).
 *
 * Errors are returned, never printed. Rank 0's failures in the merge (memory, the global step) are
 * broadcast (mpi_birch_merge returns PARAC_OK on the other ranks) and the message-size limits are
 * checked by every rank on the same numbers: both set run->failed_everywhere, and the caller agrees
 * on them (mpi_cli_agree). Any other failure inside the merge (a rank's memory for its CFs or the
 * centroids) leaves the others in a collective: the caller must MPI_Abort.
 */
#ifndef PARAC_MPI_DISTRIBUTED_BIRCH_H
#define PARAC_MPI_DISTRIBUTED_BIRCH_H

#include <mpi.h>
#include <stdint.h>

#include <parac/birch.h>

#include "mpi/npy_block.h"

/* One rank's state across the phases. */
typedef struct mpi_birch {
    parac_birch *model;   /* this rank's tree; on rank 0 after the merge the global tree and step */
    const double *points; /* the block as doubles (owned_points when the file holds float32) */
    double *owned_points;
    size_t count, dims;
    int threads;          /* for the labels */
    double *centers;      /* after the merge, every rank: the global subcluster centroids (subclusters x dims) */
    int32_t *cluster_of;  /* their clusters */
    uint64_t subclusters, clusters;
    int too_few;          /* fewer subclusters than n_clusters: each is a cluster */
    int failed_everywhere; /* the merge stopped on every rank alike: rank 0 failed (its error says why), or a
                              limit every rank checked on the same numbers */
} mpi_birch;

/* What the run did (on every rank, except where said) and cost on this rank. */
typedef struct mpi_birch_info {
    uint64_t local_subclusters;    /* this rank's tree after the local fit */
    uint64_t gathered_subclusters; /* CFs of ranks 1..R-1 inserted into rank 0's tree */
    double seconds_fit, seconds_gather, seconds_insert, seconds_global, seconds_broadcast, seconds_label;
    double cpu_seconds_fit;        /* CPU time of this rank's local fit (all its threads) */
    double cpu_seconds_label;      /* and of its labelling */
} mpi_birch_info;

/* Builds this rank's tree on its block (the points are converted to double when they are float32).
 * Coordinates beyond PARAC_BIRCH_MAX_COORDINATE fail with INVALID_ARGUMENT naming path and the global
 * point, as `parac birch` names them; a bad option fails as parac_birch_create does. Not collective. */
parac_status mpi_birch_fit_local(const parac_birch_options *options, const mpi_points *block, const char *path,
                                 mpi_birch *run, mpi_birch_info *info, parac_error *error);

/* Collective: phase 2 (see the head comment for what a failure means). */
parac_status mpi_birch_merge(MPI_Comm comm, mpi_birch *run, mpi_birch_info *info, parac_error *error);

/* Phase 3: labels[0..run->count-1] of this rank's block. NO_MEMORY. Not collective. */
parac_status mpi_birch_label(mpi_birch *run, int32_t *labels, mpi_birch_info *info, parac_error *error);

void mpi_birch_free(mpi_birch *run);

#endif
