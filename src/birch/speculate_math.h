/* birch/speculate_math.h — the speculative descent, shared by the CPU and CUDA paths.
 *
 * A point descends to its closest entry at every level, as birch_tree_descend,
 * and also records, per level, a *margin*: a lower bound on how much farther
 * (in plain, not squared, distance) the runner-up entry is than the chosen one.
 * If, later, no entry of that node has moved by more than half the margin, the
 * serial algorithm would still choose the same entry (triangle inequality), so
 * the speculation can be committed without a second descent (speculative.c).
 * The margin is shrunk by a relative slack covering the rounding of the
 * squared distances (ours now, the serial algorithm's later) and of sqrt; a
 * tie or a single-entry node gives 0 and +inf respectively.
 */
#ifndef PARAC_BIRCH_SPECULATE_MATH_H
#define PARAC_BIRCH_SPECULATE_MATH_H

#include <math.h>

#include "birch/cf_math.h"

/* Relative rounding slack of a squared distance summed over dims coordinates
 * and its square root, generously (1e-16 > half an ulp of 1). */
BIRCH_HD double birch_margin_slack(size_t dims) { return 4e-16 * (double)(dims + 8); }

/* Lower bound of sqrt(second) - sqrt(best) for the true distances. */
BIRCH_HD double birch_margin(double best, double second, double slack)
{
    if (!(best < INFINITY)) return 0.0; /* overflowed distances decide nothing */
    if (isinf(second)) return INFINITY;  /* the node's only entry */
    return sqrt(second) * (1.0 - slack) - sqrt(best) * (1.0 + slack) - 1e-150;
}

/* Walks the tree (flat arrays of birch_tree) with the point x (coordinate j at
 * x[j * stride]); returns its leaf slot (-1 for an empty tree) and writes the
 * margin of level l to margins[l * margin_stride]. */
BIRCH_HD int32_t birch_descend_margins(int32_t root, int32_t slots, size_t dims, const int32_t *entry_count,
                                       const int32_t *child, const double *mean, const double *x, size_t stride,
                                       double *margins, size_t margin_stride)
{
    int32_t node = root;
    double slack = birch_margin_slack(dims);
    if (entry_count[node] == 0) return -1;
    for (size_t level = 0;; level++) {
        size_t first = (size_t)node * (size_t)slots, best = first;
        double best_distance = INFINITY, second = INFINITY;
        for (int32_t k = 0; k < entry_count[node]; k++) {
            double d = birch_squared_distance_strided(x, stride, mean + (first + (size_t)k) * dims, dims);
            if (d < best_distance) second = best_distance, best_distance = d, best = first + (size_t)k;
            else if (d < second) second = d;
        }
        margins[level * margin_stride] = birch_margin(best_distance, second, slack);
        if (child[best] < 0) return (int32_t)best;
        node = child[best];
    }
}

#endif
