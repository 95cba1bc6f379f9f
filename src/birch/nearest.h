/* birch/nearest.h — exact nearest subcluster centroid for labelling (CPU).
 *
 * A k-d tree over the centroids answers exactly what a brute-force scan
 * would: the smallest squared distance (computed as cf_math.h does), ties
 * to the smallest index. Pruning only skips a side when the distance to the
 * splitting plane is strictly larger than the best so far, which rounding
 * cannot fool (rounding is monotone).
 */
#ifndef PARAC_BIRCH_NEAREST_H
#define PARAC_BIRCH_NEAREST_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct birch_kdtree {
    const double *centers; /* borrowed, m×dims */
    size_t m, dims;
    int32_t *order;        /* centroid indices, permuted into the tree */
    int32_t *split_dim;    /* per node of the implicit tree over order[] ranges, -1: leaf */
    double *split_value;
    size_t node_capacity;
} birch_kdtree;

parac_status birch_kdtree_build(birch_kdtree *tree, const double *centers, size_t m, size_t dims,
                                parac_error *error);
void birch_kdtree_free(birch_kdtree *tree);
/* Index of the nearest centroid to x (m >= 1). */
int32_t birch_kdtree_nearest(const birch_kdtree *tree, const double *x);

/* Labels points[count×dims] in parallel: out[i] = the nearest centroid, or
 * relabel[the nearest centroid] when relabel is not NULL (cluster labels in
 * the same pass: no per-point scratch array to allocate and fault in). */
void birch_kdtree_nearest_all(const birch_kdtree *tree, const double *points, size_t count, int threads,
                              const int32_t *relabel, int32_t *out);

#ifdef __cplusplus
}
#endif

#endif
