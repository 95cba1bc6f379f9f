/* cli/cmd_gen_context.c — `parac gen context`: a random FIMI context. */
#include <math.h>
#include <stdint.h>

#include <parac/fca.h>

#include "cli/cli.h"

int cli_gen_context(int argc, char **argv)
{
    /* not given: values no command line can produce (store_value refuses infinities) */
    int64_t objects = INT64_MIN, attributes = INT64_MIN;
    double density = -INFINITY;
    const char *output = NULL;
    cli_option table[] = {
        {"--objects", 0, CLI_INT64, &objects, "N", "number of objects (rows)"},
        {"--attributes", 0, CLI_INT64, &attributes, "M", "number of attributes (columns)"},
        {"--density", 0, CLI_DOUBLE, &density, "P", "probability of each cell being 1"},
        {"--output", 'o', CLI_STRING, &output, "FILE", "FIMI file to write"},
    };
    cli_command command = {"gen context", "--objects N --attributes M --density P --seed S -o FILE",
                           "Writes a random binary context as FIMI (0-based ids), reproducible from --seed.", table,
                           sizeof table / sizeof table[0], 0, 0};
    cli_common common;
    const char *positionals[1];
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    parac_fca_context *context = NULL;
    parac_error error = {0};
    cli_output written = {0};
    if (code != CLI_CONTINUE) return code;
    /* absent (the -1 defaults) is a usage error; present but out of range is bad input */
    if (objects == INT64_MIN || attributes == INT64_MIN || isinf(density))
        return cli_usage_error("gen context", "--objects, --attributes and --density are required");
    if (!output) return cli_usage_error("gen context", "-o FILE is required");
    if (objects < 0 || attributes < 0 || objects > 100000000 || attributes > PARAC_FCA_MAX_ATTRIBUTE_ID)
        return cli_bad_value("gen context", "--objects must be in 0..10^8 and --attributes in 0..%d",
                             PARAC_FCA_MAX_ATTRIBUTE_ID);
    if (!(density >= 0.0 && density <= 1.0)) return cli_bad_value("gen context", "--density must be in [0, 1]");
    if (parac_fca_context_random((size_t)objects, (size_t)attributes, density, common.seed, &context, &error) != PARAC_OK ||
        cli_output_begin(&written, output, &error) != PARAC_OK ||
        parac_fca_context_write_fimi(context, written.path, &error) != PARAC_OK ||
        cli_output_commit(&written, &error) != PARAC_OK) {
        cli_output_abort(&written, &error);
        parac_fca_context_destroy(context);
        return cli_report(&error);
    }
    parac_fca_context_destroy(context);
    return CLI_EXIT_OK;
}
