/* mpi/distributed_dbscan.h — exact DBSCAN over the ranks of an MPI communicator.
 *
 * Collective: every rank passes its block of the input (mpi_points_read_block)
 * and the same options, and gets the labels and core flags of its block,
 * byte-identical to parac_dbscan_run on the whole input in one process (same
 * cluster ids, same border rule, same noise). docs/DISTRIBUTED.md describes
 * the phases:
 *   1. partition: kd-style boxes balanced by a sample (mpi/kd_partition.h);
 *   2. exchange (MPI_Alltoallv): every point goes to its owner box's rank and,
 *      as halo, to every rank whose box lies within 3 eps of it;
 *   3. local DBSCAN on owned + halo points with parac_dbscan_run (CPU, or the
 *      GPU when the build and options.exec allow it);
 *   4. merge: core points seen on several ranks link the local clusters that
 *      hold them; rank 0 unions the links and broadcasts the roots;
 *   5. numbering: per local cluster, (root, lowest owned point) goes to rank 0,
 *      which numbers the clusters by their lowest point index and scatters the
 *      ids back;
 *   6. return: each owned point's label and core flag go back to the rank that
 *      read it (MPI_Alltoallv).
 * The per-point loops of 2, 4 and 6 run on options->exec.threads threads (the
 * count resolved once, the local run gets the same), and a rank's share for
 * itself is written in place, never sent.
 * Why the local run is exact for owned points: a halo of 2 eps (3 eps leaves
 * room for rounding) holds every neighbour of an owned point and all of that
 * neighbour's neighbours, so owned points and their neighbours have their whole
 * neighbourhood: their core flags, core-core edges and lowest-index core
 * neighbour are those of the whole input. A point counted core on a subset is
 * core (a subset only loses neighbours), so no rank invents a core point or edge.
 *
 * Errors are returned, never printed. A failure on one rank (memory, device)
 * leaves the others inside a collective: the caller must MPI_Abort.
 */
#ifndef PARAC_MPI_DISTRIBUTED_DBSCAN_H
#define PARAC_MPI_DISTRIBUTED_DBSCAN_H

#include <mpi.h>
#include <stdint.h>

#include <parac/dbscan.h>

#include "mpi/npy_block.h"

/* What the run found (the same on every rank) and what it cost on this rank. */
typedef struct mpi_dbscan_info {
    uint64_t clusters, core, border, noise;
    uint64_t owned;          /* points whose box is this rank's */
    uint64_t halo;           /* points received as halo */
    uint64_t merge_links;    /* (point, cluster) links this rank sent to rank 0 */
    uint64_t halo_total;     /* halo points over all ranks */
    uint64_t links_total;    /* links over all ranks */
    double seconds_partition, seconds_exchange, seconds_local, seconds_merge, seconds_return;
    double seconds_relabel;    /* the numbering (phase 5), which runs before the return */
    double cpu_seconds_local;  /* CPU time of this rank's local run (all its threads) */
    parac_dbscan_info local; /* the local run's report */
} mpi_dbscan_info;

parac_status mpi_dbscan_run(MPI_Comm comm, const parac_dbscan_options *options, const mpi_points *block,
                            int32_t *labels, uint8_t *core_mask, mpi_dbscan_info *info, parac_error *error);

#endif
