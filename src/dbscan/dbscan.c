/* dbscan/dbscan.c — the public entry points: checks, device and method choice. */
#include <parac/dbscan.h>
#include <parac/devices.h>

#include <math.h>
#include <string.h>

#include "core/device_choice.h"
#include "core/error.h"
#include "core/finite.h"
#include "core/progress.h"
#include "core/threads.h"
#include "core/timer.h"
#include "dbscan/dbscan_internal.h"

static const char *const METHOD_NAMES[] = {"auto", "grid", "brute-force", "reference"};

const char *parac_dbscan_method_name(parac_dbscan_method method)
{
    return (unsigned)method <= PARAC_DBSCAN_REFERENCE ? METHOD_NAMES[method] : "unknown";
}

parac_status parac_dbscan_method_parse(const char *name, parac_dbscan_method *method, parac_error *error)
{
    for (int i = 0; i <= PARAC_DBSCAN_REFERENCE; i++)
        if (name && strcmp(name, METHOD_NAMES[i]) == 0) {
            *method = (parac_dbscan_method)i;
            return PARAC_OK;
        }
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "unknown dbscan method '%s' (auto, grid, brute-force or reference)", name ? name : "");
}

static const char *const GPU_VARIANT_NAMES[] = {"auto", "classic", "table", "coarse", "table-fused",
                                                   "coarse-fused", "coarse-listed", "sparse"};

const char *parac_dbscan_gpu_variant_name(parac_dbscan_gpu_variant variant)
{
    return (unsigned)variant <= PARAC_DBSCAN_GPU_VARIANT_LAST ? GPU_VARIANT_NAMES[variant] : "unknown";
}

static parac_status removed_coarse_listed(parac_error *error)
{
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "dbscan: the coarse-listed GPU variant was removed from the library (auto never ran it once "
                      "sparse came); it moved to dev/dbscan/01_coarse_listed.c (the kernel lab, dev/README.md)");
}

parac_status parac_dbscan_gpu_variant_parse(const char *name, parac_dbscan_gpu_variant *variant, parac_error *error)
{
    for (int i = 0; i <= PARAC_DBSCAN_GPU_VARIANT_LAST; i++)
        if (name && strcmp(name, GPU_VARIANT_NAMES[i]) == 0) {
            if (i == PARAC_DBSCAN_GPU_REMOVED_COARSE_LISTED) return removed_coarse_listed(error);
            *variant = (parac_dbscan_gpu_variant)i;
            return PARAC_OK;
        }
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "unknown dbscan GPU variant '%s' (auto, classic, table, coarse, table-fused, coarse-fused or sparse)",
                      name ? name : "");
}

/* The one finiteness scan of core/finite (float32 points are checked as they are). */
static parac_status check_finite(const dbscan_points *points, int threads, parac_error *error)
{
    size_t values = points->count * points->dim;
    size_t bad = points->f64 ? parac_first_non_finite(points->f64, values, threads)
                             : parac_first_non_finite_f32(points->f32, values, threads);
    if (bad < values)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: point %zu, coordinate %zu is not a finite number",
                          bad / points->dim, bad % points->dim);
    return PARAC_OK;
}

static parac_status check_input(const parac_dbscan_options *options, const dbscan_points *points, int threads,
                                parac_error *error)
{
    if (points->dim == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: points have dimension 0");
    if (!(options->eps > 0) || !isfinite(options->eps))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: eps must be a finite number > 0, got %g",
                          options->eps);
    if (options->min_samples < 1)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: min-samples must be >= 1");
    if (points->count >= (size_t)UINT32_MAX)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: %zu points; at most 4294967294 are supported",
                          points->count);
    if ((unsigned)options->method > PARAC_DBSCAN_REFERENCE)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: unknown method %d", (int)options->method);
    if ((unsigned)options->gpu_variant > PARAC_DBSCAN_GPU_VARIANT_LAST)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: unknown GPU variant %d",
                          (int)options->gpu_variant);
    if (options->gpu_variant == PARAC_DBSCAN_GPU_REMOVED_COARSE_LISTED) return removed_coarse_listed(error);
    return check_finite(points, threads, error);
}

static parac_status run_on_gpu(const parac_dbscan_options *options, const dbscan_points *points,
                               parac_dbscan_method method, int32_t *labels, uint8_t *core_mask,
                               parac_dbscan_info *info, parac_error *error)
{
#ifdef PARAC_HAVE_CUDA
    parac_progress_gate progress; /* here: the .cu file cannot hold one (C11 atomics) */
    parac_status status;
    info->device = PARAC_DEVICE_CUDA;
    parac_progress_gate_init(&progress, &options->exec, 1); /* dbscan_cuda sets the total once it has planned */
    if (parac_progress_gate_report_now(&progress)) return parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
    status = dbscan_cuda(points, options, method == PARAC_DBSCAN_GRID, &progress, labels, core_mask, info, error);
    if (status == PARAC_OK && parac_progress_gate_finish(&progress))
        status = parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
    return status;
#else
    (void)options, (void)points, (void)method, (void)labels, (void)core_mask, (void)info;
    return parac_fail(error, PARAC_ERR_NO_DEVICE, "dbscan: this build has no CUDA support");
#endif
}

/* AUTO's method on a device. The CPU grid is never slower than brute force beyond noise, at any d:
 * where the first 3 coordinates separate nothing each point's stencil is every point, i.e. brute
 * force's one cell, and where they do it skips most pairs (2 threads, dev machine, 2026-12-04:
 * 8,000 x 200-D 1.38 / 1.36 s where all are neighbours, 0.11 / 0.35 s at eps 3; 60,000 x 16-D
 * uniform 1.42 / 11.8 s; 30,000 x 50-D normal 6.1 / 6.0 s). The GPU keeps brute force above
 * PARAC_DBSCAN_GRID_MAX_DIM, as measured there (docs/dbscan.md). Labels are the same either way. */
static parac_dbscan_method auto_method(parac_device device, size_t dim)
{
    if (device == PARAC_DEVICE_CUDA && dim > PARAC_DBSCAN_GRID_MAX_DIM) return PARAC_DBSCAN_BRUTE_FORCE;
    return PARAC_DBSCAN_GRID;
}

static parac_status run_on_device(const parac_dbscan_options *options, const dbscan_points *points,
                                  parac_device device, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                  parac_error *error)
{
    parac_dbscan_method method = options->method;
    if (method == PARAC_DBSCAN_AUTO) method = auto_method(device, points->dim);
    info->method = method;
    if (method == PARAC_DBSCAN_REFERENCE) {
        info->device = PARAC_DEVICE_CPU;
        return dbscan_reference(points, options->eps, options->min_samples, &options->exec, labels, core_mask, info,
                                error);
    }
    if (device == PARAC_DEVICE_CUDA) {
        parac_status status = run_on_gpu(options, points, method, labels, core_mask, info, error);
        if (status != PARAC_ERR_NO_MEMORY) return status;
        /* The device is too small for these points: the CPU path gives the same bytes. */
        if (options->method == PARAC_DBSCAN_AUTO) method = auto_method(PARAC_DEVICE_CPU, points->dim);
        memset(info, 0, sizeof *info);
        info->method = method;
        info->gpu_fallback = 1;
        parac_error_clear(error);
    }
    info->device = PARAC_DEVICE_CPU;
    return dbscan_cpu(points, options->eps, options->min_samples, method == PARAC_DBSCAN_GRID, &options->exec,
                      labels, core_mask, info, error);
}

static parac_status run(const parac_dbscan_options *options, const dbscan_points *points, int32_t *labels,
                        uint8_t *core_mask, parac_dbscan_info *info_out, parac_error *error)
{
    parac_dbscan_info info;
    parac_device device = PARAC_DEVICE_CPU;
    double started = parac_now_seconds();
    parac_status status = check_input(options, points, parac_threads_resolve(options->exec.threads), error);
    memset(&info, 0, sizeof info);
    if (status != PARAC_OK) return status;
    if (options->method != PARAC_DBSCAN_REFERENCE && options->exec.device != PARAC_DEVICE_CPU) {
        parac_workload work = {PARAC_WORKLOAD_DBSCAN, (double)points->count * (double)points->dim,
                               (double)points->count * (double)points->dim * (points->f32 ? 4.0 : 8.0)};
        status = parac_choose_device(&options->exec, &work, &device, error);
        if (status != PARAC_OK) return status;
    } else {
        parac_device_record(&options->exec, PARAC_DEVICE_CPU,
                            options->method == PARAC_DBSCAN_REFERENCE ? "reference method: cpu" : "requested: --device cpu");
    }
    status = run_on_device(options, points, device, labels, core_mask, &info, error);
    info.seconds_total = parac_now_seconds() - started;
    if (info_out) *info_out = info;
    return status;
}

parac_status parac_dbscan_run(const parac_dbscan_options *options, const double *points, size_t count, size_t dim,
                              int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error)
{
    dbscan_points view = {points, NULL, count, dim};
    return run(options, &view, labels, core_mask, info, error);
}

parac_status parac_dbscan_run_f32(const parac_dbscan_options *options, const float *points, size_t count, size_t dim,
                                  int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error)
{
    dbscan_points view = {NULL, points, count, dim};
    return run(options, &view, labels, core_mask, info, error);
}
