/* cli/cmd_gen_points.c — `parac gen points`: blobs, uniform or moons to .npy or CSV. */
#include <stdlib.h>
#include <string.h>

#include <parac/points.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/matrix_file.h"
#include "core/npy.h"
#include "core/timer.h"

typedef struct gen_points_args {
    int64_t count;
    int64_t dim;
    const char *kind;
    int64_t centers;
    double std;
    const char *output;
    const char *truth_output;
    int float32;
} gen_points_args;

static int has_npy_extension(const char *path)
{
    size_t length = strlen(path);
    return length >= 4 && strcmp(path + length - 4, ".npy") == 0;
}

/* float32 .npy halves the file for huge benchmark inputs (dbscan reads it natively). */
static parac_status save_float32(const char *path, const double *points, size_t rows, size_t cols, parac_error *error)
{
    uint64_t shape[2] = {rows, cols};
    float *narrow = malloc((rows * cols > 0 ? rows * cols : 1) * sizeof(float));
    parac_status status;
    if (!narrow) return parac_fail_no_memory(error, "float32 points", rows * cols * sizeof(float));
    for (size_t i = 0; i < rows * cols; i++) narrow[i] = (float)points[i];
    status = parac_npy_write(path, PARAC_DTYPE_F32, 2, shape, narrow, error);
    free(narrow);
    return status;
}

static int check_args(const gen_points_args *args, parac_points_options *options, parac_error *error)
{
    if (!args->output) return cli_usage_error("gen points", "-o FILE is required");
    if (args->count < 0) return cli_bad_value("gen points", "--n must be >= 0");
    if (args->dim < 1 || args->dim > 4096) return cli_bad_value("gen points", "--dim must be between 1 and 4096");
    if (args->centers < 0) return cli_bad_value("gen points", "--centers must be >= 0");
    if (cli_too_large((uint64_t)args->count, (uint64_t)args->dim, sizeof(double)))
        return cli_bad_value("gen points", "%lld points of dimension %lld are too many", (long long)args->count,
                             (long long)args->dim);
    if (args->float32 && !has_npy_extension(args->output))
        return cli_usage_error("gen points", "--float32 needs a .npy output");
    if (parac_points_kind_parse(args->kind, &options->kind, error) != PARAC_OK)
        return cli_usage_error("gen points", "%s", error->message);
    options->count = (size_t)args->count;
    options->dim = (size_t)args->dim;
    options->centers = (size_t)args->centers;
    options->std = args->std;
    return CLI_CONTINUE;
}

int cli_gen_points(int argc, char **argv)
{
    gen_points_args args = {1000, 2, "blobs", 3, 0.0, NULL, NULL, 0};
    const cli_option options_table[] = {
        {"--n", 'n', CLI_INT64, &args.count, "N", "number of points (default 1000)"},
        {"--dim", 'd', CLI_INT64, &args.dim, "D", "dimension (default 2)"},
        {"--kind", 0, CLI_STRING, &args.kind, "blobs|uniform|moons", "point cloud kind (default blobs)"},
        {"--centers", 0, CLI_INT64, &args.centers, "K", "blobs: number of centres (default 3)"},
        {"--std", 0, CLI_DOUBLE, &args.std, "S", "blobs: deviation (default 1.0); moons: noise (default 0)"},
        {"--output", 'o', CLI_STRING, &args.output, "FILE", "points file: .npy (float64) or CSV by extension"},
        {"--truth", 0, CLI_STRING, &args.truth_output, "FILE", "also write each point's generating label"},
        {"--float32", 0, CLI_FLAG, &args.float32, NULL, "write float32 .npy (half the size)"},
    };
    const cli_command command = {"gen points", "--n N --dim D --kind blobs|uniform|moons [--seed S] -o FILE",
                                 "Generates a reproducible point cloud: blobs (centres uniform in [-10,10]^d, "
                                 "Gaussian spread like scikit-learn's make_blobs), uniform (unit cube) or moons. "
                                 "The same seed gives the same file for any --threads.",
                                 options_table, sizeof options_table / sizeof options_table[0], 0, 0};
    cli_common common;
    const char *positionals[1];
    int positional_count;
    parac_points_options options;
    parac_error error;
    double *points = NULL;
    int32_t *truth = NULL;
    cli_output outputs[2] = {{0}}; /* points, truth */
    double started;
    int code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    memset(&options, 0, sizeof options);
    parac_error_clear(&error);
    code = check_args(&args, &options, &error);
    if (code != CLI_CONTINUE) return code;
    {
        const char *paths[2] = {args.output, args.truth_output};
        if (cli_check_outputs(paths, 2, NULL, 0, &error) != PARAC_OK) return cli_report(&error);
    }
    options.seed = common.seed;
    options.exec = common.exec;
    started = parac_now_seconds();
    points = malloc((options.count * options.dim > 0 ? options.count * options.dim : 1) * sizeof(double));
    truth = args.truth_output ? malloc((options.count ? options.count : 1) * sizeof(int32_t)) : NULL;
    if (!points || (args.truth_output && !truth)) {
        parac_fail_no_memory(&error, "points", options.count * options.dim * sizeof(double));
        goto done;
    }
    if (parac_points_generate(&options, points, truth, &error) != PARAC_OK) goto done;
    if (cli_output_begin(&outputs[0], args.output, &error) != PARAC_OK) goto done;
    if (args.float32) {
        if (save_float32(outputs[0].path, points, options.count, options.dim, &error) != PARAC_OK) goto done;
    } else if (parac_matrix_save(outputs[0].path, points, options.count, options.dim, &error) != PARAC_OK) {
        goto done;
    }
    if (truth && (cli_output_begin(&outputs[1], args.truth_output, &error) != PARAC_OK ||
                  parac_labels_save(outputs[1].path, truth, options.count, &error) != PARAC_OK))
        goto done;
    if (cli_output_commit(&outputs[0], &error) != PARAC_OK ||
        (truth && cli_output_commit(&outputs[1], &error) != PARAC_OK))
        goto done;
    if (common.json) {
        parac_json_writer json;
        cli_summary_begin(&json, "gen points", &common, PARAC_DEVICE_CPU, parac_now_seconds() - started);
        parac_json_field_string(&json, "kind", parac_points_kind_name(options.kind));
        parac_json_field_uint(&json, "points", options.count);
        parac_json_field_uint(&json, "dim", options.dim);
        parac_json_field_uint(&json, "seed", options.seed);
        parac_json_field_string(&json, "output", args.output);
        cli_summary_end(&json);
    }
done:
    cli_output_abort(&outputs[0], &error); /* after a failure: no partial files */
    cli_output_abort(&outputs[1], &error);
    free(points);
    free(truth);
    return error.status == PARAC_OK ? CLI_EXIT_OK : cli_report(&error);
}
