/* mpi/distributed_dbscan_internal.h — what the phases of the distributed DBSCAN share
 * (distributed_dbscan*.c): the tags on global indices, (first, second) pairs, the routing of one
 * MPI_Alltoallv, the points a rank clusters, and the view of its local run's result. The phases:
 * distributed_dbscan_routing.c (pairs, ranges, routing), _exchange.c (owned + halo points),
 * _merge.c (links between local clusters, roots), _numbering.c (global cluster ids), _return.c
 * (labels back to the ranks that read the points); distributed_dbscan.c runs them.
 */
#ifndef PARAC_MPI_DISTRIBUTED_DBSCAN_INTERNAL_H
#define PARAC_MPI_DISTRIBUTED_DBSCAN_INTERNAL_H

#include "mpi/distributed_dbscan.h"
#include "mpi/kd_partition.h"

#define NO_ROOT UINT64_MAX
/* A point travels with its global index; the top bits say how the receiver holds it. */
#define TAG_OWNED ((uint64_t)1 << 63)  /* the receiver's box holds it */
#define TAG_SHARED ((uint64_t)1 << 62) /* owned here and sent to other ranks as halo too */
#define TAG_INDEX (TAG_SHARED - 1)
#define CORE_BIT ((uint64_t)1 << 63)   /* in the returned (index, label) pairs */

typedef struct pair64 {
    uint64_t first, second;
} pair64;

/* Where the items of one MPI_Alltoallv go, built like a parallel stable counting sort by destination
 * rank: a counting pass fills cursor[range * stride + destination], mpi_dbscan_routing_finish turns the counts
 * into write positions, and the writing pass (same ranges) puts item after item at cursor[...]++.
 * Items for another rank go to the send buffer; this rank's own share is never sent (its MPI counts
 * are 0): with own_in_place its cursors point into the receive buffer, at the slot of source `rank`,
 * so the receive buffer ends up in source order as if it had come through MPI; without, the receive
 * buffer leaves it out and the writing pass puts the own share elsewhere. */
typedef struct routing {
    int ranks, rank, ranges;
    size_t stride; /* cursors per range: ranks rounded up to a cache line, so ranges share none */
    size_t *cursor;
    int *send_counts, *send_offsets, *recv_counts, *recv_offsets;
    size_t send_total, recv_total, own; /* items; recv_total counts the own share only when in place */
} routing;

/* The points this rank clusters: owned and halo, in global index order. */
typedef struct local_points {
    const void *values;  /* count * dim, the input's type */
    uint64_t *tags;      /* global index | TAG_OWNED | TAG_SHARED */
    size_t count;
    void *values_owned;  /* what values points to when malloc'ed here; NULL when it is the block's */
} local_points;

/* What the passes after the local run read: its result and the per-cluster tables. */
typedef struct local_view {
    const local_points *local;
    const int32_t *labels;
    const uint8_t *core;
    const uint64_t *rep, *first_owned, *root; /* per local cluster */
} local_view;

int mpi_dbscan_compare_u64(const void *a, const void *b);
/* Index of key in sorted pairs[count] by first, or count. */
size_t mpi_dbscan_find_pair(const pair64 *pairs, size_t count, uint64_t key);
/* Counts (in elements) to offsets; fails when a total passes MPI's int counts. */
parac_status mpi_dbscan_offsets_of(const int *counts, int ranks, int *offsets, size_t *total, parac_error *error);
/* First item of range `range` of `ranges` over [0, count): equal shares, the first count % ranges one larger. */
size_t mpi_dbscan_range_first(size_t count, int ranges, int range);
/* Lowers *slot to value if value is smaller. Threads racing on one slot leave the minimum, whatever
 * the interleaving, so the result is deterministic. */
void mpi_dbscan_lower_to(uint64_t *slot, uint64_t value);
void mpi_dbscan_routing_free(routing *route);
parac_status mpi_dbscan_routing_alloc(MPI_Comm comm, int ranges, routing *route, parac_error *error);
/* Collective. With the counts of the counting pass in cursor[]: exchanges the counts, computes the
 * offsets of both sides and turns the counts into write positions. */
parac_status mpi_dbscan_routing_finish(MPI_Comm comm, routing *route, int own_in_place, parac_error *error);
/* Sends every point to its owner and halo ranks. Sources are taken in rank order (this rank's own
 * share written in its slot) and each source's block is a contiguous, increasing index range, so what
 * arrives is in index order. */
parac_status mpi_dbscan_exchange_points(MPI_Comm comm, const mpi_points *block, const mpi_kd_partition *partition,
                                        double reach, int threads, local_points *local, parac_error *error);
void mpi_dbscan_local_free(local_points *local);
size_t mpi_dbscan_count_owned(const local_points *local, int threads);
/* Per local cluster c: rep[c] = global index of its lowest core point (its representative),
 * first_owned[c] = of its lowest owned point, NO_ROOT when this rank owns none of it. Local order is
 * global order; the threads lower both with an atomic minimum. */
void mpi_dbscan_cluster_firsts(const local_points *local, const int32_t *labels, const uint8_t *core, size_t clusters,
                               int threads, uint64_t *rep, uint64_t *first_owned);
/* The lowest owned point of its cluster: where the cluster's numbering item is emitted. */
int mpi_dbscan_opens_cluster(const local_view *view, size_t i);
/* Where each range's kept points go in a list of all kept points in local order: start[range],
 * start[ranges] = how many in all. NULL when out of memory. The writing pass walks the same ranges. */
size_t *mpi_dbscan_kept_starts(const local_view *view, int ranges, int (*keep)(const local_view *, size_t));
/* The links in local order; *links is malloc'ed. */
parac_status mpi_dbscan_collect_links(const local_view *view, int threads, pair64 **links, size_t *count,
                                      parac_error *error);
/* Gathers every rank's links on rank 0, unions them, broadcasts the (key, root) table. */
parac_status mpi_dbscan_merge_links(MPI_Comm comm, MPI_Datatype pair_type, const pair64 *links, size_t count,
                                    pair64 **table, size_t *table_count, uint64_t *links_total, parac_error *error);
/* Final root of every local cluster: its representative, resolved through the table. */
void mpi_dbscan_roots_of_clusters(const uint64_t *rep, size_t clusters, const pair64 *table, size_t table_count,
                                  int threads, uint64_t *root_of_cluster);
/* Collective: the id of every local cluster this rank owns points of (-1 for the others). Each rank
 * sends its numbering items; rank 0 numbers them and scatters the ids back. */
parac_status mpi_dbscan_number_local_clusters(MPI_Comm comm, MPI_Datatype pair_type, const local_view *view,
                                              size_t clusters, int threads, int32_t *id_of_cluster,
                                              uint64_t *clusters_total, parac_error *error);
/* Collective: every owned point's label and core flag go to the rank whose block holds it. */
parac_status mpi_dbscan_return_labels(MPI_Comm comm, MPI_Datatype pair_type, const local_points *local,
                                      const int32_t *local_labels, const uint8_t *local_core, const int32_t *id_of_cluster,
                                      const mpi_points *block, int threads, int32_t *labels, uint8_t *core_mask,
                                      parac_error *error);

#endif
