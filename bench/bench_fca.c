/* bench/bench_fca.c — FCbO concept counting (--count, nothing stored):
 *   shared data sets (mushroom, vote, primary-tumor) at 1 thread, all threads, GPU;
 *   random 200x100 d0.45 seed1 (35,027,171 concepts): CPU scaling and the GPU. The 1-thread and the
 *   all-core runs of on_demand are interleaved, 3 rounds, medians reported, so one
 *   noisy run cannot decide the ratio ("speedup_vs_1thread", "runs" lists every time);
 *   random 200x100 d0.49 seed1 (120,509,940 concepts): the >= 10^8 case; 1 thread once, on_demand
 *   3 times after it ("speedup_vs_1_thread" of the cuda lines is the GPU / 1-thread ratio);
 *   the CPU strategies that lost (shared_pool, per_thread, work_stealing) are timed by the kernel lab
 *   (dev/fca/, dev/run), not here;
 *   "mushroom stored [local_rows]": concepts stored (parac_fca_compute, sort included) on the GPU;
 *   "random 200x100 d0.45 stored, device cap 256 MiB [auto]": the 35 M concepts stored under
 *   max_device_bytes = 256 MiB, their intents ("output_bytes", 560 MB) over twice the cap.
 * Every strategy is timed: CPU all-threads runs once per parac_fca_cpu_strategy, GPU runs once per
 * parac_fca_gpu_strategy; the case name ends in [strategy]. PARAC_FCA_VARIANT=rounds|local_rows (GPU) or
 * on_demand (CPU) keeps only that one. The GPU strategies that lost (local, local_stream, local_staged)
 * are timed by the kernel lab (dev/fca/04-06, dev/run), not here. GPU runs share one engine (device set
 * up once, reported as its own "engine setup" line), so their seconds are the search alone.
 * Usage: bench_fca [--device cpu|cuda|all] [--quick]. One JSON line per case, a table last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/devices.h>
#include <parac/fca.h>

#include "bench_util.h"
#include "core/threads.h"
#include "core/timer.h"

typedef struct bench_settings {
    int cpu, gpu, quick;
    const char *only;          /* PARAC_FCA_VARIANT or NULL */
    parac_fca_engine *engine;  /* GPU engine, made once */
    bench_report report;
} bench_settings;

static const struct { parac_fca_gpu_strategy strategy; const char *name; } gpu_strategies[] = {
    {PARAC_FCA_GPU_ROUNDS, "rounds"}, {PARAC_FCA_GPU_LOCAL_ROWS, "local_rows"}};
static const struct { parac_fca_cpu_strategy strategy; const char *name; } cpu_strategies[] = {
    {PARAC_FCA_CPU_ON_DEMAND, "on_demand"}};
#define CPU_STRATEGY_COUNT (sizeof cpu_strategies / sizeof cpu_strategies[0])

static int wanted(const bench_settings *settings, const char *name)
{
    return !settings->only || strcmp(settings->only, name) == 0;
}

/* Median seconds of `repeats` counts; 0 on failure (reported). */
static double time_count(const parac_fca_context *context, const parac_fca_options *options, int repeats,
                         uint64_t *count)
{
    double seconds[16];
    parac_error error;
    if (repeats > 16) repeats = 16;
    for (int r = 0; r < repeats; r++) {
        double started = parac_now_seconds();
        if (parac_fca_count(context, options, count, &error) != PARAC_OK) {
            fprintf(stderr, "bench_fca: %s\n", error.message);
            return 0.0;
        }
        seconds[r] = parac_now_seconds() - started;
    }
    return bench_median(seconds, repeats);
}

/* more: extra JSON fields (",\"key\":value..." or ""). */
static void emit_more(bench_settings *settings, const char *case_name, const char *device, int threads,
                      double seconds, uint64_t count, double baseline_seconds, const char *more)
{
    double speedup = baseline_seconds > 0 && seconds > 0 ? baseline_seconds / seconds : 0.0;
    bench_result result;
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "fca");
    snprintf(result.case_name, sizeof result.case_name, "%s", case_name);
    snprintf(result.device, sizeof result.device, "%s", device);
    result.threads = threads;
    result.seconds = seconds;
    snprintf(result.metric, sizeof result.metric, "concepts_per_s");
    result.value = seconds > 0 ? (double)count / seconds : 0.0;
    snprintf(result.unit, sizeof result.unit, "concepts/s");
    snprintf(result.extra, sizeof result.extra, "\"concepts\":%llu,\"speedup_vs_1_thread\":%.2f,"
             "\"speedup_vs_1thread\":%.2f%s", (unsigned long long)count, speedup, speedup, more);
    bench_emit(&settings->report, &result);
}

static void emit(bench_settings *settings, const char *case_name, const char *device, int threads, double seconds,
                 uint64_t count, double baseline_seconds)
{
    emit_more(settings, case_name, device, threads, seconds, count, baseline_seconds, "");
}

static parac_fca_options options_for(parac_device device, int threads)
{
    parac_fca_options options;
    memset(&options, 0, sizeof options);
    options.exec.device = device;
    options.exec.threads = threads;
    return options;
}

/* All cores with cpu_strategies[first..last), repeats each (a median), against baseline. */
static void run_cpu_strategies(bench_settings *settings, const char *name, const parac_fca_context *context,
                               size_t first, size_t last, int repeats, double baseline)
{
    int cores = parac_threads_available();
    uint64_t count = 0;
    char label[96];
    for (size_t v = first; settings->cpu && cores > 1 && v < last; v++) {
        parac_fca_options options = options_for(PARAC_DEVICE_CPU, cores);
        double seconds;
        if (!wanted(settings, cpu_strategies[v].name)) continue;
        options.cpu_strategy = cpu_strategies[v].strategy;
        seconds = time_count(context, &options, repeats, &count);
        snprintf(label, sizeof label, "%s [%s]", name, cpu_strategies[v].name);
        emit(settings, label, "cpu", cores, seconds, count, baseline);
    }
}

/* The CPU scaling of a large case: rounds of (1 thread if r < one_runs, then every scaling strategy on
 * all cores), so slow drifts of the machine hit both sides; medians and every run are reported. */
static double run_scaling(bench_settings *settings, const char *name, const parac_fca_context *context, int one_runs,
                          int many_runs)
{
    enum { MAX_RUNS = 5 };
    size_t scaling = CPU_STRATEGY_COUNT;
    double one[MAX_RUNS], many[CPU_STRATEGY_COUNT][MAX_RUNS], baseline;
    int cores = parac_threads_available(), rounds = one_runs > many_runs ? one_runs : many_runs;
    uint64_t count = 0;
    char label[96], more[160];
    if (!settings->cpu) return 0.0;
    if (rounds > MAX_RUNS) rounds = MAX_RUNS;
    for (int r = 0; r < rounds; r++) {
        parac_fca_options options = options_for(PARAC_DEVICE_CPU, 1);
        if (r < one_runs) one[r] = time_count(context, &options, 1, &count);
        for (size_t v = 0; cores > 1 && r < many_runs && v < scaling; v++) {
            options = options_for(PARAC_DEVICE_CPU, cores);
            options.cpu_strategy = cpu_strategies[v].strategy;
            many[v][r] = wanted(settings, cpu_strategies[v].name)
                             ? time_count(context, &options, 1, &count) : 0.0;
        }
    }
    one_runs = one_runs < rounds ? one_runs : rounds;
    many_runs = many_runs < rounds ? many_runs : rounds;
    snprintf(more, sizeof more, ",\"runs\":%d", one_runs);
    baseline = bench_median(one, one_runs);
    emit_more(settings, name, "cpu", 1, baseline, count, baseline, more);
    for (size_t v = 0; cores > 1 && v < scaling; v++) {
        int used = 0;
        if (!wanted(settings, cpu_strategies[v].name)) continue;
        used = snprintf(more, sizeof more, ",\"runs\":%d,\"seconds_each\":[", many_runs);
        for (int r = 0; r < many_runs && used < (int)sizeof more - 16; r++)
            used += snprintf(more + used, sizeof more - (size_t)used, "%s%.3f", r ? "," : "", many[v][r]);
        snprintf(more + used, sizeof more - (size_t)used, "]");
        snprintf(label, sizeof label, "%s [%s]", name, cpu_strategies[v].name);
        emit_more(settings, label, "cpu", cores, bench_median(many[v], many_runs), count, baseline, more);
    }
    return baseline;
}

/* Every chosen GPU strategy on one engine, after one warm-up run each. */
static void run_gpu_strategies(bench_settings *settings, const char *name, const parac_fca_context *context,
                               int gpu_repeats, double baseline)
{
    uint64_t count = 0;
    char label[96];
    for (size_t v = 0; settings->engine && v < sizeof gpu_strategies / sizeof gpu_strategies[0]; v++) {
        parac_fca_options options = options_for(PARAC_DEVICE_CUDA, 0);
        double seconds;
        if (!wanted(settings, gpu_strategies[v].name)) continue;
        options.gpu_strategy = gpu_strategies[v].strategy;
        options.engine = settings->engine;
        (void)time_count(context, &options, 1, &count); /* warm-up: the engine's memory pool grows once */
        seconds = time_count(context, &options, gpu_repeats, &count);
        snprintf(label, sizeof label, "%s [%s]", name, gpu_strategies[v].name);
        emit(settings, label, "cuda", 0, seconds, count, baseline);
    }
}

/* A small context on every chosen path and strategy. */
static void run_case(bench_settings *settings, const char *name, const parac_fca_context *context, int cpu_repeats,
                     int gpu_repeats)
{
    double baseline = 0.0;
    uint64_t count = 0;
    if (settings->cpu) {
        parac_fca_options options = options_for(PARAC_DEVICE_CPU, 1);
        baseline = time_count(context, &options, cpu_repeats, &count);
        emit(settings, name, "cpu", 1, baseline, count, baseline);
    }
    run_cpu_strategies(settings, name, context, 0, CPU_STRATEGY_COUNT, cpu_repeats, baseline);
    run_gpu_strategies(settings, name, context, gpu_repeats, baseline);
}

/* Median seconds of `repeats` stored runs (parac_fca_compute, sort included); 0 on failure. */
static double time_compute(const parac_fca_context *context, const parac_fca_options *options, int repeats,
                           uint64_t *count)
{
    double seconds[16];
    parac_error error;
    if (repeats > 16) repeats = 16;
    for (int r = 0; r < repeats; r++) {
        parac_fca_concepts *concepts = NULL;
        double started = parac_now_seconds();
        if (parac_fca_compute(context, options, &concepts, &error) != PARAC_OK) {
            fprintf(stderr, "bench_fca: %s\n", error.message);
            return 0.0;
        }
        seconds[r] = parac_now_seconds() - started;
        *count = parac_fca_concepts_size(concepts);
        parac_fca_concepts_destroy(concepts);
    }
    return bench_median(seconds, repeats);
}

/* Concepts stored, not only counted, on the GPU (LOCAL_ROWS: each round's output downloaded after
 * the round). Case name "NAME stored [local_rows]". */
static void run_stored(bench_settings *settings, const char *name, const parac_fca_context *context, int repeats)
{
    parac_fca_options options = options_for(PARAC_DEVICE_CUDA, 0);
    char label[96];
    uint64_t count = 0;
    double seconds;
    if (!settings->engine || !wanted(settings, "local_rows")) return;
    options.gpu_strategy = PARAC_FCA_GPU_LOCAL_ROWS;
    options.engine = settings->engine;
    (void)time_compute(context, &options, 1, &count); /* warm-up */
    seconds = time_compute(context, &options, repeats, &count);
    snprintf(label, sizeof label, "%s stored [local_rows]", name);
    emit(settings, label, "cuda", 0, seconds, count, 0.0);
}

static void run_data_sets(bench_settings *settings)
{
    static const char *names[] = {"mushroom", "vote", "primary-tumor"};
    const char *data = getenv("PARAC_DATA");
    for (size_t i = 0; i < 3; i++) {
        char path[1024];
        parac_fca_context *context = NULL;
        parac_error error;
        int repeats = bench_repeats(settings->quick ? 1 : 5);
        snprintf(path, sizeof path, "%s/fca/%s.dat", data ? data : "../shared/data", names[i]);
        if (parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, &error) != PARAC_OK) {
            fprintf(stderr, "bench_fca: skipping %s: %s\n", names[i], error.message);
            continue;
        }
        run_case(settings, names[i], context, repeats, settings->quick ? 1 : 9);
        if (i == 0) run_stored(settings, names[i], context, settings->quick ? 1 : 5);
        parac_fca_context_destroy(context);
    }
}

/* Concepts stored on the GPU under max_device_bytes = cap (one run, sort included): the output's
 * bytes (intents on the host) are reported beside the cap. */
static void run_stored_capped(bench_settings *settings, const char *name, const parac_fca_context *context,
                              uint64_t cap)
{
    parac_fca_options options = options_for(PARAC_DEVICE_CUDA, 0);
    size_t words = (parac_fca_context_attributes(context) + 63) / 64;
    uint64_t count = 0;
    double seconds;
    char label[96], more[128];
    if (!settings->engine || !wanted(settings, "local_rows")) return;
    options.engine = settings->engine;
    options.max_device_bytes = cap;
    seconds = time_compute(context, &options, 1, &count);
    snprintf(more, sizeof more, ",\"max_device_bytes\":%llu,\"output_bytes\":%llu", (unsigned long long)cap,
             (unsigned long long)(count * words * 8));
    snprintf(label, sizeof label, "%s stored, device cap %llu MiB [auto]", name, (unsigned long long)(cap >> 20));
    emit_more(settings, label, "cuda", 0, seconds, count, 0.0, more);
}

/* A large random context (seed 1): interleaved CPU scaling, the GPU strategies; and, when cap, the
 * stored-under-a-device-cap row. */
static void run_random(bench_settings *settings, const char *name, size_t objects, size_t attributes,
                       double density, int one_runs, int gpu_repeats, uint64_t cap)
{
    parac_fca_context *context = NULL;
    parac_error error;
    double baseline;
    if (parac_fca_context_random(objects, attributes, density, 1, &context, &error) != PARAC_OK) {
        fprintf(stderr, "bench_fca: %s\n", error.message);
        return;
    }
    baseline = run_scaling(settings, name, context, one_runs, 3);
    run_gpu_strategies(settings, name, context, gpu_repeats, baseline);
    if (cap) run_stored_capped(settings, name, context, cap);
    parac_fca_context_destroy(context);
}

/* The GPU engine, timed: device setup is reported apart from the searches. */
static void create_engine(bench_settings *settings)
{
    parac_exec exec;
    parac_error error;
    bench_result result;
    double started = parac_now_seconds();
    memset(&exec, 0, sizeof exec);
    exec.device = PARAC_DEVICE_CUDA;
    if (parac_fca_engine_create(&exec, &settings->engine, &error) != PARAC_OK) {
        fprintf(stderr, "bench_fca: no GPU engine: %s\n", error.message);
        settings->engine = NULL;
        return;
    }
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "fca");
    snprintf(result.case_name, sizeof result.case_name, "engine setup (GPU context, once)");
    snprintf(result.device, sizeof result.device, "cuda");
    result.seconds = parac_now_seconds() - started;
    snprintf(result.metric, sizeof result.metric, "seconds");
    result.value = result.seconds;
    snprintf(result.unit, sizeof result.unit, "s");
    bench_emit(&settings->report, &result);
}

int main(int argc, char **argv)
{
    static bench_settings settings;
    bench_args args;
    if (bench_parse_args(argc, argv, "bench_fca", "all", &args)) return 1;
    settings.quick = args.quick;
    settings.only = getenv("PARAC_FCA_VARIANT");
    if (settings.only && !*settings.only) settings.only = NULL;
    settings.cpu = args.cpu;
    settings.gpu = args.gpu;
    if (settings.gpu) create_engine(&settings);
    run_data_sets(&settings);
    if (settings.quick) {
        run_random(&settings, "random 80x50 d0.5 seed1", 80, 50, 0.5, 1, 1, (uint64_t)4 << 20);
    } else {
        /* 35,027,171 concepts: CPU scaling (3 interleaved rounds, ~70 s), the GPU, stored under 256 MiB */
        run_random(&settings, "random 200x100 d0.45 seed1", 200, 100, 0.45, 3, 3, (uint64_t)256 << 20);
        /* 120,509,940 concepts: the >= 10^8 case (1 thread about 55-65 s once, all cores 3x each) */
        run_random(&settings, "random 200x100 d0.49 seed1", 200, 100, 0.49, 1, 3, 0);
    }
    parac_fca_engine_destroy(settings.engine);
    bench_print_table(&settings.report);
    return 0;
}
