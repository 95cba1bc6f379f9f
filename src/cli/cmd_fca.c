/* cli/cmd_fca.c — `parac fca INPUT`: the formal concepts of a context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/timer.h"

typedef struct fca_cli_options {
    const char *output;
    const char *format;
    const char *max_device_memory;
    const char *cpu_strategy;
    const char *max_memory;
    int64_t min_support;
    int count_only, extents, names, verify;
} fca_cli_options;

/* "auto" (NULL), "sparse", "dense" (= "on_demand"); -1 when unknown. The removed names map to their
 * reserved values, which the library refuses saying where they went (dev/fca/). */
static int parse_cpu_strategy(const char *text, parac_fca_cpu_strategy *strategy)
{
    static const struct { const char *name; parac_fca_cpu_strategy strategy; } names[] = {
        {"auto", PARAC_FCA_CPU_AUTO},
        {"sparse", PARAC_FCA_CPU_SPARSE},
        {"dense", PARAC_FCA_CPU_ON_DEMAND},
        {"on_demand", PARAC_FCA_CPU_ON_DEMAND},
        {"shared_pool", PARAC_FCA_CPU_REMOVED_SHARED_POOL},
        {"per_thread", PARAC_FCA_CPU_REMOVED_PER_THREAD},
        {"work_stealing", PARAC_FCA_CPU_REMOVED_WORK_STEALING},
    };
    *strategy = PARAC_FCA_CPU_AUTO;
    if (!text) return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i].name) == 0) {
            *strategy = names[i].strategy;
            return 0;
        }
    return -1;
}

/* Streams the concepts into -o as the library finds them in canonical order, formatted on the run's
 * threads (parac_fca_write_text); memory stays within fca_options->max_host_bytes whatever their
 * number. Non-zero after filling *error. */
static int stream_concepts(const fca_cli_options *options, const parac_fca_context *context,
                           const parac_fca_options *fca_options, uint64_t *count, parac_error *error)
{
    parac_fca_text_options text = {options->extents, options->names};
    cli_output output;
    FILE *out = cli_output_open(&output, options->output, error);
    parac_status status;
    if (!out) return 1;
    status = parac_fca_write_text(context, fca_options, &text, cli_write_text, out, count, error);
    if (status != PARAC_OK && !(status == PARAC_ERR_CANCELLED && (ferror(out) || cli_interrupted()))) {
        cli_output_abort(&output, NULL);
        return 1;
    }
    return cli_output_commit(&output, error) != PARAC_OK;
}

static void write_summary(const fca_cli_options *options, const cli_common *common, const parac_fca_context *context,
                          uint64_t count, uint64_t min_support, double seconds)
{
    parac_json_writer json;
    if (!common->json) return;
    cli_summary_begin(&json, "fca", common, cli_resolved_device(common), seconds);
    parac_json_field_uint(&json, "concepts", count);
    parac_json_field_uint(&json, "objects", parac_fca_context_objects(context));
    parac_json_field_uint(&json, "attributes", parac_fca_context_attributes(context));
    parac_json_field_uint(&json, "min_support", min_support);
    parac_json_field_bool(&json, "verified", options->verify);
    parac_json_field_double(&json, "concepts_per_second", seconds > 0 ? (double)count / seconds : 0.0);
    cli_summary_end(&json);
}

static const char *FCA_DESCRIPTION =
    "Computes every formal concept of a binary context with FCbO (Outrata & Vychodil 2012) on the CPU\n"
    "(one thread or all cores) or the GPU. Input: FIMI .dat (ids as written), Burmeister .cxt, 0/1 CSV/TSV.\n"
    "Output: one concept per line, its intent as ascending attribute ids, in canonical (lexicographic)\n"
    "order, byte-identical on every device and thread count. Concepts are written as they come: beyond\n"
    "--max-memory (default a quarter of RAM) they go through sorted runs in $TMPDIR, so the output may\n"
    "be larger than memory (--verify keeps them all in memory).\n"
    "--implications (the Duquenne-Guigues basis) and --rules (association rules): see\n"
    "`parac fca --implications --help`.";

static int report_and_free(parac_error *error, parac_fca_context *context, parac_fca_concepts *concepts)
{
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    return cli_report(error);
}

/* The concepts (or their count) to -o, then the --json summary; non-zero after filling *error. */
static int write_results(const fca_cli_options *options, const cli_common *common, const parac_fca_context *context,
                         const parac_fca_concepts *concepts, uint64_t count, const parac_fca_options *fca_options,
                         double seconds, parac_error *error)
{
    cli_output output;
    FILE *out = cli_output_open(&output, options->output, error);
    parac_fca_text_options text = {options->extents, options->names};
    parac_status status = PARAC_OK;
    if (!out) return 1;
    if (options->count_only) fprintf(out, "%llu\n", (unsigned long long)count);
    else
        status = parac_fca_concepts_write_text(context, concepts, &text, fca_options->exec.threads, cli_write_text, out,
                                               error);
    /* a full disk or Ctrl-C stops the writer: the commit then reports it and removes the file */
    if (status != PARAC_OK && !(status == PARAC_ERR_CANCELLED && (ferror(out) || cli_interrupted()))) {
        cli_output_abort(&output, NULL);
        return 1;
    }
    if (cli_output_commit(&output, error) != PARAC_OK) return 1;
    write_summary(options, common, context, count, fca_options->min_support, seconds);
    return 0;
}

int cli_fca(int argc, char **argv)
{
    if (cli_fca_wants_rules(argc, argv)) return cli_fca_implications(argc, argv); /* fca_implications_output.c */
    fca_cli_options options = {0};
    cli_option table[] = {
        {"--count", 0, CLI_FLAG, &options.count_only, NULL, "print only the number of concepts (stores none)"},
        {"--output", 'o', CLI_STRING, &options.output, "FILE", "write concepts to FILE (default stdout)"},
        {"--min-support", 0, CLI_INT64, &options.min_support, "N", "only concepts with at least N objects"},
        {"--extents", 0, CLI_FLAG, &options.extents, NULL, "append ' | ' and the extent's object ids"},
        {"--names", 0, CLI_FLAG, &options.names, NULL, "print names (from .cxt/CSV headers) instead of ids"},
        {"--verify", 0, CLI_FLAG, &options.verify, NULL, "check every concept is closed and unique"},
        {"--format", 0, CLI_STRING, &options.format, "F", "input format: auto|fimi|cxt|csv"},
        {"--cpu-strategy", 0, CLI_STRING, &options.cpu_strategy, "S",
         "CPU search: auto|sparse|dense (sparse: by occupied cells, LCM-style closures; auto: sparse under 5 % dense)"},
        {"--max-device-memory", 0, CLI_STRING, &options.max_device_memory, "BYTES",
         "GPU: cap on all device memory the search uses (suffix K/M/G); the run degrades, spills to host"},
        {"--max-memory", 0, CLI_STRING, &options.max_memory, "BYTES",
         "cap on host memory for concepts (suffix K/M/G; default a quarter of RAM); beyond it they spill to $TMPDIR"},
    };
    cli_command command = {"fca", "INPUT [--count] [-o FILE] [--min-support N] [--extents] [--names] [--verify]",
                           FCA_DESCRIPTION, table, sizeof table / sizeof table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    parac_fca_format format;
    parac_fca_cpu_strategy cpu_strategy;
    parac_fca_context *context = NULL;
    parac_fca_concepts *concepts = NULL;
    parac_fca_options fca_options;
    parac_error error = {0};
    uint64_t count = 0, max_device_bytes = 0, max_host_bytes = 0;
    double started;
    if (code != CLI_CONTINUE) return code;
    if (cli_parse_fca_format(options.format, &format)) return cli_usage_error("fca", "unknown --format '%s'", options.format);
    if (parse_cpu_strategy(options.cpu_strategy, &cpu_strategy))
        return cli_usage_error("fca", "unknown --cpu-strategy '%s' (auto|sparse|dense|on_demand)",
                               options.cpu_strategy);
    if (options.min_support < 0) return cli_bad_value("fca", "--min-support must be >= 0");
    if (options.max_device_memory &&
        (code = cli_byte_size_option("fca", "--max-device-memory", options.max_device_memory, &max_device_bytes)) !=
            CLI_CONTINUE)
        return code;
    if (options.max_memory &&
        (code = cli_byte_size_option("fca", "--max-memory", options.max_memory, &max_host_bytes)) != CLI_CONTINUE)
        return code;
    if (cli_check_outputs(&options.output, 1, positionals, 1, &error) != PARAC_OK) return cli_report(&error);
    if (parac_fca_context_read(positionals[0], format, &context, &error) != PARAC_OK)
        return report_and_free(&error, NULL, NULL);
    memset(&fca_options, 0, sizeof fca_options);
    fca_options.exec = common.exec;
    fca_options.min_support = (uint64_t)options.min_support;
    fca_options.max_device_bytes = max_device_bytes;
    fca_options.cpu_strategy = cpu_strategy;
    fca_options.max_host_bytes = max_host_bytes;
    started = parac_now_seconds();
    if (options.count_only && !options.verify) {
        if (parac_fca_count(context, &fca_options, &count, &error) != PARAC_OK) return report_and_free(&error, context, NULL);
    } else if (!options.verify) {
        if (stream_concepts(&options, context, &fca_options, &count, &error)) return report_and_free(&error, context, NULL);
        write_summary(&options, &common, context, count, fca_options.min_support, parac_now_seconds() - started);
        parac_fca_context_destroy(context);
        return CLI_EXIT_OK;
    } else {
        if (parac_fca_compute(context, &fca_options, &concepts, &error) != PARAC_OK)
            return report_and_free(&error, context, NULL);
        count = parac_fca_concepts_size(concepts);
        if (options.verify && parac_fca_verify(context, concepts, fca_options.min_support, &error) != PARAC_OK)
            return report_and_free(&error, context, concepts);
    }
    if (write_results(&options, &common, context, concepts, count, &fca_options, parac_now_seconds() - started,
                      &error))
        return report_and_free(&error, context, concepts);
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    return CLI_EXIT_OK;
}
