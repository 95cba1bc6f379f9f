/* dbscan/dbscan_cell_tree.h — a kd-tree over the points of one large grid cell, for the CPU path's
 * two per-point searches that can read a whole stencil: counting neighbours up to min_samples, and
 * the lowest-index core neighbour of a border point.
 *
 * When eps spans much of the data the grid has a few cells of many points each, and a point whose
 * answer needs most of them (min_samples a large fraction of n) compared itself with all of them:
 * 1 M uniform 2-D points at eps 0.5 and min_samples 600,000 ran past 120 s. The tree answers from
 * whole nodes: a node whose box lies within eps of the point counts whole, one beyond eps not at all,
 * and only the nodes the eps-sphere cuts are read point by point.
 *
 * Exactness: the box tests use dbscan_within_eps's arithmetic (scaled differences, squares summed in
 * coordinate order). A point of the box is no farther from x than the box's far corner along every
 * coordinate and no nearer than its near face, and every rounded step is monotone, so the computed
 * pair distance lies between the two computed box distances: "within" and "beyond" never disagree
 * with the pairwise test, and the counts and the lowest index are exactly the scan's.
 */
#ifndef PARAC_DBSCAN_CELL_TREE_H
#define PARAC_DBSCAN_CELL_TREE_H

#include <stddef.h>
#include <stdint.h>

/* Cells from this many points get a tree (smaller ones are read point by point), for points of at most
 * DBSCAN_TREE_MAX_DIMS coordinates: boxes prune less as the dimensions grow (uniform points, eps and
 * min_samples spanning much of the data, 2 threads: 3-D 6x and 4-D 1.7x faster than the scan, 5-D even,
 * 6-D and 8-D 2x slower). */
#define DBSCAN_TREE_MIN_POINTS 256
#define DBSCAN_TREE_MAX_DIMS 4

typedef struct dbscan_tree_node {
    uint32_t begin, end;     /* its points: positions[begin, end) */
    uint32_t left, right;    /* children (0: a leaf) */
    uint32_t lowest_core;    /* the least original index among its core points, UINT32_MAX: none */
    uint32_t lowest_core_at; /* the sorted position of that point */
} dbscan_tree_node;

typedef struct dbscan_tree {
    size_t dim;
    uint32_t node_count;
    dbscan_tree_node *nodes;
    double *low, *high;  /* node_count x dim: the box of the node's points */
    uint32_t *positions; /* the cell's sorted positions, in leaf order */
} dbscan_tree;

/* A tree over the sorted positions [begin, end) of xs (count x dim, sorted order); 0 when out of
 * memory (*tree then holds nothing to free). */
int dbscan_tree_build(dbscan_tree *tree, const double *xs, size_t dim, uint32_t begin, uint32_t end);
void dbscan_tree_free(dbscan_tree *tree);

/* A count over several trees (a point's stencil), largest nodes first: the nodes wait in a queue,
 * breadth first over all the trees, so whole nodes decide most points before any is read point by
 * point (a point whose count is far from min_samples stops at the coarse levels; depth first, tree by
 * tree, read every boundary leaf of the first trees before the others: 1 M points at eps 0.5 and
 * min_samples 600,000 took 85 s). One queue per thread, reused. */
typedef struct dbscan_tree_queue {
    const dbscan_tree **trees;
    uint32_t *nodes;
    size_t count, capacity;
} dbscan_tree_queue;

/* Queues tree's root; 0 when out of memory (count the tree some other way). */
int dbscan_tree_queue_root(dbscan_tree_queue *queue, const dbscan_tree *tree);

/* Adds to *neighbours the queued trees' points within eps of x: 1 once they reach min_samples, -1 once
 * they no longer can (*misses_left, the candidates that may still fail, is spent), else 0 — as the
 * CPU path's scan of the same points. Empties the queue. */
int dbscan_tree_count_queued(dbscan_tree_queue *queue, const double *xs, const double *x, double scale, double eps2,
                             size_t min_samples, size_t *neighbours, size_t *misses_left);
void dbscan_tree_queue_free(dbscan_tree_queue *queue);

/* Records the lowest core index of every node, once the core points are known. */
void dbscan_tree_mark_cores(dbscan_tree *tree, const uint8_t *core, const uint32_t *order);

/* Lowers *best (an original index, UINT32_MAX: none yet) to the least original index of a core point
 * of the tree within eps of x, and *best_at to its sorted position. */
void dbscan_tree_lowest_core(const dbscan_tree *tree, const double *xs, const double *x, double scale, double eps2,
                             const uint8_t *core, const uint32_t *order, uint32_t *best, uint32_t *best_at);

#endif
