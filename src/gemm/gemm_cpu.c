/* gemm/gemm_cpu.c — the CPU path: pack, run the plan's work items on OpenMP
 * threads over a 4x16 register-blocked micro-kernel, reduce split-k partials.
 * Plus the double-precision reference used by tests and --verify.
 *
 * Every C element is accumulated exactly as on the GPU: fmaf in ascending k
 * over the packed, zero-padded operands, from 0.0f. The micro-kernel comes
 * in AVX-512 (8x32), AVX2+FMA (4x16) and portable fmaf versions, picked at run
 * time: vector width changes nothing because elements never mix, so the bits are the same on
 * every machine, thread count and schedule.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/memory_limit.h"
#include "core/progress.h"
#include "core/threads.h"
#include "gemm/gemm_internal.h"

#define MICRO_ROWS 4
#define MICRO_COLS 16
#define PACK_BLOCK 32

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GEMM_HAVE_AVX2_KERNEL 1
#include <immintrin.h>
#endif

static float element_of(const float *x, parac_gemm_layout layout, int64_t ld, int64_t r, int64_t c)
{
    return layout == PARAC_GEMM_ROW_MAJOR ? x[r * ld + c] : x[c * ld + r];
}

typedef struct pack_source {
    const float *x;
    parac_gemm_layout layout;
    int64_t ld;
    int k_is_column; /* A: (r, k) -> element (r, k); B: element (k, r) */
    int64_t extent_k, extent_r, padded_k, padded_r;
    int tile_r; /* panel width: tile_m for A, tile_n for B */
    int tf32;
} pack_source;

static float pack_value(const pack_source *s, int64_t kk, int64_t r)
{
    float v;
    if (kk >= s->extent_k || r >= s->extent_r) return 0.0f;
    v = s->k_is_column ? element_of(s->x, s->layout, s->ld, r, kk) : element_of(s->x, s->layout, s->ld, kk, r);
    return s->tf32 ? gemm_round_tf32(v) : v;
}

/* Panel layout: value (kk, r) at ((r / tile_r) * padded_k + kk) * tile_r + r % tile_r, so each
 * tile's k rows are contiguous (one stream per tile, no 4 KiB-stride cache aliasing on the CPU,
 * one contiguous chunk per pipeline stage on the GPU). Filled in 32x32 blocks so strided
 * sources stay cache-friendly. */
static void pack_k_major(const pack_source *s, float *dst)
{
    int64_t blocks_k = gemm_ceil_div(s->padded_k, PACK_BLOCK), blocks_r = gemm_ceil_div(s->padded_r, PACK_BLOCK);
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < blocks_k * blocks_r; b++) {
        int64_t k0 = (b / blocks_r) * PACK_BLOCK, r0 = (b % blocks_r) * PACK_BLOCK;
        for (int64_t kk = k0; kk < k0 + PACK_BLOCK && kk < s->padded_k; kk++)
            for (int64_t r = r0; r < r0 + PACK_BLOCK && r < s->padded_r; r++)
                dst[((r / s->tile_r) * s->padded_k + kk) * s->tile_r + r % s->tile_r] = pack_value(s, kk, r);
    }
}

void gemm_pack_a(const parac_gemm_plan *plan, const float *a, float *packed)
{
    const parac_gemm_options *o = &plan->options;
    pack_source s = {a, o->layout_a, plan->lda, 1, o->k, o->m, plan->padded_k, plan->padded_m,
                     plan->tile_m, o->dtype == PARAC_GEMM_TF32};
    pack_k_major(&s, packed);
}

void gemm_pack_b(const parac_gemm_plan *plan, const float *b, float *packed)
{
    const parac_gemm_options *o = &plan->options;
    pack_source s = {b, o->layout_b, plan->ldb, 0, o->k, o->n, plan->padded_k, plan->padded_n,
                     plan->tile_n, o->dtype == PARAC_GEMM_TF32};
    pack_k_major(&s, packed);
}

/* MICRO_ROWS x MICRO_COLS of a C tile over the listed k tiles; a and b point at
 * the block's first row / column in k row 0 of the packed panels. Plain C: fmaf per element. */
static void micro_kernel_portable(const float *a, const float *b, int64_t a_stride, int64_t b_stride,
                                  const int32_t *k_tiles, int64_t k_tile_count, int tile_k, float *out, int out_stride)
{
    float sum[MICRO_ROWS][MICRO_COLS] = {{0.0f}};
    for (int64_t l = 0; l < k_tile_count; l++) {
        const float *ak = a + (int64_t)k_tiles[l] * tile_k * a_stride;
        const float *bk = b + (int64_t)k_tiles[l] * tile_k * b_stride;
        for (int kk = 0; kk < tile_k; kk++, ak += a_stride, bk += b_stride)
            for (int r = 0; r < MICRO_ROWS; r++)
                for (int c = 0; c < MICRO_COLS; c++) sum[r][c] = fmaf(ak[r], bk[c], sum[r][c]);
    }
    for (int r = 0; r < MICRO_ROWS; r++)
        for (int c = 0; c < MICRO_COLS; c++) out[r * out_stride + c] = sum[r][c];
}

#ifdef GEMM_HAVE_AVX2_KERNEL
/* The same with AVX2 FMA: _mm256_fmadd_ps rounds each lane exactly like fmaf. */
__attribute__((target("avx2,fma"))) static void micro_kernel_avx2(const float *a, const float *b, int64_t a_stride,
                                                                  int64_t b_stride, const int32_t *k_tiles,
                                                                  int64_t k_tile_count, int tile_k, float *out,
                                                                  int out_stride)
{
    __m256 s00 = _mm256_setzero_ps(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00, s30 = s00, s31 = s00;
    for (int64_t l = 0; l < k_tile_count; l++) {
        const float *ak = a + (int64_t)k_tiles[l] * tile_k * a_stride;
        const float *bk = b + (int64_t)k_tiles[l] * tile_k * b_stride;
        for (int kk = 0; kk < tile_k; kk++, ak += a_stride, bk += b_stride) {
            __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8), x;
            x = _mm256_broadcast_ss(ak + 0), s00 = _mm256_fmadd_ps(x, b0, s00), s01 = _mm256_fmadd_ps(x, b1, s01);
            x = _mm256_broadcast_ss(ak + 1), s10 = _mm256_fmadd_ps(x, b0, s10), s11 = _mm256_fmadd_ps(x, b1, s11);
            x = _mm256_broadcast_ss(ak + 2), s20 = _mm256_fmadd_ps(x, b0, s20), s21 = _mm256_fmadd_ps(x, b1, s21);
            x = _mm256_broadcast_ss(ak + 3), s30 = _mm256_fmadd_ps(x, b0, s30), s31 = _mm256_fmadd_ps(x, b1, s31);
        }
    }
    _mm256_storeu_ps(out, s00), _mm256_storeu_ps(out + 8, s01);
    _mm256_storeu_ps(out + out_stride, s10), _mm256_storeu_ps(out + out_stride + 8, s11);
    _mm256_storeu_ps(out + 2 * out_stride, s20), _mm256_storeu_ps(out + 2 * out_stride + 8, s21);
    _mm256_storeu_ps(out + 3 * out_stride, s30), _mm256_storeu_ps(out + 3 * out_stride + 8, s31);
}
#endif

#ifdef GEMM_HAVE_AVX2_KERNEL
/* 8 x 32 with AVX-512: 16 zmm accumulators; _mm512_fmadd_ps rounds each lane like fmaf. */
__attribute__((target("avx512f"))) static void micro_kernel_avx512(const float *a, const float *b, int64_t a_stride,
                                                                   int64_t b_stride, const int32_t *k_tiles,
                                                                   int64_t k_tile_count, int tile_k, float *out,
                                                                   int out_stride)
{
    __m512 sum[8][2];
    for (int r = 0; r < 8; r++) sum[r][0] = sum[r][1] = _mm512_setzero_ps();
    for (int64_t l = 0; l < k_tile_count; l++) {
        const float *ak = a + (int64_t)k_tiles[l] * tile_k * a_stride;
        const float *bk = b + (int64_t)k_tiles[l] * tile_k * b_stride;
        for (int kk = 0; kk < tile_k; kk++, ak += a_stride, bk += b_stride) {
            __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
            for (int r = 0; r < 8; r++) {
                __m512 x = _mm512_set1_ps(ak[r]);
                sum[r][0] = _mm512_fmadd_ps(x, b0, sum[r][0]);
                sum[r][1] = _mm512_fmadd_ps(x, b1, sum[r][1]);
            }
        }
    }
    for (int r = 0; r < 8; r++) {
        _mm512_storeu_ps(out + r * out_stride, sum[r][0]);
        _mm512_storeu_ps(out + r * out_stride + 16, sum[r][1]);
    }
}
#endif

typedef void (*micro_kernel_fn)(const float *, const float *, int64_t, int64_t, const int32_t *, int64_t, int, float *,
                                int);

/* The widest kernel this CPU runs; all give the same bits (elements never mix). */
typedef struct micro_kernel {
    micro_kernel_fn run;
    int rows, cols; /* divide 64 and 128 */
} micro_kernel;

static micro_kernel pick_micro_kernel(void)
{
    micro_kernel portable = {micro_kernel_portable, MICRO_ROWS, MICRO_COLS};
#ifdef GEMM_HAVE_AVX2_KERNEL
    micro_kernel avx2 = {micro_kernel_avx2, MICRO_ROWS, MICRO_COLS}, avx512 = {micro_kernel_avx512, 8, 32};
    if (__builtin_cpu_supports("avx512f")) return avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return avx2;
#endif
    return portable;
}

static float epilogue(float alpha, float acc, float beta, float c)
{
    return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * c);
}

static void store_c_tile(const parac_gemm_plan *plan, int64_t tile_row, int64_t tile_col, const float *acc,
                         float alpha, float beta, float *c)
{
    const parac_gemm_options *o = &plan->options;
    int64_t r0 = tile_row * plan->tile_m, c0 = tile_col * plan->tile_n;
    for (int64_t r = r0; r < r0 + plan->tile_m && r < o->m; r++)
        for (int64_t col = c0; col < c0 + plan->tile_n && col < o->n; col++) {
            float *target = o->layout_c == PARAC_GEMM_ROW_MAJOR ? &c[r * plan->ldc + col] : &c[col * plan->ldc + r];
            *target = epilogue(alpha, acc[(r - r0) * plan->tile_n + (col - c0)], beta, beta == 0.0f ? 0.0f : *target);
        }
}

static void run_item(micro_kernel micro, const parac_gemm_plan *plan, const gemm_work_item *w, const float *packed_a,
                     const float *packed_b, float *partials, float *acc, float alpha, float beta, float *c)
{
    int64_t r0 = (int64_t)w->tile_row * plan->tile_m, c0 = (int64_t)w->tile_col * plan->tile_n;
    float *out = w->partial_slot >= 0 ? partials + (int64_t)w->partial_slot * plan->tile_m * plan->tile_n : acc;
    for (int i = 0; i < plan->tile_m; i += micro.rows)
        for (int j = 0; j < plan->tile_n; j += micro.cols)
            micro.run(packed_a + r0 * plan->padded_k + i, packed_b + c0 * plan->padded_k + j, plan->tile_m, plan->tile_n,
                         plan->k_list + w->list_begin, w->list_end - w->list_begin, plan->tile_k,
                         out + i * plan->tile_n + j, plan->tile_n);
    if (w->partial_slot < 0) store_c_tile(plan, w->tile_row, w->tile_col, acc, alpha, beta, c);
}

/* Partials of a split tile summed in segment order (the GPU reduction does the same). */
static void run_reduction(const parac_gemm_plan *plan, const gemm_reduce_item *r, const float *partials, float *acc,
                          float alpha, float beta, float *c)
{
    int64_t tile_elements = (int64_t)plan->tile_m * plan->tile_n;
    for (int64_t e = 0; e < tile_elements; e++) {
        float sum = partials[(int64_t)r->first_slot * tile_elements + e];
        for (int s = 1; s < r->slot_count; s++) sum += partials[(int64_t)(r->first_slot + s) * tile_elements + e];
        acc[e] = sum;
    }
    store_c_tile(plan, r->tile_row, r->tile_col, acc, alpha, beta, c);
}

static parac_status ensure_workspace(parac_gemm_plan *plan, parac_error *error)
{
    size_t floats = (size_t)(plan->padded_k * (plan->padded_m + plan->padded_n) +
                             plan->partial_slots * plan->tile_m * plan->tile_n);
    size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    parac_status status;
    if (plan->host_workspace) return PARAC_OK;
    /* Operands are packed padded to whole tiles: k = 1 packs 64 columns of A. 2 x 10^7 x 1 x 1 asked for
     * 5 GB, which overcommit grants and the OOM killer ends once touched; refused at once instead. */
    if ((status = parac_require_host_bytes(error, NULL, 0, bytes, "gemm packed operands")) != PARAC_OK) return status;
    plan->host_workspace = aligned_alloc(64, bytes);
    return plan->host_workspace ? PARAC_OK : parac_fail_no_memory(error, "gemm packed operands", bytes);
}

parac_status gemm_cpu_execute(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta, float *c,
                              parac_error *error)
{
    parac_status status = ensure_workspace(plan, error);
    float *packed_a = plan->host_workspace, *packed_b, *partials;
    int threads = parac_threads_resolve(plan->options.exec.threads), dynamic;
    size_t acc_bytes = (size_t)plan->tile_m * plan->tile_n * sizeof(float);
    if (status != PARAC_OK) return status;
    packed_b = packed_a + plan->padded_k * plan->padded_m;
    partials = packed_b + plan->padded_k * plan->padded_n;
    gemm_pack_a(plan, a, packed_a);
    gemm_pack_b(plan, b, packed_b);
    dynamic = plan->schedule == PARAC_GEMM_SCHEDULE_DYNAMIC;
    micro_kernel micro = pick_micro_kernel();
    int failed = 0;
    /* progress: work items then reductions, one unit each; a cancel skips the rest (C is then undefined) */
    parac_progress_gate gate;
    parac_progress_gate_init(&gate, &plan->options.exec, (uint64_t)(plan->item_count + plan->reduction_count));
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        float *acc = aligned_alloc(64, acc_bytes);
        if (!acc) failed = 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < plan->item_count; i++) {
            if (!acc || parac_progress_gate_cancelled(&gate)) continue;
            run_item(micro, plan, &plan->items[dynamic ? plan->dynamic_order[i] : i], packed_a, packed_b, partials, acc,
                     alpha, beta, c);
            parac_progress_gate_add(&gate, 1);
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t r = 0; r < plan->reduction_count; r++) {
            if (!acc || parac_progress_gate_cancelled(&gate)) continue;
            run_reduction(plan, &plan->reductions[r], partials, acc, alpha, beta, c);
            parac_progress_gate_add(&gate, 1);
        }
        free(acc);
    }
    if (failed) return parac_fail_no_memory(error, "gemm accumulator tiles", acc_bytes * (size_t)threads);
    if (parac_progress_gate_finish(&gate)) return parac_fail(error, PARAC_ERR_CANCELLED, "gemm: cancelled");
    return PARAC_OK;
}

/* --- reference ------------------------------------------------------------------ */

void parac_gemm_reference(const parac_gemm_options *o, float alpha, const float *a, const float *b, float beta,
                          float *c)
{
    int64_t lda = o->lda ? o->lda : (o->layout_a == PARAC_GEMM_ROW_MAJOR ? o->k : o->m);
    int64_t ldb = o->ldb ? o->ldb : (o->layout_b == PARAC_GEMM_ROW_MAJOR ? o->n : o->k);
    int64_t ldc = o->ldc ? o->ldc : (o->layout_c == PARAC_GEMM_ROW_MAJOR ? o->n : o->m);
    for (int64_t r = 0; r < o->m; r++)
        for (int64_t col = 0; col < o->n; col++) {
            double sum = 0.0;
            float *target = o->layout_c == PARAC_GEMM_ROW_MAJOR ? &c[r * ldc + col] : &c[col * ldc + r];
            for (int64_t kk = 0; kk < o->k; kk++) {
                double x = element_of(a, o->layout_a, lda, r, kk), y = element_of(b, o->layout_b, ldb, kk, col);
                if (o->dtype == PARAC_GEMM_TF32) {
                    x = gemm_round_tf32((float)x);
                    y = gemm_round_tf32((float)y);
                }
                sum += x * y;
            }
            *target = (float)(alpha * sum + (beta == 0.0f ? 0.0 : (double)beta * *target));
        }
}
