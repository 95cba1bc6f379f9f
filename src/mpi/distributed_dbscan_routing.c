/* mpi/distributed_dbscan_routing.c — the distributed DBSCAN's small shared tools: sorted (first,
 * second) pairs, MPI offsets, fixed thread ranges, an atomic minimum, and the routing of one
 * MPI_Alltoallv (a parallel stable counting sort by destination rank, the own share in place).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/range_offsets.h"
#include "mpi/distributed_dbscan_internal.h"

int mpi_dbscan_compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Index of key in sorted pairs[count] by first, or count. */
size_t mpi_dbscan_find_pair(const pair64 *pairs, size_t count, uint64_t key)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pairs[mid].first < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < count && pairs[lo].first == key ? lo : count;
}

/* Counts (in elements) to offsets; fails when a total passes MPI's int counts. */
parac_status mpi_dbscan_offsets_of(const int *counts, int ranks, int *offsets, size_t *total, parac_error *error)
{
    size_t sum = 0;
    for (int r = 0; r < ranks; r++) {
        offsets[r] = (int)sum;
        sum += (size_t)counts[r];
        if (sum > INT_MAX)
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                              "mpi dbscan: more than 2^31 - 1 items for one rank in one exchange; use more ranks");
    }
    *total = sum;
    return PARAC_OK;
}

/* First item of range `range` of `ranges` over [0, count): equal shares, the first count % ranges one larger. */
size_t mpi_dbscan_range_first(size_t count, int ranges, int range)
{
    size_t base = count / (size_t)ranges, extra = count % (size_t)ranges, r = (size_t)range;
    return r * base + (r < extra ? r : extra);
}

/* Lowers *slot to value if value is smaller. Threads racing on one slot leave the minimum, whatever
 * the interleaving, so the result is deterministic. */
void mpi_dbscan_lower_to(uint64_t *slot, uint64_t value)
{
    uint64_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (value < seen && !__atomic_compare_exchange_n(slot, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* ------------------------------------------------------------------ routing */

void mpi_dbscan_routing_free(routing *route)
{
    free(route->cursor);
    free(route->send_counts);
    free(route->send_offsets);
    free(route->recv_counts);
    free(route->recv_offsets);
    memset(route, 0, sizeof *route);
}

parac_status mpi_dbscan_routing_alloc(MPI_Comm comm, int ranges, routing *route, parac_error *error)
{
    memset(route, 0, sizeof *route);
    MPI_Comm_size(comm, &route->ranks);
    MPI_Comm_rank(comm, &route->rank);
    route->ranges = ranges;
    route->stride = ((size_t)route->ranks + 7) / 8 * 8;
    route->cursor = calloc((size_t)ranges * route->stride, sizeof(size_t));
    route->send_counts = calloc((size_t)route->ranks, sizeof(int));
    route->send_offsets = calloc((size_t)route->ranks, sizeof(int));
    route->recv_counts = calloc((size_t)route->ranks, sizeof(int));
    route->recv_offsets = calloc((size_t)route->ranks, sizeof(int));
    if (route->cursor && route->send_counts && route->send_offsets && route->recv_counts && route->recv_offsets)
        return PARAC_OK;
    mpi_dbscan_routing_free(route);
    return parac_fail_no_memory(error, "mpi exchange routing", (unsigned long long)ranges * (unsigned long long)route->ranks * 8);
}

/* Collective. With the counts of the counting pass in cursor[]: exchanges the counts, computes the
 * offsets of both sides and turns the counts into write positions. */
parac_status mpi_dbscan_routing_finish(MPI_Comm comm, routing *route, int own_in_place, parac_error *error)
{
    int ranks = route->ranks, rank = route->rank;
    size_t *bucket_first = malloc(((size_t)ranks + 1) * sizeof(size_t));
    parac_status status = PARAC_OK;
    if (!bucket_first) status = parac_fail_no_memory(error, "mpi exchange routing", (unsigned long long)ranks * 8);
    else parac_range_counts_to_offsets(route->cursor, (size_t)ranks, route->ranges, route->stride, bucket_first);
    for (int r = 0; r < ranks && status == PARAC_OK; r++) {
        size_t count = bucket_first[r + 1] - bucket_first[r];
        if (count > INT_MAX)
            status = parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                                "mpi dbscan: more than 2^31 - 1 items for one rank in one exchange; use more ranks");
        else route->send_counts[r] = (int)count;
    }
    MPI_Alltoall(route->send_counts, 1, MPI_INT, route->recv_counts, 1, MPI_INT, comm);
    if (status != PARAC_OK) goto done; /* the caller aborts the job */
    route->own = (size_t)route->send_counts[rank];
    if (!own_in_place) route->recv_counts[rank] = 0;
    if ((status = mpi_dbscan_offsets_of(route->recv_counts, ranks, route->recv_offsets, &route->recv_total, error)) != PARAC_OK)
        goto done;
    for (int range = 0; range < route->ranges; range++)
        for (int r = 0; r < ranks; r++) {
            size_t *at = &route->cursor[(size_t)range * route->stride + (size_t)r];
            if (r == rank) *at = *at - bucket_first[rank] + (size_t)route->recv_offsets[rank];
            else if (r > rank) *at -= route->own;
        }
    for (int r = 0; r < ranks; r++)
        route->send_offsets[r] = (int)(bucket_first[r] - (r > rank ? route->own : 0));
    route->send_total = bucket_first[ranks] - route->own;
    route->send_counts[rank] = route->recv_counts[rank] = 0;
done:
    free(bucket_first);
    return status;
}
