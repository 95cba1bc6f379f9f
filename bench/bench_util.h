/* bench/bench_util.h — one JSON line per measurement, a short table last.
 *
 * Each line: {"module","case","device","threads","seconds","metric","value","unit"}
 * plus optional extra fields in `extra` (already-formatted JSON members).
 * Benchmarks collect results in a bench_report and print its table at the end.
 */
#ifndef PARAC_BENCH_UTIL_H
#define PARAC_BENCH_UTIL_H

#include <stddef.h>

#define BENCH_MAX_RESULTS 256

typedef struct bench_result {
    char module[16];
    char case_name[96];
    char device[16];
    int threads;
    double seconds;
    char metric[32];   /* the figure of merit: "concepts_per_s", "tflops", ... */
    double value;
    char unit[16];
    char extra[384];   /* e.g. "\"speedup_vs_sklearn\":41.2" (no braces), or "" */
} bench_result;

typedef struct bench_report {
    bench_result results[BENCH_MAX_RESULTS];
    int count;
} bench_report;

/* What a benchmark was asked to run: `--device cpu|cuda|all` and `--quick`. */
typedef struct bench_args {
    int cpu;    /* run the CPU cases */
    int gpu;    /* run the GPU cases: asked for and a GPU is usable */
    int quick;  /* smaller sizes */
} bench_args;

/* Parses the arguments every benchmark takes; default_device is used without --device.
 * Returns 0, or prints a usage line naming `program` and returns 1. */
int bench_parse_args(int argc, char **argv, const char *program, const char *default_device, bench_args *args);

/* Prints the JSON line now and keeps the result for the table. */
void bench_emit(bench_report *report, const bench_result *result);
/* The table: module, case, device, threads, seconds, figure of merit. */
void bench_print_table(const bench_report *report);
/* Median of n values (reorders them). */
double bench_median(double *values, int n);
/* Repeats from $PARAC_BENCH_REPEATS, else the default. */
int bench_repeats(int default_repeats);

#endif
