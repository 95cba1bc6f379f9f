/* cli/cmd_metrics.c — `parac metrics --labels L [--truth T] [--data X] [--sample N]`. */
#include <stdlib.h>
#include <string.h>

#include <parac/metrics.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/matrix_file.h"
#include "core/timer.h"

typedef struct metrics_args {
    const char *labels;
    const char *truth;
    const char *data;
    int64_t sample;
} metrics_args;

typedef struct metrics_values {
    int have_truth, have_data;
    double ari, nmi, silhouette, davies_bouldin;
} metrics_values;

static parac_status compute_truth_metrics(const metrics_args *args, const int32_t *labels, size_t count,
                                          metrics_values *values, parac_error *error)
{
    int32_t *truth = NULL;
    size_t truth_count = 0;
    parac_status status = parac_labels_load(args->truth, &truth, &truth_count, error);
    if (status == PARAC_OK && truth_count != count)
        status = parac_fail_at(error, PARAC_ERR_PARSE, args->truth, 0, "%zu labels, but %s has %zu", truth_count,
                               args->labels, count);
    if (status == PARAC_OK) status = parac_metrics_adjusted_rand(labels, truth, count, &values->ari, error);
    if (status == PARAC_OK) status = parac_metrics_normalized_mutual_info(labels, truth, count, &values->nmi, error);
    values->have_truth = status == PARAC_OK;
    free(truth);
    return status;
}

static parac_status compute_data_metrics(const metrics_args *args, const cli_common *common, const int32_t *labels,
                                         size_t count, metrics_values *values, parac_error *error)
{
    parac_matrix data;
    parac_silhouette_options options;
    parac_status status = parac_matrix_load(args->data, 0, &data, error);
    if (status != PARAC_OK) return status;
    memset(&options, 0, sizeof options);
    options.sample = (size_t)args->sample;
    options.seed = common->seed;
    options.exec = common->exec;
    if (data.rows != count)
        status = parac_fail_at(error, PARAC_ERR_PARSE, args->data, 0, "%zu points, but %s has %zu labels", data.rows,
                               args->labels, count);
    if (status == PARAC_OK)
        status = parac_metrics_silhouette(&options, data.data, data.rows, data.cols, labels, &values->silhouette, error);
    if (status == PARAC_OK)
        status = parac_metrics_davies_bouldin(data.data, data.rows, data.cols, labels, common->exec.threads,
                                              &values->davies_bouldin, error);
    if (status != PARAC_OK && strncmp(error->message, args->data, strlen(args->data)) != 0) {
        char message[PARAC_ERROR_MESSAGE_SIZE];
        snprintf(message, sizeof message, "%s", error->message);
        parac_fail_at(error, status, args->data, 0, "%s", message);
    }
    values->have_data = status == PARAC_OK;
    parac_matrix_free(&data);
    return status;
}

static void print_values(const cli_common *common, const metrics_values *values, size_t count, double seconds)
{
    parac_json_writer json;
    if (!common->json) {
        if (values->have_truth) printf("ari %.12g\nnmi %.12g\n", values->ari, values->nmi);
        if (values->have_data) printf("silhouette %.12g\ndavies_bouldin %.12g\n", values->silhouette,
                                      values->davies_bouldin);
        return;
    }
    cli_summary_begin(&json, "metrics", common, PARAC_DEVICE_CPU, seconds);
    parac_json_field_uint(&json, "points", count);
    if (values->have_truth) {
        parac_json_field_double(&json, "ari", values->ari);
        parac_json_field_double(&json, "nmi", values->nmi);
    }
    if (values->have_data) {
        parac_json_field_double(&json, "silhouette", values->silhouette);
        parac_json_field_double(&json, "davies_bouldin", values->davies_bouldin);
    }
    cli_summary_end(&json);
}

int cli_metrics(int argc, char **argv)
{
    metrics_args args = {NULL, NULL, NULL, 0};
    const cli_option options_table[] = {
        {"--labels", 'l', CLI_STRING, &args.labels, "L", "labels to score (.npy int32/int64 or one per line)"},
        {"--truth", 't', CLI_STRING, &args.truth, "T", "reference labels: adjusted Rand index and NMI"},
        {"--data", 0, CLI_STRING, &args.data, "X", "the points: silhouette and Davies-Bouldin"},
        {"--sample", 0, CLI_INT64, &args.sample, "N", "silhouette on N random points (with --seed)"},
    };
    const cli_command command = {"metrics", "--labels L [--truth T] [--data X] [--sample N]",
                                 "Scores a labelling as scikit-learn does: adjusted Rand index and normalized mutual "
                                 "information (arithmetic mean) against --truth; silhouette and Davies-Bouldin index "
                                 "from --data. -1 (noise) is treated as one more cluster, as in scikit-learn.",
                                 options_table, sizeof options_table / sizeof options_table[0], 0, 0};
    cli_common common;
    const char *positionals[1];
    int positional_count;
    parac_error error;
    metrics_values values;
    int32_t *labels = NULL;
    size_t count = 0;
    double started = parac_now_seconds();
    int code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    if (!args.labels) return cli_usage_error("metrics", "--labels is required");
    if (!args.truth && !args.data) return cli_usage_error("metrics", "give --truth T and/or --data X");
    if (args.sample < 0) return cli_bad_value("metrics", "--sample must be >= 0");
    parac_error_clear(&error);
    memset(&values, 0, sizeof values);
    if (parac_labels_load(args.labels, &labels, &count, &error) != PARAC_OK) goto done;
    if (args.truth && compute_truth_metrics(&args, labels, count, &values, &error) != PARAC_OK) goto done;
    if (args.data && compute_data_metrics(&args, &common, labels, count, &values, &error) != PARAC_OK) goto done;
    print_values(&common, &values, count, parac_now_seconds() - started);
done:
    free(labels);
    return error.status == PARAC_OK ? CLI_EXIT_OK : cli_report(&error);
}
