/* mpi/cmd_mpi_birch.c — `mpirun -n R parac-mpi birch INPUT [--threshold T] [--n-clusters K] [-o LABELS]`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/birch.h>

#include "core/error.h"
#include "core/matrix_file.h"
#include "mpi/cpu_time.h"
#include "mpi/distributed_birch.h"
#include "mpi/label_output.h"
#include "mpi/mpi_cli.h"
#include "mpi/npy_block.h"
#include "mpi/text_block.h"

typedef struct birch_args {
    double threshold;
    int64_t branching;
    int64_t clusters;
    int64_t batch;
    const char *labels_path;
    const char *centers_path;
    const char *subclusters_path;
    const char *variant;
    int timings;
    int spread_gpus;
} birch_args;

/* `parac birch`'s range checks and messages (cmd_birch.c), as an error every rank holds. */
static void check_args(const birch_args *args, parac_error *error)
{
    if (args->batch < 0) parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: --batch-size must be >= 0");
    else if (args->clusters < 0 || args->clusters > INT32_MAX)
        parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: --n-clusters must be in 0..%d", INT32_MAX);
    else if (args->branching < 2 || args->branching > 1000000)
        parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: --branching-factor must be in 2..1000000");
}

/* Rank 0: --centers (cluster centres) and --subclusters, each into its temporary file (committed
 * with the labels at the end, as `parac birch` does). Not collective. */
static parac_status write_centers(const mpi_birch *run, const birch_args *args, cli_output outputs[2],
                                  parac_error *error)
{
    size_t dims = run->dims, clusters = (size_t)run->clusters;
    double *centers = malloc((clusters + 1) * dims * sizeof(double));
    parac_status status = PARAC_OK;
    if (!centers) return parac_fail_no_memory(error, "centres", clusters * dims * sizeof(double));
    if (args->centers_path) {
        status = parac_birch_cluster_centers(run->model, centers, error);
        if (status == PARAC_OK) status = cli_output_begin(&outputs[0], args->centers_path, error);
        if (status == PARAC_OK) status = parac_matrix_save(outputs[0].path, centers, clusters, dims, error);
    }
    if (status == PARAC_OK && args->subclusters_path) { /* the broadcast centroids are the global tree's */
        status = cli_output_begin(&outputs[1], args->subclusters_path, error);
        if (status == PARAC_OK)
            status = parac_matrix_save(outputs[1].path, run->centers, (size_t)run->subclusters, dims, error);
    }
    free(centers);
    return status;
}

/* Centres (rank 0), then the labels (every rank's block), then every file committed together. */
static int write_outputs(MPI_Comm comm, const birch_args *args, const mpi_points *block, const mpi_birch *run,
                         const int32_t *labels, parac_error *error)
{
    cli_output outputs[3]; /* centres, subclusters, labels */
    int rank, code;
    memset(outputs, 0, sizeof outputs);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && (args->centers_path || args->subclusters_path)) write_centers(run, args, outputs, error);
    code = mpi_cli_agree(comm, error);
    if (code == 0 && args->labels_path) code = mpi_labels_write(comm, args->labels_path, block, labels, &outputs[2], error);
    return mpi_outputs_finish(comm, outputs, 3, code, error);
}

/* The slowest rank's time per phase, the CPU time and the traffic, on stderr (--timings). */
static void print_timings(MPI_Comm comm, const mpi_birch_info *info, double read_seconds, double write_seconds)
{
    double mine[8] = {read_seconds,         info->seconds_fit,       info->seconds_gather, info->seconds_insert,
                      info->seconds_global, info->seconds_broadcast, info->seconds_label,  write_seconds};
    double slowest[8], cpu[3] = {info->cpu_seconds_fit, info->cpu_seconds_label, mpi_process_cpu_seconds()};
    double cpu_max[3], cpu_sum[3];
    uint64_t local = info->local_subclusters, largest;
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    MPI_Reduce(mine, slowest, 8, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_max, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_sum, 3, MPI_DOUBLE, MPI_SUM, 0, comm);
    MPI_Reduce(&local, &largest, 1, MPI_UINT64_T, MPI_MAX, 0, comm);
    if (rank != 0) return;
    fprintf(stderr,
            "timings (s, slowest rank): read %.3f fit %.3f gather %.3f insert %.3f global %.3f broadcast %.3f "
            "label %.3f gather+write %.3f\n",
            slowest[0], slowest[1], slowest[2], slowest[3], slowest[4], slowest[5], slowest[6], slowest[7]);
    fprintf(stderr, "cpu (s): local fit max %.3f sum %.3f; label max %.3f sum %.3f; whole process max %.3f sum %.3f\n",
            cpu_max[0], cpu_sum[0], cpu_max[1], cpu_sum[1], cpu_max[2], cpu_sum[2]);
    fprintf(stderr, "traffic: ranks %d, subclusters gathered %llu (largest local tree %llu)\n", ranks,
            (unsigned long long)info->gathered_subclusters, (unsigned long long)largest);
}

/* Rank 0's summary: `parac birch`'s line (with the ranks) or its --json object. The points are the
 * merged tree's (the counts of its subclusters): every rank's points, when the merge kept them all. */
static void print_summary(const mpi_birch *run, const cli_common *common, int ranks, double seconds)
{
    parac_json_writer json;
    size_t points = parac_birch_points_seen(run->model);
    if (!common->json) {
        printf("%zu points, %llu subclusters, %llu clusters (%d ranks, %.3f s)\n", points,
               (unsigned long long)run->subclusters, (unsigned long long)run->clusters, ranks, seconds);
        return;
    }
    cli_summary_begin(&json, "birch", common, parac_birch_device_used(run->model), seconds);
    parac_json_field_uint(&json, "points", points);
    parac_json_field_uint(&json, "subclusters", run->subclusters);
    parac_json_field_uint(&json, "clusters", run->clusters);
    parac_json_field_bool(&json, "too_few_subclusters", run->too_few);
    parac_json_field_uint(&json, "ranks", (uint64_t)ranks);
    cli_summary_end(&json);
}

/* Options into the library's form (after check_args). Exit 1 for an unknown --variant (printed by
 * rank 0); the removed hybrid variant's message is left in error (exit 2, as `parac birch`). */
static int make_options(int rank, const birch_args *args, const cli_common *common, parac_birch_options *options,
                        parac_error *error)
{
    parac_birch_options_init(options);
    options->threshold = args->threshold;
    options->branching_factor = (int)args->branching;
    options->n_clusters = (int)args->clusters;
    options->batch_size = (size_t)args->batch;
    options->exec = common->exec;
    options->exec.progress = NULL; /* no bar: R ranks would draw over each other */
    if (parac_birch_variant_parse(args->variant, &options->variant, error) == PARAC_OK ||
        strcmp(args->variant, "hybrid") == 0)
        return CLI_CONTINUE;
    parac_error_clear(error);
    return rank == 0 ? cli_usage_error("birch", "--variant must be speculative, speculative-parallel or segmented")
                     : CLI_EXIT_USAGE;
}

/* Phases 1-3 (mpi/distributed_birch.h) with the agreement after each; 0 or the agreed exit code. */
static int run_birch(MPI_Comm comm, const char *path, const parac_birch_options *options, const mpi_points *block,
                     mpi_birch *run, mpi_birch_info *info, int32_t *labels, parac_error *error)
{
    int code;
    mpi_birch_fit_local(options, block, path, run, info, error);
    if ((code = mpi_cli_agree(comm, error)) != 0) return code;
    if (mpi_birch_merge(comm, run, info, error) != PARAC_OK && !run->failed_everywhere) {
        char message[PARAC_ERROR_MESSAGE_SIZE];
        snprintf(message, sizeof message, "%s", error->message);
        parac_fail_at(error, error->status, path, 0, "%s", message);
        mpi_cli_abort(comm, error); /* the other ranks may wait in a collective */
    }
    if ((code = mpi_cli_agree(comm, error)) != 0) return code; /* rank 0's failures */
    mpi_birch_label(run, labels, info, error);
    return mpi_cli_agree(comm, error);
}

int mpi_cmd_birch(MPI_Comm comm, int argc, char **argv)
{
    birch_args args = {0.5, 50, 3, PARAC_BIRCH_DEFAULT_BATCH, NULL, NULL, NULL, "speculative-parallel", 0, 0};
    const cli_option options_table[] = {
        {"--threshold", 0, CLI_DOUBLE, &args.threshold, "T", "largest subcluster radius (default 0.5)"},
        {"--branching-factor", 0, CLI_INT64, &args.branching, "B", "most entries per CF node (default 50)"},
        {"--n-clusters", 0, CLI_INT64, &args.clusters, "K", "clusters of the Ward global step; 0 keeps the subclusters (default 3)"},
        {"--output", 'o', CLI_STRING, &args.labels_path, "LABELS", "each point's cluster (.npy int32 or text)"},
        {"--centers", 0, CLI_STRING, &args.centers_path, "FILE", "cluster centres (count-weighted means), K rows"},
        {"--subclusters", 0, CLI_STRING, &args.subclusters_path, "FILE", "subcluster centroids of the merged tree, in leaf order"},
        {"--batch-size", 0, CLI_INT64, &args.batch, "B", "points per parallel batch of each rank's fit; 0 = serial (default 8192)"},
        {"--variant", 0, CLI_STRING, &args.variant, "NAME",
         "each rank's batched scheme: speculative-parallel (default), speculative or segmented (approximate)"},
        MPI_CLI_RANK_OPTIONS(args.timings, args.spread_gpus),
    };
    const cli_command command = {
        "birch", "INPUT [--threshold T] [--branching-factor B] [--n-clusters K] [-o LABELS] [options]",
        "BIRCH over the ranks of mpirun: each rank builds a CF tree on its rows of INPUT (a float32 or float64 .npy "
        "file, n x d, or a CSV/text table), rank 0 inserts the other ranks' subclusters into its tree (CF "
        "additivity) and runs the Ward global step, every rank labels its points. One rank gives `parac birch`'s "
        "bytes; more give a close partition (docs/DISTRIBUTED.md). --threads is per rank.",
        options_table, sizeof options_table / sizeof options_table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count, rank, ranks, code;
    parac_birch_options options;
    parac_error error;
    mpi_points block = {0};
    mpi_birch run = {0};
    mpi_birch_info info;
    int32_t *labels = NULL;
    double started = MPI_Wtime(), read_seconds, write_started;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    code = mpi_cli_parse(rank, &command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    parac_error_clear(&error);
    check_args(&args, &error);
    if (error.status == PARAC_OK && rank == 0) {
        const char *outputs[3] = {args.centers_path, args.subclusters_path, args.labels_path};
        cli_check_outputs(outputs, 3, positionals, 1, &error);
    }
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    if ((code = make_options(rank, &args, &common, &options, &error)) != CLI_CONTINUE) return code;
    if (args.spread_gpus) options.exec.cuda_device = mpi_cli_spread_gpus(comm, options.exec.cuda_device);
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    mpi_points_read(comm, positionals[0], &block, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code; /* a bad line outranks "no points" */
    if (block.total == 0) parac_fail_at(&error, PARAC_ERR_PARSE, positionals[0], 0, "no points to cluster");
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    read_seconds = MPI_Wtime() - started;
    mpi_cli_test_hook(rank);
    labels = malloc((block.count + 1) * sizeof(int32_t));
    if (block.count > (size_t)INT32_MAX)
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "%s: blocks of more than 2^31 - 1 points; use more ranks",
                   positionals[0]);
    else if (!labels)
        parac_fail_no_memory(&error, "labels", block.count * 4);
    if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
    if ((code = run_birch(comm, positionals[0], &options, &block, &run, &info, labels, &error)) != 0) goto done;
    if (rank == 0 && run.too_few)
        cli_warn(&common, "birch: %llu subclusters, fewer than --n-clusters %lld: each is a cluster; lower --threshold",
                 (unsigned long long)run.subclusters, (long long)args.clusters);
    write_started = MPI_Wtime();
    if ((code = write_outputs(comm, &args, &block, &run, labels, &error)) != 0) goto done;
    if (args.timings) print_timings(comm, &info, read_seconds, MPI_Wtime() - write_started);
    if (rank == 0) print_summary(&run, &common, ranks, MPI_Wtime() - started);
done:
    free(labels);
    mpi_birch_free(&run);
    mpi_points_free(&block);
    return code;
}
