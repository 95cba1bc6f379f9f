/* gemm/plan.c — the layout plan: tile grid, padded packed layout, zero-tile
 * detection, the per-C-tile lists of tile kernels and the residency table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/devices.h>

#include "core/device_choice.h"
#include "core/error.h"
#include "gemm/gemm_internal.h"

int64_t gemm_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

float gemm_round_tf32(float x)
{
    uint32_t bits;
    if (!isfinite(x)) return x;
    memcpy(&bits, &x, sizeof bits);
    bits = (bits + 0x1000u) & 0xffffe000u; /* add half of the 13 dropped bits: ties go away from zero */
    memcpy(&x, &bits, sizeof bits);
    return x;
}

static int valid_tile_edge(int edge) { return edge == 64 || edge == 128; }
/* WGMMA_WS and WGMMA_WS_A (A through a tensor map): the 256-wide wgmma_tma kernel. */
static int ws_variant(parac_gemm_variant v) { return v == PARAC_GEMM_VARIANT_WGMMA_WS || v == PARAC_GEMM_VARIANT_WGMMA_WS_A; }
static parac_gemm_variant measured_default(parac_gemm_dtype dtype);

static parac_status check_options(const parac_gemm_options *o, parac_error *error)
{
    if (o->m < 1 || o->n < 1 || o->k < 1)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: shapes must be >= 1 (m=%lld n=%lld k=%lld)",
                          (long long)o->m, (long long)o->n, (long long)o->k);
    if (o->m > (1LL << 30) || o->n > (1LL << 30) || o->k > (1LL << 30))
        return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: a dimension exceeds 2^30");
    if (o->variant == PARAC_GEMM_VARIANT_N256 && o->dtype == PARAC_GEMM_FP32) {
        if ((o->tile_m && o->tile_m != 64) || (o->tile_n && o->tile_n != 256))
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                              "gemm: the n256 variant runs 64x256 C tiles: tile_m must be 0 or 64, tile_n 0 or 256 (got %d, %d)",
                              o->tile_m, o->tile_n);
    } else if ((o->tile_m && !valid_tile_edge(o->tile_m)) ||
               (o->tile_n && !valid_tile_edge(o->tile_n) && !(o->tile_n == 256 && ws_variant(o->variant))))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: tile_m and tile_n must be 64 or 128 (got %d, %d)",
                          o->tile_m, o->tile_n);
    if (o->tile_k && (o->tile_k < 16 || o->tile_k > 256 || o->tile_k % 16))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: tile_k must be a multiple of 16 in 16..256 (got %d)",
                          o->tile_k);
    if (o->split_k < 0 || o->split_k > 64)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: split_k must be in 0..64 (got %d)", o->split_k);
    if ((o->a_tile_mask || o->b_tile_mask) && (!o->tile_m || !o->tile_n || !o->tile_k))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: tile masks need explicit tile_m, tile_n, tile_k");
    if ((int)o->variant < PARAC_GEMM_VARIANT_AUTO || (int)o->variant > PARAC_GEMM_VARIANT_WGMMA_WS_A)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: unknown kernel variant %d", (int)o->variant);
    if (o->variant == PARAC_GEMM_VARIANT_REMOVED_WIDE || o->variant == PARAC_GEMM_VARIANT_REMOVED_PERSISTENT)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "gemm: the %s variant was removed from the library (auto never picked it); it moved to "
                          "dev/gemm/ with its measurements (the kernel lab, dev/README.md)",
                          parac_gemm_variant_name(o->variant));
    if (o->pipeline_stages != 0 && o->pipeline_stages != 4 && o->pipeline_stages != 6)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: pipeline_stages must be 0, 4 or 6 (got %d)",
                          o->pipeline_stages);
    if (o->pack_operands != 0 && o->pack_operands != 1)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: pack_operands must be 0 or 1 (got %d)", o->pack_operands);
    if (o->variant == PARAC_GEMM_VARIANT_N256 && o->dtype == PARAC_GEMM_FP32 && o->pipeline_stages == 6)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "gemm: the n256 variant runs 2 stages of 32 k (pipeline_stages 0) or 4 of 16 k (pipeline_stages 4), not 6");
    if (o->dtype != PARAC_GEMM_FP32 && o->dtype != PARAC_GEMM_TF32)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: unknown dtype %d", (int)o->dtype);
    return PARAC_OK;
}

static parac_status resolve_leading(int64_t given, int64_t rows, int64_t cols, parac_gemm_layout layout,
                                    const char *name, int64_t *ld, parac_error *error)
{
    int64_t minor = layout == PARAC_GEMM_ROW_MAJOR ? cols : rows;
    *ld = given ? given : minor;
    if (*ld < minor)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: ld%s=%lld is smaller than %lld", name,
                          (long long)*ld, (long long)minor);
    return PARAC_OK;
}

/* WGMMA_WS's 256-wide C tiles: only where its kernel will run (tf32 on an sm_90a GPU, 32-wide k blocks)
 * and n fills at least one tile; elsewhere the plan keeps 64/128 tiles and WGMMA_WS runs as WGMMA_TMA. */
static int ws_tiles_fit(parac_gemm_plan *plan, const parac_gemm_options *o)
{
    if (plan->device != PARAC_DEVICE_CUDA || o->dtype != PARAC_GEMM_TF32 || o->n < 256 || plan->tile_k % 32) return 0;
#ifdef PARAC_HAVE_CUDA
    return gemm_cuda_variant_supported(plan, PARAC_GEMM_VARIANT_WGMMA_TMA);
#else
    return 0;
#endif
}

/* Tile shape: explicit, else the heuristic: 64 along the sides of a sparse operand (tiles as fine as the
 * 64x64 blocks that are skipped) and for small sides (more C tiles to fill the machine), 128 otherwise;
 * else, for dense input and a tuning cache the caller named, the cached shape. tile_k is never tuned.
 * *split_tiles gets the heuristic's C tile count, which choose_split uses instead of the final shape's:
 * split-k (with tile_k) fixes the summation order of every element, tile_m and tile_n only say which
 * thread computes it, so a tuned shape gives the untuned plan's bits. */
static parac_status choose_tiles(parac_gemm_plan *plan, const parac_gemm_options *o, int scanned_a, int scanned_b,
                                 int64_t *split_tiles, parac_error *error)
{
    int sparse_a = o->a_tile_mask || o->scan_a || scanned_a, sparse_b = o->b_tile_mask || o->scan_b || scanned_b;
    int sparse = sparse_a || sparse_b;
    int ws_wide;
    plan->tile_k = o->tile_k ? o->tile_k : 64;
    if (o->variant == PARAC_GEMM_VARIANT_N256 && o->dtype == PARAC_GEMM_FP32) {
        /* fp32 N256 fixes 64x256 on every device, so the CPU runs the same plan (same bits) */
        plan->tile_m = 64;
        plan->tile_n = 256;
        *split_tiles = gemm_ceil_div(o->m, 64) * gemm_ceil_div(o->n, 256);
        return PARAC_OK;
    }
    plan->tile_m = o->tile_m ? o->tile_m : (sparse_a || o->m < 2048 ? 64 : 128);
    plan->tile_n = o->tile_n ? o->tile_n : (sparse_b || o->n < 2048 ? 64 : 128);
    ws_wide = ws_variant(o->variant) && !o->tile_n && ws_tiles_fit(plan, o);
    if (ws_wide) plan->tile_n = 256;
    *split_tiles = gemm_ceil_div(o->m, plan->tile_m) * gemm_ceil_div(o->n, plan->tile_n);
    if (o->tune_cache_path && !o->tile_m && !o->tile_n && !sparse) {
        const char *device_name = "cpu";
        int found = 0, tm = 0, tn = 0, stages = 0;
        parac_status status;
#ifdef PARAC_HAVE_CUDA
        if (plan->device == PARAC_DEVICE_CUDA) device_name = gemm_cuda_device_name(plan);
#endif
        status = gemm_autotune_lookup(o->tune_cache_path, device_name, o, &found, &tm, &tn, &stages, error);
        if (status != PARAC_OK) return status;
        if (found) {
            plan->tile_m = tm;
            if (!ws_wide && tn != 256) plan->tile_n = tn; /* 256 is wgmma_ws's own rule, applied above */
            if (!o->pipeline_stages && stages) plan->stages = stages;
        }
    }
    return PARAC_OK;
}

static float element(const float *x, parac_gemm_layout layout, int64_t ld, int64_t r, int64_t c)
{
    return layout == PARAC_GEMM_ROW_MAJOR ? x[r * ld + c] : x[c * ld + r];
}

/* mask[tr * tiles_cols + tc] = 0 when the (tr, tc) tile of x (rows x cols) is all zero. */
static void scan_zero_tiles(const float *x, parac_gemm_layout layout, int64_t ld, int64_t rows, int64_t cols,
                            int tile_rows, int tile_cols, unsigned char *mask)
{
    int64_t tiles_r = gemm_ceil_div(rows, tile_rows), tiles_c = gemm_ceil_div(cols, tile_cols);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t t = 0; t < tiles_r * tiles_c; t++) {
        int64_t tr = t / tiles_c, tc = t % tiles_c, nonzero = 0;
        int64_t r_end = (tr + 1) * tile_rows < rows ? (tr + 1) * tile_rows : rows;
        int64_t c_end = (tc + 1) * tile_cols < cols ? (tc + 1) * tile_cols : cols;
        for (int64_t r = tr * tile_rows; r < r_end && !nonzero; r++)
            for (int64_t c = tc * tile_cols; c < c_end; c++)
                if (element(x, layout, ld, r, c) != 0.0f) {
                    nonzero = 1;
                    break;
                }
        mask[t] = mask[t] && nonzero;
    }
}

static parac_status build_masks(parac_gemm_plan *plan, const parac_gemm_options *o, parac_error *error)
{
    size_t a_count = (size_t)(plan->tiles_m * plan->tiles_k), b_count = (size_t)(plan->tiles_k * plan->tiles_n);
    plan->a_mask = malloc(a_count);
    plan->b_mask = malloc(b_count);
    if (!plan->a_mask || !plan->b_mask) return parac_fail_no_memory(error, "gemm tile masks", a_count + b_count);
    if (o->a_tile_mask) {
        for (size_t i = 0; i < a_count; i++) plan->a_mask[i] = o->a_tile_mask[i] != 0;
    } else {
        memset(plan->a_mask, 1, a_count);
    }
    if (o->b_tile_mask) {
        for (size_t i = 0; i < b_count; i++) plan->b_mask[i] = o->b_tile_mask[i] != 0;
    } else {
        memset(plan->b_mask, 1, b_count);
    }
    if (o->scan_a) scan_zero_tiles(o->scan_a, o->layout_a, plan->lda, o->m, o->k, plan->tile_m, plan->tile_k, plan->a_mask);
    if (o->scan_b) scan_zero_tiles(o->scan_b, o->layout_b, plan->ldb, o->k, o->n, plan->tile_k, plan->tile_n, plan->b_mask);
    return PARAC_OK;
}

/* The tile kernels: k tile kt serves C tile (i, j) when A(i,kt) and B(kt,j) may be non-zero. */
static parac_status build_k_lists(parac_gemm_plan *plan, parac_error *error)
{
    int64_t c_tiles = plan->tiles_m * plan->tiles_n, total = 0;
    plan->c_offsets = malloc((size_t)(c_tiles + 1) * sizeof *plan->c_offsets);
    if (!plan->c_offsets) return parac_fail_no_memory(error, "gemm C tile table", (size_t)(c_tiles + 1) * 8);
    for (int64_t t = 0; t < c_tiles; t++) {
        int64_t i = t / plan->tiles_n, j = t % plan->tiles_n;
        plan->c_offsets[t] = total;
        for (int64_t kt = 0; kt < plan->tiles_k; kt++)
            total += plan->a_mask[i * plan->tiles_k + kt] && plan->b_mask[kt * plan->tiles_n + j];
    }
    plan->c_offsets[c_tiles] = total;
    if (total > INT32_MAX) return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: more than 2^31 tile kernels");
    plan->k_list = malloc((size_t)(total ? total : 1) * sizeof *plan->k_list);
    if (!plan->k_list) return parac_fail_no_memory(error, "gemm tile kernel list", (size_t)total * 4);
    for (int64_t t = 0; t < c_tiles; t++) {
        int64_t i = t / plan->tiles_n, j = t % plan->tiles_n, at = plan->c_offsets[t];
        for (int64_t kt = 0; kt < plan->tiles_k; kt++)
            if (plan->a_mask[i * plan->tiles_k + kt] && plan->b_mask[kt * plan->tiles_n + j])
                plan->k_list[at++] = (int32_t)kt;
    }
    return PARAC_OK;
}

/* Split k only when there are too few C tiles to occupy a large GPU and each
 * tile has a long k chain; a constant target keeps plans device-independent.
 * c_tiles is the untuned shape's count (choose_tiles), so tuning never moves it. */
static int choose_split(const parac_gemm_plan *plan, int requested, int64_t c_tiles)
{
    int64_t split;
    if (requested) return requested;
    if (c_tiles >= GEMM_SPLIT_TARGET_TILES / 2 || plan->tiles_k < 8) return 1;
    split = gemm_ceil_div(GEMM_SPLIT_TARGET_TILES, c_tiles);
    if (split > plan->tiles_k / 4) split = plan->tiles_k / 4;
    if (split > 16) split = 16;
    return split < 1 ? 1 : (int)split;
}

/* Residency table: how many tile kernels read each non-zero A and B tile.
 * Tiles read more than once stay in L2 while the budget lasts (most-read
 * first); the rest are streamed from DRAM at every use. */
static int compare_desc(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a < b) - (a > b);
}

static parac_status measure_residency(parac_gemm_plan *plan, parac_error *error)
{
    int64_t tm = plan->tiles_m, tn = plan->tiles_n, tk = plan->tiles_k, count = 0, resident = 0, streamed = 0;
    double a_tile_bytes = 4.0 * plan->tile_m * plan->tile_k, b_tile_bytes = 4.0 * plan->tile_k * plan->tile_n;
    double budget = GEMM_L2_BUDGET_BYTES, bytes = 0.0, tile_bytes = a_tile_bytes > b_tile_bytes ? a_tile_bytes : b_tile_bytes;
    int64_t *uses = malloc((size_t)(tm * tk + tk * tn) * sizeof *uses);
    if (!uses) return parac_fail_no_memory(error, "gemm residency table", (size_t)(tm * tk + tk * tn) * 8);
    for (int64_t i = 0; i < tm; i++)
        for (int64_t kt = 0; kt < tk; kt++) {
            int64_t u = 0;
            if (!plan->a_mask[i * tk + kt]) continue;
            for (int64_t j = 0; j < tn; j++) u += plan->b_mask[kt * tn + j];
            uses[count++] = u;
            bytes += u ? a_tile_bytes : 0.0;
        }
    for (int64_t kt = 0; kt < tk; kt++)
        for (int64_t j = 0; j < tn; j++) {
            int64_t u = 0;
            if (!plan->b_mask[kt * tn + j]) continue;
            for (int64_t i = 0; i < tm; i++) u += plan->a_mask[i * tk + kt];
            uses[count++] = u;
            bytes += u ? b_tile_bytes : 0.0;
        }
    qsort(uses, (size_t)count, sizeof *uses, compare_desc);
    for (int64_t t = 0; t < count; t++) {
        if (uses[t] >= 2 && budget >= tile_bytes) {
            resident++;
            budget -= tile_bytes;
        } else {
            streamed++;
            if (uses[t] >= 2) bytes += (double)(uses[t] - 1) * tile_bytes; /* re-read from DRAM */
        }
    }
    free(uses);
    plan->info.tiles_l2_resident = resident;
    plan->info.tiles_streamed = streamed;
    plan->info.bytes_moved = bytes + 8.0 * (double)plan->options.m * (double)plan->options.n +
                             8.0 * (double)plan->partial_slots * plan->tile_m * plan->tile_n;
    return PARAC_OK;
}

static void fill_info(parac_gemm_plan *plan)
{
    parac_gemm_plan_info *info = &plan->info;
    const parac_gemm_options *o = &plan->options;
    int64_t a_nonzero = 0, b_nonzero = 0, empty = 0;
    for (int64_t t = 0; t < plan->tiles_m * plan->tiles_k; t++) a_nonzero += plan->a_mask[t];
    for (int64_t t = 0; t < plan->tiles_k * plan->tiles_n; t++) b_nonzero += plan->b_mask[t];
    for (int64_t t = 0; t < plan->tiles_m * plan->tiles_n; t++) empty += plan->c_offsets[t] == plan->c_offsets[t + 1];
    info->device = plan->device;
    info->dtype = o->dtype;
    info->schedule = plan->schedule;
    /* WGMMA_WS runs as the wgmma_tma family at tile_n 256 (no other variant takes 256-wide tf32 tiles) */
    info->variant = plan->variant == PARAC_GEMM_VARIANT_WGMMA_TMA && plan->tile_n == 256 ? PARAC_GEMM_VARIANT_WGMMA_WS
                                                                                           : plan->variant;
    if (info->variant == PARAC_GEMM_VARIANT_WGMMA_WS && o->variant == PARAC_GEMM_VARIANT_WGMMA_WS_A) info->variant = o->variant;
    info->pipeline_stages = plan->stages;
    info->tile_m = plan->tile_m;
    info->tile_n = plan->tile_n;
    info->tile_k = plan->tile_k;
    info->split_k = plan->split_k;
    info->tiles_m = plan->tiles_m;
    info->tiles_n = plan->tiles_n;
    info->tiles_k = plan->tiles_k;
    info->a_tiles_nonzero = a_nonzero;
    info->b_tiles_nonzero = b_nonzero;
    info->c_tiles = plan->tiles_m * plan->tiles_n;
    info->c_tiles_empty = empty;
    info->tile_kernels = plan->c_offsets[info->c_tiles];
    info->tile_kernels_dense = plan->tiles_m * plan->tiles_n * plan->tiles_k;
    info->work_items = plan->item_count;
    info->flops_dense = 2.0 * (double)o->m * (double)o->n * (double)o->k;
    info->flops = info->flops_dense * (double)info->tile_kernels / (double)info->tile_kernels_dense;
    info->bytes_packed = 4.0 * (double)plan->padded_k * (double)(plan->padded_m + plan->padded_n) +
                         4.0 * (double)plan->partial_slots * plan->tile_m * plan->tile_n;
}

/* The GPU kernel family: the request when this dtype, tile_k and GPU can run
 * it, else BASE. N256 and BK32 are fp32 only (BK32: tile_k % 32 == 0); WGMMA and WGMMA_TMA are tf32 only, need 32-wide k blocks
 * (tile_k % 32 == 0) and an sm_90a image on the GPU. AUTO: see below. */
static parac_gemm_variant resolve_variant(parac_gemm_plan *plan, const parac_gemm_options *o)
{
    parac_gemm_variant v = o->variant;
    if (plan->device != PARAC_DEVICE_CUDA) return PARAC_GEMM_VARIANT_BASE;
    if (v == PARAC_GEMM_VARIANT_AUTO) v = measured_default(o->dtype); /* build_plan resolves it first */
    if (ws_variant(v)) v = PARAC_GEMM_VARIANT_WGMMA_TMA; /* its kernel at tile_n 256, else itself */
    if ((v == PARAC_GEMM_VARIANT_N256 || v == PARAC_GEMM_VARIANT_BK32) && o->dtype != PARAC_GEMM_FP32)
        return PARAC_GEMM_VARIANT_BASE;
    if ((v == PARAC_GEMM_VARIANT_WGMMA || v == PARAC_GEMM_VARIANT_WGMMA_TMA) && (o->dtype != PARAC_GEMM_TF32 || plan->tile_k % 32))
        return PARAC_GEMM_VARIANT_BASE;
    if (v == PARAC_GEMM_VARIANT_BK32 && plan->tile_k % 32) return PARAC_GEMM_VARIANT_BASE;
#ifdef PARAC_HAVE_CUDA
    if (!gemm_cuda_variant_supported(plan, v)) return PARAC_GEMM_VARIANT_BASE;
#endif
    return v;
}

/* AUTO on the GPU is the measured best (docs/gemm.md, run G, 2026-11-29): wgmma_ws for tf32 (77-86 %
 * of cuBLAS TF32 and cuBLAS's rounding: 1e-5 from its results; wgmma_ws_a is 3-8 % faster but truncates
 * A to tf32, 4e-4 from cuBLAS; wgmma_ws falls back to wgmma_tma / mma.sync where 256-wide tiles or
 * sm_90a are missing), bk32 for fp32 (same bits as base, the fastest fp32 kernel on dense,
 * block-sparse, banded and power-law input). */
static parac_gemm_variant measured_default(parac_gemm_dtype dtype)
{
    return dtype == PARAC_GEMM_TF32 ? PARAC_GEMM_VARIANT_WGMMA_WS : PARAC_GEMM_VARIANT_BK32;
}

/* N256's pipeline on the GPU (the tiles, hence the bits, are the same either way): BK32's kernel at
 * 64x256 with 2 stages of 32 k (round 5), unless the caller asks for the first kernel's 4 stages of
 * 16 k (pipeline_stages 4) or tile_k is no multiple of 32. */
static int n256_stages(const parac_gemm_plan *plan, const parac_gemm_options *o)
{
    return o->pipeline_stages == 4 || plan->tile_k % 32 ? 4 : 2;
}

static parac_status build_plan(parac_gemm_plan *plan, const parac_gemm_options *caller, int scanned_a, int scanned_b,
                               parac_error *error)
{
    parac_status status;
    int64_t split_tiles = 0;
    parac_gemm_options concrete = *caller;
    const parac_gemm_options *o = &concrete;
    parac_workload work = {PARAC_WORKLOAD_GEMM, 2.0 * (double)o->m * (double)o->n * (double)o->k,
                           4.0 * ((double)o->m * (double)o->k + (double)o->k * (double)o->n + 2.0 * (double)o->m * (double)o->n)};
    if ((status = parac_choose_device(&o->exec, &work, &plan->device, error)) != PARAC_OK) return status;
    if (concrete.variant == PARAC_GEMM_VARIANT_AUTO && plan->device == PARAC_DEVICE_CUDA)
        plan->options.variant = concrete.variant = measured_default(concrete.dtype);
#ifdef PARAC_HAVE_CUDA
    if (plan->device == PARAC_DEVICE_CUDA && (status = gemm_cuda_state_create(plan, error)) != PARAC_OK) return status;
#endif
    if ((status = choose_tiles(plan, o, scanned_a, scanned_b, &split_tiles, error)) != PARAC_OK) return status;
    plan->tiles_m = gemm_ceil_div(o->m, plan->tile_m);
    plan->tiles_n = gemm_ceil_div(o->n, plan->tile_n);
    plan->tiles_k = gemm_ceil_div(o->k, plan->tile_k);
    plan->padded_m = plan->tiles_m * plan->tile_m;
    plan->padded_n = plan->tiles_n * plan->tile_n;
    plan->padded_k = plan->tiles_k * plan->tile_k;
    if ((status = build_masks(plan, o, error)) != PARAC_OK) return status;
    if ((status = build_k_lists(plan, error)) != PARAC_OK) return status;
    plan->split_k = choose_split(plan, o->split_k, split_tiles);
    plan->variant = resolve_variant(plan, o);
    if (plan->variant == PARAC_GEMM_VARIANT_N256) plan->stages = n256_stages(plan, o);
    else if (plan->variant != PARAC_GEMM_VARIANT_WGMMA_TMA) plan->stages = 0;
    else if (o->pipeline_stages) plan->stages = o->pipeline_stages;
    else if (!plan->stages) plan->stages = 4; /* not from the tuning cache */
    if (plan->tile_n == 256 && ws_variant(o->variant)) {
        if (plan->device == PARAC_DEVICE_CUDA && plan->variant != PARAC_GEMM_VARIANT_WGMMA_TMA)
            return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: tile_n 256 (wgmma_ws) needs tf32, tile_k %% 32 == 0 and an sm_90a GPU");
        if (plan->variant == PARAC_GEMM_VARIANT_WGMMA_TMA) plan->stages = 4; /* 48 KiB stages: 4 fit */
    }
    if ((status = gemm_schedule_build(plan, error)) != PARAC_OK) return status;
    if ((status = measure_residency(plan, error)) != PARAC_OK) return status;
    fill_info(plan);
    gemm_dag_measure(plan);
    plan->info.arithmetic_intensity = plan->info.flops / plan->info.bytes_moved;
    return PARAC_OK;
}

static parac_status create_plan(const parac_gemm_options *options, int scanned_a, int scanned_b,
                                parac_gemm_plan **plan_out, parac_error *error)
{
    parac_gemm_plan *plan;
    parac_status status;
    *plan_out = NULL;
    if ((status = check_options(options, error)) != PARAC_OK) return status;
    plan = calloc(1, sizeof *plan);
    if (!plan) return parac_fail_no_memory(error, "gemm plan", sizeof *plan);
    plan->options = *options;
    plan->options.a_tile_mask = plan->options.b_tile_mask = NULL;
    plan->options.scan_a = plan->options.scan_b = NULL;
    plan->options.tune_cache_path = NULL; /* read once, here: the plan keeps no pointer to it */
    status = resolve_leading(options->lda, options->m, options->k, options->layout_a, "a", &plan->lda, error);
    if (status == PARAC_OK)
        status = resolve_leading(options->ldb, options->k, options->n, options->layout_b, "b", &plan->ldb, error);
    if (status == PARAC_OK)
        status = resolve_leading(options->ldc, options->m, options->n, options->layout_c, "c", &plan->ldc, error);
    if (status == PARAC_OK) status = build_plan(plan, options, scanned_a, scanned_b, error);
    if (status != PARAC_OK) {
        parac_gemm_plan_destroy(plan);
        return status;
    }
    *plan_out = plan;
    return PARAC_OK;
}

parac_status parac_gemm_plan_create(const parac_gemm_options *options, parac_gemm_plan **plan_out,
                                    parac_error *error)
{
    return create_plan(options, 0, 0, plan_out, error);
}

parac_status gemm_plan_create_as_scanned(const parac_gemm_options *options, int scanned_a, int scanned_b,
                                         parac_gemm_plan **plan_out, parac_error *error)
{
    return create_plan(options, scanned_a, scanned_b, plan_out, error);
}

void parac_gemm_plan_destroy(parac_gemm_plan *plan)
{
    if (!plan) return;
#ifdef PARAC_HAVE_CUDA
    gemm_cuda_state_destroy(plan);
#endif
    free(plan->a_mask);
    free(plan->b_mask);
    free(plan->c_offsets);
    free(plan->k_list);
    free(plan->items);
    free(plan->dynamic_order);
    free(plan->reductions);
    free(plan->host_workspace);
    free(plan);
}

void parac_gemm_plan_info_get(const parac_gemm_plan *plan, parac_gemm_plan_info *info) { *info = plan->info; }

int64_t parac_gemm_plan_tile_kernels(const parac_gemm_plan *plan, int64_t tile_row, int64_t tile_col,
                                     int64_t *k_tiles, int64_t capacity)
{
    int64_t t, count;
    if (tile_row < 0 || tile_row >= plan->tiles_m || tile_col < 0 || tile_col >= plan->tiles_n) return 0;
    t = tile_row * plan->tiles_n + tile_col;
    count = plan->c_offsets[t + 1] - plan->c_offsets[t];
    for (int64_t i = 0; i < count && i < capacity; i++) k_tiles[i] = plan->k_list[plan->c_offsets[t] + i];
    return count;
}
