/* birch/cf_tree.h — the CF tree: nodes of entries stored as flat arrays.
 *
 * Node `v` owns the entry slots v*slots .. v*slots+entry_count[v]-1, with
 * slots = branching + 1 (a node holds one entry too many just before it is
 * split, as in scikit-learn). Entry data is structure-of-arrays (counts, sums
 * of squared deviations, children) plus row-major means, so the CUDA path can
 * copy the arrays as they are. A split reuses the node's index for its first
 * half, so the leaf chain (scikit-learn's prev/next leaf links) only needs a
 * `next_leaf` link and starts at node 0 forever.
 */
#ifndef PARAC_BIRCH_CF_TREE_H
#define PARAC_BIRCH_CF_TREE_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct birch_tree {
    size_t dims;
    int branching;           /* most entries of a settled node */
    int slots;               /* branching + 1 */
    double threshold_squared;
    int32_t node_count;
    int32_t node_capacity;
    int32_t root;
    size_t leaf_entries;     /* subclusters */
    /* per node */
    uint8_t *is_leaf;
    int32_t *entry_count;
    int32_t *parent;         /* -1 for the root */
    int32_t *next_leaf;      /* -1 at the end of the chain; leaves only */
    /* per entry slot */
    int64_t *count;
    double *ssd;
    int32_t *child;          /* -1 in leaves */
    double *mean;            /* slot * dims + j */
} birch_tree;

parac_status birch_tree_init(birch_tree *tree, size_t dims, int branching, double threshold, parac_error *error);
void birch_tree_free(birch_tree *tree);

/* scikit-learn's insertion of one point (coordinate j at x[j * stride]). */
parac_status birch_tree_insert(birch_tree *tree, const double *x, size_t stride, parac_error *error);
/* birch_tree_insert of count row-major points, in order: the serial algorithm. */
parac_status birch_tree_insert_points(birch_tree *tree, const double *points, size_t count, parac_error *error);

/* scikit-learn's insertion of a whole subcluster (count points, their mean and sum of squared
 * deviations; from another tree of the same dims and threshold): it descends by its mean as a point
 * does and merges into the closest leaf entry by CF additivity when the merged radius stays <=
 * threshold, else becomes an entry of its own (splits as for a point). count 1 with ssd 0 is a point,
 * inserted exactly as birch_tree_insert inserts it. INVALID_ARGUMENT for count < 1. */
parac_status birch_tree_insert_cf(birch_tree *tree, int64_t count, const double *mean, double ssd, parac_error *error);

/* The leaf slot a point descends to (closest entry at every level), -1 for an empty tree. */
int32_t birch_tree_descend(const birch_tree *tree, const double *x, size_t stride);

/* As birch_tree_descend, also writing the slot chosen at each level to
 * path[0..levels-1] (root first); returns levels (0 for an empty tree). */
size_t birch_tree_descend_path(const birch_tree *tree, const double *x, size_t stride, int32_t *path);

/* The serial insertion of x below `top` (a node the serial descent brings x
 * to), for a parallel commit: entries from `top` down change as
 * birch_tree_insert would change them; the entry above `top` and the leaf
 * entry count are left to the caller. Writes the slots chosen from `top` down
 * to path[0..*levels-1] and *new_entry = 1 when x became a new leaf entry.
 * Returns 0, changing nothing, when the insertion would split a node. */
int birch_tree_insert_below(birch_tree *tree, int32_t top, const double *x, int32_t *path, size_t *levels,
                            int *new_entry);

/* Merges a CF into every ancestor entry above leaf node `leaf`. */
void birch_tree_add_to_ancestors(birch_tree *tree, int32_t leaf, int64_t n, const double *mean, double ssd);

/* Leaf entries in leaf-chain order: centers (m×dims), counts and ssd (m); NULL skips. */
void birch_tree_collect(const birch_tree *tree, double *centers, int64_t *counts, double *ssd);

#ifdef __cplusplus
}
#endif

#endif
