/* birch/ward.c — scipy's nn_chain (Ward) and sklearn's _hc_cut, on the CPU.
 *
 * The chain runs over one of two "spaces" that answer the same two questions (the nearest live
 * cluster of x, and the update after a merge):
 *   - the distance matrix with scipy's Lance–Williams updates, up to WARD_MATRIX_MAX subclusters:
 *     scipy's values bit for bit, so the same merges as scikit-learn even at ties;
 *   - beyond that, the clusters' centroids and sizes, each Ward distance computed when needed as
 *     sqrt(2 n_a n_b / (n_a + n_b)) |c_a - c_b| (equal to the Lance–Williams recursion in exact
 *     arithmetic; rounded differently, so a merge order can differ from scipy's only between
 *     heights equal within rounding). O(m dims) memory instead of 4 m^2 bytes: 30,000 subclusters
 *     took 25 s and 3.5 GB with the condensed matrix (a threshold far below the data's spread),
 *     and the matrix of 100,000 would need 40 GB. The nearest live cluster comes from a kd-tree
 *     over the centroids (ward_tree.c), the answer a scan of all of them would give, or from what an
 *     expensive earlier query of the same cluster kept (ward_requery.c), the same answer again.
 */
#include "birch/ward.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "birch/ward_requery.h"
#include "birch/ward_tree.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/threads.h"
#include "core/union_find.h"

size_t birch_ward_matrix_bytes(size_t m) { return m < 2 ? 0 : m * (m - 1) / 2 * sizeof(double); }

int birch_ward_uses_matrix(size_t m) { return m <= BIRCH_WARD_MATRIX_MAX; }

/* Up to this many subclusters the chain works on the full symmetric matrix
 * (at most 128 MiB): the chain's scans then read one contiguous row instead of
 * a condensed row and column (its index arithmetic and strided reads made
 * the global step a serial ~8 ms of a 1 M-point fit). Larger m keeps the
 * condensed triangle, half the memory. Both hold the same values. */
#define WARD_FULL_MATRIX_MAX 4096

/* Chain positions whose repeated queries keep what they found: the chain's bottom is asked after
 * nearly every merge, an element far up it seldom twice. */
#define WARD_REQUERY_DEPTH 64

/* A cluster asked again keeps its k nearest only when its last query read this many times the
 * running mean: a k-nearest search costs several single ones (8-D: 5x), repaid when the cluster is
 * asked many more times, as the large clusters at the chain's bottom are (2-D: 5 answers per keep,
 * queries 80x the mean); in 8-D most kept clusters were asked once more, a 10% loss. */
#define WARD_REQUERY_WORTH 4

typedef struct ward_space {
    size_t m, dims;
    int threads;
    /* matrix space (centers == NULL) */
    double *d;
    int full;
    /* centroid space */
    double *centers; /* m x dims: each live cluster's centroid (mean of its original centroids) */
    double *sums;    /* m x dims: the sums those means come from (a merge adds them exactly once) */
    ward_tree *tree; /* over the live centroids, rebuilt when half of those it was built for are left */
    size_t first, listed; /* live[first, listed) holds every live cluster (and those merged away since
                             the tree's build), ascending */
    double tree_work;     /* coordinates a tree query read lately (a running mean) */
    size_t queries;
    ward_requery *requery; /* the chain's repeated queries, answered from what the last one found */
    size_t *changed_at;    /* merges done when each cluster last changed (0: never) */
    const birch_merge *merges;
    size_t step;           /* merges done */
    double one_work;       /* clusters and nodes a query for the one nearest read lately (a running mean) */
    double position_work[WARD_REQUERY_DEPTH]; /* ... and the last one at each chain position */
} ward_space;

/* The first live cluster: where the chain starts. */
static size_t first_live(ward_space *w, const int64_t *size, const size_t *live)
{
    if (!w->centers) return live[0];
    while (size[live[w->first]] == 0) w->first++;
    return live[w->first];
}

static size_t ward_matrix_bytes(size_t m, int full)
{
    return full ? m * m * sizeof(double) : birch_ward_matrix_bytes(m);
}

/* d(x, i), read along x's row in the full layout. */
static inline double ward_get(const ward_space *w, size_t x, size_t i)
{
    if (w->full) return w->d[x * w->m + i];
    return x < i ? w->d[birch_condensed_index(w->m, x, i)] : w->d[birch_condensed_index(w->m, i, x)];
}

static inline void ward_set(ward_space *w, size_t i, size_t j, double value)
{
    if (w->full) {
        w->d[i * w->m + j] = value, w->d[j * w->m + i] = value;
        return;
    }
    w->d[i < j ? birch_condensed_index(w->m, i, j) : birch_condensed_index(w->m, j, i)] = value;
}

/* Squared Ward distance between live clusters x and i of the centroid space. */
static inline double ward_squared(const ward_space *w, const int64_t *size, size_t x, size_t i)
{
    return birch_ward_squared(w->centers + x * w->dims, size[x], w->centers + i * w->dims, size[i], w->dims);
}

/* A parallel region costs about this many coordinates read: a scan over the threads pays off above. */
#define WARD_PARALLEL_SCAN_MIN 32768

/* The live cluster other than x with the least (squared distance, id) in the centroid space, by a
 * scan of the live list over the threads: the same answer as the tree's, for every thread count. */
static size_t nearest_centroid_by_scan(const ward_space *w, const int64_t *size, const size_t *live, size_t x,
                                       double *found)
{
    double best = INFINITY;
    size_t best_id = SIZE_MAX;
#pragma omp parallel num_threads(w->threads) if (w->threads > 1)
    {
        double mine = INFINITY;
        size_t mine_id = SIZE_MAX;
#pragma omp for schedule(static) nowait
        for (size_t t = w->first; t < w->listed; t++) {
            double g;
            if (live[t] == x || size[live[t]] == 0) continue;
            if (mine_id != SIZE_MAX && birch_ward_surely_above(w->centers + x * w->dims, size[x],
                                                               w->centers + live[t] * w->dims, size[live[t]],
                                                               w->dims, mine))
                continue;
            g = ward_squared(w, size, x, live[t]);
            if (mine_id == SIZE_MAX || g < mine) mine = g, mine_id = live[t];
        }
#pragma omp critical(birch_ward_nearest)
        if (mine_id != SIZE_MAX && (best_id == SIZE_MAX || mine < best || (mine == best && mine_id < best_id)))
            best = mine, best_id = mine_id;
    }
    *found = best;
    return best_id;
}

/* The tree's k nearest of x, kept for its next queries at this chain position; the nearest in *found. */
static size_t nearest_centroid_kept(ward_space *w, const ward_history *history, const int64_t *size, size_t x,
                                    size_t position, double *found, size_t *work)
{
    ward_candidate nearest[WARD_REQUERY_K];
    size_t count = ward_tree_nearest_k(w->tree, w->centers, size, x, WARD_REQUERY_K, nearest, work);
    ward_requery_keep(w->requery, history, position, x, nearest, count, WARD_REQUERY_K);
    *found = count > 0 ? nearest[0].distance : INFINITY;
    return count > 0 ? nearest[0].id : SIZE_MAX;
}

/* The same from what x's last query at this chain position kept, else by the tree or by the scan,
 * whichever reads fewer coordinates (per thread) by the tree's running mean: the tree's work grows
 * with the dimensions (8-D: ~1,500 clusters of 50,000 per query; 50-D: all of them and its nodes),
 * the scan's shrinks with the threads. Every 64th query asks the tree, to keep its mean current. */
static size_t nearest_centroid(ward_space *w, const int64_t *size, const size_t *live, size_t x, size_t position,
                               double *found)
{
    ward_history history = {w->centers, size, w->dims, w->changed_at, w->merges, w->step};
    ward_candidate kept;
    ward_requery_result asked = ward_requery_answer(w->requery, &history, position, x, &kept);
    double scan_work = (double)(w->listed - w->first) * (double)w->dims / w->threads +
                       (w->threads > 1 ? WARD_PARALLEL_SCAN_MIN : 0);
    size_t work, nearest;
    if (asked == WARD_REQUERY_ANSWERED) {
        *found = kept.distance;
        return kept.id;
    }
    if (scan_work < w->tree_work && w->queries++ % 64 != 0)
        return nearest_centroid_by_scan(w, size, live, x, found);
    if (asked == WARD_REQUERY_ASK_K && w->position_work[position] < WARD_REQUERY_WORTH * w->one_work)
        asked = WARD_REQUERY_ASK_ONE;
    if (asked == WARD_REQUERY_ASK_K) {
        nearest = nearest_centroid_kept(w, &history, size, x, position, found, &work);
    } else {
        nearest = ward_tree_nearest(w->tree, w->centers, size, x, found, &work);
        w->one_work = 0.9 * w->one_work + 0.1 * (double)work;
        if (position < WARD_REQUERY_DEPTH) w->position_work[position] = (double)work;
    }
    w->tree_work = 0.9 * w->tree_work + 0.1 * (double)work * (double)w->dims;
    return nearest;
}

/* O(m^2 dims): seconds for m in the tens of thousands, so every row polls progress (NULL: none) and
 * the rows after a cancel are skipped (the chain then returns PARAC_ERR_CANCELLED at once). */
static void fill_distances(const double *centers, struct parac_progress_gate *progress, ward_space *w)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(w->threads)
    for (size_t i = 0; i < w->m; i++) {
        if (progress && parac_progress_gate_poll(progress)) continue;
        for (size_t j = i + 1; j < w->m; j++)
            ward_set(w, i, j, sqrt(birch_squared_distance(centers + i * w->dims, centers + j * w->dims, w->dims)));
    }
}

/* The chain's next link from x: the closest live cluster, preferring the previous chain element
 * on ties (scipy avoids cycles that way), else the first in live order. A NaN distance counts as
 * +inf, and the answer is always a live cluster other than x, whatever the distances (a NaN used
 * to leave y at a dead or the same cluster and grow the chain past its array). *found is the
 * Ward distance (not squared). */
static size_t nearest_live(ward_space *w, const int64_t *size, const size_t *live, size_t live_count, size_t x,
                           size_t position, long previous, double *found)
{
    size_t y = previous >= 0 ? (size_t)previous : SIZE_MAX;
    double best;
    if (w->centers) { /* the least (distance, id): the first in live order, as scipy's scan */
        size_t nearest = nearest_centroid(w, size, live, x, position, &best);
        double to_previous = previous >= 0 ? ward_squared(w, size, x, (size_t)previous) : INFINITY;
        if (previous < 0 || best < to_previous) y = nearest;
        else best = to_previous;
        *found = sqrt(best);
        return y;
    }
    best = previous >= 0 ? ward_get(w, x, (size_t)previous) : INFINITY;
    if (best != best) best = INFINITY;
    for (size_t t = 0; t < live_count; t++) {
        size_t i = live[t];
        double d;
        if (i == x) continue;
        d = ward_get(w, x, i);
        if (d != d) d = INFINITY;
        if (y == SIZE_MAX || d < best) best = d, y = i;
    }
    *found = best;
    return y;
}

/* Cluster x merged into y (size[x] is 0). Matrix: x leaves the live list, y's distances follow
 * Lance–Williams. Centroids: y's centroid moves to the mean of both clusters' original centroids and
 * the tree follows, or is rebuilt when half the clusters it was built for are left (0 when out of
 * memory); the live list is rebuilt with it (removing x from it at every merge, O(m), was half the
 * time of 300,000 subclusters once the tree answered the queries). */
static int update_after_merge(ward_space *w, const int64_t *size, size_t *live, size_t *live_count, size_t x,
                               size_t y, double d_xy, int64_t nx, int64_t ny)
{
    size_t t = 0;
    (*live_count)--;
    if (w->centers) {
        double *sum_y = w->sums + y * w->dims, *center_y = w->centers + y * w->dims;
        for (size_t j = 0; j < w->dims; j++) {
            sum_y[j] = BIRCH_ADD(sum_y[j], w->sums[x * w->dims + j]);
            center_y[j] = BIRCH_DIV(sum_y[j], (double)size[y]);
        }
        if (*live_count * 2 > ward_tree_built_for(w->tree) || *live_count < 2) {
            ward_tree_merged(w->tree, w->centers, size, x, y);
            return 1;
        }
        for (size_t i = 0; i < w->m; i++) /* the live list again (ascending), for the new tree */
            if (size[i] != 0) live[t++] = i;
        w->first = 0;
        w->listed = t;
        ward_tree_free(w->tree);
        return (w->tree = ward_tree_build(w->centers, size, live, *live_count, w->dims)) != NULL;
    }
    while (live[t] != x) t++;
    memmove(live + t, live + t + 1, (*live_count - t) * sizeof(size_t));
    /* O(m) per merge: too little work per merge for a parallel region to pay off. */
    for (t = 0; t < *live_count; t++) {
        size_t i = live[t];
        if (i == y) continue;
        ward_set(w, i, y,
                 sqrt(birch_ward_update(ward_get(w, x, i), ward_get(w, y, i), d_xy, (double)nx, (double)ny,
                                        (double)size[i])));
    }
    return 1;
}

static void free_space(ward_space *w)
{
    free(w->d), free(w->centers), free(w->sums), free(w->changed_at);
    ward_tree_free(w->tree);
    ward_requery_free(w->requery);
}

/* The matrix (filled) or the centroid copies and their tree (every cluster live, of size 1); 0 when
 * out of memory. */
static int prepare_space(ward_space *w, int matrix, const double *centers, const int64_t *size, const size_t *live,
                         struct parac_progress_gate *progress)
{
    if (matrix) {
        w->full = w->m <= WARD_FULL_MATRIX_MAX;
        if (!(w->d = malloc(ward_matrix_bytes(w->m, w->full)))) return 0;
        fill_distances(centers, progress, w);
        return 1;
    }
    w->centers = malloc(w->m * w->dims * sizeof(double));
    w->sums = malloc(w->m * w->dims * sizeof(double));
    w->changed_at = calloc(w->m, sizeof *w->changed_at);
    w->requery = ward_requery_new(WARD_REQUERY_DEPTH);
    if (!w->centers || !w->sums || !w->changed_at || !w->requery) return 0;
    memcpy(w->centers, centers, w->m * w->dims * sizeof(double));
    memcpy(w->sums, centers, w->m * w->dims * sizeof(double));
    return (w->tree = ward_tree_build(w->centers, size, live, w->m, w->dims)) != NULL;
}

parac_status birch_ward_cpu(const double *centers, size_t m, size_t dims, int threads,
                            struct parac_progress_gate *progress, birch_merge *merges, parac_error *error)
{
    return birch_ward_cpu_in(birch_ward_uses_matrix(m), centers, m, dims, threads, progress, merges, error);
}

parac_status birch_ward_cpu_in(int matrix, const double *centers, size_t m, size_t dims, int threads,
                               struct parac_progress_gate *progress, birch_merge *merges, parac_error *error)
{
    ward_space w = {.m = m, .dims = dims, .threads = parac_threads_resolve(threads), .listed = m, .merges = merges};
    int64_t *size;
    size_t *chain, *live, chain_length = 0, live_count = m;
    int prepared;
    if (m < 2) return PARAC_OK;
    size = malloc(m * sizeof(int64_t));
    chain = malloc(m * sizeof(size_t));
    live = malloc(m * sizeof(size_t));
    if (size && live)
        for (size_t i = 0; i < m; i++) size[i] = 1, live[i] = i;
    prepared = size && chain && live && prepare_space(&w, matrix, centers, size, live, progress);
    if (!prepared) {
        free_space(&w), free(size), free(chain), free(live);
        /* the usual cause is a threshold far below the data's spread (a subcluster per point): say so */
        return parac_fail(error, PARAC_ERR_NO_MEMORY,
                          "out of host memory allocating %llu bytes for the global step's Ward distances between %zu "
                          "subclusters (a larger --threshold gives fewer)",
                          (unsigned long long)(matrix ? ward_matrix_bytes(m, m <= WARD_FULL_MATRIX_MAX)
                                                                         : 3 * m * dims * sizeof(double)),
                          m);
    }
    for (size_t k = 0; k + 1 < m; k++) {
        size_t x = 0, y = 0, swap;
        double d_xy = 0.0;
        int64_t nx, ny;
        if (progress && parac_progress_gate_poll_at(progress, k)) {
            free_space(&w), free(size), free(chain), free(live);
            return parac_fail(error, PARAC_ERR_CANCELLED, "birch: global step cancelled after %zu of %zu merges", k,
                              m - 1);
        }
        if (chain_length == 0) chain[chain_length++] = first_live(&w, size, live);
        for (;;) {
            long previous = chain_length > 1 ? (long)chain[chain_length - 2] : -1;
            x = chain[chain_length - 1];
            y = nearest_live(&w, size, live, live_count, x, chain_length - 1, previous, &d_xy);
            if (chain_length > 1 && (long)y == previous) break;
            if (chain_length == m) { /* a chain never repeats a cluster: unreachable, but never past the array */
                free_space(&w), free(size), free(chain), free(live);
                return parac_fail(error, PARAC_ERR_INTERNAL, "birch: Ward chain did not close (non-finite distances?)");
            }
            chain[chain_length++] = y;
        }
        chain_length -= 2;
        if (x > y) swap = x, x = y, y = swap;
        nx = size[x], ny = size[y];
        merges[k].a = (int32_t)x, merges[k].b = (int32_t)y, merges[k].height = d_xy;
        size[x] = 0;
        size[y] = nx + ny;
        if (w.changed_at) w.changed_at[y] = k + 1;
        w.step = k + 1;
        if (!update_after_merge(&w, size, live, &live_count, x, y, d_xy, nx, ny)) {
            free_space(&w), free(size), free(chain), free(live);
            return parac_fail_no_memory(error, "the global step's centroid tree", (unsigned long long)m * dims * 8);
        }
    }
    free_space(&w), free(size), free(chain), free(live);
    return PARAC_OK;
}
/* Stable merge sort of merge indices by height (numpy's kind='mergesort'). */
static void sort_by_height(const birch_merge *merges, size_t *order, size_t *scratch, size_t count)
{
    for (size_t width = 1; width < count; width *= 2) {
        for (size_t lo = 0; lo < count; lo += 2 * width) {
            size_t mid = lo + width < count ? lo + width : count, hi = lo + 2 * width < count ? lo + 2 * width : count;
            size_t i = lo, j = mid, out = lo;
            while (i < mid && j < hi) scratch[out++] = merges[order[j]].height < merges[order[i]].height ? order[j++] : order[i++];
            while (i < mid) scratch[out++] = order[i++];
            while (j < hi) scratch[out++] = order[j++];
        }
        memcpy(order, scratch, count * sizeof(size_t));
    }
}

parac_status birch_ward_cut(const birch_merge *merges, size_t m, size_t clusters, int32_t *labels,
                            parac_error *error)
{
    size_t merge_count = m > 0 ? m - 1 : 0, apply = m > clusters ? m - clusters : 0, next = 0;
    size_t *order = malloc((merge_count + 1) * 2 * sizeof(size_t));
    uint32_t *parent = malloc((m + 1) * sizeof(uint32_t));
    if (!order || !parent) {
        free(order), free(parent);
        return parac_fail_no_memory(error, "Ward cut", (unsigned long long)m);
    }
    for (size_t i = 0; i < merge_count; i++) order[i] = i;
    sort_by_height(merges, order, order + merge_count + 1, merge_count);
    union_find_init(parent, m);
    for (size_t k = 0; k < apply; k++)
        union_find_join(parent, (uint32_t)merges[order[k]].a, (uint32_t)merges[order[k]].b);
    /* Roots are the smallest member index, so numbering roots in index order
     * numbers clusters by first appearance. */
    for (size_t i = 0; i < m; i++) labels[i] = -1;
    for (size_t i = 0; i < m; i++) {
        size_t root = union_find_root(parent, (uint32_t)i);
        if (root == i) labels[i] = (int32_t)next++;
        labels[i] = labels[root];
    }
    free(order), free(parent);
    return PARAC_OK;
}
