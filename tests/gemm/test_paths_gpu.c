/* tests/gemm/test_paths_gpu.c — the GPU path against the CPU path and the double
 * reference on fresh random inputs: every tile shape, both schedules, split-k,
 * layouts, alpha/beta, sparsity, fp32 (base, n256, bk32: bit-identical to the CPU) and tf32.
 * bk32 (BK 32 x 3 stages, B in place when aligned, float4 epilogue) is also checked against base's
 * bits on the same plan, on every shape below including n256's in-place-B shapes.
 * n256 (64x256 C tiles, B read in place when row-major with n, ldb % 4 == 0) is also checked
 * against base's bits on extra shapes: ragged n and k, strided B, empty tile rows, split-k.
 * Quick mode (PARAC_TEST_QUICK=1, docs/GPU.md): the same cases and variants, each extent above 300
 * cut to one tile plus its remainder (quick_extent), so ragged edges and multi-tile grids stay. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/gemm.h>

#ifdef PARAC_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "core/rng.h"
#include "support_gemm.h"
#include "test_util.h"

typedef struct gpu_case {
    int64_t m, n, k;
    int tile_m, tile_n, split_k, variant;
    double keep; /* fraction of non-zero 64x64 A tiles; 1 = dense */
    int zero_rows; /* > 0: A rows [64, 64 + zero_rows) zeroed and scanned (empty C tile rows) */
    int ldb_pad;   /* > 0: B stored with leading dimension (minor extent + ldb_pad) */
    double keep_b; /* in (0, 1): fraction of non-zero 64 x tile_n B tiles (scanned); 0 = dense B */
} gpu_case;

static const gpu_case CASES[] = {
    {1, 1, 1, 0, 0, 0, 0, 1.0, 0, 0, 0.0},        {1, 1, 300, 0, 0, 0, 1, 1.0, 0, 0, 0.0},      {300, 200, 1, 0, 0, 0, 2, 1.0, 0, 0, 0.0},
    {2000, 3, 100, 0, 0, 0, 3, 1.0, 0, 0, 0.0},   {5, 1500, 70, 0, 0, 0, 4, 1.0, 0, 0, 0.0},    {129, 130, 131, 128, 128, 0, 5, 1.0, 0, 0, 0.0},
    {257, 255, 190, 128, 64, 0, 6, 1.0, 0, 0, 0.0}, {191, 257, 65, 64, 128, 0, 7, 1.0, 0, 0, 0.0}, {100, 90, 3000, 64, 64, 6, 0, 1.0, 0, 0, 0.0},
    {1000, 1000, 1000, 128, 128, 0, 1, 1.0, 0, 0, 0.0}, {700, 600, 900, 64, 64, 0, 2, 0.2, 0, 0, 0.0}, {1030, 515, 777, 64, 64, 0, 4, 0.35, 0, 0, 0.0},
};
#define CASE_COUNT (int)(sizeof CASES / sizeof CASES[0])

/* Shapes aimed at n256's in-place B (row-major B where n % 4 == 0 unless noted): ragged n
 * (n % 256 != 0) and k (k % 16 != 0), strided B (ldb % 4 == 0: in place; % 4 != 0: packed),
 * sparse A with empty tile rows, auto split-k (few C tiles), column-major A and C. */
static const gpu_case N256_CASES[] = {
    {777, 1028, 515, 0, 0, 0, 0, 0.3, 0, 0, 0.0},  {640, 512, 1024, 0, 0, 0, 1, 0.125, 0, 0, 0.0},
    {300, 2048, 200, 0, 0, 0, 4, 1.0, 0, 0, 0.0},  {100, 96, 3000, 0, 0, 0, 5, 1.0, 0, 0, 0.0},
    {450, 260, 333, 0, 0, 0, 0, 1.0, 0, 8, 0.0},   {450, 260, 333, 0, 0, 0, 1, 1.0, 0, 3, 0.0},
    {500, 700, 640, 0, 0, 0, 0, 1.0, 256, 0, 0.0}, {500, 700, 640, 0, 0, 0, 5, 0.5, 128, 4, 0.0},
    {64, 4, 7, 0, 0, 0, 0, 1.0, 0, 0, 0.0},        {1, 1024, 1, 0, 0, 0, 1, 1.0, 0, 0, 0.0},
};
#define N256_CASE_COUNT (int)(sizeof N256_CASES / sizeof N256_CASES[0])

/* Sparse shapes for the masked pack (round 5: only tiles some kernel reads are packed; the rest of
 * the panels hold whatever the workspace held) under every fp32 variant and AUTO: sparse A with
 * empty tile rows and ragged m, n, k; sparse A and B together; sparse B alone (empty tile columns
 * likely: 10 % of 19 k tiles); auto split-k on a sparse A; each run twice (stale workspace).
 * B-sparse cases fix split_k 1: base's 64-wide B tiles give other k lists than n256's 256-wide ones
 * (one unsplit chain gives the same bits either way: skipped tiles add exact zeros). */
static const gpu_case SPARSE_CASES[] = {
    {700, 520, 900, 0, 0, 0, 0, 0.125, 64, 0, 0.0},    {513, 777, 1000, 0, 0, 1, 3, 0.2, 0, 0, 0.3},
    {1000, 300, 1200, 0, 0, 1, 4, 1.0, 0, 0, 0.1},     {100, 130, 3000, 0, 0, 0, 1, 0.3, 0, 0, 0.0},
    {900, 520, 640, 0, 0, 1, 0, 0.25, 128, 0, 0.25},   {64, 256, 64, 0, 0, 0, 2, 0.5, 0, 0, 0.0},
};
#define SPARSE_CASE_COUNT (int)(sizeof SPARSE_CASES / sizeof SPARSE_CASES[0])

/* Whether the GPU is a Hopper (compute 9.x), where every variant must really run. */
static int gpu_is_hopper(void)
{
#ifdef PARAC_HAVE_CUDA
    struct cudaDeviceProp properties;
    return cudaGetDeviceProperties(&properties, 0) == cudaSuccess && properties.major == 9;
#else
    return 0;
#endif
}

static float *run_info(parac_gemm_options *o, parac_device device, parac_gemm_schedule schedule, float alpha,
                       const float *a, const float *b, float beta, const float *c0, int64_t c_count,
                       parac_gemm_plan_info *info_out)
{
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    float *c = support_copy(c0, c_count);
    o->exec.device = device;
    o->schedule = schedule;
    CHECK_OK(parac_gemm_plan_create(o, &plan, &error), &error);
    if (!plan) return c;
    parac_gemm_plan_info_get(plan, &info);
    if (info_out) *info_out = info;
    if (device == PARAC_DEVICE_CUDA && o->variant != PARAC_GEMM_VARIANT_AUTO && (o->variant != PARAC_GEMM_VARIANT_WGMMA || gpu_is_hopper()))
        CHECK(info.variant == o->variant, "variant %d requested, %d runs (tile_k %d)", (int)o->variant, (int)info.variant,
              info.tile_k);
    CHECK_OK(parac_gemm_execute(plan, alpha, a, b, beta, c, &error), &error);
    parac_gemm_plan_destroy(plan);
    return c;
}

static float *run(parac_gemm_options *o, parac_device device, parac_gemm_schedule schedule, float alpha,
                  const float *a, const float *b, float beta, const float *c0, int64_t c_count)
{
    return run_info(o, device, schedule, alpha, a, b, beta, c0, c_count, NULL);
}

/* n256 against base on the GPU: base runs 64x64 tiles with n256's split-k, so both
 * plans have the same k chains (B dense: a 64x256 tile's k list is its 64x64 tiles'). */
static void check_n256_against_base(const parac_gemm_options *n256, const parac_gemm_plan_info *info, float alpha,
                                    const float *a, const float *b, float beta, const float *c0, int64_t c_count,
                                    const float *n256_c)
{
    parac_gemm_options o = *n256;
    float *base_c;
    o.variant = PARAC_GEMM_VARIANT_BASE, o.tile_m = 64, o.tile_n = 64, o.split_k = info->split_k;
    base_c = run(&o, PARAC_DEVICE_CUDA, PARAC_GEMM_SCHEDULE_STATIC, alpha, a, b, beta, c0, c_count);
    CHECK(info->tile_m == 64 && info->tile_n == 256, "n256 plan has %dx%d tiles", info->tile_m, info->tile_n);
    CHECK(memcmp(base_c, n256_c, (size_t)c_count * 4) == 0, "n256 %lldx%lldx%lld (split %d): bits differ from base",
          (long long)o.m, (long long)o.n, (long long)o.k, info->split_k);
    free(base_c);
}

/* bk32 against base on the GPU with the same tiles and split-k: the same plan, so the same bits. */
static void check_bk32_against_base(const parac_gemm_options *bk32, const parac_gemm_plan_info *info, float alpha,
                                    const float *a, const float *b, float beta, const float *c0, int64_t c_count,
                                    const float *bk32_c)
{
    parac_gemm_options o = *bk32;
    float *base_c;
    o.variant = PARAC_GEMM_VARIANT_BASE, o.tile_m = info->tile_m, o.tile_n = info->tile_n, o.split_k = info->split_k;
    base_c = run(&o, PARAC_DEVICE_CUDA, PARAC_GEMM_SCHEDULE_DYNAMIC, alpha, a, b, beta, c0, c_count);
    CHECK(memcmp(base_c, bk32_c, (size_t)c_count * 4) == 0, "bk32 %lldx%lldx%lld tiles %dx%d (split %d): bits differ from base",
          (long long)o.m, (long long)o.n, (long long)o.k, info->tile_m, info->tile_n, info->split_k);
    free(base_c);
}

/* bk32 needs 32-wide k steps and fp32: tile_k 48 or tf32 fall back to base (reported in the info). */
static void check_bk32_fallbacks(void)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CUDA;
    o.m = o.n = o.k = 300;
    o.variant = PARAC_GEMM_VARIANT_BK32;
    for (int round = 0; round < 2; round++) {
        o.tile_k = round == 0 ? 48 : 0, o.dtype = round == 0 ? PARAC_GEMM_FP32 : PARAC_GEMM_TF32;
        CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
        if (plan) {
            parac_gemm_plan_info_get(plan, &info);
            CHECK(info.variant == PARAC_GEMM_VARIANT_BASE, "bk32 (tile_k %d, dtype %d) should fall back to base, runs %s", o.tile_k,
                  (int)o.dtype, parac_gemm_variant_name(info.variant));
        }
        parac_gemm_plan_destroy(plan);
        plan = NULL;
    }
}

/* Zeroes A rows [64, 64 + count) (clipped to m): whole empty tile rows for 64-row tiles. */
static void zero_a_rows(float *a, parac_gemm_layout layout, int64_t m, int64_t k, int count)
{
    for (int64_t r = 64; r < 64 + count && r < m; r++)
        for (int64_t c = 0; c < k; c++) a[layout == PARAC_GEMM_ROW_MAJOR ? r * k + c : c * m + r] = 0.0f;
}

/* Quick mode: an extent above 300 becomes tile + extent % tile (at least two tiles of that width, the
 * same ragged edge); m and k by 128 (every tile_m, tile_k divides it), n by 256 (n256's tiles). */
static int64_t quick_extent(int64_t extent, int64_t tile)
{
    return test_quick() && extent > 300 ? tile + extent % tile : extent;
}

/* k stays whole where split-k has work to split: an explicit split, or m and n too small for many C tiles. */
static gpu_case quick_sized(const gpu_case *t)
{
    gpu_case sized = *t;
    int k_stays = t->split_k > 1 || (t->m <= 300 && t->n <= 300);
    sized.m = quick_extent(t->m, 128), sized.n = quick_extent(t->n, 256);
    if (!k_stays) sized.k = quick_extent(t->k, 128);
    return sized;
}

/* stages: the options' pipeline_stages (n256: 0 = BK32's 2-stage pipeline, 4 = the first, BK16 x 4). */
static void check_fp32_case_stages(const gpu_case *full, parac_gemm_variant kernel_variant, int stages, uint64_t seed)
{
    gpu_case sized = quick_sized(full);
    const gpu_case *t = &sized;
    parac_gemm_options o;
    float alpha = (t->variant % 3 == 0) ? 1.0f : -1.5f, beta = (t->variant % 2) ? 0.75f : 0.0f;
    float *a, *b, *c0, *ref, *cpu, *gpu_static, *gpu_dynamic;
    int64_t c_count;
    unsigned char *mask = NULL;
    double ratio;
    parac_gemm_plan_info info;
    int n256 = kernel_variant == PARAC_GEMM_VARIANT_N256;
    memset(&o, 0, sizeof o);
    memset(&info, 0, sizeof info);
    o.m = t->m, o.n = t->n, o.k = t->k, o.split_k = t->split_k;
    o.tile_m = n256 ? 0 : t->tile_m, o.tile_n = n256 ? 0 : t->tile_n; /* n256: 64x256 */
    o.variant = kernel_variant;
    o.pipeline_stages = stages;
    o.layout_a = (t->variant & 1) ? PARAC_GEMM_COL_MAJOR : PARAC_GEMM_ROW_MAJOR;
    o.layout_b = (t->variant & 2) ? PARAC_GEMM_COL_MAJOR : PARAC_GEMM_ROW_MAJOR;
    o.layout_c = (t->variant & 4) ? PARAC_GEMM_COL_MAJOR : PARAC_GEMM_ROW_MAJOR;
    if (t->ldb_pad) o.ldb = (o.layout_b == PARAC_GEMM_ROW_MAJOR ? o.n : o.k) + t->ldb_pad;
    c_count = support_storage(o.layout_c, o.m, o.n, 0);
    a = support_random(seed, o.layout_a, o.m, o.k, 0);
    b = support_random(seed + 1, o.layout_b, o.k, o.n, o.ldb);
    c0 = support_random(seed + 2, o.layout_c, o.m, o.n, 0);
    if (t->keep < 1.0) {
        mask = support_zero_tiles(a, o.layout_a, o.m, o.k, 0, 64, 64, t->keep, seed + 3);
        o.scan_a = a;
        o.tile_k = 64;
    }
    if (t->zero_rows) {
        zero_a_rows(a, o.layout_a, o.m, o.k, t->zero_rows);
        o.scan_a = a;
        o.tile_k = 64;
    }
    if (t->keep_b > 0.0 && t->keep_b < 1.0) {
        int tile_n = n256 ? 256 : t->tile_n ? t->tile_n : 64; /* the plan's tile_n for a sparse B */
        free(support_zero_tiles(b, o.layout_b, o.k, o.n, o.ldb, 64, tile_n, t->keep_b, seed + 4));
        o.scan_b = b;
        o.tile_k = 64;
    }
    ref = support_copy(c0, c_count);
    parac_gemm_reference(&o, alpha, a, b, beta, ref);
    cpu = run(&o, PARAC_DEVICE_CPU, PARAC_GEMM_SCHEDULE_STATIC, alpha, a, b, beta, c0, c_count);
    gpu_static = run_info(&o, PARAC_DEVICE_CUDA, PARAC_GEMM_SCHEDULE_STATIC, alpha, a, b, beta, c0, c_count, &info);
    gpu_dynamic = run(&o, PARAC_DEVICE_CUDA, PARAC_GEMM_SCHEDULE_DYNAMIC, alpha, a, b, beta, c0, c_count);
    ratio = support_error_bound_ratio(&o, alpha, a, b, beta, c0, gpu_static, ref);
    CHECK(ratio < (double)(o.k + 4) * 1.2e-7, "variant %d %lldx%lldx%lld tiles %dx%d: GPU error ratio %.3g",
          (int)kernel_variant, (long long)o.m, (long long)o.n, (long long)o.k, t->tile_m, t->tile_n, ratio);
    CHECK(memcmp(cpu, gpu_static, (size_t)c_count * 4) == 0, "variant %d %lldx%lldx%lld: GPU static differs from CPU bits",
          (int)kernel_variant, (long long)o.m, (long long)o.n, (long long)o.k);
    CHECK(memcmp(gpu_static, gpu_dynamic, (size_t)c_count * 4) == 0, "variant %d %lldx%lldx%lld: GPU static and dynamic differ",
          (int)kernel_variant, (long long)o.m, (long long)o.n, (long long)o.k);
    if (n256) {
        int expected = stages == 4 || info.tile_k % 32 ? 4 : 2;
        CHECK(info.pipeline_stages == expected, "n256 (pipeline_stages %d, tile_k %d): %d stages run, expected %d", stages,
              info.tile_k, info.pipeline_stages, expected);
        check_n256_against_base(&o, &info, alpha, a, b, beta, c0, c_count, gpu_static);
    }
    /* again on a fresh plan, whose workspace reuses the pool memory just freed: the masked pack leaves those
     * stale slots as they are, and no kernel may read them */
    if (t->keep < 1.0 || t->keep_b > 0.0) {
        float *again = run(&o, PARAC_DEVICE_CUDA, PARAC_GEMM_SCHEDULE_DYNAMIC, alpha, a, b, beta, c0, c_count);
        CHECK(memcmp(again, gpu_dynamic, (size_t)c_count * 4) == 0, "variant %d %lldx%lldx%lld: second run differs",
              (int)kernel_variant, (long long)o.m, (long long)o.n, (long long)o.k);
        free(again);
    }
    if (kernel_variant == PARAC_GEMM_VARIANT_BK32) {
        check_bk32_against_base(&o, &info, alpha, a, b, beta, c0, c_count, gpu_dynamic);
        parac_gemm_options packed = o; /* B from its panels instead of in place: the same bits */
        packed.pack_operands = 1;
        float *from_panels = run(&packed, PARAC_DEVICE_CUDA, PARAC_GEMM_SCHEDULE_STATIC, alpha, a, b, beta, c0, c_count);
        CHECK(memcmp(from_panels, gpu_static, (size_t)c_count * 4) == 0, "bk32 %lldx%lldx%lld: pack_operands changes the bits",
              (long long)o.m, (long long)o.n, (long long)o.k);
        free(from_panels);
    }
    free(a), free(b), free(c0), free(ref), free(cpu), free(gpu_static), free(gpu_dynamic), free(mask);
}

static void check_fp32_case(const gpu_case *t, parac_gemm_variant kernel_variant, uint64_t seed)
{
    check_fp32_case_stages(t, kernel_variant, 0, seed);
}

/* TF32: norm-wise error against the exact fp32 product below 1e-2, as cuBLAS TF32. */
static void check_tf32_case(int64_t m, int64_t n, int64_t k, int tile, parac_gemm_variant kernel_variant,
                            parac_gemm_schedule schedule, uint64_t seed)
{
    parac_gemm_options o;
    float *a, *b, *c0, *ref, *gpu;
    double worst = 0.0, scale = 0.0;
    if (m > 300 || n > 300) k = quick_extent(k, 128); /* 100x90x3000 keeps its split-k */
    m = quick_extent(m, 128), n = quick_extent(n, 256);
    memset(&o, 0, sizeof o);
    o.m = m, o.n = n, o.k = k, o.tile_m = tile, o.tile_n = (seed == 9 || seed == 10) ? 192 - tile : tile; /* 64x128, 128x64 */
    a = support_random(seed, PARAC_GEMM_ROW_MAJOR, m, k, 0);
    b = support_random(seed + 1, PARAC_GEMM_ROW_MAJOR, k, n, 0);
    c0 = support_random(seed + 2, PARAC_GEMM_ROW_MAJOR, m, n, 0);
    ref = support_copy(c0, m * n);
    parac_gemm_reference(&o, 1.0f, a, b, 0.5f, ref); /* fp32 dtype: the unrounded product */
    o.dtype = PARAC_GEMM_TF32;
    o.variant = kernel_variant;
    gpu = run(&o, PARAC_DEVICE_CUDA, schedule, 1.0f, a, b, 0.5f, c0, m * n);
    for (int64_t i = 0; i < m * n; i++) {
        double d = fabs((double)gpu[i] - ref[i]);
        worst = isnan(d) || d > worst ? (isnan(d) ? INFINITY : d) : worst;
        scale = fabs((double)ref[i]) > scale ? fabs((double)ref[i]) : scale;
    }
    CHECK(worst / scale < 1e-2, "tf32 variant %d %lldx%lldx%lld tile %d: rel err %.3g", (int)kernel_variant, (long long)m,
          (long long)n, (long long)k, tile, worst / scale);
    if (k >= 100) CHECK(worst / scale > 0.0, "tf32 should differ from fp32 a little (rounded inputs)");
    free(a), free(b), free(c0), free(ref), free(gpu);
}

/* n256 fixes 64x256 tiles: other explicit tiles are refused; tf32 ignores it (falls back to base). */
static void check_n256_options(void)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CUDA;
    o.m = o.n = o.k = 300;
    o.variant = PARAC_GEMM_VARIANT_N256;
    o.tile_m = 128;
    CHECK(parac_gemm_plan_create(&o, &plan, &error) == PARAC_ERR_INVALID_ARGUMENT, "n256 with tile_m 128 must fail");
    parac_gemm_plan_destroy(plan);
    plan = NULL;
    o.tile_m = 0, o.dtype = PARAC_GEMM_TF32;
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.variant != PARAC_GEMM_VARIANT_N256 && info.tile_n != 256, "tf32 n256 should fall back (variant %d, tile_n %d)",
              (int)info.variant, info.tile_n);
    }
    parac_gemm_plan_destroy(plan);
}

#ifdef PARAC_HAVE_CUDA
/* Device buffers, one plan executed three times: same bits each time, equal to the host path. */
static void check_device_buffers(void)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    float *a, *b, *host_c, *back, *da = NULL, *db = NULL, *dc = NULL;
    int64_t m = 333, n = 222, k = 444;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CUDA;
    o.m = m, o.n = n, o.k = k;
    a = support_random(71, PARAC_GEMM_ROW_MAJOR, m, k, 0);
    b = support_random(72, PARAC_GEMM_ROW_MAJOR, k, n, 0);
    host_c = calloc((size_t)(m * n), 4);
    back = calloc((size_t)(m * n), 4);
    CHECK(cudaMalloc((void **)&da, (size_t)(m * k) * 4) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc((void **)&db, (size_t)(k * n) * 4) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc((void **)&dc, (size_t)(m * n) * 4) == cudaSuccess, "cudaMalloc");
    cudaMemcpy(da, a, (size_t)(m * k) * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, (size_t)(k * n) * 4, cudaMemcpyHostToDevice);
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        CHECK_OK(parac_gemm_execute(plan, 1.0f, a, b, 0.0f, host_c, &error), &error);
        for (int run_index = 0; run_index < 3; run_index++) {
            CHECK_OK(parac_gemm_execute_device(plan, 1.0f, da, db, 0.0f, dc, &error), &error);
            cudaMemcpy(back, dc, (size_t)(m * n) * 4, cudaMemcpyDeviceToHost);
            CHECK(memcmp(back, host_c, (size_t)(m * n) * 4) == 0, "device-buffer run %d differs", run_index);
        }
        CHECK(parac_gemm_last_compute_seconds(plan) > 0.0, "compute time measured");
        memset(back, 0, (size_t)(m * n) * 4);
        CHECK_OK(parac_gemm_vendor_reference(plan, 1.0f, a, b, 0.0f, back, &error), &error);
        double worst = 0.0;
        for (int64_t i = 0; i < m * n; i++) worst = fmax(worst, fabs((double)back[i] - host_c[i]));
        CHECK(worst < 1e-3, "cuBLAS and parac differ by %.3g", worst);
    }
    parac_gemm_plan_destroy(plan);
    cudaFree(da), cudaFree(db), cudaFree(dc);
    free(a), free(b), free(host_c), free(back);
}
#endif

int main(void)
{
    if (test_require_gpu()) return 77;
    /* fp32: every variant must give the CPU's exact bits */
    static const parac_gemm_variant FP32_VARIANTS[] = {PARAC_GEMM_VARIANT_BASE, PARAC_GEMM_VARIANT_N256,
                                                       PARAC_GEMM_VARIANT_BK32};
    for (size_t v = 0; v < sizeof FP32_VARIANTS / sizeof FP32_VARIANTS[0]; v++)
        for (int i = 0; i < CASE_COUNT; i++)
            check_fp32_case(&CASES[i], FP32_VARIANTS[v], 1000 + 10 * (uint64_t)i + 500 * (uint64_t)FP32_VARIANTS[v]);
    for (int i = 0; i < N256_CASE_COUNT; i++) {
        check_fp32_case(&N256_CASES[i], PARAC_GEMM_VARIANT_N256, 9000 + 10 * (uint64_t)i);
        check_fp32_case(&N256_CASES[i], PARAC_GEMM_VARIANT_BASE, 9000 + 10 * (uint64_t)i); /* the shapes under base too */
        check_fp32_case(&N256_CASES[i], PARAC_GEMM_VARIANT_BK32, 9000 + 10 * (uint64_t)i); /* bk32's in-place B, float4 C */
    }
    /* sparse A and/or B (masked pack): every fp32 variant, AUTO, and n256's first pipeline */
    for (int i = 0; i < SPARSE_CASE_COUNT; i++) {
        for (size_t v = 0; v < sizeof FP32_VARIANTS / sizeof FP32_VARIANTS[0]; v++)
            check_fp32_case(&SPARSE_CASES[i], FP32_VARIANTS[v], 20000 + 10 * (uint64_t)i);
        check_fp32_case(&SPARSE_CASES[i], PARAC_GEMM_VARIANT_AUTO, 20000 + 10 * (uint64_t)i);
        check_fp32_case_stages(&SPARSE_CASES[i], PARAC_GEMM_VARIANT_N256, 4, 20000 + 10 * (uint64_t)i);
    }
    for (int i = 0; i < N256_CASE_COUNT; i++) /* n256's first pipeline (BK16 x 4) on its shapes */
        check_fp32_case_stages(&N256_CASES[i], PARAC_GEMM_VARIANT_N256, 4, 9000 + 10 * (uint64_t)i);
    check_n256_options();
    check_bk32_fallbacks();
    /* tf32: mma.sync and wgmma, every tile shape, both schedules, split-k (100x90x3000) */
    for (int v = PARAC_GEMM_VARIANT_BASE; v <= PARAC_GEMM_VARIANT_WGMMA; v += PARAC_GEMM_VARIANT_WGMMA - PARAC_GEMM_VARIANT_BASE) {
        parac_gemm_variant kv = (parac_gemm_variant)v;
        check_tf32_case(1, 1, 8, 64, kv, PARAC_GEMM_SCHEDULE_AUTO, 5);
        check_tf32_case(255, 129, 333, 64, kv, PARAC_GEMM_SCHEDULE_STATIC, 6);
        check_tf32_case(1000, 1000, 1000, 128, kv, PARAC_GEMM_SCHEDULE_DYNAMIC, 7);
        check_tf32_case(300, 700, 1, 128, kv, PARAC_GEMM_SCHEDULE_STATIC, 8);
        check_tf32_case(100, 90, 3000, 64, kv, PARAC_GEMM_SCHEDULE_STATIC, 9);
        check_tf32_case(1031, 517, 1500, 128, kv, PARAC_GEMM_SCHEDULE_DYNAMIC, 10);
    }
#ifdef PARAC_HAVE_CUDA
    check_device_buffers();
#endif
    return test_finish("gemm.paths_gpu");
}
