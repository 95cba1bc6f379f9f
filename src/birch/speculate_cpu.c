/* birch/speculate_cpu.c — the CPU speculator (speculate_cpu.h): OpenMP over
 * contiguous point ranges, 2-D descents on AVX2 / AVX-512 lanes where the CPU
 * has them (chosen at run time, as the gemm micro-kernels are). */
#include "birch/speculate_cpu.h"

#include <math.h>
#include <omp.h>

#include "birch/speculate_math.h"
#include "birch/speculative.h"
#include "core/threads.h"

/* Chunks of a window per thread, taken dynamically: on a shared host some
 * cores run 1.3-1.5x slower than others at times (measured on the H200
 * machine, one core at a time), and equal static ranges then wait for the
 * slowest core. */
#define SPECULATION_CHUNKS_PER_THREAD 8

#if defined(__x86_64__) && defined(__GNUC__)
#define BIRCH_SIMD_DESCENT 1
#include <immintrin.h>
#endif

/* The scalar form (speculate_math.h), with dims a literal 2 for 2-D points so
 * that the inlined coordinate loop unrolls (the same operations, the same bits). */
static void speculate_range_scalar(const birch_tree *tree, const double *points, size_t n, size_t begin, size_t end,
                                   int32_t *leaf_slot, double *runner_up)
{
    for (size_t i = begin; i < end; i++)
        leaf_slot[i] = tree->dims == 2
                           ? birch_descend_speculative(tree->root, tree->slots, 2, tree->entry_count, tree->child,
                                                       tree->mean, points + i * 2, 1, runner_up + i, n)
                           : birch_descend_speculative(tree->root, tree->slots, tree->dims, tree->entry_count,
                                                       tree->child, tree->mean, points + i * tree->dims, 1,
                                                       runner_up + i, n);
}

#ifdef BIRCH_SIMD_DESCENT

/* Per lane of a SIMD scan: the closest distance seen, the runner-up (second
 * smallest of the lane's distances) and the closest's entry index (a double;
 * -1 while the lane has seen no finite distance). The scalar scan's update,
 * written with min/max so that the three chains are independent:
 *   best' = min(d, best), second' = min(max(best, d), second),
 *   index' = d < best ? k : index
 * (min_pd(a, b) = a < b ? a : b and max_pd(a, b) = a > b ? a : b, as the
 * scalar selects). Two lanes' trackers combine into the one of their union:
 * best = min, second = min(both seconds, the larger best), index = the
 * lower-index closest (the scalar scan keeps the first closest entry).
 * Reducing the lanes with that combine gives the node's closest entry and
 * the multiset's second smallest distance, as the scalar scan. No finite
 * distance at all: entry 0, as the scalar scan leaves it. */
#define LANE_UPDATE(W, d)                                                                    \
    do {                                                                                     \
        __m##W##d old_best = best;                                                           \
        best = _mm##W##_min_pd(d, best);                                                     \
        second = _mm##W##_min_pd(_mm##W##_max_pd(old_best, d), second);                      \
        best_index = LANE_SELECT_IF_LESS(W, d, old_best, index, best_index);                 \
    } while (0)

/* One butterfly step: every lane combines with the lane `swap` puts in its place. */
#define COMBINE_SWAPPED(combine, swap) combine(&best, &second, &best_index, swap(best), swap(second), swap(best_index))
#define SWAP_HALVES_256(v) _mm256_permute2f128_pd(v, v, 1)
#define SWAP_NEIGHBOURS_256(v) _mm256_permute_pd(v, 5)
#define SWAP_HALVES_512(v) _mm512_shuffle_f64x2(v, v, 0x4E)
#define SWAP_QUARTERS_512(v) _mm512_permutex_pd(v, 0x4E)
#define SWAP_NEIGHBOURS_512(v) _mm512_permute_pd(v, 0x55)

/* The reduced lanes' result: the node's entry (0 when no distance was finite,
 * as the scalar scan leaves it) and its runner-up's squared distance. */
static inline int32_t node_result(double second, double chosen, double *runner_up_squared)
{
    *runner_up_squared = second;
    return chosen < 0 ? 0 : (int32_t)chosen;
}

__attribute__((target("avx2"))) static inline void combine_avx2(__m256d *best, __m256d *second, __m256d *index,
                                                                 __m256d other_best, __m256d other_second,
                                                                 __m256d other_index)
{
    __m256d take_other = _mm256_or_pd(_mm256_cmp_pd(other_best, *best, _CMP_LT_OQ),
                                      _mm256_and_pd(_mm256_cmp_pd(other_best, *best, _CMP_EQ_OQ),
                                                    _mm256_cmp_pd(other_index, *index, _CMP_LT_OQ)));
    *second = _mm256_min_pd(_mm256_min_pd(*second, other_second), _mm256_max_pd(*best, other_best));
    *index = _mm256_blendv_pd(*index, other_index, take_other);
    *best = _mm256_min_pd(*best, other_best);
}

/* AVX2: 4 entries a step. Two loads hold entries k..k+3 as x0 y0 x1 y1 | x2 y2
 * x3 y3; unpacking gives the x and y of entries k, k+2, k+1, k+3 per lane.
 * target("avx2") without "fma": the multiply and add stay separate roundings,
 * as in the scalar form. Returns the entry index; *second gets the runner-up's
 * squared distance. */
#define LANE_SELECT_IF_LESS(W, a, b, x, y) _mm256_blendv_pd(y, x, _mm256_cmp_pd(a, b, _CMP_LT_OQ))
__attribute__((target("avx2"))) static inline int32_t closest_entry_avx2(const double *mean, int32_t count, __m256d x,
                                                                          __m256d y, double *runner_up_squared)
{
    const __m256d infinity = _mm256_set1_pd(INFINITY), step = _mm256_set1_pd(4.0);
    __m256d best = infinity, second = infinity, best_index = _mm256_set1_pd(-1.0);
    __m256d index = _mm256_setr_pd(0.0, 2.0, 1.0, 3.0);
    for (int32_t k = 0; k < count; k += 4) {
        int32_t left = count - k;
        __m256d a, b, d, dx, dy;
        if (left >= 4) {
            a = _mm256_loadu_pd(mean + 2 * (size_t)k);
            b = _mm256_loadu_pd(mean + 2 * (size_t)k + 4);
        } else { /* masked loads: nothing past the node's last entry is read */
            __m256i mask_a = _mm256_setr_epi64x(-1, -1, left >= 2 ? -1 : 0, left >= 2 ? -1 : 0);
            __m256i mask_b = _mm256_setr_epi64x(left >= 3 ? -1 : 0, left >= 3 ? -1 : 0, 0, 0);
            a = _mm256_maskload_pd(mean + 2 * (size_t)k, mask_a);
            b = _mm256_maskload_pd(mean + 2 * (size_t)k + 4, mask_b);
        }
        dx = _mm256_sub_pd(x, _mm256_unpacklo_pd(a, b));
        dy = _mm256_sub_pd(y, _mm256_unpackhi_pd(a, b));
        d = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
        if (left < 4) { /* lanes k, k+2, k+1, k+3: past the end they see +inf and change nothing */
            __m256d valid = _mm256_castsi256_pd(_mm256_setr_epi64x(-1, left >= 3 ? -1 : 0, left >= 2 ? -1 : 0, 0));
            d = _mm256_blendv_pd(infinity, d, valid);
        }
        LANE_UPDATE(256, d);
        index = _mm256_add_pd(index, step);
    }
    /* butterfly: swap the 128-bit halves, then the neighbours */
    COMBINE_SWAPPED(combine_avx2, SWAP_HALVES_256);
    COMBINE_SWAPPED(combine_avx2, SWAP_NEIGHBOURS_256);
    return node_result(_mm256_cvtsd_f64(second), _mm256_cvtsd_f64(best_index), runner_up_squared);
}
#undef LANE_SELECT_IF_LESS

__attribute__((target("avx512f"))) static inline void combine_avx512(__m512d *best, __m512d *second, __m512d *index,
                                                                      __m512d other_best, __m512d other_second,
                                                                      __m512d other_index)
{
    __mmask8 take_other = _mm512_cmp_pd_mask(other_best, *best, _CMP_LT_OQ) |
                          (_mm512_cmp_pd_mask(other_best, *best, _CMP_EQ_OQ) &
                           _mm512_cmp_pd_mask(other_index, *index, _CMP_LT_OQ));
    *second = _mm512_min_pd(_mm512_min_pd(*second, other_second), _mm512_max_pd(*best, other_best));
    *index = _mm512_mask_blend_pd(take_other, *index, other_index);
    *best = _mm512_min_pd(*best, other_best);
}

/* AVX-512: 8 entries a step; two permutes split the 16 loaded doubles into the
 * x and y of entries k..k+7, lanes in entry order; masked loads and a lane
 * mask handle a node's last entries. */
#define LANE_SELECT_IF_LESS(W, a, b, x, y) _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_LT_OQ), y, x)
__attribute__((target("avx512f"))) static inline int32_t closest_entry_avx512(const double *mean, int32_t count,
                                                                               __m512d x, __m512d y,
                                                                               double *runner_up_squared)
{
    const __m512d infinity = _mm512_set1_pd(INFINITY), step = _mm512_set1_pd(8.0);
    const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    __m512d best = infinity, second = infinity, best_index = _mm512_set1_pd(-1.0);
    __m512d index = _mm512_setr_pd(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);
    for (int32_t k = 0; k < count; k += 8) {
        int32_t left = count - k;
        __m512d a, b, d, dx, dy;
        if (left >= 8) {
            a = _mm512_loadu_pd(mean + 2 * (size_t)k);
            b = _mm512_loadu_pd(mean + 2 * (size_t)k + 8);
        } else {
            int first_half = left < 4 ? left : 4, second_half = left - first_half;
            a = _mm512_maskz_loadu_pd((__mmask8)((1u << (2 * first_half)) - 1u), mean + 2 * (size_t)k);
            b = _mm512_maskz_loadu_pd((__mmask8)((1u << (2 * second_half)) - 1u), mean + 2 * (size_t)k + 8);
        }
        dx = _mm512_sub_pd(x, _mm512_permutex2var_pd(a, even, b));
        dy = _mm512_sub_pd(y, _mm512_permutex2var_pd(a, odd, b));
        d = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
        if (left < 8) d = _mm512_mask_blend_pd((__mmask8)((1u << left) - 1u), infinity, d);
        LANE_UPDATE(512, d);
        index = _mm512_add_pd(index, step);
    }
    /* butterfly: swap the 256-bit halves, the 128-bit quarters, the neighbours */
    COMBINE_SWAPPED(combine_avx512, SWAP_HALVES_512);
    COMBINE_SWAPPED(combine_avx512, SWAP_QUARTERS_512);
    COMBINE_SWAPPED(combine_avx512, SWAP_NEIGHBOURS_512);
    return node_result(_mm512_cvtsd_f64(second), _mm512_cvtsd_f64(best_index), runner_up_squared);
}
#undef LANE_SELECT_IF_LESS
#undef LANE_UPDATE
#undef COMBINE_SWAPPED

/* One 2-D speculative descent with closest_entry_* per node, writing the
 * runner-ups squared: bound_pass_* turns them into bounds afterwards, on four
 * or eight points at once and off the descent's dependency chain. */
#define DESCEND_2D(closest_entry, W)                                                                                 \
    do {                                                                                                             \
        int32_t node = tree->root;                                                                                   \
        __m##W##d x = _mm##W##_set1_pd(points[i * 2]), y = _mm##W##_set1_pd(points[i * 2 + 1]);                      \
        leaf_slot[i] = -1;                                                                                           \
        if (tree->entry_count[node] == 0) break;                                                                     \
        for (size_t level = 0;; level++) {                                                                           \
            size_t first = (size_t)node * (size_t)tree->slots;                                                       \
            size_t best = first + (size_t)closest_entry(tree->mean + first * 2, tree->entry_count[node], x, y,       \
                                                        &runner_up[level * n + i]);                                  \
            if (tree->child[best] < 0) {                                                                             \
                leaf_slot[i] = (int32_t)best;                                                                        \
                break;                                                                                               \
            }                                                                                                        \
            node = tree->child[best];                                                                                \
        }                                                                                                            \
    } while (0)

/* bound[i] = birch_runner_up_bound(squared[i]) over [begin, end) of each
 * level: sqrt(s) * (1 - slack) - 1e-150, which is +inf for s = +inf as the
 * scalar function's special case; the same correctly rounded operations. */
#define BOUND_PASS(W, lanes)                                                                                         \
    do {                                                                                                             \
        double slack = birch_margin_slack(2);                                                                        \
        const __m##W##d shrink = _mm##W##_set1_pd(1.0 - slack), tiny = _mm##W##_set1_pd(1e-150);                     \
        if (tree->entry_count[tree->root] == 0) break;                                                               \
        for (size_t level = 0, height = birch_tree_height(tree); level < height; level++) {                          \
            double *bound = runner_up + level * n;                                                                   \
            size_t i = begin;                                                                                        \
            for (; i + lanes <= end; i += lanes)                                                                     \
                _mm##W##_storeu_pd(bound + i, _mm##W##_sub_pd(_mm##W##_mul_pd(_mm##W##_sqrt_pd(                       \
                                                                 _mm##W##_loadu_pd(bound + i)), shrink), tiny));     \
            for (; i < end; i++) bound[i] = birch_runner_up_bound(bound[i], slack);                                  \
        }                                                                                                            \
    } while (0)

__attribute__((target("avx2"))) static void speculate_range_avx2(const birch_tree *tree, const double *points,
                                                                  size_t n, size_t begin, size_t end,
                                                                  int32_t *leaf_slot, double *runner_up)
{
    for (size_t i = begin; i < end; i++) DESCEND_2D(closest_entry_avx2, 256);
    BOUND_PASS(256, 4);
}

__attribute__((target("avx512f"))) static void speculate_range_avx512(const birch_tree *tree, const double *points,
                                                                      size_t n, size_t begin, size_t end,
                                                                      int32_t *leaf_slot, double *runner_up)
{
    for (size_t i = begin; i < end; i++) DESCEND_2D(closest_entry_avx512, 512);
    BOUND_PASS(512, 8);
}
#endif

int birch_descent_isa_available(birch_descent_isa isa)
{
    switch (isa) {
    case BIRCH_DESCENT_SCALAR: return 1;
#ifdef BIRCH_SIMD_DESCENT
    case BIRCH_DESCENT_AVX2: return __builtin_cpu_supports("avx2");
    case BIRCH_DESCENT_AVX512: return __builtin_cpu_supports("avx512f");
#endif
    default: return 0;
    }
}

birch_descent_isa birch_descent_best_isa(void)
{
    if (birch_descent_isa_available(BIRCH_DESCENT_AVX512)) return BIRCH_DESCENT_AVX512;
    if (birch_descent_isa_available(BIRCH_DESCENT_AVX2)) return BIRCH_DESCENT_AVX2;
    return BIRCH_DESCENT_SCALAR;
}

void birch_speculate_range(birch_descent_isa isa, const birch_tree *tree, const double *points, size_t n, size_t begin,
                           size_t end, int32_t *leaf_slot, double *runner_up)
{
#ifdef BIRCH_SIMD_DESCENT
    if (tree->dims == 2 && isa == BIRCH_DESCENT_AVX512) {
        speculate_range_avx512(tree, points, n, begin, end, leaf_slot, runner_up);
        return;
    }
    if (tree->dims == 2 && isa == BIRCH_DESCENT_AVX2) {
        speculate_range_avx2(tree, points, n, begin, end, leaf_slot, runner_up);
        return;
    }
#endif
    speculate_range_scalar(tree, points, n, begin, end, leaf_slot, runner_up);
}

parac_status birch_speculate_cpu(void *context, const birch_tree *tree, const double *points, size_t n, size_t height,
                                 int32_t *leaf_slot, double *runner_up, parac_error *error)
{
    int threads = parac_threads_resolve(*(const int *)context), chunks = threads * SPECULATION_CHUNKS_PER_THREAD;
    birch_descent_isa isa = birch_descent_best_isa();
    (void)height, (void)error;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (n >= 512)
    for (int c = 0; c < chunks; c++)
        birch_speculate_range(isa, tree, points, n, birch_speculation_range(n, c, chunks),
                              birch_speculation_range(n, c + 1, chunks), leaf_slot, runner_up);
    return PARAC_OK;
}
