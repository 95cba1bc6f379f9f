/* tests/gemm/test_autotune_gpu.c — on the GPU, the tuner's candidate shapes give the untuned plan's bits.
 *
 * For each variant (fp32: base, bk32; tf32: base (mma.sync), wgmma, wgmma_tma, wgmma_ws),
 * every candidate tile shape run with the untuned plan's tile_k and split-k must give C byte for byte equal
 * to the untuned plan's (the tensor cores' per-element order is the hardware's: this is the check that
 * tile_m / tile_n do not change it). Then one parac_gemm_autotune round trip: a plan reading the cache
 * gives the untuned C. Quick mode (PARAC_TEST_QUICK=1, docs/GPU.md): 264 x 264 x 256 instead of
 * 600 x 600 x 1024 (still two 128-wide tiles each way, and one full 256-wide tile for wgmma_ws). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <parac/gemm.h>

#include "test_util.h"

static int64_t M = 600, N = 600, K = 1024;

static int run(const parac_gemm_options *o, const float *a, const float *b, float *c, parac_gemm_plan_info *info)
{
    parac_gemm_plan *plan = NULL;
    parac_error error;
    parac_status status = parac_gemm_plan_create(o, &plan, &error);
    CHECK_OK(status, &error);
    if (status != PARAC_OK) return 0;
    parac_gemm_plan_info_get(plan, info);
    memset(c, 0, (size_t)M * N * 4);
    status = parac_gemm_execute(plan, 1.0f, a, b, 0.0f, c, &error);
    CHECK_OK(status, &error);
    parac_gemm_plan_destroy(plan);
    return status == PARAC_OK;
}

static void options_for(parac_gemm_options *o, parac_gemm_dtype dtype, parac_gemm_variant variant)
{
    memset(o, 0, sizeof *o);
    o->exec.device = PARAC_DEVICE_CUDA;
    o->m = M, o->n = N, o->k = K;
    o->dtype = dtype;
    o->variant = variant;
}

int main(void)
{
    static const struct { parac_gemm_dtype dtype; parac_gemm_variant variant; } CASES[] = {
        {PARAC_GEMM_FP32, PARAC_GEMM_VARIANT_BASE},  {PARAC_GEMM_FP32, PARAC_GEMM_VARIANT_BK32},
        {PARAC_GEMM_TF32, PARAC_GEMM_VARIANT_BASE},  {PARAC_GEMM_TF32, PARAC_GEMM_VARIANT_WGMMA},
        {PARAC_GEMM_TF32, PARAC_GEMM_VARIANT_WGMMA_TMA}, {PARAC_GEMM_TF32, PARAC_GEMM_VARIANT_WGMMA_WS},
    };
    static const int SHAPES[4][2] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}};
    float *a, *b, *untuned, *c;
    char cache[256];
    parac_error error;
    int gpu = test_require_gpu();
    if (gpu) return gpu;
    M = N = (int64_t)test_full_or_quick(600, 264), K = (int64_t)test_full_or_quick(1024, 256);
    a = malloc((size_t)M * K * 4), b = malloc((size_t)K * N * 4), untuned = malloc((size_t)M * N * 4);
    c = malloc((size_t)M * N * 4);
    if (!a || !b || !untuned || !c) return 1;
    for (size_t i = 0; i < (size_t)M * K; i++) a[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
    for (size_t i = 0; i < (size_t)K * N; i++) b[i] = (float)((i * 40503u) % 1999) / 999.0f - 1.0f;
    test_temp_path(cache, sizeof cache, "tune-gpu.txt");
    for (size_t t = 0; t < sizeof CASES / sizeof CASES[0]; t++) {
        parac_gemm_options o;
        parac_gemm_plan_info reference, info;
        double seconds = 0.0;
        options_for(&o, CASES[t].dtype, CASES[t].variant);
        if (!run(&o, a, b, untuned, &reference)) continue;
        for (int s = 0; s < 4; s++) {
            options_for(&o, CASES[t].dtype, CASES[t].variant);
            o.tile_k = reference.tile_k, o.split_k = reference.split_k;
            o.tile_m = SHAPES[s][0];
            if (CASES[t].variant != PARAC_GEMM_VARIANT_WGMMA_WS) o.tile_n = SHAPES[s][1];
            if (!run(&o, a, b, c, &info)) continue;
            CHECK(memcmp(untuned, c, (size_t)M * N * 4) == 0, "%s %s: %dx%d (%s) differs from the untuned %dx%d",
                  CASES[t].dtype ? "tf32" : "fp32", parac_gemm_variant_name(CASES[t].variant), info.tile_m,
                  info.tile_n, parac_gemm_variant_name(info.variant), reference.tile_m, reference.tile_n);
        }
        remove(cache);
        options_for(&o, CASES[t].dtype, CASES[t].variant);
        o.tune_cache_path = cache;
        CHECK_OK(parac_gemm_autotune(&o, &seconds, &error), &error);
        CHECK(seconds > 0.0, "autotune measured nothing");
        if (run(&o, a, b, c, &info))
            CHECK(memcmp(untuned, c, (size_t)M * N * 4) == 0, "%s %s: the tuned plan (%dx%d) changed C",
                  CASES[t].dtype ? "tf32" : "fp32", parac_gemm_variant_name(CASES[t].variant), info.tile_m, info.tile_n);
    }
    remove(cache);
    free(a), free(b), free(untuned), free(c);
    return test_finish("gemm.autotune_gpu");
}
