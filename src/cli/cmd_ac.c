/* cli/cmd_ac.c — `parac ac`: load an XCSP file, enforce (S)AC, report. */
#include <stdlib.h>
#include <string.h>

#include <parac/ac.h>
#include <parac/csp.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/timer.h"
#include "csp/xcsp3_writer.h"

typedef struct ac_args {
    const char *algorithm;
    const char *variant;
    int singleton;
    const char *domains_path;
    const char *reduced_path; /* --write-reduced */
    int ignore_unsupported;
} ac_args;

/* {"x[0]":[1,2],...} in variable order; every array empty after a wipe-out. */
static parac_status write_domains(const parac_csp *csp, const uint64_t *domains, const char *path, parac_error *error)
{
    cli_output output;
    FILE *out;
    parac_json_writer json;
    size_t n = parac_csp_variable_count(csp);
    uint32_t largest = 1;
    int64_t *values;
    for (size_t v = 0; v < n; v++)
        if (parac_ac_initial_domain_size(csp, v) > largest) largest = parac_ac_initial_domain_size(csp, v);
    values = malloc(largest * sizeof *values);
    if (!values) return parac_fail_no_memory(error, "domain values", (unsigned long long)largest * 8);
    out = cli_output_open(&output, path, error);
    if (!out) {
        free(values);
        return error->status;
    }
    parac_json_init(&json, out);
    parac_json_begin_object(&json);
    for (size_t v = 0; v < n && !ferror(out) && !cli_interrupted(); v++) { /* full disk, Ctrl-C: stop */
        size_t count = parac_ac_remaining_values(csp, domains, v, values);
        parac_json_key(&json, parac_csp_variable_name(csp, v));
        parac_json_begin_array(&json);
        for (size_t i = 0; i < count; i++) parac_json_int(&json, values[i]);
        parac_json_end_array(&json);
    }
    parac_json_end_object(&json);
    fputc('\n', out);
    free(values);
    return cli_output_commit(&output, error);
}

/* The network with AC's domains as XCSP3 (refused after a wipe-out: docs/xcsp.md). */
static parac_status write_reduced(const parac_csp *csp, const char *input, const parac_ac_stats *stats,
                                  const uint64_t *domains, const char *path, int threads, parac_error *error)
{
    cli_output output;
    parac_status status;
    if (stats->wipeout)
        return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, input, 0,
                             "wiped out (no solution): no reduced instance written to %s", path);
    status = cli_output_begin(&output, path, error);
    if (status != PARAC_OK) return status;
    status = xcsp3_write_reduced(csp, domains, output.path, threads, error);
    if (status != PARAC_OK) {
        cli_output_abort(&output, error);
        return status;
    }
    return cli_output_commit(&output, error);
}

/* "consistency": {"allDifferent": "gac", "cumulative": "partial", ...}: what each kind of global
 * constraint gets (an empty object without globals). */
/* Who handled the table constraints: the device the run took, and its propagator there. */
static void print_tables(parac_json_writer *json, const parac_ac_stats *stats)
{
    parac_json_key(json, "tables");
    parac_json_begin_object(json);
    parac_json_field_uint(json, "count", stats->table_count);
    parac_json_field_uint(json, "tuple_entries", stats->tuple_entries);
    if (stats->table_count) {
        int gpu = stats->device == PARAC_DEVICE_CUDA;
        parac_json_field_string(json, "device", gpu ? "cuda" : "cpu");
        parac_json_field_string(json, "propagator", gpu ? "compact-table" : "tuple-walk");
        parac_json_field_string(json, "algorithm", parac_ac_algorithm_name(stats->algorithm));
    }
    parac_json_end_object(json);
}

static void print_consistency(parac_json_writer *json, const parac_csp *csp)
{
    const char *kinds[32], *levels[32];
    size_t count = parac_ac_global_consistency(csp, kinds, levels, 32);
    parac_json_key(json, "consistency");
    parac_json_begin_object(json);
    for (size_t i = 0; i < count && i < 32; i++) parac_json_field_string(json, kinds[i], levels[i]);
    parac_json_end_object(json);
}

static void print_summary(const cli_common *common, const char *input, const parac_csp *csp,
                          const parac_ac_stats *stats, int singleton, double parse_seconds, double total_seconds)
{
    parac_json_writer json;
    if (!common->json) {
        printf("%s: %s: %llu of %llu values remain (%llu removed) [%s on %s, %llu iterations, %.3f s]\n", input,
               stats->wipeout ? "wiped out" : singleton ? "singleton arc consistent" : "arc consistent",
               (unsigned long long)stats->values_after, (unsigned long long)stats->values_before,
               (unsigned long long)stats->removed, singleton ? (stats->device == PARAC_DEVICE_CUDA ? "gpu-sac" : "sac1")
                                                                : parac_ac_algorithm_name(stats->algorithm),
               parac_device_name(stats->device), (unsigned long long)stats->iterations, total_seconds);
        return;
    }
    cli_summary_begin(&json, "ac", common, stats->device, total_seconds);
    parac_json_field_string(&json, "input", input);
    parac_json_field_string(&json, "algorithm", parac_ac_algorithm_name(stats->algorithm));
    parac_json_field_bool(&json, "sac", singleton);
    parac_json_field_uint(&json, "variables", parac_csp_variable_count(csp));
    parac_json_field_uint(&json, "constraints", parac_csp_constraint_count(csp));
    parac_json_field_uint(&json, "values_before", stats->values_before);
    parac_json_field_uint(&json, "values_after", stats->values_after);
    parac_json_field_uint(&json, "removed", stats->removed);
    parac_json_field_bool(&json, "wipeout", stats->wipeout);
    parac_json_field_uint(&json, "iterations", stats->iterations);
    parac_json_field_uint(&json, "revisions", stats->revisions);
    parac_json_field_uint(&json, "ne_nodes", stats->ne_nodes);
    parac_json_field_uint(&json, "ne_edges", stats->ne_edges);
    parac_json_field_uint(&json, "dropped", parac_csp_dropped_count(csp));
    parac_json_field_uint(&json, "globals", parac_csp_global_count(csp));
    parac_json_field_bool(&json, "objective", parac_csp_has_objective(csp));
    print_consistency(&json, csp);
    print_tables(&json, stats);
    parac_json_field_double(&json, "parse_seconds", parse_seconds);
    parac_json_field_double(&json, "build_seconds", stats->build_seconds);
    parac_json_field_double(&json, "propagate_seconds", stats->propagate_seconds);
    cli_summary_end(&json);
}

static int run_ac(const cli_common *common, const ac_args *args, const char *input)
{
    parac_csp_load_options load_options;
    parac_ac_options options = {common->exec, PARAC_AC_AUTO, args->singleton, PARAC_AC_VARIANT_AUTO};
    parac_ac_stats stats;
    parac_error error = {0};
    parac_csp *csp = NULL;
    uint64_t *domains = NULL;
    double start = parac_now_seconds(), parse_seconds;
    int code = CLI_EXIT_OK;
    if (parac_ac_algorithm_parse(args->algorithm, &options.algorithm, &error) != PARAC_OK)
        return cli_usage_error("ac", "%s", error.message);
    if (parac_ac_variant_parse(args->variant, &options.variant, &error) != PARAC_OK)
        return cli_usage_error("ac", "%s", error.message);
    const char *outputs[2] = {args->domains_path, args->reduced_path};
    if (cli_check_outputs(outputs, 2, &input, 1, &error) != PARAC_OK) return cli_report(&error);
    parac_csp_load_options_default(&load_options);
    load_options.ignore_unsupported = args->ignore_unsupported;
    if (parac_csp_load(input, &load_options, &csp, &error) != PARAC_OK) return cli_report(&error);
    parse_seconds = parac_now_seconds() - start;
    for (size_t i = 0; i < parac_csp_dropped_count(csp); i++)
        cli_warn(common, "%s: dropped %s", input, parac_csp_dropped(csp, i));
    domains = calloc(parac_ac_domain_words(parac_csp_value_count(csp)) + 1, sizeof *domains);
    if (!domains) {
        parac_fail_no_memory(&error, "domains", parac_csp_value_count(csp) / 8);
        code = cli_report(&error);
    } else if (parac_ac_enforce(csp, &options, domains, &stats, &error) != PARAC_OK ||
               (args->domains_path && write_domains(csp, domains, args->domains_path, &error) != PARAC_OK) ||
               (args->reduced_path &&
                write_reduced(csp, input, &stats, domains, args->reduced_path, common->exec.threads, &error) != PARAC_OK)) {
        code = cli_report(&error);
    } else {
        print_summary(common, input, csp, &stats, args->singleton, parse_seconds, parac_now_seconds() - start);
    }
    free(domains);
    parac_csp_destroy(csp);
    return code;
}

int cli_ac(int argc, char **argv)
{
    ac_args args = {"auto", "auto", 0, NULL, NULL, 0};
    const cli_option options_table[] = {
        {"--algorithm", 'a', CLI_STRING, &args.algorithm, "A",
         "ac3, ac3rm, ac3bit, ac2001, ac4 (CPU); ac4-gpu, ac4-gpu-plus (GPU); gpu-bitset (both); auto (default)"},
        {"--variant", 0, CLI_STRING, &args.variant, "V",
         "GPU layout of ac4-gpu / ac4-gpu-plus: edges (the paper's edge arrays), rows (implicit edges), auto"},
        {"--sac", 0, CLI_FLAG, &args.singleton, NULL, "singleton arc consistency (SAC1 on the CPU, batched on the GPU)"},
        {"--domains", 0, CLI_STRING, &args.domains_path, "FILE", "write the remaining domains as JSON"},
        {"--write-reduced", 0, CLI_STRING, &args.reduced_path, "FILE",
         "write the network with its reduced domains as XCSP3 (same variables, constraints, objective); "
         "refused after a wipe-out (exit 2)"},
        {"--ignore-unsupported", 0, CLI_FLAG, &args.ignore_unsupported, NULL,
         "drop unsupported constraints with a warning instead of failing"},
    };
    const cli_command command = {
        "ac",
        "INPUT [--algorithm A] [--variant V] [--sac] [--domains FILE] [--write-reduced FILE] [--device auto|cpu|cuda] [--threads N] [--json]",
        "Enforces arc consistency (or SAC) on an XCSP3 / XCSP 2.1 network and prints whether it is arc "
        "consistent or wiped out. Every algorithm and device gives the same domains. auto: ac4-gpu-plus on a "
        "GPU for binary networks of at least 2^21 N-E edges, ac3bit on the CPU (or with fewer edges unless "
        "--device cuda); with table constraints gpu-bitset on the GPU (compact-table) when the cost model "
        "favours it; global constraints always on the CPU. gpu-bitset on the CPU runs the same rounds with "
        "OpenMP.",
        options_table, sizeof options_table / sizeof options_table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count;
    int code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    return run_ac(&common, &args, positionals[0]);
}
