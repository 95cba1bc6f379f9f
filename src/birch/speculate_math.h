/* birch/speculate_math.h — the speculative descent, shared by the CPU and CUDA paths.
 *
 * A point descends to its closest entry at every level, as birch_tree_descend,
 * and also records, per level, a lower bound on the (plain, not squared)
 * distance to the runner-up entry of that node. Later, if the chosen entry is
 * still closer than that bound minus how far any other entry of the node has
 * moved, the serial algorithm would still choose it (triangle inequality), so
 * the speculation can be committed without a second descent (speculative.c).
 * The bound is shrunk by a relative slack covering the rounding of the squared
 * distances (ours now, the serial algorithm's later) and of sqrt; a node with
 * one entry gives +inf.
 */
#ifndef PARAC_BIRCH_SPECULATE_MATH_H
#define PARAC_BIRCH_SPECULATE_MATH_H

#include <math.h>

#include "birch/cf_math.h"

/* Relative rounding slack of a squared distance summed over dims coordinates
 * and its square root, generously (1e-16 > half an ulp of 1). */
BIRCH_HD double birch_margin_slack(size_t dims) { return 4e-16 * (double)(dims + 8); }

/* Lower bound of the true distance whose rounded square is `second`. The product and the difference
 * are separate statements: within one expression clang contracts them into a fused multiply-add
 * wherever the target has FMA (-ffp-contract=on), which the AVX-512 descent's tail is (target
 * "avx512f" implies FMA in clang) and the scalar one is not, so the same point got bounds one
 * rounding apart (birch.speculate_cpu under the TSan build, AVX-512 machine, 2026-12-04). */
BIRCH_HD double birch_runner_up_bound(double second, double slack)
{
    double scaled;
    if (isinf(second)) return INFINITY; /* the node's only entry */
    scaled = sqrt(second) * (1.0 - slack);
    return scaled - 1e-150;
}

/* Upper bound of the true distance whose rounded square is `distance` (two statements, as above). */
BIRCH_HD double birch_distance_upper(double distance, double slack)
{
    double scaled = sqrt(distance) * (1.0 + slack);
    return scaled + 1e-150;
}

/* Walks the tree (flat arrays of birch_tree) with the point x (coordinate j at
 * x[j * stride]); returns its leaf slot (-1 for an empty tree) and writes the
 * runner-up bound of level l to runner_up[l * stride_out]. Ties make the
 * runner-up as close as the chosen entry: the check then fails. */
BIRCH_HD int32_t birch_descend_speculative(int32_t root, int32_t slots, size_t dims, const int32_t *entry_count,
                                           const int32_t *child, const double *mean, const double *x, size_t stride,
                                           double *runner_up, size_t stride_out)
{
    int32_t node = root;
    double slack = birch_margin_slack(dims);
    if (entry_count[node] == 0) return -1;
    for (size_t level = 0;; level++) {
        size_t first = (size_t)node * (size_t)slots, best = first;
        double best_distance = INFINITY, second = INFINITY;
        for (int32_t k = 0; k < entry_count[node]; k++) {
            double d = birch_squared_distance_strided(x, stride, mean + (first + (size_t)k) * dims, dims);
            /* branch-free form of: if (d < best) second = best, best = d; else if (d < second) second = d
               (best <= second always): the comparisons are data-dependent and mispredict */
            double above = d < best_distance ? best_distance : d;
            second = above < second ? above : second;
            best = d < best_distance ? first + (size_t)k : best;
            best_distance = d < best_distance ? d : best_distance;
        }
        runner_up[level * stride_out] = birch_runner_up_bound(second, slack);
        if (child[best] < 0) return (int32_t)best;
        node = child[best];
    }
}

#endif
