/* bench/bench_util.c */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/devices.h>

#include "core/json_writer.h"

void bench_emit(bench_report *report, const bench_result *result)
{
    parac_json_writer json;
    parac_json_init(&json, stdout);
    parac_json_begin_object(&json);
    parac_json_field_string(&json, "module", result->module);
    parac_json_field_string(&json, "case", result->case_name);
    parac_json_field_string(&json, "device", result->device);
    parac_json_field_int(&json, "threads", result->threads);
    parac_json_field_double(&json, "seconds", result->seconds);
    parac_json_field_string(&json, "metric", result->metric);
    parac_json_field_double(&json, "value", result->value);
    parac_json_field_string(&json, "unit", result->unit);
    if (result->extra[0]) fprintf(stdout, ",%s", result->extra);
    parac_json_end_object(&json);
    fputc('\n', stdout);
    fflush(stdout);
    if (report->count < BENCH_MAX_RESULTS) report->results[report->count++] = *result;
}

void bench_print_table(const bench_report *report)
{
    printf("\n%-8s %-40s %-6s %7s %10s  %s\n", "module", "case", "device", "threads", "seconds", "figure of merit");
    for (int i = 0; i < report->count; i++) {
        const bench_result *r = &report->results[i];
        printf("%-8s %-40s %-6s %7d %10.4f  %.4g %s %s\n", r->module, r->case_name, r->device, r->threads, r->seconds,
               r->value, r->unit, r->metric);
    }
    fflush(stdout);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, int n)
{
    if (n <= 0) return 0.0;
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

int bench_repeats(int default_repeats)
{
    const char *text = getenv("PARAC_BENCH_REPEATS");
    int repeats = text ? atoi(text) : 0;
    return repeats > 0 ? repeats : default_repeats;
}

int bench_parse_args(int argc, char **argv, const char *program, const char *default_device, bench_args *args)
{
    const char *device = default_device;
    args->quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            args->quick = 1;
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--device cpu|cuda|all] [--quick]\n", program);
            return 1;
        }
    }
    if (strcmp(device, "cpu") && strcmp(device, "cuda") && strcmp(device, "all")) {
        fprintf(stderr, "%s: --device must be cpu, cuda or all\n", program);
        return 1;
    }
    args->cpu = strcmp(device, "cuda") != 0;
    args->gpu = strcmp(device, "cpu") != 0 && parac_cuda_device_count(NULL, 0) > 0;
    if (strcmp(device, "cpu") != 0 && !args->gpu) fprintf(stderr, "%s: no usable GPU: GPU cases skipped\n", program);
    return 0;
}
