/* tests/gemm/test_cpu.c — the CPU path against the double reference, on awkward
 * shapes, layouts, alpha/beta, sparsity; schedules and thread counts give the same bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/gemm.h>

#include "support_gemm.h"
#include "test_util.h"

typedef struct shape {
    int64_t m, n, k;
} shape;

static const shape SHAPES[] = {{1, 1, 1},     {1, 1, 5},    {7, 5, 1},     {64, 64, 64},  {65, 129, 17},
                               {130, 63, 200}, {1000, 3, 77}, {3, 1000, 50}, {257, 191, 333}, {129, 130, 1}};
#define SHAPE_COUNT (int)(sizeof SHAPES / sizeof SHAPES[0])

static const float ALPHAS[] = {1.0f, 2.5f, -1.0f, 0.75f};
static const float BETAS[] = {0.0f, 0.0f, 0.5f, -1.25f};

/* fp32 FMA chains in k: error <= gamma_K * sum|a b| plus the epilogue's roundings. */
static double error_budget(int64_t k) { return (double)(k + 4) * 1.2e-7; }

static float *run_plan(const parac_gemm_options *o, float alpha, const float *a, const float *b, float beta,
                       const float *c0, int64_t c_count, parac_gemm_plan_info *info)
{
    parac_gemm_plan *plan = NULL;
    parac_error error;
    float *c = support_copy(c0, c_count);
    CHECK_OK(parac_gemm_plan_create(o, &plan, &error), &error);
    if (!plan) return c;
    CHECK_OK(parac_gemm_plan_check(plan, &error), &error);
    CHECK_OK(parac_gemm_execute(plan, alpha, a, b, beta, c, &error), &error);
    if (info) parac_gemm_plan_info_get(plan, info);
    parac_gemm_plan_destroy(plan);
    return c;
}

static void check_case(int s, int variant)
{
    parac_gemm_options o;
    const shape *sh = &SHAPES[s];
    float alpha = ALPHAS[variant % 4], beta = BETAS[variant % 4];
    int64_t a_count, b_count, c_count;
    float *a, *b, *c0, *c, *ref, *c_dynamic;
    double ratio;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = sh->m, o.n = sh->n, o.k = sh->k;
    o.layout_a = (variant & 1) ? PARAC_GEMM_COL_MAJOR : PARAC_GEMM_ROW_MAJOR;
    o.layout_b = (variant & 2) ? PARAC_GEMM_COL_MAJOR : PARAC_GEMM_ROW_MAJOR;
    o.layout_c = (variant & 4) ? PARAC_GEMM_COL_MAJOR : PARAC_GEMM_ROW_MAJOR;
    if (variant == 5) o.lda = (o.layout_a == PARAC_GEMM_ROW_MAJOR ? o.k : o.m) + 3; /* a strided A */
    a_count = support_storage(o.layout_a, o.m, o.k, o.lda);
    b_count = support_storage(o.layout_b, o.k, o.n, 0);
    c_count = support_storage(o.layout_c, o.m, o.n, 0);
    a = support_random(100 + (uint64_t)s, o.layout_a, o.m, o.k, o.lda);
    b = support_random(200 + (uint64_t)s, o.layout_b, o.k, o.n, 0);
    c0 = support_random(300 + (uint64_t)s, o.layout_c, o.m, o.n, 0);
    ref = support_copy(c0, c_count);
    parac_gemm_reference(&o, alpha, a, b, beta, ref);
    o.schedule = PARAC_GEMM_SCHEDULE_STATIC;
    c = run_plan(&o, alpha, a, b, beta, c0, c_count, NULL);
    ratio = support_error_bound_ratio(&o, alpha, a, b, beta, c0, c, ref);
    CHECK(ratio < error_budget(o.k), "shape %lldx%lldx%lld variant %d: error ratio %.3g", (long long)o.m,
          (long long)o.n, (long long)o.k, variant, ratio);
    o.schedule = PARAC_GEMM_SCHEDULE_DYNAMIC;
    o.exec.threads = 1;
    c_dynamic = run_plan(&o, alpha, a, b, beta, c0, c_count, NULL);
    CHECK(memcmp(c, c_dynamic, (size_t)c_count * 4) == 0, "static and dynamic (1 thread) differ, shape %d variant %d",
          s, variant);
    (void)a_count, (void)b_count;
    free(a), free(b), free(c0), free(c), free(ref), free(c_dynamic);
}

/* Split-k changes the summation order (partials summed at the end) but stays in budget,
 * and the DAG has the shape the plan promises. */
static void check_split_k(void)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    float *a, *b, *c0, *c, *ref;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = 70, o.n = 90, o.k = 1000, o.tile_m = 64, o.tile_n = 64, o.tile_k = 32, o.split_k = 5;
    a = support_random(1, PARAC_GEMM_ROW_MAJOR, o.m, o.k, 0);
    b = support_random(2, PARAC_GEMM_ROW_MAJOR, o.k, o.n, 0);
    c0 = support_random(3, PARAC_GEMM_ROW_MAJOR, o.m, o.n, 0);
    ref = support_copy(c0, o.m * o.n);
    parac_gemm_reference(&o, 1.5f, a, b, 0.5f, ref);
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    parac_gemm_plan_info_get(plan, &info);
    CHECK_EQ_INT(info.tiles_k, 32);
    CHECK_EQ_INT(info.work_items, 4 * 5);
    CHECK_EQ_INT(info.dag_nodes, 4 * 32 + 4);
    CHECK_EQ_INT(info.dag_edges, 4 * (32 - 5) + 4 * 5);
    CHECK_EQ_INT(info.critical_path, 7 + 1);
    CHECK_OK(parac_gemm_plan_check(plan, &error), &error);
    parac_gemm_plan_destroy(plan);
    c = run_plan(&o, 1.5f, a, b, 0.5f, c0, o.m * o.n, NULL);
    CHECK(support_error_bound_ratio(&o, 1.5f, a, b, 0.5f, c0, c, ref) < error_budget(o.k), "split-k out of budget");
    free(a), free(b), free(c0), free(c), free(ref);
}

/* Block-sparse A with whole empty tile rows, and a banded A: tiles skipped, results right. */
static void check_sparse(int banded, int use_mask)
{
    parac_gemm_options o;
    parac_gemm_plan_info info;
    unsigned char *mask = NULL;
    float *a, *b, *c0, *c, *c_dense, *ref;
    double ratio;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = 300, o.n = 200, o.k = 400, o.tile_m = 64, o.tile_n = 64, o.tile_k = 64;
    a = support_random(11, PARAC_GEMM_ROW_MAJOR, o.m, o.k, 0);
    b = support_random(12, PARAC_GEMM_ROW_MAJOR, o.k, o.n, 0);
    c0 = support_random(13, PARAC_GEMM_ROW_MAJOR, o.m, o.n, 0);
    if (banded) {
        for (int64_t r = 0; r < o.m; r++)
            for (int64_t kk = 0; kk < o.k; kk++)
                if (llabs(r - kk) > 20) a[r * o.k + kk] = 0.0f;
    } else {
        mask = support_zero_tiles(a, PARAC_GEMM_ROW_MAJOR, o.m, o.k, 0, 64, 64, 0.3, 14);
        for (int64_t kt = 0; kt < 7; kt++) mask[1 * 7 + kt] = 0; /* tile row 1 all zero */
        for (int64_t r = 64; r < 128; r++) memset(&a[r * o.k], 0, (size_t)o.k * 4);
    }
    if (use_mask) o.a_tile_mask = mask;
    else o.scan_a = a;
    ref = support_copy(c0, o.m * o.n);
    parac_gemm_reference(&o, 1.0f, a, b, -0.5f, ref);
    c = run_plan(&o, 1.0f, a, b, -0.5f, c0, o.m * o.n, &info);
    ratio = support_error_bound_ratio(&o, 1.0f, a, b, -0.5f, c0, c, ref);
    CHECK(ratio < error_budget(o.k), "sparse (banded=%d mask=%d): error ratio %.3g", banded, use_mask, ratio);
    CHECK(info.tile_kernels < info.tile_kernels_dense, "no tile kernel was skipped");
    if (!banded) CHECK(info.c_tiles_empty >= 4, "tile row 1 should give empty C tiles (%lld)", (long long)info.c_tiles_empty);
    /* Skipping zero tiles must not change a single bit: the skipped products are exact zeros. */
    o.a_tile_mask = NULL, o.scan_a = NULL;
    c_dense = run_plan(&o, 1.0f, a, b, -0.5f, c0, o.m * o.n, NULL);
    CHECK(memcmp(c, c_dense, (size_t)(o.m * o.n) * 4) == 0, "sparse plan differs from dense plan");
    free(mask), free(a), free(b), free(c0), free(c), free(c_dense), free(ref);
}

static void check_tile_kernel_listing(void)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    unsigned char a_mask[2 * 3] = {1, 0, 1, 0, 0, 0}, b_mask[3 * 2] = {1, 1, 1, 1, 0, 1};
    int64_t list[8];
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = 100, o.n = 100, o.k = 150, o.tile_m = 64, o.tile_n = 64, o.tile_k = 64;
    o.a_tile_mask = a_mask, o.b_tile_mask = b_mask;
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (!plan) return;
    CHECK_EQ_INT(parac_gemm_plan_tile_kernels(plan, 0, 0, list, 8), 1);
    CHECK_EQ_INT(list[0], 0);
    CHECK_EQ_INT(parac_gemm_plan_tile_kernels(plan, 0, 1, list, 8), 2);
    CHECK(list[0] == 0 && list[1] == 2, "tile (0,1) kernels %lld %lld", (long long)list[0], (long long)list[1]);
    CHECK_EQ_INT(parac_gemm_plan_tile_kernels(plan, 1, 0, list, 8), 0);
    parac_gemm_plan_destroy(plan);
}

static void check_bad_options(void)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = 0, o.n = 4, o.k = 4;
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    o.m = 4, o.tile_m = 96;
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    o.tile_m = 0, o.lda = 2;
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    o.lda = 0, o.pipeline_stages = 5; /* wgmma_tma runs 4 or 6 */
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    o.pipeline_stages = 6, o.variant = PARAC_GEMM_VARIANT_N256; /* n256 runs 2 (BK 32) or 4 (BK 16) stages */
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    o.pipeline_stages = 0, o.variant = (parac_gemm_variant)(PARAC_GEMM_VARIANT_WGMMA_WS_A + 1);
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    /* the variants moved to dev/ keep their numbers and are refused, saying where they went */
    o.variant = PARAC_GEMM_VARIANT_REMOVED_WIDE;
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "wide") && strstr(error.message, "dev/gemm/"), "removed variant: %s", error.message);
    o.variant = PARAC_GEMM_VARIANT_REMOVED_PERSISTENT;
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "persistent") && strstr(error.message, "dev/gemm/"), "removed variant: %s",
          error.message);
    o.variant = PARAC_GEMM_VARIANT_AUTO, o.pack_operands = 2; /* a flag: 0 or 1 */
    CHECK_EQ_INT(parac_gemm_plan_create(&o, &plan, &error), PARAC_ERR_INVALID_ARGUMENT);
    o.pack_operands = 0;
    CHECK(plan == NULL, "a failed create must leave no plan");
    /* the CPU ignores GPU variants: wgmma_tma resolves to base, with no pipeline stages */
    o.variant = PARAC_GEMM_VARIANT_WGMMA_TMA, o.pipeline_stages = 6;
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info info;
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.variant == PARAC_GEMM_VARIANT_BASE && info.pipeline_stages == 0, "CPU plan: variant %s, %d stages",
              parac_gemm_variant_name(info.variant), info.pipeline_stages);
        parac_gemm_plan_destroy(plan);
    }
    CHECK(strcmp(parac_gemm_variant_name(PARAC_GEMM_VARIANT_WGMMA_TMA), "wgmma_tma") == 0, "variant name");
    CHECK(strcmp(parac_gemm_variant_name(PARAC_GEMM_VARIANT_REMOVED_PERSISTENT), "persistent") == 0, "variant name");
}

/* beta == 0: C is not read, so NaN in C does not leak into the result. */
static void check_beta_zero_ignores_c(void)
{
    parac_gemm_options o;
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c0[4] = {NAN, NAN, NAN, NAN}, *c;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = 2, o.n = 2, o.k = 2;
    c = run_plan(&o, 1.0f, a, b, 0.0f, c0, 4, NULL);
    CHECK(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4, "identity product: %g %g %g %g", c[0], c[1], c[2], c[3]);
    free(c);
}

static void check_tf32(void)
{
    parac_gemm_options o;
    float *a, *b, *c0, *c, *ref;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = 77, o.n = 66, o.k = 129, o.dtype = PARAC_GEMM_TF32;
    a = support_random(21, PARAC_GEMM_ROW_MAJOR, o.m, o.k, 0);
    b = support_random(22, PARAC_GEMM_ROW_MAJOR, o.k, o.n, 0);
    c0 = support_random(23, PARAC_GEMM_ROW_MAJOR, o.m, o.n, 0);
    ref = support_copy(c0, o.m * o.n);
    parac_gemm_reference(&o, 1.0f, a, b, 1.0f, ref);
    c = run_plan(&o, 1.0f, a, b, 1.0f, c0, o.m * o.n, NULL);
    CHECK(support_error_bound_ratio(&o, 1.0f, a, b, 1.0f, c0, c, ref) < error_budget(o.k), "tf32 emulation");
    free(a), free(b), free(c0), free(c), free(ref);
}

int main(void)
{
    for (int s = 0; s < SHAPE_COUNT; s++)
        for (int variant = 0; variant < 8; variant++) check_case(s, variant);
    check_split_k();
    check_sparse(0, 0);
    check_sparse(0, 1);
    check_sparse(1, 0);
    check_tile_kernel_listing();
    check_bad_options();
    check_beta_zero_ignores_c();
    check_tf32();
    return test_finish("gemm.cpu");
}
