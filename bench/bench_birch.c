/* bench/bench_birch.c — BIRCH on 1 M 2-D blobs (20 centres, std 0.5, threshold
 * 0.3, 20 clusters): serial (scikit-learn's order, one thread), parallel CPU
 * (batched, all cores) and GPU (batched); then a streamed run generated and
 * inserted chunk by chunk (100 M points on the GPU, never all in memory).
 *   bench_birch [--device cpu|cuda|all] [--quick]
 * Batched cases run once per variant (speculative and speculative-parallel =
 * exactly serial, segmented), side by side; PARAC_BIRCH_VARIANT=NAME
 * times that variant only. Speculative rows add the fit's speculate/commit
 * split, windows, serial points and (parallel commit) phases, stop points and
 * redone subtree commits. Then the ratio: serial and the default
 * (speculative-parallel, all cores) alternated 5 times, medians, one line.
 * Figures: points/s of fit + global step + labels; quality against serial
 * (SSE ratio, ARI) in the extra fields. scikit-learn: bench_birch_sklearn.py. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/birch.h>
#include <parac/devices.h>
#include <parac/points.h>

#include "bench_util.h"
#include "core/rng.h"
#include "core/threads.h"
#include "core/timer.h"

typedef struct bench_setup {
    int run_cpu, run_gpu, quick;
} bench_setup;

static double ari(const int32_t *a, const int32_t *b, size_t n, int clusters)
{
    double *table = calloc((size_t)clusters * (size_t)clusters, sizeof(double));
    double *rows = calloc((size_t)clusters, sizeof(double)), *cols = calloc((size_t)clusters, sizeof(double));
    double index = 0, sa = 0, sb = 0, expected, total = (double)n * (n - 1) / 2;
    for (size_t i = 0; i < n; i++) table[a[i] * clusters + b[i]] += 1, rows[a[i]] += 1, cols[b[i]] += 1;
    for (int i = 0; i < clusters * clusters; i++) index += table[i] * (table[i] - 1) / 2;
    for (int i = 0; i < clusters; i++) sa += rows[i] * (rows[i] - 1) / 2, sb += cols[i] * (cols[i] - 1) / 2;
    free(table), free(rows), free(cols);
    expected = sa * sb / total;
    return (index - expected) / ((sa + sb) / 2 - expected);
}

static double sse(const double *points, size_t n, const int32_t *labels, int clusters)
{
    double *sums = calloc((size_t)clusters * 3, sizeof(double)), total = 0;
    for (size_t i = 0; i < n; i++) {
        double *s = sums + 3 * labels[i];
        s[0] += 1, s[1] += points[2 * i], s[2] += points[2 * i + 1];
    }
    for (size_t i = 0; i < n; i++) {
        const double *s = sums + 3 * labels[i];
        double dx = points[2 * i] - s[1] / s[0], dy = points[2 * i + 1] - s[2] / s[0];
        total += dx * dx + dy * dy;
    }
    free(sums);
    return total;
}

/* Fit + global step + labels; returns seconds (negative on failure). */
static double run_once(const parac_birch_options *options, const double *points, size_t n, int32_t *labels,
                       size_t *subclusters, parac_birch_insert_stats *stats)
{
    parac_birch *model = NULL;
    parac_error error;
    double started = parac_now_seconds(), seconds;
    if (parac_birch_create(options, 2, &model, &error) != PARAC_OK ||
        parac_birch_partial_fit(model, points, n, &error) != PARAC_OK ||
        parac_birch_global_step(model, &error) != PARAC_OK ||
        parac_birch_predict(model, points, n, labels, NULL, &error) != PARAC_OK) {
        fprintf(stderr, "bench_birch: %s\n", error.message);
        parac_birch_destroy(model);
        return -1;
    }
    seconds = parac_now_seconds() - started;
    *subclusters = parac_birch_subcluster_count(model);
    if (stats) parac_birch_get_insert_stats(model, stats);
    parac_birch_destroy(model);
    return seconds;
}

static void measure(bench_report *report, const char *case_name, const parac_birch_options *options,
                    const double *points, size_t n, int repeats, const int32_t *serial_labels, double serial_sse,
                    int32_t *labels)
{
    double times[16], seconds;
    size_t subclusters = 0, used;
    parac_birch_insert_stats stats;
    bench_result result;
    int threads = options->exec.device == PARAC_DEVICE_CUDA ? 0 : parac_threads_resolve(options->exec.threads);
    for (int r = 0; r < repeats; r++)
        if ((times[r] = run_once(options, points, n, labels, &subclusters, &stats)) < 0) return;
    seconds = bench_median(times, repeats);
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "birch");
    snprintf(result.case_name, sizeof result.case_name, "%s", case_name);
    snprintf(result.device, sizeof result.device, "%s", options->exec.device == PARAC_DEVICE_CUDA ? "cuda" : "cpu");
    result.threads = threads, result.seconds = seconds;
    snprintf(result.metric, sizeof result.metric, "points_per_s");
    result.value = (double)n / seconds;
    snprintf(result.unit, sizeof result.unit, "points/s");
    used = (size_t)snprintf(result.extra, sizeof result.extra,
                            "\"points\":%zu,\"subclusters\":%zu,\"sse_vs_serial\":%.5f,\"ari_vs_serial\":%.5f", n,
                            subclusters, serial_labels ? sse(points, n, labels, 20) / serial_sse : 1.0,
                            serial_labels ? ari(serial_labels, labels, n, 20) : 1.0);
    if (stats.windows > 0 && used < sizeof result.extra) /* the last repeat's split of the fit */
        snprintf(result.extra + used, sizeof result.extra - used,
                 ",\"speculate_s\":%.4f,\"commit_s\":%.4f,\"commit_parallel_s\":%.4f,\"windows\":%zu,"
                 "\"serial_points\":%zu,\"phases\":%zu,\"stop_points\":%zu,\"rerouted\":%zu,\"redone\":%zu,"
                 "\"critical_points\":%zu",
                 stats.speculate_seconds, stats.commit_seconds, stats.commit_parallel_seconds, stats.windows,
                 stats.serial, stats.phases, stats.stop_points, stats.rerouted, stats.redone, stats.critical_points);
    bench_emit(report, &result);
}

/* The same case with the parallel commit's loops on schedule(static, 1)
 * instead of the default dynamic,1 (parallel_commit.c: run_phase uses
 * schedule(runtime) in phases whose root has more entries than the team has
 * threads; with fewer, thread k takes entry k whatever the schedule). Same
 * tree; only the time may differ. */
static void measure_static_schedule(bench_report *report, const char *case_name, const parac_birch_options *options,
                                    const double *points, size_t n, const int32_t *serial_labels, double serial_sse,
                                    int32_t *labels)
{
    char name[128];
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    omp_set_schedule(omp_sched_static, 1);
    snprintf(name, sizeof name, "%s static-schedule", case_name);
    measure(report, name, options, points, n, bench_repeats(3), serial_labels, serial_sse, labels);
    omp_set_schedule(kind, chunk);
}

/* The ratio (parallel x all cores >= 5x our serial), timed so that one noisy stretch of the
 * host cannot decide it: serial and parallel runs alternate, medians of each, one JSON line. */
static void measure_ratio(bench_report *report, const parac_birch_options *serial, const parac_birch_options *parallel,
                          const double *points, size_t n, int rounds, int32_t *labels)
{
    double serial_times[16], parallel_times[16], serial_s, parallel_s;
    size_t subclusters = 0, used = 0;
    bench_result result;
    if (rounds > 16) rounds = 16;
    for (int r = 0; r < rounds; r++)
        if ((serial_times[r] = run_once(serial, points, n, labels, &subclusters, NULL)) < 0 ||
            (parallel_times[r] = run_once(parallel, points, n, labels, &subclusters, NULL)) < 0)
            return;
    serial_s = bench_median(serial_times, rounds);
    parallel_s = bench_median(parallel_times, rounds);
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "birch");
    snprintf(result.case_name, sizeof result.case_name, "blobs 1M 2-D %s x%d vs serial (interleaved)",
             parac_birch_variant_name(parallel->variant), parac_threads_resolve(parallel->exec.threads));
    snprintf(result.device, sizeof result.device, "cpu");
    result.threads = parac_threads_resolve(parallel->exec.threads), result.seconds = parallel_s;
    snprintf(result.metric, sizeof result.metric, "speedup_vs_serial");
    result.value = serial_s / parallel_s;
    snprintf(result.unit, sizeof result.unit, "x");
    used += (size_t)snprintf(result.extra, sizeof result.extra, "\"serial_s\":%.4f,\"rounds\":%d,\"serial_each\":[",
                             serial_s, rounds);
    for (int r = 0; r < rounds && used < sizeof result.extra; r++)
        used += (size_t)snprintf(result.extra + used, sizeof result.extra - used, "%s%.4f", r ? "," : "", serial_times[r]);
    if (used < sizeof result.extra) used += (size_t)snprintf(result.extra + used, sizeof result.extra - used, "],\"parallel_each\":[");
    for (int r = 0; r < rounds && used < sizeof result.extra; r++)
        used += (size_t)snprintf(result.extra + used, sizeof result.extra - used, "%s%.4f", r ? "," : "", parallel_times[r]);
    if (used < sizeof result.extra) snprintf(result.extra + used, sizeof result.extra - used, "]");
    bench_emit(report, &result);
}

/* Chunk c of the streamed blobs: fixed centres, its own random sub-stream. */
static void stream_chunk(const double *centers, size_t chunk_index, size_t n, double *points)
{
    parac_rng rng;
    parac_rng_split(&rng, 77, chunk_index);
    for (size_t i = 0; i < n; i++) {
        size_t c = parac_rng_below(&rng, 20);
        points[2 * i] = centers[2 * c] + 0.5 * parac_rng_normal(&rng);
        points[2 * i + 1] = centers[2 * c + 1] + 0.5 * parac_rng_normal(&rng);
    }
}

static void measure_stream(bench_report *report, const parac_birch_options *options, size_t total, size_t chunk)
{
    double centers[40], started, generating = 0, t;
    double *points = malloc(chunk * 2 * sizeof(double));
    int32_t *labels = malloc(chunk * sizeof(int32_t));
    parac_birch *model = NULL;
    parac_error error;
    parac_rng rng;
    bench_result result;
    parac_status status;
    parac_rng_seed(&rng, 76);
    for (int i = 0; i < 40; i++) centers[i] = -10 + 20 * parac_rng_uniform(&rng);
    started = parac_now_seconds();
    status = parac_birch_create(options, 2, &model, &error);
    for (size_t c = 0; status == PARAC_OK && c * chunk < total; c++) {
        t = parac_now_seconds();
        stream_chunk(centers, c, chunk, points);
        generating += parac_now_seconds() - t;
        status = parac_birch_partial_fit(model, points, chunk, &error);
    }
    if (status == PARAC_OK) status = parac_birch_global_step(model, &error);
    for (size_t c = 0; status == PARAC_OK && c * chunk < total; c++) { /* second pass: labels */
        t = parac_now_seconds();
        stream_chunk(centers, c, chunk, points);
        generating += parac_now_seconds() - t;
        status = parac_birch_predict(model, points, chunk, labels, NULL, &error);
    }
    if (status != PARAC_OK) fprintf(stderr, "bench_birch: stream: %s\n", error.message);
    else {
        memset(&result, 0, sizeof result);
        snprintf(result.module, sizeof result.module, "birch");
        snprintf(result.case_name, sizeof result.case_name, "stream %zuM blobs, chunks of %zuM", total / 1000000,
                 chunk / 1000000);
        snprintf(result.device, sizeof result.device, "%s", options->exec.device == PARAC_DEVICE_CUDA ? "cuda" : "cpu");
        result.threads = options->exec.device == PARAC_DEVICE_CUDA ? 0 : parac_threads_resolve(0);
        result.seconds = parac_now_seconds() - started - generating;
        snprintf(result.metric, sizeof result.metric, "points_per_s");
        result.value = (double)total / result.seconds;
        snprintf(result.unit, sizeof result.unit, "points/s");
        snprintf(result.extra, sizeof result.extra, "\"points\":%zu,\"subclusters\":%zu,\"generation_seconds_excluded\":%.2f",
                 total, parac_birch_subcluster_count(model), generating);
        bench_emit(report, &result);
    }
    parac_birch_destroy(model);
    free(points), free(labels);
}

static parac_birch_options bench_options(parac_device device, size_t batch, int threads)
{
    parac_birch_options options;
    parac_birch_options_init(&options);
    options.threshold = 0.3, options.n_clusters = 20, options.batch_size = batch;
    options.exec.device = device, options.exec.threads = threads;
    return options;
}

int main(int argc, char **argv)
{
    static bench_report report;
    bench_setup setup = {1, 0, 0};
    parac_points_options generate;
    parac_birch_options serial = bench_options(PARAC_DEVICE_CPU, 0, 1);
    parac_birch_options parallel = bench_options(PARAC_DEVICE_CPU, PARAC_BIRCH_DEFAULT_BATCH, 0);
    parac_birch_options gpu = bench_options(PARAC_DEVICE_CUDA, PARAC_BIRCH_DEFAULT_BATCH, 0);
    parac_error error;
    size_t n, subclusters;
    double *points, serial_sse;
    int32_t *serial_labels, *labels;
    const char *only = getenv("PARAC_BIRCH_VARIANT");
    parac_birch_variant check;
    if (only && parac_birch_variant_parse(only, &check, &error) != PARAC_OK) {
        fprintf(stderr, "bench_birch: PARAC_BIRCH_VARIANT: %s\n", error.message);
        return 2;
    }
    {
        bench_args args;
        if (bench_parse_args(argc, argv, "bench_birch", "cpu", &args)) return 1;
        setup.run_cpu = args.cpu, setup.run_gpu = args.gpu, setup.quick = args.quick;
    }
    n = setup.quick ? 100000 : 1000000;
    memset(&generate, 0, sizeof generate);
    generate.kind = PARAC_POINTS_BLOBS, generate.count = n, generate.dim = 2, generate.seed = 42;
    generate.centers = 20, generate.std = 0.5;
    points = malloc(n * 2 * sizeof(double));
    serial_labels = malloc(n * sizeof(int32_t)), labels = malloc(n * sizeof(int32_t));
    if (parac_points_generate(&generate, points, NULL, &error) != PARAC_OK) {
        fprintf(stderr, "bench_birch: %s\n", error.message);
        return 1;
    }
    /* The serial run is the reference for the quality columns (always measured). */
    if (run_once(&serial, points, n, serial_labels, &subclusters, NULL) < 0) return 1;
    serial_sse = sse(points, n, serial_labels, 20);
    for (int v = 0; v < 3; v++) { /* the parallel commit right beside the default it may replace */
        const parac_birch_variant order[] = {PARAC_BIRCH_SPECULATIVE, PARAC_BIRCH_SPECULATIVE_PARALLEL,
                                             PARAC_BIRCH_SEGMENTED};
        parac_birch_variant variant = order[v];
        char name[96];
        if (only && strcmp(only, parac_birch_variant_name(variant)) != 0) continue;
        parallel.variant = gpu.variant = variant;
        if (setup.run_cpu) {
            if (v == 0)
                measure(&report, "blobs 1M 2-D serial (sklearn order)", &serial, points, n, bench_repeats(3), NULL,
                        serial_sse, labels);
            snprintf(name, sizeof name, "blobs 1M 2-D parallel %s", parac_birch_variant_name(variant));
            measure(&report, name, &parallel, points, n, bench_repeats(3), serial_labels, serial_sse, labels);
            if (variant == PARAC_BIRCH_SPECULATIVE_PARALLEL)
                measure_static_schedule(&report, name, &parallel, points, n, serial_labels, serial_sse, labels);
        }
        if (setup.run_gpu) {
            snprintf(name, sizeof name, "blobs 1M 2-D gpu %s", parac_birch_variant_name(variant));
            measure(&report, name, &gpu, points, n, bench_repeats(3), serial_labels, serial_sse, labels);
            if (variant == PARAC_BIRCH_SPECULATIVE_PARALLEL)
                measure_static_schedule(&report, name, &gpu, points, n, serial_labels, serial_sse, labels);
        }
    }
    parallel.variant = PARAC_BIRCH_SPECULATIVE_PARALLEL; /* the default */
    if (setup.run_cpu && (!only || parallel.variant == check))
        measure_ratio(&report, &serial, &parallel, points, n, setup.quick ? 2 : 5, labels);
    /* Streams with the default variant (or the one asked for). */
    parallel.variant = gpu.variant = PARAC_BIRCH_SPECULATIVE_PARALLEL;
    if (only) parac_birch_variant_parse(only, &parallel.variant, &error), gpu.variant = parallel.variant;
    if (setup.run_cpu) measure_stream(&report, &parallel, setup.quick ? 2000000 : 10000000, 1000000);
    if (setup.run_gpu) measure_stream(&report, &gpu, setup.quick ? 2000000 : 100000000, 1000000);
    bench_print_table(&report);
    free(points), free(serial_labels), free(labels);
    return 0;
}
