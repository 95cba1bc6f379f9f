/* birch/ward_tree.h — the nearest live cluster under the Ward distance, by a kd-tree over the
 * clusters' centroids, for the chain of ward.c in its centroid space.
 *
 * The answer is the one a scan of every live cluster gives: the least (squared Ward distance, id)
 * pair, each distance computed by birch_ward_squared exactly as the scan computes it, so the chain
 * makes the same merges in the same order, bit for bit. The tree only skips clusters that a lower
 * bound proves farther: the distance to the box of a node's live centroids times the Ward factor
 * 2 n_x n_i / (n_x + n_i) of its smallest live size (the factor grows with n_i). Boxes and smallest
 * sizes follow every merge along the two leaf paths, exactly: with the sizes of the last build, a
 * large cluster's query read thousands of clusters (the grown clusters around it were bounded as
 * singletons). The tree is rebuilt each time the live clusters halve, so leaves stay mostly live.
 */
#ifndef PARAC_BIRCH_WARD_TREE_H
#define PARAC_BIRCH_WARD_TREE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "birch/cf_math.h"

/* Squared Ward distance 2 n_x n_i / (n_x + n_i) |c_x - c_i|^2. Symmetric bit for bit (the squares
 * of a - b and b - a are equal, the size factor is a product), which the chain's reciprocal-neighbour
 * test needs. A NaN counts as +inf. */
static inline double birch_ward_squared(const double *cx, int64_t nx, const double *ci, int64_t ni, size_t dims)
{
    double a = (double)nx, b = (double)ni;
    double g = BIRCH_MUL(BIRCH_DIV(BIRCH_MUL(2.0, BIRCH_MUL(a, b)), BIRCH_ADD(a, b)), birch_squared_distance(cx, ci, dims));
    return g == g ? g : INFINITY;
}

/* Relative slack of every lower bound below: they are rounded otherwise than the distances they bound,
 * and a cluster skipped on a tie could hold a smaller id. */
#define WARD_BOUND_SLACK 1e-9

/* Whether birch_ward_squared(cx, nx, ci, ni) is surely above `limit`, cheaper than computing it: the
 * squared distance summed in two interleaved halves (half the dependent additions) and the Ward factor
 * multiplied across (no division). A cluster it rules out is never the least (distance, id) below limit. */
static inline int birch_ward_surely_above(const double *cx, int64_t nx, const double *ci, int64_t ni, size_t dims,
                                          double limit)
{
    double even = 0.0, odd = 0.0, a = (double)nx, b = (double)ni;
    size_t k = 0;
    for (; k + 1 < dims; k += 2) {
        double d0 = cx[k] - ci[k], d1 = cx[k + 1] - ci[k + 1];
        even += d0 * d0, odd += d1 * d1;
    }
    if (k < dims) even += (cx[k] - ci[k]) * (cx[k] - ci[k]);
    return 2.0 * a * b * (even + odd) > limit * (1.0 + WARD_BOUND_SLACK) * (a + b);
}

typedef struct ward_tree ward_tree;

/* A tree over the live clusters live[0..live_count) (centroids m x dims, sizes); NULL when out of
 * memory. */
ward_tree *ward_tree_build(const double *centers, const int64_t *size, const size_t *live, size_t live_count,
                           size_t dims);
void ward_tree_free(ward_tree *tree);

/* A live cluster and its squared Ward distance to the query's cluster. */
typedef struct ward_candidate {
    double distance;
    size_t id;
} ward_candidate;

/* (a.distance, a.id) < (b.distance, b.id): the order in which every nearest-cluster answer is the least. */
static inline int ward_candidate_less(ward_candidate a, ward_candidate b)
{
    return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
}

/* The live cluster other than x with the least (birch_ward_squared to x, id), its value in *found;
 * SIZE_MAX when x is the only one. *work: the clusters and node bounds it read (each costs about
 * dims coordinates), which ward.c weighs against a scan over its threads. The tree reads the other
 * clusters from its own copies, as of the build and the merges it was told of (ward_tree_merged); x's
 * centroid and size come from centers and size. */
size_t ward_tree_nearest(const ward_tree *tree, const double *centers, const int64_t *size, size_t x,
                         double *found, size_t *work);

/* The k live clusters other than x with the least (distance, id), ascending, in nearest[0..k); fewer
 * (the count returned) when fewer are live. Every live cluster not returned is greater than
 * nearest[k - 1] in that order. */
size_t ward_tree_nearest_k(const ward_tree *tree, const double *centers, const int64_t *size, size_t x, size_t k,
                           ward_candidate *nearest, size_t *work);

/* After a merge: cluster `gone` is no longer live (size 0), cluster `moved` has its new centroid and
 * size. */
void ward_tree_merged(ward_tree *tree, const double *centers, const int64_t *size, size_t gone, size_t moved);

/* Live clusters when the tree was built (ward.c rebuilds it when half of them are left). */
size_t ward_tree_built_for(const ward_tree *tree);

#endif
