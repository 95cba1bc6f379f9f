/* mpi/distributed_dbscan_return.c — phase 6 of the distributed DBSCAN: each owned point's label
 * and core flag go back to the rank that read it (MPI_Alltoallv), the own share written in place.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "mpi/distributed_dbscan_internal.h"

/* ------------------------------------------------------------------ return */

/* The block owner of indices met in increasing order (local points are in index order): a division
 * only when the block changes. */
typedef struct block_walk {
    int owner;         /* -1 before the first index */
    uint64_t owner_end; /* one past the owner's last index */
} block_walk;

static int block_owner_of(const mpi_points *block, int ranks, uint64_t index, block_walk *walk)
{
    if (walk->owner < 0 || index >= walk->owner_end) {
        walk->owner = mpi_block_owner(block->total, ranks, index);
        walk->owner_end = mpi_block_first(block->total, ranks, walk->owner + 1);
    }
    return walk->owner;
}

static int32_t final_label(const int32_t *local_labels, const int32_t *id_of_cluster, size_t i)
{
    return local_labels[i] < 0 ? PARAC_DBSCAN_NOISE : id_of_cluster[local_labels[i]];
}

static void count_returns(const local_points *local, const mpi_points *block, routing *route)
{
#pragma omp parallel for schedule(static, 1) num_threads(route->ranges)
    for (int range = 0; range < route->ranges; range++) {
        size_t *count = route->cursor + (size_t)range * route->stride;
        size_t end = mpi_dbscan_range_first(local->count, route->ranges, range + 1);
        block_walk walk = {-1, 0};
        for (size_t i = mpi_dbscan_range_first(local->count, route->ranges, range); i < end; i++)
            if (local->tags[i] & TAG_OWNED)
                count[block_owner_of(block, route->ranks, local->tags[i] & TAG_INDEX, &walk)]++;
    }
}

/* The writing pass: (index | core, label) pairs for other ranks; this rank's own points straight into
 * its block's labels and core mask. */
static void scatter_returns(const local_points *local, const int32_t *local_labels, const uint8_t *local_core,
                            const int32_t *id_of_cluster, const mpi_points *block, routing *route, pair64 *send,
                            int32_t *labels, uint8_t *core_mask)
{
#pragma omp parallel for schedule(static, 1) num_threads(route->ranges)
    for (int range = 0; range < route->ranges; range++) {
        size_t *cursor = route->cursor + (size_t)range * route->stride;
        size_t end = mpi_dbscan_range_first(local->count, route->ranges, range + 1);
        block_walk walk = {-1, 0};
        for (size_t i = mpi_dbscan_range_first(local->count, route->ranges, range); i < end; i++) {
            uint64_t index = local->tags[i] & TAG_INDEX;
            int to;
            if (!(local->tags[i] & TAG_OWNED)) continue;
            to = block_owner_of(block, route->ranks, index, &walk);
            if (to == route->rank) {
                labels[index - block->first] = final_label(local_labels, id_of_cluster, i);
                core_mask[index - block->first] = local_core[i];
            } else {
                size_t at = cursor[to]++;
                send[at].first = index | (local_core[i] ? CORE_BIT : 0);
                send[at].second = (uint64_t)(uint32_t)final_label(local_labels, id_of_cluster, i);
            }
        }
    }
}

/* Collective: every owned point's label and core flag go to the rank whose block holds it. */
parac_status mpi_dbscan_return_labels(MPI_Comm comm, MPI_Datatype pair_type, const local_points *local,
                                      const int32_t *local_labels, const uint8_t *local_core, const int32_t *id_of_cluster,
                                      const mpi_points *block, int threads, int32_t *labels, uint8_t *core_mask,
                                      parac_error *error)
{
    routing route;
    pair64 *send = NULL, *received = NULL;
    parac_status status = mpi_dbscan_routing_alloc(comm, threads, &route, error);
    if (status != PARAC_OK) return status;
    count_returns(local, block, &route);
    if ((status = mpi_dbscan_routing_finish(comm, &route, 0, error)) != PARAC_OK) goto done;
    send = malloc((route.send_total + 1) * sizeof(pair64));
    received = malloc((route.recv_total + 1) * sizeof(pair64));
    if (!send || !received) {
        status = parac_fail_no_memory(error, "mpi dbscan labels", (unsigned long long)(route.send_total + route.recv_total) * 16);
        goto done;
    }
    scatter_returns(local, local_labels, local_core, id_of_cluster, block, &route, send, labels, core_mask);
    MPI_Alltoallv(send, route.send_counts, route.send_offsets, pair_type, received, route.recv_counts,
                  route.recv_offsets, pair_type, comm);
    if (route.recv_total + route.own != block->count) { /* every point has exactly one owner */
        status = parac_fail(error, PARAC_ERR_INTERNAL, "mpi dbscan: %zu of %zu block points came back",
                            route.recv_total + route.own, block->count);
        goto done;
    }
#pragma omp parallel for num_threads(threads)
    for (size_t k = 0; k < route.recv_total; k++) { /* indices differ: no two writes meet */
        size_t at = (size_t)((received[k].first & ~CORE_BIT) - block->first);
        labels[at] = (int32_t)(uint32_t)received[k].second;
        core_mask[at] = (received[k].first & CORE_BIT) != 0;
    }
done:
    free(send);
    free(received);
    mpi_dbscan_routing_free(&route);
    return status;
}
