/* bench/bench_dbscan.c — exact DBSCAN: the cases on CPU and GPU.
 *
 *   bench_dbscan [--device cpu|cuda|all] [--quick]
 *
 * Cases (issue 4):
 *   blobs-1M-2d     1 M 2-D blobs, 20 centres, std 0.5, eps 0.05, min-samples 10: CPU (all threads) and GPU
 *   blobs-10M-2d    the same at 10 M points: GPU
 *   uniform-100M-3d 100 M float32 points uniform in the unit cube, eps 0.002, min-samples 5: GPU
 * --quick divides every size by 10. Points are generated on the host in
 * parallel (parac_points_generate) before timing. `seconds` is the DBSCAN
 * compute (index + core + union + border + relabel, device time on the GPU);
 * the upload of the points and the download of the labels are reported
 * separately, with the phase split and device bytes per point.
 *
 * GPU cases run once per GPU variant (classic, table, coarse, table-fused,
 * coarse-fused, sparse; case names end
 * in /<variant>); PARAC_DBSCAN_VARIANT=<a variant name> times only
 * that one. PARAC_DBSCAN_SLABS=K forces at least K slabs and
 * PARAC_DBSCAN_MAX_DEVICE_BYTES=B plans for B device bytes (the
 * out-of-memory path; such runs end in /slabs). Every GPU variant's labels must equal the CPU's (when the CPU ran
 * the case) and each other's, or the program fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/dbscan.h>
#include <parac/metrics.h>
#include <parac/devices.h>
#include <parac/points.h>

#include "bench_util.h"
#include "core/threads.h"
#include "core/timer.h"

typedef struct bench_case {
    const char *name;
    parac_points_kind kind;
    size_t count, dim;
    double eps;
    size_t min_samples;
    int float32;
    int on_cpu, on_gpu;
} bench_case;

static const bench_case CASES[] = {
    {"blobs-1M-2d", PARAC_POINTS_BLOBS, 1000000, 2, 0.05, 10, 0, 1, 1},
    {"blobs-10M-2d", PARAC_POINTS_BLOBS, 10000000, 2, 0.05, 10, 0, 0, 1},
    {"uniform-100M-3d-f32", PARAC_POINTS_UNIFORM, 100000000, 3, 0.002, 5, 1, 0, 1},
    /* d > 8: brute force; the *-fused variants use the shared-memory tiled count */
    {"blobs-50k-12d-brute", PARAC_POINTS_BLOBS, 50000, 12, 2.0, 10, 0, 1, 1},
};

typedef struct points_buffer {
    double *f64;
    float *f32;
} points_buffer;

static int generate(const bench_case *c, size_t count, points_buffer *points)
{
    parac_points_options options;
    parac_error error = {0};
    memset(&options, 0, sizeof options);
    memset(points, 0, sizeof *points);
    options.kind = c->kind;
    options.count = count;
    options.dim = c->dim;
    options.seed = 2024;
    options.centers = 20;
    options.std = 0.5;
    points->f64 = malloc(count * c->dim * sizeof(double) + 1);
    if (!points->f64 || parac_points_generate(&options, points->f64, NULL, &error) != PARAC_OK) {
        fprintf(stderr, "bench_dbscan: generating %s: %s\n", c->name, error.message);
        return 1;
    }
    if (!c->float32) return 0;
    points->f32 = malloc(count * c->dim * sizeof(float) + 1);
    if (!points->f32) return 1;
    for (size_t i = 0; i < count * c->dim; i++) points->f32[i] = (float)points->f64[i];
    free(points->f64);
    points->f64 = NULL;
    return 0;
}

static double compute_seconds(const parac_dbscan_info *info)
{
    return info->seconds_index + info->seconds_core + info->seconds_union + info->seconds_border +
           info->seconds_relabel;
}

/* Runs `repeats` times (after one warm-up on the GPU); keeps the info of the median-compute run. */
static int time_case(const bench_case *c, const points_buffer *points, size_t count, parac_device device,
                     parac_dbscan_gpu_variant variant, int repeats, int32_t *labels, parac_dbscan_info *best)
{
    parac_dbscan_options options;
    parac_error error = {0};
    parac_dbscan_info infos[8];
    double seconds[8], median;
    memset(&options, 0, sizeof options);
    options.eps = c->eps;
    options.min_samples = c->min_samples;
    options.exec.device = device;
    options.gpu_variant = variant;
    if (getenv("PARAC_DBSCAN_SLABS")) options.min_gpu_slabs = strtoull(getenv("PARAC_DBSCAN_SLABS"), NULL, 10);
    if (getenv("PARAC_DBSCAN_MAX_DEVICE_BYTES"))
        options.max_device_bytes = strtoull(getenv("PARAC_DBSCAN_MAX_DEVICE_BYTES"), NULL, 10);
    if (repeats > 8) repeats = 8;
    for (int r = device == PARAC_DEVICE_CUDA ? -1 : 0; r < repeats; r++) {
        parac_dbscan_info info;
        parac_status status = points->f32 ? parac_dbscan_run_f32(&options, points->f32, count, c->dim, labels, NULL,
                                                                 &info, &error)
                                          : parac_dbscan_run(&options, points->f64, count, c->dim, labels, NULL,
                                                             &info, &error);
        if (status != PARAC_OK) {
            fprintf(stderr, "bench_dbscan: %s on %s (%s): %s\n", c->name, parac_device_name(device),
                    parac_dbscan_gpu_variant_name(variant), error.message);
            return 1;
        }
        if (r < 0) continue;
        infos[r] = info;
        seconds[r] = compute_seconds(&info);
    }
    {
        double sorted[8];
        memcpy(sorted, seconds, sizeof sorted);
        median = bench_median(sorted, repeats);
    }
    *best = infos[0];
    for (int r = 1; r < repeats; r++) /* the run closest to the median (an even count averages two) */
        if (fabs(seconds[r] - median) < fabs(compute_seconds(best) - median)) *best = infos[r];
    return 0;
}

static void emit(bench_report *report, const bench_case *c, size_t count, int quick, parac_device device,
                 const char *variant, const parac_dbscan_info *info)
{
    bench_result result;
    double seconds = compute_seconds(info);
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "dbscan");
    snprintf(result.case_name, sizeof result.case_name, "%s%s%s%s%s", c->name, variant ? "/" : "",
             variant ? variant : "", info->gpu_slabs > 1 ? "/slabs" : "", quick ? "/quick" : "");
    snprintf(result.device, sizeof result.device, "%s", parac_device_name(info->device));
    result.threads = device == PARAC_DEVICE_CPU ? parac_threads_resolve(0) : 0;
    result.seconds = seconds;
    snprintf(result.metric, sizeof result.metric, "points_per_s");
    result.value = seconds > 0 ? (double)count / seconds : 0.0;
    snprintf(result.unit, sizeof result.unit, "points/s");
    snprintf(result.extra, sizeof result.extra,
             "\"points\":%zu,\"clusters\":%zu,\"core\":%zu,\"noise\":%zu,\"upload_s\":%.5f,\"index_s\":%.5f,"
             "\"core_s\":%.5f,\"union_s\":%.5f,\"border_s\":%.5f,\"relabel_s\":%.5f,\"download_s\":%.5f,"
             "\"device_bytes_per_point\":%.1f,\"gpu_fallback\":%d,\"key_table\":%d",
             count, info->clusters, info->core, info->noise, info->seconds_upload, info->seconds_index,
             info->seconds_core, info->seconds_union, info->seconds_border, info->seconds_relabel,
             info->seconds_download, count ? (double)info->device_bytes / (double)count : 0.0, info->gpu_fallback,
             info->gpu_key_table);
    bench_emit(report, &result);
}

/* The GPU variants to time: all explicit ones, or the one PARAC_DBSCAN_VARIANT names. */
static int gpu_variants(parac_dbscan_gpu_variant *variants)
{
    const char *only = getenv("PARAC_DBSCAN_VARIANT");
    parac_error error = {0};
    if (only && *only) {
        if (parac_dbscan_gpu_variant_parse(only, &variants[0], &error) != PARAC_OK) {
            fprintf(stderr, "bench_dbscan: PARAC_DBSCAN_VARIANT: %s\n", error.message);
            return 0;
        }
        return 1;
    }
    int count = 0;
    for (int v = PARAC_DBSCAN_GPU_CLASSIC; v <= PARAC_DBSCAN_GPU_VARIANT_LAST; v++)
        if (v != PARAC_DBSCAN_GPU_REMOVED_COARSE_LISTED) /* moved to dev/dbscan/: timed by dev/run */
            variants[count++] = (parac_dbscan_gpu_variant)v;
    return count;
}

/* Times every GPU variant; each must give the labels in `reference` (the CPU's, else the first variant's). */
static int run_gpu_variants(const bench_case *c, const points_buffer *points, size_t count, int quick, int repeats,
                            int32_t *reference, int have_reference, bench_report *report)
{
    parac_dbscan_gpu_variant variants[PARAC_DBSCAN_GPU_VARIANT_LAST];
    int variant_count = gpu_variants(variants), failed = variant_count == 0;
    int32_t *labels = malloc(count * sizeof(int32_t) + 1);
    parac_dbscan_info info;
    for (int v = 0; v < variant_count && !failed && labels; v++) {
        const char *name = parac_dbscan_gpu_variant_name(variants[v]);
        failed = time_case(c, points, count, PARAC_DEVICE_CUDA, variants[v], repeats, labels, &info);
        if (failed) break;
        emit(report, c, count, quick, PARAC_DEVICE_CUDA, name, &info);
        if (!have_reference) {
            memcpy(reference, labels, count * sizeof(int32_t));
            have_reference = 1;
        } else if (memcmp(reference, labels, count * sizeof(int32_t)) != 0) {
            fprintf(stderr, "bench_dbscan: MISMATCH on %s: GPU variant %s labels differ\n", c->name, name);
            failed = 1;
        }
    }
    free(labels);
    return failed || !labels;
}

static int run_case(const bench_case *c, int cpu, int cuda, int quick, bench_report *report)
{
    size_t count = quick ? c->count / 10 : c->count;
    int do_cpu = cpu && c->on_cpu, do_gpu = cuda && c->on_gpu, failed = 0;
    int repeats = bench_repeats(count <= 2000000 ? 5 : count <= 20000000 ? 3 : 2);
    points_buffer points;
    int32_t *reference = NULL;
    parac_dbscan_info info;
    if (!do_cpu && !do_gpu) return 0;
    if (generate(c, count, &points)) return 1;
    reference = malloc(count * sizeof(int32_t) + 1);
    if (!reference) failed = 1;
    if (!failed && do_cpu &&
        !(failed = time_case(c, &points, count, PARAC_DEVICE_CPU, PARAC_DBSCAN_GPU_AUTO, repeats, reference, &info)))
        emit(report, c, count, quick, PARAC_DEVICE_CPU, NULL, &info);
    if (!failed && do_gpu) failed = run_gpu_variants(c, &points, count, quick, repeats, reference, do_cpu, report);
    free(reference);
    free(points.f64);
    free(points.f32);
    return failed;
}

/* Exact silhouette of `count` 2-D blobs (20 clusters) on one device: seconds, or < 0 on failure. */
static double time_silhouette(const double *xs, const int32_t *truth, size_t count, parac_device device, double *score)
{
    parac_silhouette_options options;
    parac_error error = {0};
    double started;
    memset(&options, 0, sizeof options);
    options.exec.device = device;
    started = parac_now_seconds();
    if (parac_metrics_silhouette(&options, xs, count, 2, truth, score, &error) != PARAC_OK) {
        fprintf(stderr, "bench_dbscan: silhouette on %s: %s\n", parac_device_name(device), error.message);
        return -1;
    }
    return parac_now_seconds() - started;
}

/* metrics: silhouette-50k-2d on the CPU and the GPU (one run each: O(n^2)); the scores must be equal. */
static int run_silhouette(int cpu, int cuda, int quick, bench_report *report)
{
    size_t count = quick ? 5000 : 50000;
    parac_points_options options;
    parac_error error = {0};
    double *xs = malloc(count * 2 * sizeof(double)), scores[2] = {0, 0};
    int32_t *truth = malloc(count * sizeof(int32_t));
    int failed = !xs || !truth;
    memset(&options, 0, sizeof options);
    options.count = count;
    options.dim = 2;
    options.seed = 2024;
    options.centers = 20;
    options.std = 0.5;
    if (!failed) failed = parac_points_generate(&options, xs, truth, &error) != PARAC_OK;
    for (int d = 0; d < 2 && !failed; d++) {
        parac_device device = d == 0 ? PARAC_DEVICE_CPU : PARAC_DEVICE_CUDA;
        bench_result result;
        double seconds;
        if (!(d == 0 ? cpu : cuda)) continue;
        seconds = time_silhouette(xs, truth, count, device, &scores[d]);
        if ((failed = seconds < 0)) break;
        memset(&result, 0, sizeof result);
        snprintf(result.module, sizeof result.module, "metrics");
        snprintf(result.case_name, sizeof result.case_name, "silhouette-%zu-2d%s", count, quick ? "/quick" : "");
        snprintf(result.device, sizeof result.device, "%s", parac_device_name(device));
        result.threads = device == PARAC_DEVICE_CPU ? parac_threads_resolve(0) : 0;
        result.seconds = seconds;
        snprintf(result.metric, sizeof result.metric, "pairs_per_s");
        result.value = seconds > 0 ? (double)count * (double)count / seconds : 0.0;
        snprintf(result.unit, sizeof result.unit, "pairs/s");
        snprintf(result.extra, sizeof result.extra, "\"silhouette\":%.17g", scores[d]);
        bench_emit(report, &result);
    }
    if (!failed && cpu && cuda && scores[0] != scores[1]) {
        fprintf(stderr, "bench_dbscan: MISMATCH: silhouette CPU %.17g GPU %.17g\n", scores[0], scores[1]);
        failed = 1;
    }
    free(xs);
    free(truth);
    return failed;
}

int main(int argc, char **argv)
{
    static bench_report report;
    int cpu, cuda, quick, failed = 0;
    bench_args args;
    if (bench_parse_args(argc, argv, "bench_dbscan", "cpu", &args)) return 1;
    cpu = args.cpu, cuda = args.gpu, quick = args.quick;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) failed |= run_case(&CASES[i], cpu, cuda, quick, &report);
    failed |= run_silhouette(cpu, cuda, quick, &report);
    bench_print_table(&report);
    return failed;
}
