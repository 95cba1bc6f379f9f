/* cli/cmd_birch.c — `parac birch`: BIRCH clustering of a point file, whole or streamed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/birch.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/matrix_file.h"
#include "core/timer.h"

typedef struct birch_args {
    double threshold;
    int64_t branching;
    int64_t clusters;
    int64_t chunk;
    int64_t batch;
    const char *labels_path;
    const char *centers_path;
    const char *subclusters_path;
    const char *variant;
} birch_args;

static parac_status read_chunk(parac_matrix_stream *stream, double **buffer, size_t rows, size_t *got,
                               parac_error *error)
{
    if (rows > stream->rows_total) rows = stream->rows_total; /* a .npy file's length is known */
    if (!*buffer) {
        size_t values, bytes;
        if (__builtin_mul_overflow(rows, stream->cols, &values) ||
            __builtin_mul_overflow(values ? values : 1, sizeof(double), &bytes))
            return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, stream->path, 0,
                                 "--chunk %zu rows of %zu values is too large", rows, stream->cols);
        *buffer = malloc(bytes);
        if (!*buffer) return parac_fail_no_memory(error, "a chunk of points", bytes);
    }
    return parac_matrix_stream_read(stream, *buffer, rows, got, error);
}

/* A point the library refused (non-finite or out of range): the message gets the file's name. */
static parac_status name_the_file(parac_status status, const char *path, parac_error *error)
{
    char message[sizeof error->message];
    if (status != PARAC_ERR_INVALID_ARGUMENT) return status;
    snprintf(message, sizeof message, "%s", error->message);
    return parac_fail_at(error, status, path, 0, "%s", message);
}

/* Inserts the whole input (chunk rows at a time: partial_fit per chunk). */
static parac_status fit_input(const char *path, const parac_birch_options *options, size_t chunk,
                              parac_birch **model, parac_error *error)
{
    parac_matrix_stream stream;
    double *buffer = NULL;
    size_t got = 0;
    parac_status status = parac_matrix_stream_open(&stream, path, 0, 0, error);
    if (status != PARAC_OK) return status;
    for (;;) {
        status = read_chunk(&stream, &buffer, chunk, &got, error);
        if (status != PARAC_OK || got == 0) break;
        if (!*model) status = parac_birch_create(options, stream.cols, model, error);
        if (status == PARAC_OK) status = name_the_file(parac_birch_partial_fit(*model, buffer, got, error), path, error);
        if (status != PARAC_OK) break;
        /* .npy streams know their length; text streams show only the time (Ctrl-C stops between chunks). */
        if (parac_report_progress(&options->exec, stream.rows_read, stream.rows_total != SIZE_MAX ? stream.rows_total : 0)) {
            status = parac_fail(error, PARAC_ERR_CANCELLED, "birch: cancelled");
            break;
        }
    }
    if (status == PARAC_OK && !*model)
        status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "no points to cluster");
    free(buffer);
    parac_matrix_stream_close(&stream);
    return status;
}

/* Second pass: labels every point with its nearest subcluster's cluster. */
static parac_status label_input(const char *path, parac_birch *model, size_t chunk, int32_t *labels,
                                parac_error *error)
{
    parac_matrix_stream stream;
    double *buffer = NULL;
    size_t got = 0, done = 0;
    parac_status status = parac_matrix_stream_open(&stream, path, 0, 0, error);
    while (status == PARAC_OK) {
        status = read_chunk(&stream, &buffer, chunk, &got, error);
        if (status != PARAC_OK || got == 0) break;
        if (done + got > parac_birch_points_seen(model)) {
            status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "changed between the two passes");
            break;
        }
        status = name_the_file(parac_birch_predict(model, buffer, got, labels + done, NULL, error), path, error);
        done += got;
    }
    free(buffer);
    if (status == PARAC_OK) parac_matrix_stream_close(&stream);
    return status;
}

/* One of birch's output files, written to its temporary file (committed at the end, cli_birch). */
static parac_status save_matrix(cli_output *output, const char *path, const double *rows, size_t count, size_t dims,
                                parac_error *error)
{
    parac_status status = cli_output_begin(output, path, error);
    return status == PARAC_OK ? parac_matrix_save(output->path, rows, count, dims, error) : status;
}

static parac_status write_centers(parac_birch *model, const birch_args *args, cli_output outputs[2], parac_error *error)
{
    size_t dims = parac_birch_dims(model);
    size_t rows = args->centers_path ? parac_birch_cluster_count(model) : parac_birch_subcluster_count(model);
    double *centers = malloc((rows + 1) * dims * sizeof(double));
    parac_status status = PARAC_OK;
    if (!centers) return parac_fail_no_memory(error, "centres", rows * dims * sizeof(double));
    if (args->centers_path) {
        status = parac_birch_cluster_centers(model, centers, error);
        if (status == PARAC_OK) status = save_matrix(&outputs[0], args->centers_path, centers, rows, dims, error);
    }
    if (status == PARAC_OK && args->subclusters_path) {
        double *sub = realloc(centers, (parac_birch_subcluster_count(model) + 1) * dims * sizeof(double));
        if (!sub) status = parac_fail_no_memory(error, "subcluster centres", rows * dims * sizeof(double));
        else centers = sub;
        if (status == PARAC_OK) status = parac_birch_subclusters(model, centers, NULL, NULL, error);
        if (status == PARAC_OK)
            status = save_matrix(&outputs[1], args->subclusters_path, centers, parac_birch_subcluster_count(model), dims,
                                 error);
    }
    free(centers);
    return status;
}

static int check_args(const birch_args *args)
{
    if (args->chunk < 0) return cli_bad_value("birch", "--chunk must be >= 1 (0: the whole input at once)");
    if (args->batch < 0) return cli_bad_value("birch", "--batch-size must be >= 0");
    if (args->clusters < 0 || args->clusters > INT32_MAX)
        return cli_bad_value("birch", "--n-clusters must be in 0..%d", INT32_MAX);
    if (args->branching < 2 || args->branching > 1000000)
        return cli_bad_value("birch", "--branching-factor must be in 2..1000000");
    return CLI_CONTINUE;
}

static void print_summary(parac_birch *model, const cli_common *common, double seconds)
{
    parac_json_writer json;
    if (!common->json) {
        printf("%zu points, %zu subclusters, %zu clusters (%.3f s)\n", parac_birch_points_seen(model),
               parac_birch_subcluster_count(model), parac_birch_cluster_count(model), seconds);
        return;
    }
    cli_summary_begin(&json, "birch", common, parac_birch_device_used(model), seconds);
    parac_json_field_uint(&json, "points", parac_birch_points_seen(model));
    parac_json_field_uint(&json, "subclusters", parac_birch_subcluster_count(model));
    parac_json_field_uint(&json, "clusters", parac_birch_cluster_count(model));
    parac_json_field_bool(&json, "too_few_subclusters", parac_birch_too_few_subclusters(model));
    cli_summary_end(&json);
}

/* Whole input in memory: one partial_fit, labels straight from the points. */
static parac_status run_in_memory(const char *path, const parac_birch_options *options, int want_labels,
                                  parac_birch **model, int32_t **labels, parac_error *error)
{
    parac_matrix matrix;
    parac_status status = parac_matrix_load(path, 0, &matrix, error);
    if (status != PARAC_OK) return status;
    if (matrix.rows == 0) status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "no points to cluster");
    if (status == PARAC_OK) status = parac_birch_create(options, matrix.cols, model, error);
    if (status == PARAC_OK)
        status = name_the_file(parac_birch_partial_fit(*model, matrix.data, matrix.rows, error), path, error);
    if (status == PARAC_OK) status = parac_birch_global_step(*model, error);
    if (status == PARAC_OK && want_labels) {
        *labels = malloc(matrix.rows * sizeof(int32_t));
        if (!*labels) status = parac_fail_no_memory(error, "labels", matrix.rows * sizeof(int32_t));
        else status = name_the_file(parac_birch_predict(*model, matrix.data, matrix.rows, *labels, NULL, error), path, error);
    }
    parac_matrix_free(&matrix);
    return status;
}

/* Streamed input: partial_fit per chunk, then a second pass for the labels. */
static parac_status run_streamed(const char *path, const parac_birch_options *options, size_t chunk, int want_labels,
                                 parac_birch **model, int32_t **labels, parac_error *error)
{
    parac_status status = fit_input(path, options, chunk, model, error);
    if (status == PARAC_OK) status = parac_birch_global_step(*model, error);
    if (status == PARAC_OK && want_labels) {
        *labels = malloc(parac_birch_points_seen(*model) * sizeof(int32_t));
        if (!*labels) status = parac_fail_no_memory(error, "labels", parac_birch_points_seen(*model) * sizeof(int32_t));
        else status = label_input(path, *model, chunk, *labels, error);
    }
    return status;
}

int cli_birch(int argc, char **argv)
{
    birch_args args = {0.5, 50, 3, 0, PARAC_BIRCH_DEFAULT_BATCH, NULL, NULL, NULL, "speculative-parallel"};
    const cli_option options_table[] = {
        {"--threshold", 0, CLI_DOUBLE, &args.threshold, "T", "largest subcluster radius (default 0.5)"},
        {"--branching-factor", 0, CLI_INT64, &args.branching, "B", "most entries per CF node (default 50)"},
        {"--n-clusters", 0, CLI_INT64, &args.clusters, "K", "clusters of the Ward global step; 0 keeps the subclusters (default 3)"},
        {"--output", 'o', CLI_STRING, &args.labels_path, "LABELS", "each point's cluster (.npy int32 or text)"},
        {"--centers", 0, CLI_STRING, &args.centers_path, "FILE", "cluster centres (count-weighted means), K rows"},
        {"--subclusters", 0, CLI_STRING, &args.subclusters_path, "FILE", "subcluster centroids in leaf order"},
        {"--chunk", 0, CLI_INT64, &args.chunk, "N", "stream: read and insert N points at a time (default: whole input)"},
        {"--batch-size", 0, CLI_INT64, &args.batch, "B", "points per parallel batch; 0 = serial, scikit-learn's order (default 8192)"},
        {"--variant", 0, CLI_STRING, &args.variant, "NAME",
         "batched scheme: speculative-parallel (exactly the serial tree, parallel commit; default), "
         "speculative (same tree, in-order commit) or segmented (approximate)"},
    };
    const cli_command command = {"birch", "INPUT [--threshold T] [--branching-factor B] [--n-clusters K] [-o LABELS] [options]",
                                 "BIRCH clustering of the points of INPUT (.npy or CSV, - for standard input): a CF tree "
                                 "as scikit-learn's Birch, Ward clustering of its subclusters, each point labelled with "
                                 "its nearest subcluster's cluster. --batch-size 0 reproduces scikit-learn exactly; batched "
                                 "runs give the same bytes on every device and thread count.",
                                 options_table, sizeof options_table / sizeof options_table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count;
    parac_birch_options options;
    parac_birch *model = NULL;
    parac_error error;
    int32_t *labels = NULL;
    cli_output outputs[3] = {{0}}; /* centres, subclusters, labels */
    const char *output_paths[3] = {NULL, NULL, NULL};
    double started;
    int code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    if ((code = check_args(&args)) != CLI_CONTINUE) return code;
    output_paths[0] = args.centers_path;
    output_paths[1] = args.subclusters_path;
    output_paths[2] = args.labels_path;
    parac_error_clear(&error);
    if (cli_check_outputs(output_paths, 3, positionals, 1, &error) != PARAC_OK) return cli_report(&error);
    if (args.chunk > 0 && args.labels_path && strcmp(positionals[0], "-") == 0)
        return cli_usage_error("birch", "labels of a streamed standard input need a second pass: give a file, or drop --chunk");
    parac_error_clear(&error);
    parac_birch_options_init(&options);
    options.threshold = args.threshold;
    options.branching_factor = (int)args.branching;
    options.n_clusters = (int)args.clusters;
    options.batch_size = (size_t)args.batch;
    options.exec = common.exec;
    if (parac_birch_variant_parse(args.variant, &options.variant, &error) != PARAC_OK) {
        if (strcmp(args.variant, "hybrid") == 0) return cli_report(&error); /* removed: the message says where it went */
        return cli_usage_error("birch", "--variant must be speculative, speculative-parallel or segmented");
    }
    started = parac_now_seconds();
    if (args.chunk > 0) {
        if (run_streamed(positionals[0], &options, (size_t)args.chunk, args.labels_path != NULL, &model, &labels, &error) != PARAC_OK)
            goto done;
    } else if (run_in_memory(positionals[0], &options, args.labels_path != NULL, &model, &labels, &error) != PARAC_OK) {
        goto done;
    }
    if (parac_birch_too_few_subclusters(model))
        cli_warn(&common, "birch: %zu subclusters, fewer than --n-clusters %lld: each is a cluster; lower --threshold",
                 parac_birch_subcluster_count(model), (long long)args.clusters);
    if ((args.centers_path || args.subclusters_path) && write_centers(model, &args, outputs, &error) != PARAC_OK)
        goto done;
    if (labels && (cli_output_begin(&outputs[2], args.labels_path, &error) != PARAC_OK ||
                   parac_labels_save(outputs[2].path, labels, parac_birch_points_seen(model), &error) != PARAC_OK))
        goto done;
    for (int i = 0; i < 3; i++)
        if (output_paths[i] && cli_output_commit(&outputs[i], &error) != PARAC_OK) goto done;
    print_summary(model, &common, parac_now_seconds() - started);
done:
    for (int i = 0; i < 3; i++) cli_output_abort(&outputs[i], &error); /* after a failure: no partial files */
    free(labels);
    parac_birch_destroy(model);
    return error.status == PARAC_OK ? CLI_EXIT_OK : cli_report(&error);
}
