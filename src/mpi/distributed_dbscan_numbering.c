/* mpi/distributed_dbscan_numbering.c — phase 5 of the distributed DBSCAN: per local cluster,
 * (root, lowest owned point) goes to rank 0, which numbers the clusters by their lowest point
 * index and scatters the ids back.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hash_index.h"
#include "mpi/distributed_dbscan_internal.h"

/* ------------------------------------------------------------------ numbering */

/* Each rank's numbering items, (root, lowest owned point) of every local cluster holding points it
 * owns, in the order of those lowest points (emitted where the pass meets them); cluster_of_item[k]
 * says whose item k is. *items and *cluster_of_item are malloc'ed. */
static parac_status numbering_items(const local_view *view, int threads, pair64 **items, int32_t **cluster_of_item,
                                    size_t *count, parac_error *error)
{
    size_t *start = mpi_dbscan_kept_starts(view, threads, mpi_dbscan_opens_cluster), points = view->local->count;
    *count = start ? start[threads] : 0;
    *items = start ? malloc((*count + 1) * sizeof(pair64)) : NULL;
    *cluster_of_item = start ? malloc((*count + 1) * sizeof(int32_t)) : NULL;
    if (!*items || !*cluster_of_item) {
        free(start);
        return parac_fail_no_memory(error, "mpi dbscan numbering", (unsigned long long)*count * 20);
    }
#pragma omp parallel for schedule(static, 1) num_threads(threads)
    for (int range = 0; range < threads; range++) {
        size_t end = mpi_dbscan_range_first(points, threads, range + 1), at = start[range];
        for (size_t i = mpi_dbscan_range_first(points, threads, range); i < end; i++) {
            if (!mpi_dbscan_opens_cluster(view, i)) continue;
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
parac_status mpi_dbscan_number_local_clusters(MPI_Comm comm, MPI_Datatype pair_type, const local_view *view,
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
    if (rank == 0 && (status = mpi_dbscan_offsets_of(counts, ranks, offsets, &total, error)) == PARAC_OK) {
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
