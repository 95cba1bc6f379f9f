/* tests/gemm/test_tma_gpu.c — the wgmma_tma variant (bulk-copy producer,
 * mbarrier ring, persistent blocks) against the plain wgmma variant and the
 * fp32 reference, on fresh random inputs.
 *
 * Both variants issue the same wgmma.m64nNk8 instructions on the same packed
 * stages in the same k order, so their results must be bit-identical: any
 * pipeline slip (a stage read before it landed, a buffer refilled while still
 * read, a wrong item or step handed to a consumer) changes bits. Cases cover
 * every tile shape, 4 and 6 stages, both schedules, split-k, K = 1, many more
 * work items than blocks (the ring laps across C tiles), empty C tiles
 * (metadata-only stages) and beta != 0.
 *
 * wgmma_ws (the same pipeline on 256-wide C tiles, m64n256k8, setmaxnreg) has
 * other tiles, hence maybe another split-k: it is checked against the fp32
 * reference and wgmma_tma within the tf32 bound, and bit for bit between its
 * static and dynamic schedules and between two runs of one plan. wgmma_ws_a (A loaded by a TMA
 * tensor map from the caller's matrix, not packed; truncated to tf32 by the tensor core) gets the
 * same checks against the fp32 reference and wgmma_ws, on the same shapes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/gemm.h>

#ifdef PARAC_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "support_gemm.h"
#include "test_util.h"

typedef struct tma_case {
    int64_t m, n, k;
    int tile_m, tile_n, split_k;
    int zero_band; /* zero A's rows 64..127: a band of C tiles without tile kernels */
} tma_case;

static const tma_case CASES[] = {
    {1, 1, 8, 64, 64, 0, 0},          {255, 129, 333, 64, 64, 0, 0},   {1000, 1000, 1000, 128, 128, 0, 0},
    {300, 700, 1, 128, 128, 0, 0},    {100, 90, 3000, 64, 128, 6, 0},  {1031, 517, 1500, 128, 64, 0, 0},
    {2048, 2048, 256, 64, 64, 0, 0},  {700, 600, 900, 64, 64, 0, 1},   {1500, 1300, 700, 128, 128, 0, 1},
};
#define CASE_COUNT (int)(sizeof CASES / sizeof CASES[0])

static int gpu_is_hopper(void)
{
#ifdef PARAC_HAVE_CUDA
    struct cudaDeviceProp properties;
    return cudaGetDeviceProperties(&properties, 0) == cudaSuccess && properties.major == 9;
#else
    return 0;
#endif
}

static float *run(parac_gemm_options *o, parac_gemm_variant variant, int stages, parac_gemm_schedule schedule,
                  const float *a, const float *b, float beta, const float *c0)
{
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    float *c = support_copy(c0, o->m * o->n);
    o->exec.device = PARAC_DEVICE_CUDA;
    o->variant = variant;
    o->pipeline_stages = stages;
    o->schedule = schedule;
    CHECK_OK(parac_gemm_plan_create(o, &plan, &error), &error);
    if (!plan) return c;
    parac_gemm_plan_info_get(plan, &info);
    if (gpu_is_hopper()) {
        /* wgmma_ws needs one full 256-wide tile of n; below that it runs as wgmma_tma */
        int ws = variant == PARAC_GEMM_VARIANT_WGMMA_WS || variant == PARAC_GEMM_VARIANT_WGMMA_WS_A;
        parac_gemm_variant expected = ws && o->n < 256 ? PARAC_GEMM_VARIANT_WGMMA_TMA : variant;
        CHECK(info.variant == expected, "variant %s requested, %s runs", parac_gemm_variant_name(variant),
              parac_gemm_variant_name(info.variant));
        if (variant == PARAC_GEMM_VARIANT_WGMMA_TMA)
            CHECK(info.pipeline_stages == (stages ? stages : 4), "stages %d requested, %d run", stages, info.pipeline_stages);
        if (expected == PARAC_GEMM_VARIANT_WGMMA_WS || expected == PARAC_GEMM_VARIANT_WGMMA_WS_A)
            CHECK(info.tile_n == 256 && info.pipeline_stages == 4, "wgmma_ws: tile_n %d, %d stages", info.tile_n,
                  info.pipeline_stages);
    }
    CHECK_OK(parac_gemm_execute(plan, -1.5f, a, b, beta, c, &error), &error);
    if (variant == PARAC_GEMM_VARIANT_WGMMA_WS || variant == PARAC_GEMM_VARIANT_WGMMA_WS_A) { /* a second run: same bits */
        float *again = support_copy(c0, o->m * o->n);
        CHECK_OK(parac_gemm_execute(plan, -1.5f, a, b, beta, again, &error), &error);
        CHECK(memcmp(again, c, (size_t)(o->m * o->n) * sizeof(float)) == 0, "wgmma_ws %lldx%lldx%lld: two runs differ",
              (long long)o->m, (long long)o->n, (long long)o->k);
        free(again);
    }
    parac_gemm_plan_destroy(plan);
    return c;
}

/* max |x - ref| / max |ref| */
static double relative_error(const float *x, const float *ref, int64_t count)
{
    double worst = 0.0, scale = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double d = fabs((double)x[i] - ref[i]);
        worst = isnan(d) || d > worst ? (isnan(d) ? INFINITY : d) : worst;
        scale = fabs((double)ref[i]) > scale ? fabs((double)ref[i]) : scale;
    }
    return scale > 0.0 ? worst / scale : worst;
}

static void check_case(const tma_case *t, uint64_t seed)
{
    static const struct { int stages; parac_gemm_schedule schedule; } RUNS[] = {
        {4, PARAC_GEMM_SCHEDULE_STATIC}, {4, PARAC_GEMM_SCHEDULE_DYNAMIC}, {6, PARAC_GEMM_SCHEDULE_STATIC},
        {0, PARAC_GEMM_SCHEDULE_DYNAMIC}};
    parac_gemm_options o;
    int64_t count = t->m * t->n;
    float beta = (seed % 2) ? 0.75f : 0.0f;
    float *a = support_random(seed, PARAC_GEMM_ROW_MAJOR, t->m, t->k, 0);
    float *b = support_random(seed + 1, PARAC_GEMM_ROW_MAJOR, t->k, t->n, 0);
    float *c0 = support_random(seed + 2, PARAC_GEMM_ROW_MAJOR, t->m, t->n, 0);
    float *ref = support_copy(c0, count), *plain, *tma;
    if (t->zero_band) memset(a + 64 * t->k, 0, (size_t)(64 * t->k) * sizeof(float));
    memset(&o, 0, sizeof o);
    o.m = t->m, o.n = t->n, o.k = t->k;
    o.tile_m = t->tile_m, o.tile_n = t->tile_n, o.split_k = t->split_k;
    if (t->zero_band) o.scan_a = a; /* skip the zero tiles: C tiles of rows 64..127 get no tile kernel */
    parac_gemm_reference(&o, -1.5f, a, b, beta, ref); /* fp32: the unrounded product */
    o.dtype = PARAC_GEMM_TF32;
    plain = run(&o, PARAC_GEMM_VARIANT_WGMMA, 0, PARAC_GEMM_SCHEDULE_STATIC, a, b, beta, c0);
    CHECK(relative_error(plain, ref, count) < 1e-2, "wgmma %lldx%lldx%lld: rel err %.3g", (long long)t->m,
          (long long)t->n, (long long)t->k, relative_error(plain, ref, count));
    for (size_t r = 0; r < sizeof RUNS / sizeof RUNS[0]; r++) {
        tma = run(&o, PARAC_GEMM_VARIANT_WGMMA_TMA, RUNS[r].stages, RUNS[r].schedule, a, b, beta, c0);
        CHECK(relative_error(tma, ref, count) < 1e-2, "wgmma_tma %lldx%lldx%lld stages %d: rel err %.3g",
              (long long)t->m, (long long)t->n, (long long)t->k, RUNS[r].stages, relative_error(tma, ref, count));
        CHECK(memcmp(tma, plain, (size_t)count * sizeof(float)) == 0,
              "wgmma_tma %lldx%lldx%lld tiles %dx%d stages %d schedule %d: bits differ from wgmma (rel %.3g)",
              (long long)t->m, (long long)t->n, (long long)t->k, t->tile_m, t->tile_n, RUNS[r].stages,
              (int)RUNS[r].schedule, relative_error(tma, plain, count));
        free(tma);
    }
    free(a), free(b), free(c0), free(ref), free(plain);
}

/* tile_n is left to the plan (256 when n >= 256); tile_m as given. */
static const tma_case WS_CASES[] = {
    {1, 1, 8, 64, 0, 0, 0},            {255, 129, 333, 128, 0, 0, 0},   {1000, 1000, 1000, 128, 0, 0, 0},
    {300, 700, 1, 128, 0, 0, 0},       {100, 300, 3000, 64, 0, 6, 0},   {1031, 517, 1500, 128, 0, 0, 0},
    {2048, 2048, 256, 64, 0, 0, 0},    {700, 600, 900, 64, 0, 0, 1},    {1500, 1300, 700, 128, 0, 0, 1},
    {4000, 300, 200, 128, 0, 0, 0},    {256, 3000, 100, 128, 0, 0, 0},  {2500, 1800, 384, 128, 0, 0, 0},
};
#define WS_CASE_COUNT (int)(sizeof WS_CASES / sizeof WS_CASES[0])

static void check_ws_case(const tma_case *t, uint64_t seed)
{
    parac_gemm_options o;
    int64_t count = t->m * t->n;
    float beta = (seed % 2) ? 0.75f : 0.0f;
    float *a = support_random(seed, PARAC_GEMM_ROW_MAJOR, t->m, t->k, 0);
    float *b = support_random(seed + 1, PARAC_GEMM_ROW_MAJOR, t->k, t->n, 0);
    float *c0 = support_random(seed + 2, PARAC_GEMM_ROW_MAJOR, t->m, t->n, 0);
    float *ref = support_copy(c0, count), *tma, *stat, *dyn;
    if (t->zero_band) memset(a + 64 * t->k, 0, (size_t)(64 * t->k) * sizeof(float));
    memset(&o, 0, sizeof o);
    o.m = t->m, o.n = t->n, o.k = t->k;
    o.tile_m = t->tile_m, o.tile_n = t->tile_n, o.split_k = t->split_k;
    if (t->zero_band) o.scan_a = a;
    parac_gemm_reference(&o, -1.5f, a, b, beta, ref);
    o.dtype = PARAC_GEMM_TF32;
    tma = run(&o, PARAC_GEMM_VARIANT_WGMMA_TMA, 4, PARAC_GEMM_SCHEDULE_STATIC, a, b, beta, c0);
    stat = run(&o, PARAC_GEMM_VARIANT_WGMMA_WS, 0, PARAC_GEMM_SCHEDULE_STATIC, a, b, beta, c0);
    dyn = run(&o, PARAC_GEMM_VARIANT_WGMMA_WS, 0, PARAC_GEMM_SCHEDULE_DYNAMIC, a, b, beta, c0);
    CHECK(relative_error(stat, ref, count) < 1e-2, "wgmma_ws %lldx%lldx%lld: rel err %.3g vs fp32", (long long)t->m,
          (long long)t->n, (long long)t->k, relative_error(stat, ref, count));
    CHECK(relative_error(stat, tma, count) < 1e-2, "wgmma_ws %lldx%lldx%lld: rel err %.3g vs wgmma_tma", (long long)t->m,
          (long long)t->n, (long long)t->k, relative_error(stat, tma, count));
    CHECK(memcmp(stat, dyn, (size_t)count * sizeof(float)) == 0, "wgmma_ws %lldx%lldx%lld: static and dynamic bits differ (rel %.3g)",
          (long long)t->m, (long long)t->n, (long long)t->k, relative_error(dyn, stat, count));
    /* wgmma_ws_a: A through a TMA tensor map (row-major, lda % 4 == 0, m >= tile_m, k >= 32), else packed;
     * A truncated to tf32 by the tensor core instead of rounded: within the bound, not wgmma_ws's bits */
    free(tma);
    tma = run(&o, PARAC_GEMM_VARIANT_WGMMA_WS_A, 0, PARAC_GEMM_SCHEDULE_STATIC, a, b, beta, c0);
    free(dyn);
    dyn = run(&o, PARAC_GEMM_VARIANT_WGMMA_WS_A, 0, PARAC_GEMM_SCHEDULE_DYNAMIC, a, b, beta, c0);
    CHECK(relative_error(tma, ref, count) < 1e-2, "wgmma_ws_a %lldx%lldx%lld: rel err %.3g vs fp32", (long long)t->m,
          (long long)t->n, (long long)t->k, relative_error(tma, ref, count));
    CHECK(relative_error(tma, stat, count) < 1e-2, "wgmma_ws_a %lldx%lldx%lld: rel err %.3g vs wgmma_ws", (long long)t->m,
          (long long)t->n, (long long)t->k, relative_error(tma, stat, count));
    CHECK(memcmp(tma, dyn, (size_t)count * sizeof(float)) == 0,
          "wgmma_ws_a %lldx%lldx%lld: static and dynamic bits differ (rel %.3g)", (long long)t->m, (long long)t->n,
          (long long)t->k, relative_error(dyn, tma, count));
    free(a), free(b), free(c0), free(ref), free(tma), free(stat), free(dyn);
}

int main(void)
{
    if (test_require_gpu()) return 77;
    for (int i = 0; i < CASE_COUNT; i++) check_case(&CASES[i], 3000 + 10 * (uint64_t)i);
    for (int i = 0; i < WS_CASE_COUNT; i++) check_ws_case(&WS_CASES[i], 5000 + 10 * (uint64_t)i);
    return test_finish("gemm.tma_gpu");
}
