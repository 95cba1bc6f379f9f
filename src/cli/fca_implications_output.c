/* cli/fca_implications_output.c — `parac fca INPUT --implications` (the
 * Duquenne-Guigues basis) and `parac fca INPUT --rules` (association rules).
 * cmd_fca.c hands the whole command line over when either flag is present, so
 * the concept listing and this listing keep separate option tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/timer.h"

typedef struct rules_cli_options {
    const char *output;
    const char *format;
    const char *max_memory;
    int64_t min_support, max_rules;
    double min_confidence;
    int implications, rules, all_rules, supports, names;
} rules_cli_options;

int cli_fca_wants_rules(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--implications") == 0 || strcmp(argv[i], "--rules") == 0) return 1;
    return 0;
}

static const char *RULES_DESCRIPTION =
    "--implications: the Duquenne-Guigues (canonical) basis of the context's attribute implications, one\n"
    "per line as 'premise ids -> conclusion ids' (P -> P'' \\ P for every pseudo-intent P), by premise in\n"
    "canonical order (lexicographic by ascending ids); --supports appends ' | N' (objects having P).\n"
    "With --min-support N only pseudo-intents with >= N objects (the basis of the frequent part).\n"
    "--rules: association rules X -> Y between frequent closed itemsets (intents with >= --min-support\n"
    "objects) with confidence >= --min-confidence, as 'X ids -> Y ids | support confidence': by default the\n"
    "Luxenburger basis (X and X u Y neighbours in the concept lattice), with --all-rules every pair of\n"
    "closed itemsets (at most --max-rules of them, else exit 2). Exact rules are the implications.";

/* "premise -> conclusion": no leading blank for an empty premise. */
static void print_pair(FILE *out, const uint32_t *premise, size_t premise_size, const uint32_t *conclusion,
                       size_t conclusion_size, const parac_fca_context *context, int names)
{
    cli_write_fca_ids(out, premise, premise_size, context, names, 0);
    fputs(premise_size ? " -> " : "-> ", out);
    cli_write_fca_ids(out, conclusion, conclusion_size, context, names, 0);
}

/* One line per implication or rule; stops early at a full disk or Ctrl-C (the commit reports it). */
static void print_lines(FILE *out, const parac_fca_context *context, const parac_fca_implications *implications,
                        const parac_fca_rules *rules, const rules_cli_options *options, uint32_t *premise,
                        uint32_t *conclusion)
{
    size_t attributes = parac_fca_context_attributes(context);
    size_t count = implications ? parac_fca_implications_size(implications) : parac_fca_rules_size(rules);
    for (size_t i = 0; i < count && !ferror(out) && !cli_interrupted(); i++) {
        if (implications) {
            size_t p = parac_fca_implication_premise(implications, i, premise, attributes);
            size_t c = parac_fca_implication_conclusion(implications, i, conclusion, attributes);
            print_pair(out, premise, p, conclusion, c, context, options->names);
            if (options->supports)
                fprintf(out, " | %llu", (unsigned long long)parac_fca_implication_support(implications, i));
        } else {
            size_t p = parac_fca_rule_premise(rules, i, premise, attributes);
            size_t c = parac_fca_rule_conclusion(rules, i, conclusion, attributes);
            print_pair(out, premise, p, conclusion, c, context, options->names);
            fprintf(out, " | %llu %.6g", (unsigned long long)parac_fca_rule_support(rules, i),
                    parac_fca_rule_confidence(rules, i));
        }
        fputc('\n', out);
    }
}

static int write_listing(const rules_cli_options *options, const cli_common *common, const parac_fca_context *context,
                         const parac_fca_implications *implications, const parac_fca_rules *rules, double seconds,
                         parac_error *error)
{
    size_t attributes = parac_fca_context_attributes(context);
    uint32_t *premise = malloc((attributes + 1) * sizeof *premise), *conclusion = malloc((attributes + 1) * sizeof *conclusion);
    cli_output output;
    parac_json_writer json;
    FILE *out;
    int failed = 1;
    if (!premise || !conclusion) parac_fail_no_memory(error, "rule ids", (attributes + 1) * 8);
    else if ((out = cli_output_open(&output, options->output, error)) != NULL) {
        print_lines(out, context, implications, rules, options, premise, conclusion);
        failed = cli_output_commit(&output, error) != PARAC_OK;
    }
    free(premise);
    free(conclusion);
    if (failed) return 1;
    if (common->json) {
        cli_summary_begin(&json, "fca", common, implications ? PARAC_DEVICE_CPU : cli_resolved_device(common), seconds);
        if (implications) parac_json_field_uint(&json, "implications", parac_fca_implications_size(implications));
        else parac_json_field_uint(&json, "rules", parac_fca_rules_size(rules));
        parac_json_field_uint(&json, "objects", parac_fca_context_objects(context));
        parac_json_field_uint(&json, "attributes", attributes);
        parac_json_field_uint(&json, "min_support", (uint64_t)options->min_support);
        if (rules) {
            parac_json_field_double(&json, "min_confidence", options->min_confidence);
            parac_json_field_string(&json, "rule_set", options->all_rules ? "all" : "luxenburger");
        }
        cli_summary_end(&json);
    }
    return 0;
}

/* CLI_CONTINUE, or the exit code after the error line. */
static int check_options(const rules_cli_options *options, parac_fca_format *format)
{
    if (options->implications && options->rules)
        return cli_usage_error("fca", "--implications and --rules exclude each other");
    if (cli_parse_fca_format(options->format, format)) return cli_usage_error("fca", "unknown --format '%s'", options->format);
    if (!options->rules && (options->all_rules || options->max_rules || options->min_confidence != 0.0))
        return cli_usage_error("fca", "--all-rules, --max-rules and --min-confidence need --rules");
    if (options->max_rules && !options->all_rules) return cli_usage_error("fca", "--max-rules needs --all-rules");
    if (options->supports && !options->implications) return cli_usage_error("fca", "--supports needs --implications");
    if (options->min_support < 0) return cli_bad_value("fca", "--min-support must be >= 0");
    if (options->max_rules < 0) return cli_bad_value("fca", "--max-rules must be >= 0 (0: no limit)");
    if (!(options->min_confidence >= 0.0 && options->min_confidence <= 1.0))
        return cli_bad_value("fca", "--min-confidence must be within [0, 1], got %g", options->min_confidence);
    return CLI_CONTINUE;
}

int cli_fca_implications(int argc, char **argv)
{
    rules_cli_options options = {0};
    cli_option table[] = {
        {"--implications", 0, CLI_FLAG, &options.implications, NULL, "the Duquenne-Guigues basis"},
        {"--rules", 0, CLI_FLAG, &options.rules, NULL, "association rules (the Luxenburger basis by default)"},
        {"--min-support", 0, CLI_INT64, &options.min_support, "N", "only itemsets with at least N objects"},
        {"--min-confidence", 0, CLI_DOUBLE, &options.min_confidence, "C", "rules: confidence at least C (0..1)"},
        {"--all-rules", 0, CLI_FLAG, &options.all_rules, NULL, "rules: every pair of closed itemsets"},
        {"--max-rules", 0, CLI_INT64, &options.max_rules, "N", "--all-rules: fail beyond N rules (0: no limit)"},
        {"--supports", 0, CLI_FLAG, &options.supports, NULL, "implications: append ' | N' (objects)"},
        {"--output", 'o', CLI_STRING, &options.output, "FILE", "write to FILE (default stdout)"},
        {"--names", 0, CLI_FLAG, &options.names, NULL, "print names (from .cxt/CSV headers) instead of ids"},
        {"--format", 0, CLI_STRING, &options.format, "F", "input format: auto|fimi|cxt|csv"},
        {"--max-memory", 0, CLI_STRING, &options.max_memory, "BYTES",
         "memory the result may hold (default a quarter of what the process may use; past it exit 3)"},
    };
    cli_command command = {"fca", "INPUT --implications|--rules [--min-support N] [--min-confidence C] [-o FILE]",
                           RULES_DESCRIPTION, table, sizeof table / sizeof table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    parac_fca_format format = PARAC_FCA_FORMAT_AUTO;
    parac_fca_context *context = NULL;
    parac_fca_implications *implications = NULL;
    parac_fca_rules *rules = NULL;
    parac_fca_rule_options rule_options;
    uint64_t max_host_bytes = 0;
    parac_error error = {0};
    parac_status status;
    double started;
    if (code != CLI_CONTINUE) return code;
    if ((code = check_options(&options, &format)) != CLI_CONTINUE) return code;
    if (options.max_memory &&
        (code = cli_byte_size_option("fca", "--max-memory", options.max_memory, &max_host_bytes)) != CLI_CONTINUE)
        return code;
    if (cli_check_outputs(&options.output, 1, positionals, 1, &error) != PARAC_OK) return cli_report(&error);
    if (parac_fca_context_read(positionals[0], format, &context, &error) != PARAC_OK) return cli_report(&error);
    parac_fca_rule_options_init(&rule_options);
    rule_options.exec = common.exec;
    rule_options.min_support = (uint64_t)options.min_support;
    rule_options.min_confidence = options.min_confidence;
    rule_options.all_rules = options.all_rules;
    rule_options.max_rules = (uint64_t)options.max_rules;
    rule_options.max_host_bytes = max_host_bytes;
    started = parac_now_seconds();
    status = options.implications ? parac_fca_implications_compute(context, &rule_options, &implications, &error)
                                  : parac_fca_rules_compute(context, &rule_options, &rules, &error);
    if (status == PARAC_OK &&
        write_listing(&options, &common, context, implications, rules, parac_now_seconds() - started, &error))
        status = error.status ? error.status : PARAC_ERR_IO;
    parac_fca_implications_destroy(implications);
    parac_fca_rules_destroy(rules);
    parac_fca_context_destroy(context);
    return status == PARAC_OK ? CLI_EXIT_OK : cli_report(&error);
}
