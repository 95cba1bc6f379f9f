/* cli/cmd_gen_csp.c — `parac gen csp`: random binary or table constraint networks as XCSP3. */
#include <string.h>

#include <parac/csp.h>

#include "cli/cli.h"
#include "core/timer.h"

int cli_gen_csp(int argc, char **argv)
{
    const char *model = "B", *output = NULL, *positionals[1];
    int64_t variables = 50, domain = 10, constraints = 200, arity = 2, tuples = 0;
    double tightness = 0.3;
    const cli_option options[] = {
        {"--model", 0, CLI_STRING, &model, "B|RB", "B: distinct scopes; RB: scopes drawn with repetition (default B)"},
        {"--vars", 0, CLI_INT64, &variables, "N", "variables (default 50)"},
        {"--dom", 0, CLI_INT64, &domain, "D", "domain size, values 0..D-1 (default 10)"},
        {"--constraints", 0, CLI_INT64, &constraints, "C", "binary constraints (default 200)"},
        {"--tightness", 0, CLI_DOUBLE, &tightness, "T", "fraction of forbidden pairs (tuples) per constraint (default 0.3)"},
        {"--arity", 0, CLI_INT64, &arity, "R", "2: binary constraints (default); 3..8: table constraints of R variables"},
        {"--tuples", 0, CLI_INT64, &tuples, "K", "tables: tuples drawn per table (default (1 - T) x D^R)"},
        {"--output", 'o', CLI_STRING, &output, "FILE", "output XCSP3 file (default stdout)"},
    };
    const cli_command command = {"gen csp",
                                 "--model B|RB --vars N --dom D --constraints C --tightness T [--arity R --tuples K] "
                                 "--seed S -o FILE",
                                 "Writes a random binary constraint network (model B or RB), or with --arity 3..8 a "
                                 "network of random tables, as XCSP3; the same seed gives the same file on every "
                                 "machine.",
                                 options, sizeof options / sizeof options[0], 0, 0};
    cli_common common;
    parac_csp_generate_options generate;
    parac_csp *csp = NULL;
    parac_error error;
    parac_json_writer json;
    cli_output written = {0};
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    parac_csp_generate_options_default(&generate);
    if (strcmp(model, "B") == 0 || strcmp(model, "b") == 0) generate.model = PARAC_CSP_MODEL_B;
    else if (strcmp(model, "RB") == 0 || strcmp(model, "rb") == 0) generate.model = PARAC_CSP_MODEL_RB;
    else return cli_usage_error("gen csp", "--model must be B or RB, got '%s'", model);
    if (variables < 2 || variables > UINT32_MAX || domain < 1 || domain > (1 << 20) || constraints < 0)
        return cli_bad_value("gen csp", "need --vars >= 2, --dom in 1..2^20 and --constraints >= 0");
    if (arity < 2 || arity > 8 || arity > variables || tuples < 0)
        return cli_bad_value("gen csp", "need --arity in 2..8 (at most --vars) and --tuples >= 0");
    generate.arity = (uint32_t)arity;
    generate.tuples = (uint64_t)tuples;
    generate.variables = (uint32_t)variables;
    generate.domain = (uint32_t)domain;
    generate.constraints = (uint64_t)constraints;
    generate.tightness = tightness;
    generate.seed = common.seed_given ? common.seed : 1;
    generate.threads = common.exec.threads;
    double started = parac_now_seconds();
    if (parac_csp_generate(&generate, &csp, &error) != PARAC_OK) return cli_report(&error);
    if (cli_output_begin(&written, output, &error) != PARAC_OK ||
        parac_csp_write_xcsp3(csp, written.path, common.exec.threads, &error) != PARAC_OK ||
        cli_output_commit(&written, &error) != PARAC_OK) {
        cli_output_abort(&written, &error);
        parac_csp_destroy(csp);
        return cli_report(&error);
    }
    if (common.json && output && strcmp(output, "-") != 0) {
        cli_summary_begin(&json, "gen csp", &common, PARAC_DEVICE_CPU, parac_now_seconds() - started);
        parac_json_field_uint(&json, "variables", parac_csp_variable_count(csp));
        parac_json_field_uint(&json, "constraints", parac_csp_constraint_count(csp));
        parac_json_field_uint(&json, "values", parac_csp_value_count(csp));
        parac_json_field_uint(&json, "ne_edges", parac_csp_ne_edge_count(csp));
        parac_json_field_uint(&json, "arity", (uint64_t)arity);
        cli_summary_end(&json);
    }
    parac_csp_destroy(csp);
    return CLI_EXIT_OK;
}
