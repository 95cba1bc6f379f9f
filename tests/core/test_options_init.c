/* tests/core/test_options_init.c — every options struct's init function sets its documented
 * defaults (over a struct full of garbage, so nothing relies on zero-initialisation), the
 * defaults are accepted by the functions that take them, and parac_version() matches the
 * headers. */
#include <string.h>

#include <parac/ac.h>
#include <parac/birch.h>
#include <parac/csp.h>
#include <parac/dbscan.h>
#include <parac/fca.h>
#include <parac/gemm.h>
#include <parac/metrics.h>
#include <parac/points.h>
#include <parac/version.h>

#include "test_util.h"

#define GARBAGE(object) memset(&(object), 0xAB, sizeof(object))

static void check_exec_defaults(const parac_exec *exec)
{
    CHECK(exec->device == PARAC_DEVICE_AUTO);
    CHECK_EQ_INT(exec->threads, 0);
    CHECK_EQ_INT(exec->cuda_device, 0);
    CHECK(exec->progress == NULL && exec->progress_user_data == NULL);
}

static void check_exec(void)
{
    parac_exec exec;
    GARBAGE(exec);
    parac_exec_init(&exec);
    check_exec_defaults(&exec);
}

static void check_dbscan(void)
{
    parac_dbscan_options options;
    GARBAGE(options);
    parac_dbscan_options_init(&options);
    CHECK(options.eps == 0.5);
    CHECK_EQ_INT(options.min_samples, 5);
    CHECK(options.method == PARAC_DBSCAN_AUTO);
    CHECK(options.gpu_variant == PARAC_DBSCAN_GPU_AUTO);
    CHECK_EQ_INT(options.max_device_bytes, 0);
    CHECK_EQ_INT(options.min_gpu_slabs, 0);
    check_exec_defaults(&options.exec);

    /* The defaults run: six points within 0.5 of each other form one cluster, a far one is noise. */
    const double points[] = {0, 0, 0.1, 0, 0.2, 0, 0.3, 0, 0.4, 0, 0.5, 0, 9, 9};
    int32_t labels[7];
    parac_error error = {0};
    options.exec.device = PARAC_DEVICE_CPU;
    CHECK_OK(parac_dbscan_run(&options, points, 7, 2, labels, NULL, NULL, &error), &error);
    CHECK(labels[0] == 0 && labels[5] == 0 && labels[6] == PARAC_DBSCAN_NOISE);
}

static void check_birch(void)
{
    parac_birch_options options;
    GARBAGE(options);
    parac_birch_options_init(&options);
    CHECK(options.threshold == 0.5);
    CHECK_EQ_INT(options.branching_factor, 50);
    CHECK_EQ_INT(options.n_clusters, 3);
    CHECK_EQ_INT(options.batch_size, PARAC_BIRCH_DEFAULT_BATCH);
    CHECK(options.variant == PARAC_BIRCH_SPECULATIVE_PARALLEL);
    check_exec_defaults(&options.exec);
}

static void check_fca(void)
{
    parac_fca_options options;
    GARBAGE(options);
    parac_fca_options_init(&options);
    CHECK_EQ_INT(options.min_support, 0);
    CHECK(options.gpu_strategy == PARAC_FCA_GPU_AUTO);
    CHECK(options.cpu_strategy == PARAC_FCA_CPU_AUTO);
    CHECK(options.engine == NULL);
    CHECK_EQ_INT(options.gpu_pool_bytes, 0);
    CHECK_EQ_INT(options.max_device_bytes, 0);
    CHECK_EQ_INT(options.max_host_bytes, 0);
    CHECK(options.temp_directory == NULL);
    check_exec_defaults(&options.exec);
}

static void check_gemm(void)
{
    parac_gemm_options options;
    GARBAGE(options);
    parac_gemm_options_init(&options);
    CHECK(options.m == 0 && options.n == 0 && options.k == 0);
    CHECK(options.layout_a == PARAC_GEMM_ROW_MAJOR && options.layout_b == PARAC_GEMM_ROW_MAJOR &&
          options.layout_c == PARAC_GEMM_ROW_MAJOR);
    CHECK(options.lda == 0 && options.ldb == 0 && options.ldc == 0);
    CHECK(options.dtype == PARAC_GEMM_FP32);
    CHECK(options.schedule == PARAC_GEMM_SCHEDULE_AUTO);
    CHECK(options.tile_m == 0 && options.tile_n == 0 && options.tile_k == 0 && options.split_k == 0);
    CHECK(options.a_tile_mask == NULL && options.b_tile_mask == NULL);
    CHECK(options.scan_a == NULL && options.scan_b == NULL);
    CHECK(options.variant == PARAC_GEMM_VARIANT_AUTO);
    CHECK(options.pipeline_stages == 0 && options.pack_operands == 0);
    check_exec_defaults(&options.exec);

    /* With a shape, the defaults make a plan. */
    parac_gemm_plan *plan = NULL;
    parac_error error = {0};
    options.m = options.n = options.k = 8;
    options.exec.device = PARAC_DEVICE_CPU;
    CHECK_OK(parac_gemm_plan_create(&options, &plan, &error), &error);
    parac_gemm_plan_destroy(plan);
}

static void check_ac(void)
{
    parac_ac_options options;
    GARBAGE(options);
    parac_ac_options_init(&options);
    CHECK(options.algorithm == PARAC_AC_AUTO);
    CHECK_EQ_INT(options.singleton, 0);
    CHECK(options.variant == PARAC_AC_VARIANT_AUTO);
    check_exec_defaults(&options.exec);
}

static void check_silhouette(void)
{
    parac_silhouette_options options;
    GARBAGE(options);
    parac_silhouette_options_init(&options);
    CHECK_EQ_INT(options.sample, 0);
    CHECK_EQ_INT(options.seed, 0);
    check_exec_defaults(&options.exec);
}

static void check_points(void)
{
    parac_points_options options;
    GARBAGE(options);
    parac_points_options_init(&options);
    CHECK(options.kind == PARAC_POINTS_BLOBS);
    CHECK_EQ_INT(options.count, 0);
    CHECK_EQ_INT(options.dim, 2);
    CHECK_EQ_INT(options.seed, 0);
    CHECK_EQ_INT(options.centers, 3);
    CHECK(options.std == 1.0 && options.box_low == -10.0 && options.box_high == 10.0);
    check_exec_defaults(&options.exec);

    /* The explicit defaults generate what the zero ("means default") values generate. */
    double explicit_points[20], zero_points[20];
    int32_t explicit_truth[10], zero_truth[10];
    parac_points_options zero;
    parac_error error = {0};
    memset(&zero, 0, sizeof zero);
    zero.dim = 2;
    options.count = zero.count = 10;
    options.seed = zero.seed = 42;
    CHECK_OK(parac_points_generate(&options, explicit_points, explicit_truth, &error), &error);
    CHECK_OK(parac_points_generate(&zero, zero_points, zero_truth, &error), &error);
    CHECK(memcmp(explicit_points, zero_points, sizeof zero_points) == 0);
    CHECK(memcmp(explicit_truth, zero_truth, sizeof zero_truth) == 0);
}

static void check_csp(void)
{
    parac_csp_load_options load;
    parac_csp_generate_options generate;
    GARBAGE(load);
    GARBAGE(generate);
    parac_csp_load_options_default(&load);
    parac_csp_generate_options_default(&generate);
    CHECK_EQ_INT(load.ignore_unsupported, 0);
    CHECK(load.max_table_tuples > 0);
    CHECK(generate.model == PARAC_CSP_MODEL_B);
    CHECK(generate.variables == 50 && generate.domain == 10 && generate.constraints == 200);
    CHECK(generate.tightness == 0.3 && generate.seed == 1 && generate.threads == 0);
}

static void check_version(void)
{
    CHECK(strcmp(parac_version(), PARAC_VERSION_STRING) == 0, "%s", parac_version());
    CHECK_EQ_INT(parac_version_number(), PARAC_VERSION_NUMBER);
    CHECK_EQ_INT(PARAC_VERSION_NUMBER, PARAC_VERSION_MAJOR * 10000 + PARAC_VERSION_MINOR * 100 + PARAC_VERSION_PATCH);
}

int main(void)
{
    check_exec();
    check_dbscan();
    check_birch();
    check_fca();
    check_gemm();
    check_ac();
    check_silhouette();
    check_points();
    check_csp();
    check_version();
    return test_finish("options_init");
}
