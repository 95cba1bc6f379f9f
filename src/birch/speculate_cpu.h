/* birch/speculate_cpu.h — the CPU speculator: a window's speculative descents
 * (speculate_math.h) on OpenMP threads, and for 2-D points on SIMD lanes.
 *
 * The speculation is work the serial path never does (it only feeds the
 * validated commit), so it is the one part of the parallel fit whose speed-up
 * raises the parallel/serial ratio. A 2-D descent compares the point with
 * every entry of a node; the SIMD forms compare 4 (AVX2) or 8 (AVX-512)
 * entries at once, each lane keeping its own closest and runner-up, and merge
 * the lanes per node. The distances are computed with the scalar form's
 * operations in its order ((x - cx)² + (y - cy)², no fused multiply-add), and
 * the merge keeps the first closest entry and the multiset's second smallest
 * distance, so every SIMD form returns the scalar form's slots and bounds bit
 * for bit (tests/birch/test_speculate_cpu.c). */
#ifndef PARAC_BIRCH_SPECULATE_CPU_H
#define PARAC_BIRCH_SPECULATE_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "birch/cf_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum birch_descent_isa {
    BIRCH_DESCENT_SCALAR = 0, /* birch_descend_speculative, any dims */
    BIRCH_DESCENT_AVX2 = 1,   /* 2-D only, x86 with AVX2 */
    BIRCH_DESCENT_AVX512 = 2  /* 2-D only, x86 with AVX-512F */
} birch_descent_isa;

/* The widest form this CPU and build run. */
birch_descent_isa birch_descent_best_isa(void);

/* Whether this CPU and build run `isa`. */
int birch_descent_isa_available(birch_descent_isa isa);

/* The speculative descents of points [begin, end) of a window of n points
 * (point i at points + i * dims): leaf_slot[i] and runner_up[level * n + i],
 * as birch_descend_speculative writes them. A 2-D-only form on other dims
 * runs the scalar one. */
void birch_speculate_range(birch_descent_isa isa, const birch_tree *tree, const double *points, size_t n, size_t begin,
                           size_t end, int32_t *leaf_slot, double *runner_up);

#ifdef __cplusplus
}
#endif

#endif
