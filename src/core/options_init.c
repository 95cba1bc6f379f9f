/* core/options_init.c — the documented defaults of the public options structs, set field by
 * field (parac_<module>_options_init). Zero-initialising a struct gives the same values today,
 * but callers (the Python binding, other languages) should not depend on that: a new field or
 * a changed default is then one edit here, checked by tests/core/test_options_init.c.
 * birch (parac_birch_options_init) and csp (parac_csp_*_options_default) keep theirs in their
 * modules, where they were first written. */
#include <string.h>

#include <parac/ac.h>
#include <parac/dbscan.h>
#include <parac/fca.h>
#include <parac/gemm.h>
#include <parac/metrics.h>
#include <parac/points.h>

void parac_dbscan_options_init(parac_dbscan_options *options)
{
    memset(options, 0, sizeof *options);
    options->eps = 0.5;
    options->min_samples = 5;
    options->method = PARAC_DBSCAN_AUTO;
    parac_exec_init(&options->exec);
    options->gpu_variant = PARAC_DBSCAN_GPU_AUTO;
    options->max_device_bytes = 0;
    options->min_gpu_slabs = 0;
}

void parac_fca_options_init(parac_fca_options *options)
{
    memset(options, 0, sizeof *options);
    parac_exec_init(&options->exec);
    options->min_support = 0;
    options->gpu_strategy = PARAC_FCA_GPU_AUTO;
    options->cpu_strategy = PARAC_FCA_CPU_AUTO;
    options->engine = NULL;
    options->gpu_pool_bytes = 0;
    options->max_device_bytes = 0;
    options->max_host_bytes = 0;
    options->temp_directory = NULL;
}

void parac_gemm_options_init(parac_gemm_options *options)
{
    memset(options, 0, sizeof *options);
    parac_exec_init(&options->exec);
    options->layout_a = options->layout_b = options->layout_c = PARAC_GEMM_ROW_MAJOR;
    options->dtype = PARAC_GEMM_FP32;
    options->schedule = PARAC_GEMM_SCHEDULE_AUTO;
    options->variant = PARAC_GEMM_VARIANT_AUTO;
    options->a_tile_mask = options->b_tile_mask = NULL;
    options->scan_a = options->scan_b = NULL;
}

void parac_ac_options_init(parac_ac_options *options)
{
    memset(options, 0, sizeof *options);
    parac_exec_init(&options->exec);
    options->algorithm = PARAC_AC_AUTO;
    options->singleton = 0;
    options->variant = PARAC_AC_VARIANT_AUTO;
}

void parac_silhouette_options_init(parac_silhouette_options *options)
{
    memset(options, 0, sizeof *options);
    options->sample = 0;
    options->seed = 0;
    parac_exec_init(&options->exec);
}

void parac_points_options_init(parac_points_options *options)
{
    memset(options, 0, sizeof *options);
    options->kind = PARAC_POINTS_BLOBS;
    options->count = 0;
    options->dim = 2;
    options->seed = 0;
    options->centers = 3;
    options->std = 1.0;
    options->box_low = -10.0;
    options->box_high = 10.0;
    parac_exec_init(&options->exec);
}
