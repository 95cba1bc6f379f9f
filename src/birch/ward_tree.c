/* birch/ward_tree.c — kd-tree over the live clusters' centroids for the Ward chain's nearest-cluster
 * queries (see ward_tree.h for what it answers and why the answer is the scan's).
 *
 * Nodes split their clusters at the median of the box's widest coordinate down to leaves of
 * WARD_LEAF_SIZE; the depth is log2 of the clusters, so the build's recursion is bounded by the
 * build's size, not by the values. A query goes depth first, the nearer child first, and skips a
 * node whose lower bound exceeds the best distance found by more than WARD_BOUND_SLACK (relative):
 * the bound is computed with other roundings than the distances it bounds, and a node skipped on a
 * tie could hold a smaller id. Before the tree, 50,000 subclusters in 8-D (a threshold far below the
 * data's spread) took 22 s of scans, O(m^2 d) over the chain's queries.
 */
#include "birch/ward_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/select_nth.h"

#define WARD_LEAF_SIZE 32
#define WARD_STACK 256 /* > 2 x the depth of a tree of 2^64 clusters */

typedef struct tree_node {
    uint32_t begin, end;   /* its clusters: ids[begin, end) */
    uint32_t left, right;  /* children (0: a leaf; the root, node 0, is no one's child) */
    uint32_t parent;
    uint32_t live;         /* live clusters below it */
    int64_t smallest;      /* the least live size below it (INT64_MAX: none live) */
} tree_node;

struct ward_tree {
    size_t dims, built_for, node_count;
    tree_node *nodes;
    double *low, *high;    /* node_count x dims: the box of the node's centroids */
    uint32_t *ids;         /* the clusters in leaf order */
    uint32_t *leaf_of;     /* cluster id -> its leaf */
    uint32_t *slot_of;     /* cluster id -> its position in ids */
    /* each cluster's centroid and size again, in leaf order (kept current by ward_tree_merged): a leaf's
     * scan reads them in sequence; through the ids, half of a 3-D query's time was cache misses */
    double *points;
    int64_t *sizes;
};

/* Node n's box, smallest size and live count from its live clusters (size 0: merged away). */
static void node_box(ward_tree *tree, const double *centers, const int64_t *size, uint32_t n)
{
    tree_node *node = &tree->nodes[n];
    double *low = tree->low + (size_t)n * tree->dims, *high = tree->high + (size_t)n * tree->dims;
    node->smallest = INT64_MAX;
    node->live = 0;
    for (size_t k = 0; k < tree->dims; k++) low[k] = INFINITY, high[k] = -INFINITY;
    for (uint32_t i = node->begin; i < node->end; i++) {
        const double *c = centers + (size_t)tree->ids[i] * tree->dims;
        if (size[tree->ids[i]] == 0) continue;
        for (size_t k = 0; k < tree->dims; k++) {
            low[k] = c[k] < low[k] ? c[k] : low[k];
            high[k] = c[k] > high[k] ? c[k] : high[k];
        }
        if (size[tree->ids[i]] < node->smallest) node->smallest = size[tree->ids[i]];
        node->live++;
    }
}

/* Inner node n's box, smallest size and live count from its children's. */
static void node_from_children(ward_tree *tree, uint32_t n)
{
    tree_node *node = &tree->nodes[n];
    const tree_node *left = &tree->nodes[node->left], *right = &tree->nodes[node->right];
    size_t d = tree->dims;
    double *low = tree->low + (size_t)n * d, *high = tree->high + (size_t)n * d;
    const double *left_low = tree->low + (size_t)node->left * d, *left_high = tree->high + (size_t)node->left * d;
    const double *right_low = tree->low + (size_t)node->right * d, *right_high = tree->high + (size_t)node->right * d;
    for (size_t k = 0; k < d; k++) {
        low[k] = left_low[k] < right_low[k] ? left_low[k] : right_low[k];
        high[k] = left_high[k] > right_high[k] ? left_high[k] : right_high[k];
    }
    node->smallest = left->smallest < right->smallest ? left->smallest : right->smallest;
    node->live = left->live + right->live;
}

/* Builds node n over ids[begin, end) and, depth first, its subtree. */
static void build_node(ward_tree *tree, const double *centers, const int64_t *size, uint32_t n, uint32_t parent,
                       uint32_t begin, uint32_t end)
{
    tree_node *node = &tree->nodes[n];
    size_t widest;
    node->begin = begin, node->end = end, node->parent = parent;
    node->left = node->right = 0;
    node_box(tree, centers, size, n);
    if (end - begin <= WARD_LEAF_SIZE) {
        for (uint32_t i = begin; i < end; i++) tree->leaf_of[tree->ids[i]] = n;
        return;
    }
    widest = parac_box_widest(tree->low + (size_t)n * tree->dims, tree->high + (size_t)n * tree->dims, tree->dims);
    parac_select_nth(tree->ids, begin, end, begin + (end - begin) / 2, centers, tree->dims, widest);
    node->left = (uint32_t)tree->node_count++;
    node->right = (uint32_t)tree->node_count++;
    build_node(tree, centers, size, node->left, n, begin, begin + (end - begin) / 2);
    build_node(tree, centers, size, tree->nodes[n].right, n, begin + (end - begin) / 2, end);
}

ward_tree *ward_tree_build(const double *centers, const int64_t *size, const size_t *live, size_t live_count,
                           size_t dims)
{
    ward_tree *tree = calloc(1, sizeof *tree);
    /* a node of more than WARD_LEAF_SIZE splits into halves of at least WARD_LEAF_SIZE / 2: at most
     * live_count / 4 leaves, under live_count / 2 nodes */
    size_t nodes = live_count / 2 + 8, ids_bound = 0;
    if (!tree || live_count == 0 || live_count >= UINT32_MAX) {
        free(tree);
        return NULL;
    }
    for (size_t t = 0; t < live_count; t++) ids_bound = live[t] + 1 > ids_bound ? live[t] + 1 : ids_bound;
    tree->dims = dims;
    tree->built_for = live_count;
    tree->nodes = malloc(nodes * sizeof *tree->nodes);
    tree->low = malloc(nodes * dims * sizeof *tree->low);
    tree->high = malloc(nodes * dims * sizeof *tree->high);
    tree->ids = malloc(live_count * sizeof *tree->ids);
    tree->leaf_of = malloc(ids_bound * sizeof *tree->leaf_of);
    tree->slot_of = malloc(ids_bound * sizeof *tree->slot_of);
    tree->points = malloc(live_count * dims * sizeof *tree->points);
    tree->sizes = malloc(live_count * sizeof *tree->sizes);
    if (!tree->nodes || !tree->low || !tree->high || !tree->ids || !tree->leaf_of || !tree->slot_of || !tree->points ||
        !tree->sizes) {
        ward_tree_free(tree);
        return NULL;
    }
    for (size_t t = 0; t < live_count; t++) tree->ids[t] = (uint32_t)live[t];
    tree->node_count = 1;
    build_node(tree, centers, size, 0, 0, 0, (uint32_t)live_count);
    for (size_t t = 0; t < live_count; t++) { /* the leaf-order copies, once the ids have their places */
        tree->slot_of[tree->ids[t]] = (uint32_t)t;
        memcpy(tree->points + t * dims, centers + (size_t)tree->ids[t] * dims, dims * sizeof *tree->points);
        tree->sizes[t] = size[tree->ids[t]];
    }
    return tree;
}

void ward_tree_free(ward_tree *tree)
{
    if (!tree) return;
    free(tree->nodes), free(tree->low), free(tree->high), free(tree->ids), free(tree->leaf_of), free(tree->slot_of);
    free(tree->points), free(tree->sizes);
    free(tree);
}

size_t ward_tree_built_for(const ward_tree *tree) { return tree->built_for; }

/* The box bound below is computed branch-free and in two interleaved sums, rounded otherwise than the
 * distances it bounds (WARD_BOUND_SLACK absorbs that): 8-D fits spent 39 % of their time in the
 * branchy version, and most of the rest in exact distances of clusters birch_ward_surely_above rules out. */

/* Squared gap from c to the box [low, high] (0 inside; one of the two gaps of a coordinate is <= 0). */
static inline double box_gap_squared(const double *c, const double *low, const double *high, size_t dims)
{
    double even = 0.0, odd = 0.0;
    size_t k = 0;
    for (; k + 1 < dims; k += 2) {
        double below0 = low[k] - c[k], above0 = c[k] - high[k], below1 = low[k + 1] - c[k + 1],
               above1 = c[k + 1] - high[k + 1];
        double d0 = (below0 > 0.0 ? below0 : 0.0) + (above0 > 0.0 ? above0 : 0.0);
        double d1 = (below1 > 0.0 ? below1 : 0.0) + (above1 > 0.0 ? above1 : 0.0);
        even += d0 * d0, odd += d1 * d1;
    }
    if (k < dims) {
        double below = low[k] - c[k], above = c[k] - high[k];
        double d = (below > 0.0 ? below : 0.0) + (above > 0.0 ? above : 0.0);
        even += d * d;
    }
    return even + odd;
}

/* A lower bound of the squared Ward distance from (c, nx) to any live cluster of node n. */
static double node_bound(const ward_tree *tree, uint32_t n, const double *c, int64_t nx)
{
    const double *low = tree->low + (size_t)n * tree->dims, *high = tree->high + (size_t)n * tree->dims;
    double a = (double)nx, b = (double)tree->nodes[n].smallest;
    double bound = 2.0 * a * b / (a + b) * box_gap_squared(c, low, high, tree->dims);
    return bound == bound ? bound : 0.0;
}

/* Candidate c into the ascending nearest[0..*count) of at most k. */
static inline void keep_nearest(ward_candidate *nearest, size_t *count, size_t k, ward_candidate c)
{
    size_t at;
    if (*count == k && !ward_candidate_less(c, nearest[k - 1])) return;
    at = *count < k ? (*count)++ : k - 1;
    while (at > 0 && ward_candidate_less(c, nearest[at - 1])) nearest[at] = nearest[at - 1], at--;
    nearest[at] = c;
}

/* The search of ward_tree_nearest_k, inlined into both entries: with k the constant 1 the kept list
 * folds into one compare (a call with k = 1 through the general search made 8-D fits 14% slower). */
static inline size_t nearest_k(const ward_tree *tree, const double *centers, const int64_t *size, size_t x, size_t k,
                               ward_candidate *nearest, size_t *work)
{
    const double *c = centers + x * tree->dims;
    uint32_t stack[WARD_STACK];
    double bounds[WARD_STACK];
    size_t depth = 0, count = 0, visited = 0;
    stack[depth] = 0, bounds[depth++] = 0.0;
    while (depth > 0 && k > 0) {
        uint32_t n = stack[--depth];
        const tree_node *node = &tree->nodes[n];
        double bound = bounds[depth];
        if (node->live == 0 || (count == k && bound > nearest[k - 1].distance * (1.0 + WARD_BOUND_SLACK))) continue;
        if (node->left == 0) {
            visited += node->end - node->begin;
            for (uint32_t i = node->begin; i < node->end; i++) {
                size_t id = tree->ids[i];
                const double *ci = tree->points + (size_t)i * tree->dims;
                int64_t ni = tree->sizes[i];
                ward_candidate candidate;
                if (id == x || ni == 0) continue;
                if (count == k && birch_ward_surely_above(c, size[x], ci, ni, tree->dims, nearest[k - 1].distance))
                    continue; /* above the k-th: not kept, as its exact value would not be */
                candidate.distance = birch_ward_squared(c, size[x], ci, ni, tree->dims);
                candidate.id = id;
                keep_nearest(nearest, &count, k, candidate);
            }
        } else {
            double left = node_bound(tree, node->left, c, size[x]), right = node_bound(tree, node->right, c, size[x]);
            int left_first = left <= right;
            visited += 2;
            stack[depth] = left_first ? node->right : node->left;
            bounds[depth++] = left_first ? right : left;
            stack[depth] = left_first ? node->left : node->right;
            bounds[depth++] = left_first ? left : right;
        }
    }
    *work = visited;
    return count;
}

size_t ward_tree_nearest_k(const ward_tree *tree, const double *centers, const int64_t *size, size_t x, size_t k,
                           ward_candidate *nearest, size_t *work)
{
    return nearest_k(tree, centers, size, x, k, nearest, work);
}

size_t ward_tree_nearest(const ward_tree *tree, const double *centers, const int64_t *size, size_t x,
                         double *found, size_t *work)
{
    ward_candidate nearest;
    if (nearest_k(tree, centers, size, x, 1, &nearest, work) == 0) {
        *found = INFINITY;
        return SIZE_MAX;
    }
    *found = nearest.distance;
    return nearest.id;
}

/* The nodes from cluster id's leaf up to the root again, from their live clusters. */
static void refresh_path(ward_tree *tree, const double *centers, const int64_t *size, size_t id)
{
    uint32_t n = tree->leaf_of[id];
    node_box(tree, centers, size, n);
    while (n != 0) {
        n = tree->nodes[n].parent;
        node_from_children(tree, n);
    }
}

void ward_tree_merged(ward_tree *tree, const double *centers, const int64_t *size, size_t gone, size_t moved)
{
    tree->sizes[tree->slot_of[gone]] = size[gone];
    tree->sizes[tree->slot_of[moved]] = size[moved];
    memcpy(tree->points + (size_t)tree->slot_of[moved] * tree->dims, centers + moved * tree->dims,
           tree->dims * sizeof *tree->points);
    refresh_path(tree, centers, size, gone);
    refresh_path(tree, centers, size, moved);
}
