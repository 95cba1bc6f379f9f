/* cli/cmd_dbscan.c — `parac dbscan INPUT --eps E --min-samples M`. */
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <parac/dbscan.h>
#include <parac/devices.h>

#include "cli/cli.h"
#include "core/device_choice.h"
#include "core/error.h"
#include "core/matrix_file.h"
#include "core/npy.h"
#include "core/threads.h"
#include "core/timer.h"

typedef struct dbscan_args {
    double eps;
    int64_t min_samples;
    const char *output;
    const char *core_output;
    const char *method;
    const char *max_device_memory;
} dbscan_args;

/* Points as read: float32 .npy stays float32 (half the memory). */
typedef struct loaded_points {
    parac_npy_array npy;   /* used when the file is float32 .npy */
    parac_matrix matrix;   /* everything else, as double */
    const float *f32;
    size_t rows, cols;
} loaded_points;

static int is_npy_path(const char *path)
{
    size_t length = strlen(path);
    return length >= 4 && strcmp(path + length - 4, ".npy") == 0;
}

static parac_status load_points(const char *path, loaded_points *points, parac_error *error)
{
    memset(points, 0, sizeof *points);
    if (is_npy_path(path)) {
        parac_status status = parac_npy_read(path, &points->npy, error);
        if (status != PARAC_OK) return status;
        if (points->npy.dtype == PARAC_DTYPE_F32) {
            if (points->npy.ndim > 2) {
                parac_npy_array_free(&points->npy);
                return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "expected a 1-D or 2-D array, found %d-D",
                                     points->npy.ndim);
            }
            points->f32 = points->npy.data;
            points->rows = points->npy.ndim == 0 ? 1 : points->npy.shape[0];
            points->cols = points->npy.ndim == 2 ? points->npy.shape[1] : 1;
            if (points->cols == 0 && points->rows > 0) { /* as parac_matrix_load refuses them */
                parac_npy_array_free(&points->npy);
                points->f32 = NULL;
                return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "the array has %zu rows but no columns",
                                     points->rows);
            }
            return PARAC_OK;
        }
        parac_npy_array_free(&points->npy);
        memset(&points->npy, 0, sizeof points->npy);
    }
    {
        parac_status status = parac_matrix_load(path, 0, &points->matrix, error);
        points->rows = points->matrix.rows;
        points->cols = points->matrix.cols;
        return status;
    }
}

static void free_points(loaded_points *points)
{
    if (points->f32) parac_npy_array_free(&points->npy);
    parac_matrix_free(&points->matrix);
}

/* Creating the CUDA context costs ~0.3 s, more than clustering 1 M points on
 * the GPU; a background thread starts it at once so that it overlaps the input
 * read. The library's own context creation then finds the device initialised.
 * Joined before the library runs: the two never touch CUDA at the same time. */
typedef struct gpu_warmup {
    int started;
    int ordinal;
    pthread_t thread;
} gpu_warmup;

static void *warm_gpu(void *argument)
{
    const gpu_warmup *warmup = argument;
    parac_device_info info;
    parac_error error;
    if (parac_cuda_device_count(NULL, 0) > warmup->ordinal)
        (void)parac_cuda_device_info(warmup->ordinal, &info, &error); /* creates the primary context */
    return NULL;
}

/* With --device auto, warming the GPU up costs a CUDA start-up the run may not need: only when
 * the cost model, fed the file's size (4 bytes a coordinate in .npy, ~8 in text), leans to the GPU. */
static int auto_may_choose_gpu(const char *path, const parac_exec *exec)
{
    struct stat info;
    double cpu, gpu, coordinates;
    parac_workload work = {PARAC_WORKLOAD_DBSCAN, 0.0, 0.0};
    if (stat(path, &info) != 0) return 0;
    coordinates = (double)info.st_size / (is_npy_path(path) ? 4.0 : 8.0);
    work.units = coordinates;
    work.upload_bytes = coordinates * 4.0;
    parac_device_estimate(&work, parac_threads_resolve(exec->threads), &cpu, &gpu);
    return gpu < cpu;
}

static void start_gpu_warmup(gpu_warmup *warmup, const parac_dbscan_options *options, const char *path)
{
    parac_device device = options->exec.device;
    warmup->started = 0;
    warmup->ordinal = options->exec.cuda_device;
    if (!parac_built_with_cuda() || options->method == PARAC_DBSCAN_REFERENCE || warmup->ordinal < 0) return;
    if (device != PARAC_DEVICE_AUTO && device != PARAC_DEVICE_CUDA) return;
    if (device == PARAC_DEVICE_AUTO && !auto_may_choose_gpu(path, &options->exec)) return;
    warmup->started = pthread_create(&warmup->thread, NULL, warm_gpu, warmup) == 0;
}

static void finish_gpu_warmup(gpu_warmup *warmup)
{
    if (warmup->started) pthread_join(warmup->thread, NULL);
    warmup->started = 0;
}

/* Both files are written to temporary files first and renamed over their targets at the end. */
static parac_status write_outputs(const dbscan_args *args, const int32_t *labels, const uint8_t *core_mask,
                                  size_t count, parac_error *error)
{
    cli_output labels_output = {0}, mask_output = {0};
    int32_t *mask = NULL;
    parac_status status = PARAC_OK;
    if (args->output && (status = cli_output_begin(&labels_output, args->output, error)) == PARAC_OK)
        status = parac_labels_save(labels_output.path, labels, count, error);
    if (status == PARAC_OK && args->core_output) {
        mask = malloc((count + 1) * sizeof(int32_t));
        if (!mask) status = parac_fail_no_memory(error, "core mask", count * 4);
        for (size_t i = 0; mask && i < count; i++) mask[i] = core_mask[i];
        if (status == PARAC_OK) status = cli_output_begin(&mask_output, args->core_output, error);
        if (status == PARAC_OK) status = parac_labels_save(mask_output.path, mask, count, error);
    }
    if (status == PARAC_OK && args->output) status = cli_output_commit(&labels_output, error);
    if (status == PARAC_OK && args->core_output) status = cli_output_commit(&mask_output, error);
    if (status != PARAC_OK) {
        cli_output_abort(&labels_output, error);
        cli_output_abort(&mask_output, error);
    }
    free(mask);
    return status;
}

static void print_summary(const cli_common *common, const parac_dbscan_info *info, const loaded_points *points,
                          double seconds)
{
    parac_json_writer json;
    if (!common->json) {
        if (!common->quiet)
            fprintf(stderr, "dbscan: %zu points, %zu clusters, %zu core, %zu border, %zu noise (%s, %.3f s)\n",
                    points->rows, info->clusters, info->core, info->border, info->noise,
                    parac_device_name(info->device), seconds);
        return;
    }
    cli_summary_begin(&json, "dbscan", common, info->device, seconds);
    parac_json_field_uint(&json, "points", points->rows);
    parac_json_field_uint(&json, "dim", points->cols);
    parac_json_field_uint(&json, "clusters", info->clusters);
    parac_json_field_uint(&json, "core", info->core);
    parac_json_field_uint(&json, "border", info->border);
    parac_json_field_uint(&json, "noise", info->noise);
    parac_json_field_string(&json, "method", parac_dbscan_method_name(info->method));
    parac_json_field_bool(&json, "gpu_fallback", info->gpu_fallback);
    parac_json_field_double(&json, "seconds_upload", info->seconds_upload);
    parac_json_field_double(&json, "seconds_index", info->seconds_index);
    parac_json_field_double(&json, "seconds_core", info->seconds_core);
    parac_json_field_double(&json, "seconds_union", info->seconds_union);
    parac_json_field_double(&json, "seconds_border", info->seconds_border);
    parac_json_field_double(&json, "seconds_relabel", info->seconds_relabel);
    parac_json_field_double(&json, "seconds_download", info->seconds_download);
    parac_json_field_uint(&json, "device_bytes", info->device_bytes);
    cli_summary_end(&json);
}

int cli_dbscan(int argc, char **argv)
{
    /* NAN and INT64_MIN mark "not given" (--eps refuses NaN, so neither can be typed): a missing
     * required option is a usage error (exit 1), not a value out of range (exit 2). */
    dbscan_args args = {NAN, INT64_MIN, NULL, NULL, "auto", NULL};
    const cli_option options_table[] = {
        {"--eps", 0, CLI_DOUBLE, &args.eps, "E", "neighbourhood radius (> 0); distance == eps is a neighbour"},
        {"--min-samples", 0, CLI_INT64, &args.min_samples, "M", "neighbours (the point included) to be core (>= 1)"},
        {"--output", 'o', CLI_STRING, &args.output, "LABELS", "labels: .npy (int32) or text, one per line"},
        {"--core-mask", 0, CLI_STRING, &args.core_output, "FILE", "1 for core points, 0 otherwise"},
        {"--method", 0, CLI_STRING, &args.method, "auto|grid|brute-force|reference", "algorithm (default auto)"},
        {"--max-device-memory", 0, CLI_STRING, &args.max_device_memory, "BYTES",
         "GPU: plan for at most BYTES of device memory (suffix K/M/G); more points are processed in slabs"},
    };
    const cli_command command = {
        "dbscan", "INPUT --eps E --min-samples M [-o LABELS] [--core-mask FILE]",
        "Exact DBSCAN with scikit-learn's semantics. INPUT is .npy (float32/float64, n x d) or CSV/TSV. Border "
        "points join the cluster of their lowest-index core neighbour; noise is -1; clusters are numbered by "
        "their lowest point index, so every device and thread count gives the same labels.",
        options_table, sizeof options_table / sizeof options_table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count;
    parac_dbscan_options options;
    parac_dbscan_info info;
    parac_error error;
    loaded_points points;
    int32_t *labels = NULL;
    uint8_t *core_mask = NULL;
    gpu_warmup warmup = {0};
    double started = parac_now_seconds();
    int code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    parac_error_clear(&error);
    memset(&options, 0, sizeof options);
    memset(&points, 0, sizeof points);
    if (parac_dbscan_method_parse(args.method, &options.method, &error) != PARAC_OK)
        return cli_usage_error("dbscan", "%s", error.message);
    if (isnan(args.eps)) return cli_usage_error("dbscan", "--eps is required");
    if (args.min_samples == INT64_MIN) return cli_usage_error("dbscan", "--min-samples is required");
    if (args.min_samples < 1) {
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: --min-samples must be >= 1, got %lld",
                   (long long)args.min_samples);
        return cli_report(&error);
    }
    if (args.max_device_memory) {
        uint64_t bytes = 0;
        if ((code = cli_byte_size_option("dbscan", "--max-device-memory", args.max_device_memory, &bytes)) !=
            CLI_CONTINUE)
            return code;
        options.max_device_bytes = (size_t)bytes;
    }
    {
        const char *outputs[2] = {args.output, args.core_output};
        if (cli_check_outputs(outputs, 2, positionals, 1, &error) != PARAC_OK) return cli_report(&error);
    }
    options.eps = args.eps;
    options.min_samples = (size_t)args.min_samples;
    options.exec = common.exec;
    start_gpu_warmup(&warmup, &options, positionals[0]);
    if (load_points(positionals[0], &points, &error) != PARAC_OK) goto done;
    labels = malloc((points.rows + 1) * sizeof(int32_t));
    core_mask = malloc(points.rows + 1);
    if (!labels || !core_mask) {
        parac_fail_no_memory(&error, "labels", points.rows * 5);
        goto done;
    }
    finish_gpu_warmup(&warmup);
    if ((points.f32 ? parac_dbscan_run_f32(&options, points.f32, points.rows, points.cols, labels, core_mask, &info,
                                           &error)
                    : parac_dbscan_run(&options, points.matrix.data, points.rows, points.cols, labels, core_mask,
                                       &info, &error)) != PARAC_OK) {
        char message[PARAC_ERROR_MESSAGE_SIZE];
        snprintf(message, sizeof message, "%s", error.message);
        parac_fail_at(&error, error.status, positionals[0], 0, "%s", message);
        goto done;
    }
    if (write_outputs(&args, labels, core_mask, points.rows, &error) != PARAC_OK) goto done;
    print_summary(&common, &info, &points, parac_now_seconds() - started);
done:
    finish_gpu_warmup(&warmup);
    free(labels);
    free(core_mask);
    free_points(&points);
    return error.status == PARAC_OK ? CLI_EXIT_OK : cli_report(&error);
}
