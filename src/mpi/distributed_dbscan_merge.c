/* mpi/distributed_dbscan_merge.c — phase 4 of the distributed DBSCAN: core points held by several
 * ranks link the local clusters that hold them; rank 0 unions the links and broadcasts the roots.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "mpi/distributed_dbscan_internal.h"

/* ------------------------------------------------------------------ merge */

/* Per local cluster c: rep[c] = global index of its lowest core point (its representative),
 * first_owned[c] = of its lowest owned point, NO_ROOT when this rank owns none of it. Local order is
 * global order; the threads lower both with an atomic minimum. */
void mpi_dbscan_cluster_firsts(const local_points *local, const int32_t *labels, const uint8_t *core, size_t clusters,
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
            if (core[i] && index < __atomic_load_n(&rep[labels[i]], __ATOMIC_RELAXED)) mpi_dbscan_lower_to(&rep[labels[i]], index);
            if ((tag & TAG_OWNED) && index < __atomic_load_n(&first_owned[labels[i]], __ATOMIC_RELAXED))
                mpi_dbscan_lower_to(&first_owned[labels[i]], index);
        }
    }
}

/* A link (point, representative) for every core point that other ranks also hold: halo core
 * points, and owned core points that were sent elsewhere as halo. */
static int makes_link(const local_view *view, size_t i)
{
    uint64_t tag = view->local->tags[i];
    int seen_elsewhere = !(tag & TAG_OWNED) || (tag & TAG_SHARED);
    return view->core[i] && seen_elsewhere && view->rep[view->labels[i]] != (tag & TAG_INDEX);
}

/* The lowest owned point of its cluster: where the cluster's numbering item is emitted. */
int mpi_dbscan_opens_cluster(const local_view *view, size_t i)
{
    uint64_t tag = view->local->tags[i];
    return view->labels[i] >= 0 && (tag & TAG_OWNED) && view->first_owned[view->labels[i]] == (tag & TAG_INDEX);
}

/* Where each range's kept points go in a list of all kept points in local order: start[range],
 * start[ranges] = how many in all. NULL when out of memory. The writing pass walks the same ranges. */
size_t *mpi_dbscan_kept_starts(const local_view *view, int ranges, int (*keep)(const local_view *, size_t))
{
    size_t *start = calloc((size_t)ranges + 1, sizeof(size_t)), count = view->local->count;
    if (!start) return NULL;
#pragma omp parallel for schedule(static, 1) num_threads(ranges)
    for (int range = 0; range < ranges; range++) {
        size_t end = mpi_dbscan_range_first(count, ranges, range + 1), kept = 0;
        for (size_t i = mpi_dbscan_range_first(count, ranges, range); i < end; i++) kept += (size_t)keep(view, i);
        start[range + 1] = kept;
    }
    for (int range = 0; range < ranges; range++) start[range + 1] += start[range];
    return start;
}

/* The links in local order; *links is malloc'ed. */
parac_status mpi_dbscan_collect_links(const local_view *view, int threads, pair64 **links, size_t *count,
                                      parac_error *error)
{
    size_t *start = mpi_dbscan_kept_starts(view, threads, makes_link), points = view->local->count;
    *links = NULL;
    *count = start ? start[threads] : 0;
    if (!start || !(*links = malloc((*count + 1) * sizeof(pair64)))) {
        free(start);
        return parac_fail_no_memory(error, "mpi dbscan links", (unsigned long long)*count * 16);
    }
#pragma omp parallel for schedule(static, 1) num_threads(threads)
    for (int range = 0; range < threads; range++) {
        size_t end = mpi_dbscan_range_first(points, threads, range + 1), at = start[range];
        for (size_t i = mpi_dbscan_range_first(points, threads, range); i < end; i++) {
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
    qsort(keys, 2 * count, sizeof(uint64_t), mpi_dbscan_compare_u64);
    for (size_t i = 0; i < 2 * count; i++)
        if (i == 0 || keys[i] != keys[i - 1]) keys[distinct++] = keys[i];
    for (size_t k = 0; k < distinct; k++) parent[k] = k;
    for (size_t i = 0; i < count; i++) {
        size_t a = find_set(parent, (size_t)((uint64_t *)bsearch(&links[i].first, keys, distinct, sizeof(uint64_t), mpi_dbscan_compare_u64) - keys));
        size_t b = find_set(parent, (size_t)((uint64_t *)bsearch(&links[i].second, keys, distinct, sizeof(uint64_t), mpi_dbscan_compare_u64) - keys));
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
parac_status mpi_dbscan_merge_links(MPI_Comm comm, MPI_Datatype pair_type, const pair64 *links, size_t count,
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
    if (rank == 0 && (status = mpi_dbscan_offsets_of(counts, ranks, offsets, &total, error)) == PARAC_OK) {
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
void mpi_dbscan_roots_of_clusters(const uint64_t *rep, size_t clusters, const pair64 *table, size_t table_count,
                                  int threads, uint64_t *root_of_cluster)
{
#pragma omp parallel for num_threads(threads)
    for (size_t c = 0; c < clusters; c++) {
        size_t at = rep[c] == NO_ROOT ? table_count : mpi_dbscan_find_pair(table, table_count, rep[c]);
        root_of_cluster[c] = at < table_count ? table[at].second : rep[c];
    }
}
