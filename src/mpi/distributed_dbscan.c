/* mpi/distributed_dbscan.c — partition, halo exchange, local DBSCAN, merge, numbering, return (distributed_dbscan.h).
 *
 * Every per-point loop runs on the rank's threads over fixed ranges of its points (range_first): a
 * loop's counting pass and its writing pass split the points the same way, so what each rank builds
 * is the one stable order whatever its thread count. A rank's share for itself never goes through MPI:
 * it is written straight where the receiver keeps it (one rank sends nothing at all). */
#include "mpi/distributed_dbscan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hash_index.h"
#include "core/range_offsets.h"
#include "core/threads.h"
#include "mpi/cpu_time.h"
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

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Index of key in sorted pairs[count] by first, or count. */
static size_t find_pair(const pair64 *pairs, size_t count, uint64_t key)
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
static parac_status offsets_of(const int *counts, int ranks, int *offsets, size_t *total, parac_error *error)
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
static size_t range_first(size_t count, int ranges, int range)
{
    size_t base = count / (size_t)ranges, extra = count % (size_t)ranges, r = (size_t)range;
    return r * base + (r < extra ? r : extra);
}

/* Lowers *slot to value if value is smaller. Threads racing on one slot leave the minimum, whatever
 * the interleaving, so the result is deterministic. */
static void lower_to(uint64_t *slot, uint64_t value)
{
    uint64_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (value < seen && !__atomic_compare_exchange_n(slot, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* ------------------------------------------------------------------ routing */

/* Where the items of one MPI_Alltoallv go, built like a parallel stable counting sort by destination
 * rank: a counting pass fills cursor[range * stride + destination], routing_finish turns the counts
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

static void routing_free(routing *route)
{
    free(route->cursor);
    free(route->send_counts);
    free(route->send_offsets);
    free(route->recv_counts);
    free(route->recv_offsets);
    memset(route, 0, sizeof *route);
}

static parac_status routing_alloc(MPI_Comm comm, int ranges, routing *route, parac_error *error)
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
    routing_free(route);
    return parac_fail_no_memory(error, "mpi exchange routing", (unsigned long long)ranges * (unsigned long long)route->ranks * 8);
}

/* Collective. With the counts of the counting pass in cursor[]: exchanges the counts, computes the
 * offsets of both sides and turns the counts into write positions. */
static parac_status routing_finish(MPI_Comm comm, routing *route, int own_in_place, parac_error *error)
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
    if ((status = offsets_of(route->recv_counts, ranks, route->recv_offsets, &route->recv_total, error)) != PARAC_OK)
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

/* ------------------------------------------------------------------ exchange */

/* The points this rank clusters: owned and halo, in global index order. */
typedef struct local_points {
    const void *values;  /* count * dim, the input's type */
    uint64_t *tags;      /* global index | TAG_OWNED | TAG_SHARED */
    size_t count;
    void *values_owned;  /* what values points to when malloc'ed here; NULL when it is the block's */
} local_points;

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
        size_t end = range_first(block->count, route->ranges, range + 1);
        for (size_t i = range_first(block->count, route->ranges, range); i < end; i++) {
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
        size_t end = range_first(block->count, route->ranges, range + 1);
        for (size_t i = range_first(block->count, route->ranges, range); i < end; i++) {
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
static parac_status exchange_points(MPI_Comm comm, const mpi_points *block, const mpi_kd_partition *partition,
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
    if ((status = routing_alloc(comm, threads, &route, error)) != PARAC_OK) return status;
    scratch.x = malloc((size_t)threads * (block->dim + 1) * sizeof(double));
    scratch.destinations = malloc((size_t)threads * (size_t)route.ranks * sizeof(int));
    scratch.only_destination = malloc((block->count + 1) * sizeof(int32_t));
    if (!scratch.x || !scratch.destinations || !scratch.only_destination) {
        status = parac_fail_no_memory(error, "mpi dbscan exchange", (unsigned long long)block->count * 4);
        goto done;
    }
    count_destinations(block, partition, reach, &route, &scratch);
    if ((status = routing_finish(comm, &route, 1, error)) != PARAC_OK) goto done;
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
    routing_free(&route);
    return status;
}

static void local_free(local_points *local)
{
    free(local->values_owned);
    free(local->tags);
    memset(local, 0, sizeof *local);
}

static size_t count_owned(const local_points *local, int threads)
{
    size_t owned = 0;
#pragma omp parallel for reduction(+ : owned) num_threads(threads)
    for (size_t i = 0; i < local->count; i++) owned += (local->tags[i] & TAG_OWNED) != 0;
    return owned;
}

/* ------------------------------------------------------------------ merge */

/* Per local cluster c: rep[c] = global index of its lowest core point (its representative),
 * first_owned[c] = of its lowest owned point, NO_ROOT when this rank owns none of it. Local order is
 * global order; the threads lower both with an atomic minimum. */
static void cluster_firsts(const local_points *local, const int32_t *labels, const uint8_t *core, size_t clusters,
                           int threads, uint64_t *rep, uint64_t *first_owned)
{
#pragma omp parallel num_threads(threads)
    {
#pragma omp for
        for (size_t c = 0; c < clusters; c++) rep[c] = first_owned[c] = NO_ROOT;
#pragma omp for
        for (size_t i = 0; i < local->count; i++) {
            uint64_t tag = local->tags[i], index = tag & TAG_INDEX;
            if (labels[i] < 0) continue;
            if (core[i] && index < __atomic_load_n(&rep[labels[i]], __ATOMIC_RELAXED)) lower_to(&rep[labels[i]], index);
            if ((tag & TAG_OWNED) && index < __atomic_load_n(&first_owned[labels[i]], __ATOMIC_RELAXED))
                lower_to(&first_owned[labels[i]], index);
        }
    }
}

/* What the passes after the local run read: its result and the per-cluster tables. */
typedef struct local_view {
    const local_points *local;
    const int32_t *labels;
    const uint8_t *core;
    const uint64_t *rep, *first_owned, *root; /* per local cluster */
} local_view;

/* A link (point, representative) for every core point that other ranks also hold: halo core
 * points, and owned core points that were sent elsewhere as halo. */
static int makes_link(const local_view *view, size_t i)
{
    uint64_t tag = view->local->tags[i];
    int seen_elsewhere = !(tag & TAG_OWNED) || (tag & TAG_SHARED);
    return view->core[i] && seen_elsewhere && view->rep[view->labels[i]] != (tag & TAG_INDEX);
}

/* The lowest owned point of its cluster: where the cluster's numbering item is emitted. */
static int opens_cluster(const local_view *view, size_t i)
{
    uint64_t tag = view->local->tags[i];
    return view->labels[i] >= 0 && (tag & TAG_OWNED) && view->first_owned[view->labels[i]] == (tag & TAG_INDEX);
}

/* Where each range's kept points go in a list of all kept points in local order: start[range],
 * start[ranges] = how many in all. NULL when out of memory. The writing pass walks the same ranges. */
static size_t *kept_starts(const local_view *view, int ranges, int (*keep)(const local_view *, size_t))
{
    size_t *start = calloc((size_t)ranges + 1, sizeof(size_t)), count = view->local->count;
    if (!start) return NULL;
#pragma omp parallel for schedule(static, 1) num_threads(ranges)
    for (int range = 0; range < ranges; range++) {
        size_t end = range_first(count, ranges, range + 1), kept = 0;
        for (size_t i = range_first(count, ranges, range); i < end; i++) kept += (size_t)keep(view, i);
        start[range + 1] = kept;
    }
    for (int range = 0; range < ranges; range++) start[range + 1] += start[range];
    return start;
}

/* The links in local order; *links is malloc'ed. */
static parac_status collect_links(const local_view *view, int threads, pair64 **links, size_t *count,
                                  parac_error *error)
{
    size_t *start = kept_starts(view, threads, makes_link), points = view->local->count;
    *links = NULL;
    *count = start ? start[threads] : 0;
    if (!start || !(*links = malloc((*count + 1) * sizeof(pair64)))) {
        free(start);
        return parac_fail_no_memory(error, "mpi dbscan links", (unsigned long long)*count * 16);
    }
#pragma omp parallel for schedule(static, 1) num_threads(threads)
    for (int range = 0; range < threads; range++) {
        size_t end = range_first(points, threads, range + 1), at = start[range];
        for (size_t i = range_first(points, threads, range); i < end; i++) {
            if (!makes_link(view, i)) continue;
            (*links)[at].first = view->local->tags[i] & TAG_INDEX;
            (*links)[at++].second = view->rep[view->labels[i]];
        }
    }
    free(start);
    return PARAC_OK;
}

static size_t find_set(size_t *parent, size_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Rank 0: unions the links over their distinct ends; returns (key, root) for every key whose
 * root (the smallest index of its set) is another key, sorted by key. */
static parac_status union_links(pair64 *links, size_t count, pair64 **table, size_t *table_count, parac_error *error)
{
    uint64_t *keys = malloc((2 * count + 1) * sizeof(uint64_t));
    size_t *parent = malloc((2 * count + 1) * sizeof(size_t)), distinct = 0;
    *table = malloc((2 * count + 1) * sizeof(pair64));
    *table_count = 0;
    if (!keys || !parent || !*table) {
        free(keys), free(parent), free(*table);
        *table = NULL;
        return parac_fail_no_memory(error, "mpi dbscan union", (unsigned long long)count * 48);
    }
    for (size_t i = 0; i < count; i++) {
        keys[2 * i] = links[i].first;
        keys[2 * i + 1] = links[i].second;
    }
    qsort(keys, 2 * count, sizeof(uint64_t), compare_u64);
    for (size_t i = 0; i < 2 * count; i++)
        if (i == 0 || keys[i] != keys[i - 1]) keys[distinct++] = keys[i];
    for (size_t k = 0; k < distinct; k++) parent[k] = k;
    for (size_t i = 0; i < count; i++) {
        size_t a = find_set(parent, (size_t)((uint64_t *)bsearch(&links[i].first, keys, distinct, sizeof(uint64_t), compare_u64) - keys));
        size_t b = find_set(parent, (size_t)((uint64_t *)bsearch(&links[i].second, keys, distinct, sizeof(uint64_t), compare_u64) - keys));
        if (a < b) parent[b] = a; /* keys are sorted: the smaller position is the smaller index */
        else if (b < a) parent[a] = b;
    }
    for (size_t k = 0; k < distinct; k++) {
        size_t root = find_set(parent, k);
        if (root == k) continue;
        (*table)[*table_count].first = keys[k];
        (*table)[(*table_count)++].second = keys[root];
    }
    free(keys);
    free(parent);
    return PARAC_OK;
}

/* Gathers every rank's links on rank 0, unions them, broadcasts the (key, root) table. */
static parac_status merge_links(MPI_Comm comm, MPI_Datatype pair_type, const pair64 *links, size_t count,
                                pair64 **table, size_t *table_count, uint64_t *links_total, parac_error *error)
{
    int rank, ranks, mine = (int)count, *counts = NULL, *offsets = NULL;
    size_t total = 0;
    pair64 *all = NULL;
    unsigned long long shared_count = 0;
    parac_status status = PARAC_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    *table = NULL;
    *table_count = 0;
    if (count > INT_MAX) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "mpi dbscan: too many merge links on one rank");
    if (rank == 0) {
        counts = malloc((size_t)ranks * sizeof(int));
        offsets = malloc((size_t)ranks * sizeof(int));
        if (!counts || !offsets) return parac_fail_no_memory(error, "mpi dbscan merge", (unsigned long long)ranks * 8);
    }
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0 && (status = offsets_of(counts, ranks, offsets, &total, error)) == PARAC_OK) {
        all = malloc((total + 1) * sizeof(pair64));
        if (!all) status = parac_fail_no_memory(error, "mpi dbscan merge links", (unsigned long long)total * 16);
    }
    if (status != PARAC_OK) goto done; /* rank 0 only: the caller aborts the job */
    MPI_Gatherv(links, mine, pair_type, all, counts, offsets, pair_type, 0, comm);
    if (rank == 0) {
        status = union_links(all, total, table, table_count, error);
        if (status != PARAC_OK) goto done;
        shared_count = (unsigned long long)*table_count;
    }
    *links_total = total;
    MPI_Bcast(links_total, 1, MPI_UINT64_T, 0, comm);
    MPI_Bcast(&shared_count, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    if (rank != 0) {
        *table_count = (size_t)shared_count;
        *table = malloc((*table_count + 1) * sizeof(pair64));
        if (!*table) {
            status = parac_fail_no_memory(error, "mpi dbscan root table", shared_count * 16);
            goto done;
        }
    }
    for (size_t done = 0; done < *table_count;) { /* in pieces that fit an int count */
        size_t piece = *table_count - done < (size_t)INT_MAX ? *table_count - done : (size_t)INT_MAX;
        MPI_Bcast(*table + done, (int)piece, pair_type, 0, comm);
        done += piece;
    }
done:
    free(counts);
    free(offsets);
    free(all);
    return status;
}

/* Final root of every local cluster: its representative, resolved through the table. */
static void roots_of_clusters(const uint64_t *rep, size_t clusters, const pair64 *table, size_t table_count,
                              int threads, uint64_t *root_of_cluster)
{
#pragma omp parallel for num_threads(threads)
    for (size_t c = 0; c < clusters; c++) {
        size_t at = rep[c] == NO_ROOT ? table_count : find_pair(table, table_count, rep[c]);
        root_of_cluster[c] = at < table_count ? table[at].second : rep[c];
    }
}

/* ------------------------------------------------------------------ numbering */

/* Each rank's numbering items, (root, lowest owned point) of every local cluster holding points it
 * owns, in the order of those lowest points (emitted where the pass meets them); cluster_of_item[k]
 * says whose item k is. *items and *cluster_of_item are malloc'ed. */
static parac_status numbering_items(const local_view *view, int threads, pair64 **items, int32_t **cluster_of_item,
                                    size_t *count, parac_error *error)
{
    size_t *start = kept_starts(view, threads, opens_cluster), points = view->local->count;
    *count = start ? start[threads] : 0;
    *items = start ? malloc((*count + 1) * sizeof(pair64)) : NULL;
    *cluster_of_item = start ? malloc((*count + 1) * sizeof(int32_t)) : NULL;
    if (!*items || !*cluster_of_item) {
        free(start);
        return parac_fail_no_memory(error, "mpi dbscan numbering", (unsigned long long)*count * 20);
    }
#pragma omp parallel for schedule(static, 1) num_threads(threads)
    for (int range = 0; range < threads; range++) {
        size_t end = range_first(points, threads, range + 1), at = start[range];
        for (size_t i = range_first(points, threads, range); i < end; i++) {
            if (!opens_cluster(view, i)) continue;
            (*items)[at].first = view->root[view->labels[i]];
            (*items)[at].second = view->local->tags[i] & TAG_INDEX;
            (*cluster_of_item)[at++] = view->labels[i];
        }
    }
    free(start);
    return PARAC_OK;
}

/* Rank 0: positions of the gathered items in order of their lowest point (.second). Each rank's run
 * [bounds[r], bounds[r + 1]) is in that order already: adjacent runs are merged pairwise, log2(R)
 * rounds of linear merges. bounds (runs + 1 entries) is overwritten. NULL when out of memory. */
static size_t *merge_runs(const pair64 *items, size_t count, size_t *bounds, int runs)
{
    size_t *order = malloc((count + 1) * sizeof(size_t)), *merged = malloc((count + 1) * sizeof(size_t)), *swap;
    if (!order || !merged) {
        free(order), free(merged);
        return NULL;
    }
    for (size_t k = 0; k < count; k++) order[k] = k;
    while (runs > 1) {
        int kept = 0;
        for (int r = 0; r < runs; r += 2) {
            size_t lo = bounds[r], mid = bounds[r + 1], hi = r + 2 <= runs ? bounds[r + 2] : mid;
            size_t left = lo, right = mid, out = lo;
            while (left < mid && right < hi)
                merged[out++] = items[order[right]].second < items[order[left]].second ? order[right++] : order[left++];
            while (left < mid) merged[out++] = order[left++];
            while (right < hi) merged[out++] = order[right++];
            bounds[kept++] = lo;
        }
        bounds[kept] = count;
        runs = kept;
        swap = order, order = merged, merged = swap;
    }
    free(merged);
    return order;
}

/* Distinct roots met so far; the id of a root is its position in roots[]. */
typedef struct root_ids {
    parac_hash_index index;
    uint64_t *roots;
    size_t count;
} root_ids;

static uint64_t root_hash(uint64_t root) /* a 64-bit finalizer: the low bits pick the slot */
{
    root ^= root >> 33;
    root *= 0xff51afd7ed558ccdULL;
    root ^= root >> 33;
    return root;
}

static uint64_t root_item_hash(const void *context, size_t item) { return root_hash(((const root_ids *)context)->roots[item]); }

static int root_matches(const void *context, size_t item, const void *key)
{
    return ((const root_ids *)context)->roots[item] == *(const uint64_t *)key;
}

/* The id of root, a new one when it was not met yet: SIZE_MAX when out of memory. */
static size_t root_id(root_ids *ids, uint64_t root)
{
    size_t slot, item;
    if (parac_hash_index_reserve(&ids->index, root_item_hash, ids) != 0) return SIZE_MAX;
    item = parac_hash_index_find(&ids->index, root_hash(root), &root, root_matches, ids, &slot);
    if (item != SIZE_MAX) return item;
    ids->roots[ids->count] = root;
    parac_hash_index_insert(&ids->index, slot, ids->count);
    return ids->count++;
}

/* Rank 0: the items of every rank (bounds: each rank's run); ids[k] = the id of item k's root, roots
 * numbered by first meeting in the order of the items' lowest points, which is the order of each
 * cluster's lowest point index: parac dbscan's numbering. A merge of the runs and one hash lookup per
 * item (clusters, not points). */
static parac_status number_clusters(const pair64 *items, size_t count, size_t *bounds, int runs, int32_t *ids,
                                    size_t *clusters, parac_error *error)
{
    size_t *order = merge_runs(items, count, bounds, runs);
    root_ids met = {{0}, malloc((count + 1) * sizeof(uint64_t)), 0};
    parac_status status = PARAC_OK;
    if (!order || !met.roots) status = parac_fail_no_memory(error, "mpi dbscan numbering", (unsigned long long)count * 24);
    for (size_t k = 0; k < count && status == PARAC_OK; k++) {
        size_t id = root_id(&met, items[order[k]].first);
        if (id == SIZE_MAX) status = parac_fail_no_memory(error, "mpi dbscan numbering", (unsigned long long)count * 32);
        else if (id >= (size_t)INT32_MAX) status = parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "mpi dbscan: more than 2^31 - 1 clusters");
        else ids[order[k]] = (int32_t)id;
    }
    *clusters = met.count;
    parac_hash_index_free(&met.index);
    free(met.roots);
    free(order);
    return status;
}

/* Collective: the id of every local cluster this rank owns points of (-1 for the others). Each rank
 * sends its numbering items; rank 0 numbers them and scatters the ids back. */
static parac_status number_local_clusters(MPI_Comm comm, MPI_Datatype pair_type, const local_view *view,
                                          size_t clusters, int threads, int32_t *id_of_cluster,
                                          uint64_t *clusters_total, parac_error *error)
{
    int rank, ranks, mine = 0, *counts = NULL, *offsets = NULL;
    size_t total = 0, numbered = 0, sent = 0, *bounds = NULL;
    pair64 *items = NULL, *all_items = NULL;
    int32_t *cluster_of_item = NULL, *ids = NULL, *all_ids = NULL;
    parac_status status;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    if ((status = numbering_items(view, threads, &items, &cluster_of_item, &sent, error)) != PARAC_OK) goto done;
    ids = malloc((sent + 1) * sizeof(int32_t));
    if (rank == 0) {
        counts = malloc((size_t)ranks * sizeof(int));
        offsets = malloc((size_t)ranks * sizeof(int));
        bounds = malloc(((size_t)ranks + 1) * sizeof(size_t));
    }
    if (!ids || (rank == 0 && (!counts || !offsets || !bounds))) {
        status = parac_fail_no_memory(error, "mpi dbscan numbering", (unsigned long long)sent * 4);
        goto done; /* the caller aborts the job */
    }
    if (sent > INT_MAX) {
        status = parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "mpi dbscan: more than 2^31 - 1 clusters on one rank");
        goto done;
    }
    mine = (int)sent;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0 && (status = offsets_of(counts, ranks, offsets, &total, error)) == PARAC_OK) {
        all_items = malloc((total + 1) * sizeof(pair64));
        all_ids = malloc((total + 1) * sizeof(int32_t));
        if (!all_items || !all_ids) status = parac_fail_no_memory(error, "mpi dbscan numbering", (unsigned long long)total * 20);
        for (int r = 0; r < ranks; r++) bounds[r] = (size_t)offsets[r];
        bounds[ranks] = total;
    }
    if (status != PARAC_OK) goto done;
    MPI_Gatherv(items, mine, pair_type, all_items, counts, offsets, pair_type, 0, comm);
    if (rank == 0 && (status = number_clusters(all_items, total, bounds, ranks, all_ids, &numbered, error)) != PARAC_OK)
        goto done;
    MPI_Scatterv(all_ids, counts, offsets, MPI_INT32_T, ids, mine, MPI_INT32_T, 0, comm);
    *clusters_total = numbered;
    MPI_Bcast(clusters_total, 1, MPI_UINT64_T, 0, comm);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for
        for (size_t c = 0; c < clusters; c++) id_of_cluster[c] = -1;
#pragma omp for
        for (size_t k = 0; k < sent; k++) id_of_cluster[cluster_of_item[k]] = ids[k];
    }
done:
    free(items);
    free(cluster_of_item);
    free(ids);
    free(counts);
    free(offsets);
    free(bounds);
    free(all_items);
    free(all_ids);
    return status;
}

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
        size_t end = range_first(local->count, route->ranges, range + 1);
        block_walk walk = {-1, 0};
        for (size_t i = range_first(local->count, route->ranges, range); i < end; i++)
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
        size_t end = range_first(local->count, route->ranges, range + 1);
        block_walk walk = {-1, 0};
        for (size_t i = range_first(local->count, route->ranges, range); i < end; i++) {
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
static parac_status return_labels(MPI_Comm comm, MPI_Datatype pair_type, const local_points *local,
                                  const int32_t *local_labels, const uint8_t *local_core, const int32_t *id_of_cluster,
                                  const mpi_points *block, int threads, int32_t *labels, uint8_t *core_mask,
                                  parac_error *error)
{
    routing route;
    pair64 *send = NULL, *received = NULL;
    parac_status status = routing_alloc(comm, threads, &route, error);
    if (status != PARAC_OK) return status;
    count_returns(local, block, &route);
    if ((status = routing_finish(comm, &route, 0, error)) != PARAC_OK) goto done;
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
    routing_free(&route);
    return status;
}

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
    cluster_firsts(local, local_labels, local_core, clusters, threads, tables->rep, tables->first_owned);
    if ((status = collect_links(&view, threads, &links, &link_count, error)) != PARAC_OK) goto done;
    info->merge_links = link_count;
    status = merge_links(comm, pair_type, links, link_count, &table, &table_count, &info->links_total, error);
    if (status != PARAC_OK) goto done;
    roots_of_clusters(tables->rep, clusters, table, table_count, threads, tables->root);
    info->seconds_merge = MPI_Wtime() - clock, clock = MPI_Wtime();
    status = number_local_clusters(comm, pair_type, &view, clusters, threads, tables->id, &info->clusters, error);
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
    status = exchange_points(comm, block, &partition, reach, threads, &local, error);
    mpi_kd_partition_free(&partition);
    if (status != PARAC_OK) goto done;
    info->owned = count_owned(&local, threads);
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
    status = return_labels(comm, pair_type, &local, local_labels, local_core, tables.id, block, threads, labels,
                           core_mask, error);
    if (status != PARAC_OK) goto done;
    count_results(comm, block, labels, core_mask, threads, info);
    info->seconds_return = MPI_Wtime() - clock;
done:
    MPI_Type_free(&pair_type);
    local_free(&local);
    free(local_labels);
    free(local_core);
    cluster_tables_free(&tables);
    return status;
}
