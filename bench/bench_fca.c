/* bench/bench_fca.c — FCbO concept counting (--count, nothing stored):
 *   shared data sets (mushroom, vote, primary-tumor) at 1 thread, all threads, GPU;
 *   a random context with >= 10^7 concepts for CPU scaling (fixed seed);
 *   a random context with >= 10^8 concepts for the GPU (fixed seed; CPU all threads as reference).
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
    bench_report report;
} bench_settings;

/* Median seconds of `repeats` counts; 0 on failure (reported). */
static double time_count(const parac_fca_context *context, parac_device device, int threads, int repeats,
                         uint64_t *count)
{
    double seconds[16];
    parac_fca_options options;
    parac_error error;
    memset(&options, 0, sizeof options);
    options.exec.device = device;
    options.exec.threads = threads;
    if (repeats > 16) repeats = 16;
    for (int r = 0; r < repeats; r++) {
        double started = parac_now_seconds();
        if (parac_fca_count(context, &options, count, &error) != PARAC_OK) {
            fprintf(stderr, "bench_fca: %s\n", error.message);
            return 0.0;
        }
        seconds[r] = parac_now_seconds() - started;
    }
    return bench_median(seconds, repeats);
}

static void emit(bench_settings *settings, const char *case_name, const char *device, int threads, double seconds,
                 uint64_t count, double baseline_seconds)
{
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
    snprintf(result.extra, sizeof result.extra, "\"concepts\":%llu,\"speedup_vs_1_thread\":%.2f",
             (unsigned long long)count, baseline_seconds > 0 && seconds > 0 ? baseline_seconds / seconds : 0.0);
    bench_emit(&settings->report, &result);
}

/* One context on the chosen paths. one_thread = 0 skips the 1-thread run (baseline given instead). */
static void run_case(bench_settings *settings, const char *name, const parac_fca_context *context, int repeats,
                     int one_thread, int all_threads, double baseline)
{
    int cores = parac_threads_available();
    uint64_t count = 0;
    if (settings->cpu && one_thread) {
        baseline = time_count(context, PARAC_DEVICE_CPU, 1, repeats, &count);
        emit(settings, name, "cpu", 1, baseline, count, baseline);
    }
    if (settings->cpu && all_threads && cores > 1) {
        double seconds = time_count(context, PARAC_DEVICE_CPU, cores, repeats, &count);
        emit(settings, name, "cpu", cores, seconds, count, baseline);
    }
    if (settings->gpu) {
        double seconds = time_count(context, PARAC_DEVICE_CUDA, 0, repeats, &count);
        emit(settings, name, "cuda", 0, seconds, count, baseline);
    }
}

static void run_data_sets(bench_settings *settings)
{
    static const char *names[] = {"mushroom", "vote", "primary-tumor"};
    const char *data = getenv("PARAC_DATA");
    for (size_t i = 0; i < 3; i++) {
        char path[1024];
        parac_fca_context *context = NULL;
        parac_error error;
        snprintf(path, sizeof path, "%s/fca/%s.dat", data ? data : "../shared/data", names[i]);
        if (parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, &error) != PARAC_OK) {
            fprintf(stderr, "bench_fca: skipping %s: %s\n", names[i], error.message);
            continue;
        }
        run_case(settings, names[i], context, bench_repeats(settings->quick ? 1 : 5), 1, 1, 0.0);
        parac_fca_context_destroy(context);
    }
}

static void run_random(bench_settings *settings, const char *name, size_t objects, size_t attributes,
                       double density, int one_thread, int repeats)
{
    parac_fca_context *context = NULL;
    parac_error error;
    if (parac_fca_context_random(objects, attributes, density, 1, &context, &error) != PARAC_OK) {
        fprintf(stderr, "bench_fca: %s\n", error.message);
        return;
    }
    run_case(settings, name, context, repeats, one_thread, 1, 0.0);
    parac_fca_context_destroy(context);
}

int main(int argc, char **argv)
{
    static bench_settings settings;
    const char *device = "all";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0) settings.quick = 1;
    }
    settings.cpu = strcmp(device, "cuda") != 0;
    settings.gpu = strcmp(device, "cpu") != 0 && parac_cuda_device_count(NULL, 0) > 0;
    run_data_sets(&settings);
    if (settings.quick) {
        run_random(&settings, "random 80x50 d0.5 seed1", 80, 50, 0.5, 1, 1);
    } else {
        /* 3.5e7 concepts (measured): CPU scaling (1 thread vs all cores) and the GPU */
        run_random(&settings, "random 200x100 d0.45 seed1", 200, 100, 0.45, 1, 1);
        /* ~1.5e8 concepts (extrapolated): the GPU case; the CPU runs it on all cores only */
        if (settings.gpu) run_random(&settings, "random 200x100 d0.5 seed1", 200, 100, 0.5, 0, 1);
    }
    bench_print_table(&settings.report);
    return 0;
}
