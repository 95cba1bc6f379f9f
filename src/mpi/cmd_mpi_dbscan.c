/* mpi/cmd_mpi_dbscan.c — `mpirun -n R parac-mpi dbscan INPUT --eps E --min-samples M` (INPUT: .npy or text). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/dbscan.h>

#include "core/error.h"
#include "mpi/cpu_time.h"
#include "mpi/distributed_dbscan.h"
#include "mpi/label_output.h"
#include "mpi/mpi_cli.h"
#include "mpi/npy_block.h"
#include "mpi/text_block.h"

typedef struct dbscan_args {
    double eps;
    int64_t min_samples;
    const char *output;
    const char *core_output;
    const char *method;
    int timings;
    int spread_gpus;
} dbscan_args;

/* One output file, whole or not at all (mpi/label_output.h). Collective; returns the agreed exit code. */
static int write_output(MPI_Comm comm, const char *target, const mpi_points *block, const int32_t *values,
                        parac_error *error)
{
    cli_output output;
    int code = mpi_labels_write(comm, target, block, values, &output, error);
    return mpi_outputs_finish(comm, &output, 1, code, error);
}

/* The labels and the core mask (as 0/1 labels), each through write_output. */
static int write_outputs(MPI_Comm comm, const dbscan_args *args, const mpi_points *block, const int32_t *labels,
                         const uint8_t *core, parac_error *error)
{
    int code = 0;
    int32_t *mask = NULL;
    if (args->output) code = write_output(comm, args->output, block, labels, error);
    if (code == 0 && args->core_output) {
        mask = malloc((block->count + 1) * sizeof(int32_t));
        if (!mask) parac_fail_no_memory(error, "core mask", block->count * 4);
        for (size_t i = 0; mask && i < block->count; i++) mask[i] = core[i];
        code = mpi_cli_agree(comm, error);
        if (code == 0) code = write_output(comm, args->core_output, block, mask, error);
    }
    free(mask);
    return code;
}

/* The slowest rank's time per phase, the CPU time (load-independent work: this machine is shared)
 * and the traffic, on stderr (--timings). */
static void print_timings(MPI_Comm comm, const mpi_dbscan_info *info, double read_seconds, double write_seconds)
{
    double mine[8] = {read_seconds,        info->seconds_partition, info->seconds_exchange, info->seconds_local,
                      info->seconds_merge, info->seconds_return,    info->seconds_relabel,  write_seconds};
    double slowest[8], cpu[2] = {info->cpu_seconds_local, mpi_process_cpu_seconds()}, cpu_max[2], cpu_sum[2];
    uint64_t counts[2] = {info->owned + info->halo, info->owned}, largest[2];
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    MPI_Reduce(mine, slowest, 8, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_max, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_sum, 2, MPI_DOUBLE, MPI_SUM, 0, comm);
    MPI_Reduce(counts, largest, 2, MPI_UINT64_T, MPI_MAX, 0, comm);
    if (rank != 0) return;
    fprintf(stderr,
            "timings (s, slowest rank): read %.3f partition %.3f exchange %.3f local %.3f merge %.3f return %.3f "
            "relabel %.3f gather+write %.3f\n",
            slowest[0], slowest[1], slowest[2], slowest[3], slowest[4], slowest[5], slowest[6], slowest[7]);
    fprintf(stderr, "cpu (s): local run max %.3f sum %.3f; whole process max %.3f sum %.3f\n", cpu_max[0], cpu_sum[0],
            cpu_max[1], cpu_sum[1]);
    fprintf(stderr, "traffic: ranks %d, halo points %llu, merge links %llu, largest local set %llu (owned %llu)\n",
            ranks, (unsigned long long)info->halo_total, (unsigned long long)info->links_total,
            (unsigned long long)largest[0], (unsigned long long)largest[1]);
}

int mpi_cmd_dbscan(MPI_Comm comm, int argc, char **argv)
{
    dbscan_args args = {0.0, 0, NULL, NULL, "auto", 0, 0};
    const cli_option options_table[] = {
        {"--eps", 0, CLI_DOUBLE, &args.eps, "E", "neighbourhood radius (> 0); distance == eps is a neighbour"},
        {"--min-samples", 0, CLI_INT64, &args.min_samples, "M", "neighbours (the point included) to be core (>= 1)"},
        {"--output", 'o', CLI_STRING, &args.output, "LABELS", "labels: .npy (int32) or text, one per line"},
        {"--core-mask", 0, CLI_STRING, &args.core_output, "FILE", "1 for core points, 0 otherwise"},
        {"--method", 0, CLI_STRING, &args.method, "auto|grid|brute-force|reference", "each rank's local algorithm"},
        MPI_CLI_RANK_OPTIONS(args.timings, args.spread_gpus),
    };
    const cli_command command = {
        "dbscan", "INPUT --eps E --min-samples M [-o LABELS] [--core-mask FILE]",
        "Exact DBSCAN over the ranks of mpirun, byte-identical to `parac dbscan`. INPUT is a float32 or float64 .npy "
        "file (n x d) or a CSV/text table (docs/INPUT.md); each rank reads its own rows. --threads is per rank.",
        options_table, sizeof options_table / sizeof options_table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count, rank, ranks, code;
    parac_dbscan_options options;
    parac_error error;
    mpi_points block = {0};
    mpi_dbscan_info info;
    int32_t *labels = NULL;
    uint8_t *core = NULL;
    double started = MPI_Wtime(), read_seconds, write_started;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    code = mpi_cli_parse(rank, &command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    parac_error_clear(&error);
    parac_dbscan_options_init(&options);
    if (parac_dbscan_method_parse(args.method, &options.method, &error) != PARAC_OK)
        return rank == 0 ? cli_usage_error("dbscan", "%s", error.message) : CLI_EXIT_USAGE;
    options.eps = args.eps;
    options.min_samples = (size_t)(args.min_samples > 0 ? args.min_samples : 0);
    options.exec = common.exec;
    options.exec.progress = NULL; /* no bar: R ranks would draw over each other */
    if (args.spread_gpus) options.exec.cuda_device = mpi_cli_spread_gpus(comm, options.exec.cuda_device);
    if (args.min_samples < 1)
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: --min-samples must be >= 1, got %lld",
                   (long long)args.min_samples);
    else if (!(args.eps > 0) || args.eps > 1.7976931348623157e308)
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "dbscan: eps must be a finite number > 0, got %g", args.eps);
    else if (rank == 0) {
        const char *outputs[2] = {args.output, args.core_output};
        cli_check_outputs(outputs, 2, positionals, 1, &error);
    }
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    mpi_points_read(comm, positionals[0], &block, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    if (block.dim == 0) /* an empty text file: `parac dbscan`'s refusal, said once */
        parac_fail_at(&error, PARAC_ERR_INVALID_ARGUMENT, positionals[0], 0, "dbscan: points have dimension 0");
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    read_seconds = MPI_Wtime() - started;
    mpi_cli_test_hook(rank);
    labels = malloc((block.count + 1) * sizeof(int32_t));
    core = malloc(block.count + 1);
    if (block.count > (size_t)INT32_MAX)
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "%s: blocks of more than 2^31 - 1 points; use more ranks",
                   positionals[0]);
    else if (!labels || !core)
        parac_fail_no_memory(&error, "labels", block.count * 5);
    if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
    if (mpi_dbscan_run(comm, &options, &block, labels, core, &info, &error) != PARAC_OK) {
        char message[PARAC_ERROR_MESSAGE_SIZE];
        snprintf(message, sizeof message, "%s", error.message);
        parac_fail_at(&error, error.status, positionals[0], 0, "%s", message);
        mpi_cli_abort(comm, &error);
    }
    write_started = MPI_Wtime();
    if ((code = write_outputs(comm, &args, &block, labels, core, &error)) != 0) goto done;
    if (args.timings) print_timings(comm, &info, read_seconds, MPI_Wtime() - write_started);
    if (rank == 0 && !common.quiet)
        fprintf(stderr, "dbscan: %llu points, %llu clusters, %llu core, %llu border, %llu noise (%d ranks, %.3f s)\n",
                (unsigned long long)block.total, (unsigned long long)info.clusters, (unsigned long long)info.core,
                (unsigned long long)info.border, (unsigned long long)info.noise, ranks,
                MPI_Wtime() - started);
done:
    free(labels);
    free(core);
    mpi_points_free(&block);
    return code;
}

