/* tests/gemm/test_persistent_gpu.c — the fp32 persistent variant (resident blocks
 * streaming work items through one cp.async ring kept full across C tiles) against
 * the base variant and the CPU path, on fresh random inputs.
 *
 * Persistent runs base's per-thread fmaf chains, so its C must equal base's and the
 * CPU's bit for bit: a stage read before it landed, a stage refilled while still
 * read, a wrong item handed from loader to compute (ring slip, dynamic queue) or a
 * lost epilogue all change bits. Cases: every tile shape, both schedules, split-k,
 * K = 1, far more work items than resident blocks (the ring laps across many C
 * tiles), block-sparse A with empty rows of tiles (C tiles with no tile kernel: one
 * load-free stage each, alone and in runs), and alpha/beta. */
#include <stdlib.h>
#include <string.h>

#include <parac/gemm.h>

#include "support_gemm.h"
#include "test_util.h"

typedef struct persistent_case {
    int64_t m, n, k;
    int tile_m, tile_n, split_k;
    double keep;    /* fraction of non-zero 64x64 A tiles; 1 = dense */
    int empty_rows; /* zero A's tile rows 1, 3 and 4..(4+empty_rows): C tile rows with no tile kernel */
} persistent_case;

static const persistent_case CASES[] = {
    {1, 1, 1, 0, 0, 0, 1.0, 0},           {1, 1, 300, 64, 64, 0, 1.0, 0},        {300, 200, 1, 128, 128, 0, 1.0, 0},
    {2000, 3, 100, 0, 0, 0, 1.0, 0},      {129, 130, 131, 128, 128, 0, 1.0, 0}, {257, 255, 190, 128, 64, 0, 1.0, 0},
    {191, 257, 65, 64, 128, 0, 1.0, 0},   {100, 90, 3000, 64, 64, 6, 1.0, 0},   {2048, 2048, 256, 64, 64, 0, 1.0, 0},
    {1500, 1300, 700, 128, 128, 0, 1.0, 0}, {700, 600, 900, 64, 64, 0, 0.2, 0}, {1030, 515, 777, 64, 128, 0, 0.35, 3},
    {1024, 1024, 1024, 128, 128, 0, 0.125, 6}, {640, 2000, 512, 128, 64, 0, 0.5, 2}, {900, 800, 640, 64, 64, 0, 1.0, 5},
};
#define CASE_COUNT (int)(sizeof CASES / sizeof CASES[0])

static float *run(parac_gemm_options *o, parac_device device, parac_gemm_variant variant, parac_gemm_schedule schedule,
                  float alpha, const float *a, const float *b, float beta, const float *c0)
{
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    float *c = support_copy(c0, o->m * o->n);
    o->exec.device = device;
    o->variant = variant;
    o->schedule = schedule;
    CHECK_OK(parac_gemm_plan_create(o, &plan, &error), &error);
    if (!plan) return c;
    parac_gemm_plan_info_get(plan, &info);
    if (device == PARAC_DEVICE_CUDA)
        CHECK(info.variant == variant, "variant %s requested, %s runs", parac_gemm_variant_name(variant),
              parac_gemm_variant_name(info.variant));
    CHECK_OK(parac_gemm_execute(plan, alpha, a, b, beta, c, &error), &error);
    parac_gemm_plan_destroy(plan);
    return c;
}

/* Zeroes A's tile rows 1 and 3 and a run of `count` from tile row 4 (those that exist). */
static void zero_tile_rows(float *a, int64_t m, int64_t k, int tile_m, int count)
{
    for (int64_t t = 1; t < 4 + count; t++) {
        if (t == 2) continue;
        for (int64_t r = t * tile_m; r < (t + 1) * tile_m && r < m; r++) memset(a + r * k, 0, (size_t)k * sizeof(float));
    }
}

static void check_case(const persistent_case *t, uint64_t seed)
{
    static const parac_gemm_schedule SCHEDULES[] = {PARAC_GEMM_SCHEDULE_STATIC, PARAC_GEMM_SCHEDULE_DYNAMIC};
    parac_gemm_options o;
    float alpha = (seed % 3) ? -1.5f : 1.0f, beta = (seed % 2) ? 0.75f : 0.0f;
    float *a = support_random(seed, PARAC_GEMM_ROW_MAJOR, t->m, t->k, 0);
    float *b = support_random(seed + 1, PARAC_GEMM_ROW_MAJOR, t->k, t->n, 0);
    float *c0 = support_random(seed + 2, PARAC_GEMM_ROW_MAJOR, t->m, t->n, 0);
    unsigned char *mask = NULL;
    int64_t count = t->m * t->n;
    memset(&o, 0, sizeof o);
    o.m = t->m, o.n = t->n, o.k = t->k, o.tile_m = t->tile_m, o.tile_n = t->tile_n, o.split_k = t->split_k;
    if (t->keep < 1.0) mask = support_zero_tiles(a, PARAC_GEMM_ROW_MAJOR, o.m, o.k, 0, 64, 64, t->keep, seed + 3);
    if (t->empty_rows) zero_tile_rows(a, o.m, o.k, t->tile_m ? t->tile_m : 64, t->empty_rows);
    if (t->keep < 1.0 || t->empty_rows) o.scan_a = a, o.tile_k = 64; /* skip the zero tiles */
    float *cpu = run(&o, PARAC_DEVICE_CPU, PARAC_GEMM_VARIANT_BASE, PARAC_GEMM_SCHEDULE_STATIC, alpha, a, b, beta, c0);
    for (int s = 0; s < 2; s++) {
        float *base = run(&o, PARAC_DEVICE_CUDA, PARAC_GEMM_VARIANT_BASE, SCHEDULES[s], alpha, a, b, beta, c0);
        float *persistent = run(&o, PARAC_DEVICE_CUDA, PARAC_GEMM_VARIANT_PERSISTENT, SCHEDULES[s], alpha, a, b, beta, c0);
        CHECK(memcmp(base, cpu, (size_t)count * 4) == 0, "base %lldx%lldx%lld schedule %d: bits differ from CPU",
              (long long)o.m, (long long)o.n, (long long)o.k, (int)SCHEDULES[s]);
        CHECK(memcmp(persistent, base, (size_t)count * 4) == 0,
              "persistent %lldx%lldx%lld tiles %dx%d split %d keep %.3f empty rows %d schedule %d: bits differ from base",
              (long long)o.m, (long long)o.n, (long long)o.k, t->tile_m, t->tile_n, t->split_k, t->keep, t->empty_rows,
              (int)SCHEDULES[s]);
        free(base), free(persistent);
    }
    free(a), free(b), free(c0), free(cpu), free(mask);
}

/* One plan executed three times (the dynamic queue counter must restart each time). */
static void check_repeated_dynamic(void)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    int64_t m = 777, n = 555, k = 333;
    float *a = support_random(91, PARAC_GEMM_ROW_MAJOR, m, k, 0), *b = support_random(92, PARAC_GEMM_ROW_MAJOR, k, n, 0);
    float *first = calloc((size_t)(m * n), 4), *again = calloc((size_t)(m * n), 4);
    memset(&o, 0, sizeof o);
    o.m = m, o.n = n, o.k = k, o.exec.device = PARAC_DEVICE_CUDA;
    o.variant = PARAC_GEMM_VARIANT_PERSISTENT, o.schedule = PARAC_GEMM_SCHEDULE_DYNAMIC;
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        CHECK_OK(parac_gemm_execute(plan, 1.0f, a, b, 0.0f, first, &error), &error);
        for (int r = 0; r < 3; r++) {
            memset(again, 0xff, (size_t)(m * n) * 4);
            CHECK_OK(parac_gemm_execute(plan, 1.0f, a, b, 0.0f, again, &error), &error);
            CHECK(memcmp(first, again, (size_t)(m * n) * 4) == 0, "persistent dynamic run %d differs", r);
        }
    }
    parac_gemm_plan_destroy(plan);
    free(a), free(b), free(first), free(again);
}

int main(void)
{
    if (test_require_gpu()) return 77;
    for (int i = 0; i < CASE_COUNT; i++) check_case(&CASES[i], 4000 + 10 * (uint64_t)i);
    check_repeated_dynamic();
    return test_finish("gemm.persistent_gpu");
}
