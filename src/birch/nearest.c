/* birch/nearest.c — an implicit k-d tree (node i has children 2i+1, 2i+2 over
 * halves of its order[] range) for exact nearest-centroid queries. */
#include "birch/nearest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "core/error.h"
#include "core/threads.h"

#define KD_LEAF_SIZE 8

/* Three-way quickselect on order[lo, hi) so that order[mid] holds the median along dim. */
static void select_median(int32_t *order, size_t lo, size_t hi, size_t mid, const double *centers, size_t dims,
                          size_t dim)
{
    while (hi - lo > 1) {
        double pivot = centers[(size_t)order[lo + (hi - lo) / 2] * dims + dim];
        size_t below = lo, i = lo, above = hi;
        while (i < above) {
            double v = centers[(size_t)order[i] * dims + dim];
            int32_t t = order[i];
            if (v < pivot) order[i++] = order[below], order[below++] = t;
            else if (v > pivot) order[i] = order[--above], order[above] = t;
            else i++;
        }
        if (mid < below) hi = below;
        else if (mid >= above) lo = above;
        else return;
    }
}

static void build_node(birch_kdtree *tree, size_t node, size_t lo, size_t hi)
{
    size_t dims = tree->dims, best_dim = 0, mid;
    double best_spread = -1.0;
    if (node >= tree->node_capacity) return;
    tree->split_dim[node] = -1;
    if (hi - lo <= KD_LEAF_SIZE || 2 * node + 2 >= tree->node_capacity) return;
    for (size_t j = 0; j < dims; j++) {
        double low = tree->centers[(size_t)tree->order[lo] * dims + j], high = low;
        for (size_t i = lo + 1; i < hi; i++) {
            double v = tree->centers[(size_t)tree->order[i] * dims + j];
            if (v < low) low = v;
            if (v > high) high = v;
        }
        if (high - low > best_spread) best_spread = high - low, best_dim = j;
    }
    mid = lo + (hi - lo) / 2;
    select_median(tree->order, lo, hi, mid, tree->centers, dims, best_dim);
    tree->split_dim[node] = (int32_t)best_dim;
    tree->split_value[node] = tree->centers[(size_t)tree->order[mid] * dims + best_dim];
    build_node(tree, 2 * node + 1, lo, mid);
    build_node(tree, 2 * node + 2, mid, hi);
}

parac_status birch_kdtree_build(birch_kdtree *tree, const double *centers, size_t m, size_t dims,
                                parac_error *error)
{
    size_t capacity = 1;
    memset(tree, 0, sizeof *tree);
    while (capacity < 4 * (m / KD_LEAF_SIZE + 1)) capacity *= 2;
    tree->centers = centers, tree->m = m, tree->dims = dims, tree->node_capacity = capacity;
    tree->order = malloc((m + 1) * sizeof(int32_t));
    tree->split_dim = malloc(capacity * sizeof(int32_t));
    tree->split_value = malloc(capacity * sizeof(double));
    if (!tree->order || !tree->split_dim || !tree->split_value) {
        birch_kdtree_free(tree);
        return parac_fail_no_memory(error, "nearest-centroid index", (unsigned long long)capacity);
    }
    for (size_t i = 0; i < m; i++) tree->order[i] = (int32_t)i;
    build_node(tree, 0, 0, m);
    return PARAC_OK;
}

void birch_kdtree_free(birch_kdtree *tree)
{
    free(tree->order);
    free(tree->split_dim);
    free(tree->split_value);
    memset(tree, 0, sizeof *tree);
}

typedef struct kd_best {
    double distance;
    int32_t index;
} kd_best;

static void search(const birch_kdtree *tree, size_t node, size_t lo, size_t hi, const double *x, kd_best *best)
{
    size_t mid;
    double plane;
    if (tree->split_dim[node] < 0) {
        for (size_t i = lo; i < hi; i++) {
            int32_t c = tree->order[i];
            double d = birch_squared_distance(x, tree->centers + (size_t)c * tree->dims, tree->dims);
            if (d != d) d = INFINITY; /* NaN: never closer, and never an index of -1 below */
            if (best->index < 0 || d < best->distance || (d == best->distance && c < best->index))
                best->distance = d, best->index = c;
        }
        return;
    }
    mid = lo + (hi - lo) / 2;
    plane = x[tree->split_dim[node]] - tree->split_value[node];
    if (plane < 0) {
        search(tree, 2 * node + 1, lo, mid, x, best);
        if (plane * plane <= best->distance) search(tree, 2 * node + 2, mid, hi, x, best);
    } else {
        search(tree, 2 * node + 2, mid, hi, x, best);
        if (plane * plane <= best->distance) search(tree, 2 * node + 1, lo, mid, x, best);
    }
}

int32_t birch_kdtree_nearest(const birch_kdtree *tree, const double *x)
{
    kd_best best = {1.0 / 0.0, -1};
    search(tree, 0, 0, tree->m, x, &best);
    return best.index;
}

void birch_kdtree_nearest_all(const birch_kdtree *tree, const double *points, size_t count, int threads,
                              const int32_t *relabel, int32_t *out)
{
    /* dynamic: at times some cores of a shared host run 1.3-1.5x slower, and
       equal static shares would wait for the slowest */
#pragma omp parallel for schedule(dynamic, 1024) num_threads(parac_threads_resolve(threads))
    for (size_t i = 0; i < count; i++) {
        int32_t nearest = birch_kdtree_nearest(tree, points + i * tree->dims);
        out[i] = relabel ? relabel[nearest] : nearest;
    }
}
