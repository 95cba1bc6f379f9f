/* mpi/distributed_dbscan.c — partition, halo exchange, local DBSCAN, merge, relabel (distributed_dbscan.h). */
#include "mpi/distributed_dbscan.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hash_index.h"
#include "mpi/cpu_time.h"
#include "mpi/kd_partition.h"

#define NO_ROOT UINT64_MAX
/* A point travels with its global index; the top bits say how the receiver holds it. */
#define TAG_OWNED ((uint64_t)1 << 63)  /* the receiver's box holds it */
#define TAG_SHARED ((uint64_t)1 << 62) /* owned here and sent to other ranks as halo too */
#define TAG_INDEX (TAG_SHARED - 1)
#define CORE_BIT ((uint64_t)1 << 63)   /* in the returned (index, root) pairs */

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

/* The four count/offset arrays of one MPI_Alltoallv. */
typedef struct exchange_plan {
    int ranks;
    int *send_counts, *send_offsets, *recv_counts, *recv_offsets;
    size_t send_total, recv_total;
} exchange_plan;

static void plan_free(exchange_plan *plan)
{
    free(plan->send_counts);
    free(plan->send_offsets);
    free(plan->recv_counts);
    free(plan->recv_offsets);
    memset(plan, 0, sizeof *plan);
}

static parac_status plan_alloc(MPI_Comm comm, exchange_plan *plan, parac_error *error)
{
    memset(plan, 0, sizeof *plan);
    MPI_Comm_size(comm, &plan->ranks);
    plan->send_counts = calloc((size_t)plan->ranks, sizeof(int));
    plan->send_offsets = calloc((size_t)plan->ranks, sizeof(int));
    plan->recv_counts = calloc((size_t)plan->ranks, sizeof(int));
    plan->recv_offsets = calloc((size_t)plan->ranks, sizeof(int));
    if (plan->send_counts && plan->send_offsets && plan->recv_counts && plan->recv_offsets) return PARAC_OK;
    plan_free(plan);
    return parac_fail_no_memory(error, "mpi exchange plan", (unsigned long long)plan->ranks * 16);
}

/* With send_counts filled: exchanges the counts and computes both offset arrays. */
static parac_status plan_finish(MPI_Comm comm, exchange_plan *plan, parac_error *error)
{
    parac_status status = offsets_of(plan->send_counts, plan->ranks, plan->send_offsets, &plan->send_total, error);
    MPI_Alltoall(plan->send_counts, 1, MPI_INT, plan->recv_counts, 1, MPI_INT, comm);
    if (status == PARAC_OK)
        status = offsets_of(plan->recv_counts, plan->ranks, plan->recv_offsets, &plan->recv_total, error);
    return status;
}

/* ------------------------------------------------------------------ exchange */

/* The points this rank clusters: owned and halo, in global index order. */
typedef struct local_points {
    void *values;   /* count * dim, the input's type */
    uint64_t *tags; /* global index | TAG_OWNED | TAG_SHARED */
    size_t count;
} local_points;

static void row_as_double(const mpi_points *block, size_t row, double *x)
{
    for (size_t a = 0; a < block->dim; a++)
        x[a] = block->f64 ? ((const double *)block->values)[row * block->dim + a]
                          : (double)((const float *)block->values)[row * block->dim + a];
}

/* Packs every block point for each rank that needs it (two passes: count, then place). */
static parac_status pack_points(const mpi_points *block, const mpi_kd_partition *partition, double reach,
                                exchange_plan *plan, char **rows, uint64_t **tags, parac_error *error)
{
    size_t row_bytes = block->dim * (block->f64 ? sizeof(double) : sizeof(float));
    int *destinations = malloc((size_t)plan->ranks * sizeof(int)), *cursor = malloc((size_t)plan->ranks * sizeof(int));
    double *x = malloc((block->dim + 1) * sizeof(double));
    parac_status status = PARAC_OK;
    *rows = NULL;
    *tags = NULL;
    if (!destinations || !cursor || !x) goto no_memory;
    for (size_t i = 0; i < block->count; i++) {
        int owner, found;
        row_as_double(block, i, x);
        found = mpi_kd_destinations(partition, x, reach, &owner, destinations);
        for (int k = 0; k < found; k++) {
            if (plan->send_counts[destinations[k]] == INT_MAX) {
                status = parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                                    "mpi dbscan: more than 2^31 - 1 points for one rank; use more ranks");
                goto done;
            }
            plan->send_counts[destinations[k]]++;
        }
    }
    if ((status = offsets_of(plan->send_counts, plan->ranks, plan->send_offsets, &plan->send_total, error)) != PARAC_OK)
        goto done;
    *rows = malloc(plan->send_total * row_bytes + 1);
    *tags = malloc((plan->send_total + 1) * sizeof(uint64_t));
    if (!*rows || !*tags) goto no_memory;
    memcpy(cursor, plan->send_offsets, (size_t)plan->ranks * sizeof(int));
    for (size_t i = 0; i < block->count; i++) {
        int owner, found;
        row_as_double(block, i, x);
        found = mpi_kd_destinations(partition, x, reach, &owner, destinations);
        for (int k = 0; k < found; k++) {
            int to = destinations[k];
            uint64_t tag = block->first + i;
            if (to == owner) tag |= TAG_OWNED | (found > 1 ? TAG_SHARED : 0);
            memcpy(*rows + (size_t)cursor[to] * row_bytes, (const char *)block->values + i * row_bytes, row_bytes);
            (*tags)[cursor[to]++] = tag;
        }
    }
    goto done;
no_memory:
    status = parac_fail_no_memory(error, "mpi dbscan send buffers", (unsigned long long)plan->send_total * (row_bytes + 8));
done:
    free(destinations);
    free(cursor);
    free(x);
    return status;
}

/* Sends every point to its owner and halo ranks. Sources are taken in rank order and each
 * source's block is a contiguous, increasing index range, so what arrives is in index order. */
static parac_status exchange_points(MPI_Comm comm, const mpi_points *block, const mpi_kd_partition *partition,
                                    double reach, local_points *local, parac_error *error)
{
    size_t row_bytes = block->dim * (block->f64 ? sizeof(double) : sizeof(float));
    exchange_plan plan;
    char *rows = NULL;
    uint64_t *tags = NULL;
    MPI_Datatype row_type;
    parac_status status = plan_alloc(comm, &plan, error);
    memset(local, 0, sizeof *local);
    if (status != PARAC_OK) return status;
    if ((status = pack_points(block, partition, reach, &plan, &rows, &tags, error)) == PARAC_OK)
        status = plan_finish(comm, &plan, error);
    if (status == PARAC_OK) {
        local->values = malloc(plan.recv_total * row_bytes + 1);
        local->tags = malloc((plan.recv_total + 1) * sizeof(uint64_t));
        local->count = plan.recv_total;
        if (!local->values || !local->tags)
            status = parac_fail_no_memory(error, "mpi dbscan local points", (unsigned long long)plan.recv_total * (row_bytes + 8));
    }
    if (status == PARAC_OK) {
        MPI_Type_contiguous((int)(row_bytes ? row_bytes : 1), MPI_BYTE, &row_type);
        MPI_Type_commit(&row_type);
        MPI_Alltoallv(rows, plan.send_counts, plan.send_offsets, row_type, local->values, plan.recv_counts,
                      plan.recv_offsets, row_type, comm);
        MPI_Alltoallv(tags, plan.send_counts, plan.send_offsets, MPI_UINT64_T, local->tags, plan.recv_counts,
                      plan.recv_offsets, MPI_UINT64_T, comm);
        MPI_Type_free(&row_type);
    }
    free(rows);
    free(tags);
    plan_free(&plan);
    return status;
}

static void local_free(local_points *local)
{
    free(local->values);
    free(local->tags);
    memset(local, 0, sizeof *local);
}

/* ------------------------------------------------------------------ merge */

/* rep[L] = global index of local cluster L's lowest core point (local order is global order). */
static uint64_t *cluster_representatives(const local_points *local, const int32_t *labels, const uint8_t *core,
                                         size_t clusters)
{
    uint64_t *rep = malloc((clusters + 1) * sizeof(uint64_t));
    if (!rep) return NULL;
    for (size_t c = 0; c < clusters; c++) rep[c] = NO_ROOT;
    for (size_t i = 0; i < local->count; i++)
        if (core[i] && rep[labels[i]] == NO_ROOT) rep[labels[i]] = local->tags[i] & TAG_INDEX;
    return rep;
}

/* Links (point, representative) for every core point that other ranks also hold: halo core
 * points, and owned core points that were sent elsewhere as halo. */
static size_t collect_links(const local_points *local, const int32_t *labels, const uint8_t *core,
                            const uint64_t *rep, pair64 *links)
{
    size_t count = 0;
    for (size_t i = 0; i < local->count; i++) {
        uint64_t tag = local->tags[i], index = tag & TAG_INDEX;
        int seen_elsewhere = !(tag & TAG_OWNED) || (tag & TAG_SHARED);
        if (!core[i] || !seen_elsewhere || rep[labels[i]] == index) continue;
        links[count].first = index;
        links[count++].second = rep[labels[i]];
    }
    return count;
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

/* ------------------------------------------------------------------ return and relabel */

/* Sends (index | core, root) of every owned point to the rank whose block holds it. */
static parac_status return_roots(MPI_Comm comm, MPI_Datatype pair_type, const local_points *local,
                                 const uint8_t *core, const uint64_t *root_of_point, const mpi_points *block,
                                 uint64_t *block_root, uint8_t *block_core, parac_error *error)
{
    exchange_plan plan;
    pair64 *send = NULL, *received = NULL;
    int *cursor = NULL;
    parac_status status = plan_alloc(comm, &plan, error);
    if (status != PARAC_OK) return status;
    for (size_t i = 0; i < local->count; i++)
        if (local->tags[i] & TAG_OWNED) plan.send_counts[mpi_block_owner(block->total, plan.ranks, local->tags[i] & TAG_INDEX)]++;
    if ((status = plan_finish(comm, &plan, error)) != PARAC_OK) goto done;
    send = malloc((plan.send_total + 1) * sizeof(pair64));
    received = malloc((plan.recv_total + 1) * sizeof(pair64));
    cursor = malloc((size_t)plan.ranks * sizeof(int));
    if (!send || !received || !cursor) {
        status = parac_fail_no_memory(error, "mpi dbscan roots", (unsigned long long)(plan.send_total + plan.recv_total) * 16);
        goto done;
    }
    memcpy(cursor, plan.send_offsets, (size_t)plan.ranks * sizeof(int));
    for (size_t i = 0; i < local->count; i++) {
        uint64_t index = local->tags[i] & TAG_INDEX;
        int to;
        if (!(local->tags[i] & TAG_OWNED)) continue;
        to = mpi_block_owner(block->total, plan.ranks, index);
        send[cursor[to]].first = index | (core[i] ? CORE_BIT : 0);
        send[cursor[to]++].second = root_of_point[i];
    }
    MPI_Alltoallv(send, plan.send_counts, plan.send_offsets, pair_type, received, plan.recv_counts, plan.recv_offsets,
                  pair_type, comm);
    if (plan.recv_total != block->count) { /* every point has exactly one owner */
        status = parac_fail(error, PARAC_ERR_INTERNAL, "mpi dbscan: %zu of %zu block points came back",
                            plan.recv_total, block->count);
        goto done;
    }
    for (size_t k = 0; k < plan.recv_total; k++) {
        uint64_t index = received[k].first & ~CORE_BIT;
        size_t at = (size_t)(index - block->first);
        block_root[at] = received[k].second;
        block_core[at] = (received[k].first & CORE_BIT) != 0;
    }
done:
    free(send);
    free(received);
    free(cursor);
    plan_free(&plan);
    return status;
}

/* Distinct roots numbered in order of first occurrence: item k of the set is roots[k]. */
typedef struct root_set {
    parac_hash_index index;
    uint64_t *roots;
    size_t count;
    uint64_t last_root; /* the previous lookup, which neighbouring points often repeat */
    size_t last_item;
} root_set;

static uint64_t root_item_hash(const void *context, size_t item) { return ((const root_set *)context)->roots[item]; }

static int root_matches(const void *context, size_t item, const void *key)
{
    return ((const root_set *)context)->roots[item] == *(const uint64_t *)key;
}

static int root_set_init(root_set *set, size_t capacity)
{
    memset(set, 0, sizeof *set);
    set->last_root = NO_ROOT;
    set->roots = malloc((capacity + 1) * sizeof(uint64_t));
    return set->roots ? 0 : -1;
}

static void root_set_free(root_set *set)
{
    parac_hash_index_free(&set->index);
    free(set->roots);
    memset(set, 0, sizeof *set);
}

/* The item of root, adding it when new (the caller sized roots[] for every distinct root):
 * SIZE_MAX when out of memory. */
static size_t root_set_item(root_set *set, uint64_t root)
{
    size_t slot, item;
    if (root == set->last_root) return set->last_item;
    if (parac_hash_index_reserve(&set->index, root_item_hash, set) != 0) return SIZE_MAX;
    item = parac_hash_index_find(&set->index, root, &root, root_matches, set, &slot);
    if (item == SIZE_MAX) {
        item = set->count;
        set->roots[set->count++] = root;
        parac_hash_index_insert(&set->index, slot, item);
    }
    set->last_root = root;
    set->last_item = item;
    return item;
}

/* Rank 0: roots[] are every block's distinct roots, blocks in rank order and each block's roots in
 * order of first occurrence; ids[k] = the number of distinct roots met before roots[k] first was,
 * i.e. cluster ids in order of each cluster's lowest point index. */
static parac_status number_clusters(const uint64_t *roots, size_t count, int32_t *ids, size_t *clusters,
                                    parac_error *error)
{
    root_set set;
    if (root_set_init(&set, count) != 0) return parac_fail_no_memory(error, "mpi dbscan relabel", (unsigned long long)count * 8);
    for (size_t k = 0; k < count; k++) {
        size_t item = root_set_item(&set, roots[k]);
        if (item == SIZE_MAX || item >= (size_t)INT32_MAX) {
            root_set_free(&set);
            return item == SIZE_MAX ? parac_fail_no_memory(error, "mpi dbscan relabel", (unsigned long long)count * 16)
                                    : parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "mpi dbscan: more than 2^31 - 1 clusters");
        }
        ids[k] = (int32_t)item;
    }
    *clusters = set.count;
    root_set_free(&set);
    return PARAC_OK;
}

/* Labels of this block: its distinct roots in order of first occurrence go to rank 0, which numbers
 * them over all blocks in block order; each rank gets its roots' ids back. */
static parac_status relabel(MPI_Comm comm, const uint64_t *block_root, size_t block_count, int32_t *labels,
                            uint64_t *clusters_total, parac_error *error)
{
    int rank, ranks, mine = 0, *counts = NULL, *offsets = NULL;
    size_t total = 0, clusters = 0;
    root_set set;
    uint64_t *all_roots = NULL;
    int32_t *ids = NULL, *all_ids = NULL;
    parac_status status = PARAC_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    if (root_set_init(&set, block_count) != 0) return parac_fail_no_memory(error, "mpi dbscan relabel", block_count * 8);
    for (size_t i = 0; i < block_count && status == PARAC_OK; i++)
        if (block_root[i] != NO_ROOT && root_set_item(&set, block_root[i]) == SIZE_MAX)
            status = parac_fail_no_memory(error, "mpi dbscan relabel", (unsigned long long)block_count * 16);
    ids = malloc((set.count + 1) * sizeof(int32_t));
    if (rank == 0) {
        counts = malloc((size_t)ranks * sizeof(int));
        offsets = malloc((size_t)ranks * sizeof(int));
    }
    if (status == PARAC_OK && (!ids || (rank == 0 && (!counts || !offsets))))
        status = parac_fail_no_memory(error, "mpi dbscan relabel", (unsigned long long)ranks * 8);
    if (status != PARAC_OK) goto done; /* the caller aborts the job */
    mine = (int)set.count;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0 && (status = offsets_of(counts, ranks, offsets, &total, error)) == PARAC_OK) {
        all_roots = malloc((total + 1) * sizeof(uint64_t));
        all_ids = malloc((total + 1) * sizeof(int32_t));
        if (!all_roots || !all_ids) status = parac_fail_no_memory(error, "mpi dbscan relabel", (unsigned long long)total * 12);
    }
    if (status != PARAC_OK) goto done;
    MPI_Gatherv(set.roots, mine, MPI_UINT64_T, all_roots, counts, offsets, MPI_UINT64_T, 0, comm);
    if (rank == 0 && (status = number_clusters(all_roots, total, all_ids, &clusters, error)) != PARAC_OK) goto done;
    MPI_Scatterv(all_ids, counts, offsets, MPI_INT32_T, ids, mine, MPI_INT32_T, 0, comm);
    *clusters_total = clusters;
    MPI_Bcast(clusters_total, 1, MPI_UINT64_T, 0, comm);
    for (size_t i = 0; i < block_count; i++) /* every root is in the set: no insertion, no failure */
        labels[i] = block_root[i] == NO_ROOT ? PARAC_DBSCAN_NOISE : ids[root_set_item(&set, block_root[i])];
done:
    root_set_free(&set);
    free(ids);
    free(counts);
    free(offsets);
    free(all_roots);
    free(all_ids);
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

/* Final root of every local point: its local cluster's representative, resolved through the table. */
static uint64_t *roots_of_points(const local_points *local, const int32_t *labels, const uint64_t *rep,
                                 size_t clusters, const pair64 *table, size_t table_count)
{
    uint64_t *root = malloc((local->count + 1) * sizeof(uint64_t));
    uint64_t *root_of_cluster = malloc((clusters + 1) * sizeof(uint64_t));
    if (!root || !root_of_cluster) {
        free(root), free(root_of_cluster);
        return NULL;
    }
    for (size_t c = 0; c < clusters; c++) {
        size_t at = find_pair(table, table_count, rep[c]);
        root_of_cluster[c] = at < table_count ? table[at].second : rep[c];
    }
    for (size_t i = 0; i < local->count; i++) root[i] = labels[i] < 0 ? NO_ROOT : root_of_cluster[labels[i]];
    free(root_of_cluster);
    return root;
}

static void count_results(MPI_Comm comm, const mpi_points *block, const int32_t *labels, const uint8_t *core,
                          mpi_dbscan_info *info)
{
    uint64_t mine[2] = {0, 0}, sums[2];
    for (size_t i = 0; i < block->count; i++) {
        mine[0] += core[i];
        mine[1] += labels[i] == PARAC_DBSCAN_NOISE;
    }
    MPI_Allreduce(mine, sums, 2, MPI_UINT64_T, MPI_SUM, comm);
    info->core = sums[0];
    info->noise = sums[1];
    info->border = block->total - sums[0] - sums[1];
    MPI_Allreduce(&info->halo, &info->halo_total, 1, MPI_UINT64_T, MPI_SUM, comm);
}

parac_status mpi_dbscan_run(MPI_Comm comm, const parac_dbscan_options *options, const mpi_points *block,
                            int32_t *labels, uint8_t *core_mask, mpi_dbscan_info *info, parac_error *error)
{
    mpi_kd_partition partition;
    local_points local = {0};
    int32_t *local_labels = NULL;
    uint8_t *local_core = NULL;
    uint64_t *rep = NULL, *root = NULL, *block_root = NULL;
    pair64 *links = NULL, *table = NULL;
    size_t link_count = 0, table_count = 0;
    MPI_Datatype pair_type;
    double reach = 3.0 * options->eps, clock = MPI_Wtime();
    parac_status status;
    memset(info, 0, sizeof *info);
    MPI_Type_contiguous(2, MPI_UINT64_T, &pair_type);
    MPI_Type_commit(&pair_type);
    if ((status = mpi_kd_partition_build(comm, block, &partition, error)) != PARAC_OK) goto done;
    info->seconds_partition = MPI_Wtime() - clock, clock = MPI_Wtime();
    status = exchange_points(comm, block, &partition, reach, &local, error);
    mpi_kd_partition_free(&partition);
    if (status != PARAC_OK) goto done;
    for (size_t i = 0; i < local.count; i++) info->owned += (local.tags[i] & TAG_OWNED) != 0;
    info->halo = local.count - info->owned;
    info->seconds_exchange = MPI_Wtime() - clock, clock = MPI_Wtime();
    info->cpu_seconds_local = mpi_process_cpu_seconds();
    if ((status = run_local(options, block, &local, &local_labels, &local_core, &info->local, error)) != PARAC_OK)
        goto done;
    info->cpu_seconds_local = mpi_process_cpu_seconds() - info->cpu_seconds_local;
    info->seconds_local = MPI_Wtime() - clock, clock = MPI_Wtime();
    rep = cluster_representatives(&local, local_labels, local_core, info->local.clusters);
    links = malloc((local.count + 1) * sizeof(pair64));
    if (!rep || !links) {
        status = parac_fail_no_memory(error, "mpi dbscan links", (unsigned long long)local.count * 16);
        goto done;
    }
    link_count = collect_links(&local, local_labels, local_core, rep, links);
    info->merge_links = link_count;
    status = merge_links(comm, pair_type, links, link_count, &table, &table_count, &info->links_total, error);
    if (status != PARAC_OK) goto done;
    root = roots_of_points(&local, local_labels, rep, info->local.clusters, table, table_count);
    block_root = malloc((block->count + 1) * sizeof(uint64_t));
    if (!root || !block_root) {
        status = parac_fail_no_memory(error, "mpi dbscan roots", (unsigned long long)local.count * 8);
        goto done;
    }
    info->seconds_merge = MPI_Wtime() - clock, clock = MPI_Wtime();
    status = return_roots(comm, pair_type, &local, local_core, root, block, block_root, core_mask, error);
    if (status != PARAC_OK) goto done;
    info->seconds_return = MPI_Wtime() - clock, clock = MPI_Wtime();
    if ((status = relabel(comm, block_root, block->count, labels, &info->clusters, error)) != PARAC_OK) goto done;
    count_results(comm, block, labels, core_mask, info);
    info->seconds_relabel = MPI_Wtime() - clock;
done:
    MPI_Type_free(&pair_type);
    local_free(&local);
    free(local_labels);
    free(local_core);
    free(rep);
    free(root);
    free(block_root);
    free(links);
    free(table);
    return status;
}
