/* mpi/cmd_mpi_fca.c — `mpirun -n R parac-mpi fca INPUT [--count] [-o FILE] [--min-support N] [--extents]
 * [--names]`: the concepts (or their count) of `parac fca`, byte for byte, searched by R ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "core/error.h"
#include "core/threads.h"
#include "mpi/distributed_fca.h"
#include "mpi/mpi_cli.h"

typedef struct fca_args {
    const char *output;
    const char *format;
    int64_t min_support;
    int count_only, extents, names, timings;
} fca_args;

/* Rank 0: the count, or the concepts in parac fca's text (the library's writer: one format for both
 * front ends), formatted on `threads` threads. */
static parac_status write_concepts(const fca_args *args, const parac_fca_context *context,
                                   const parac_fca_concepts *concepts, uint64_t count, int threads, parac_error *error)
{
    cli_output output;
    parac_fca_text_options text = {args->extents, args->names};
    parac_status status = PARAC_OK;
    FILE *out = cli_output_open(&output, args->output, error);
    if (!out) return error->status;
    if (args->count_only) fprintf(out, "%llu\n", (unsigned long long)count);
    else status = parac_fca_concepts_write_text(context, concepts, &text, threads, cli_write_text, out, error);
    /* stopped by the writer (a full disk, Ctrl-C): the commit names the cause */
    if (status != PARAC_OK && !(status == PARAC_ERR_CANCELLED && (ferror(out) || cli_interrupted()))) {
        cli_output_abort(&output, NULL);
        return status;
    }
    return cli_output_commit(&output, error);
}

int mpi_cmd_fca(MPI_Comm comm, int argc, char **argv)
{
    fca_args args = {0};
    const cli_option table[] = {
        {"--count", 0, CLI_FLAG, &args.count_only, NULL, "print only the number of concepts (stores none)"},
        {"--output", 'o', CLI_STRING, &args.output, "FILE", "write concepts to FILE (default stdout)"},
        {"--min-support", 0, CLI_INT64, &args.min_support, "N", "only concepts with at least N objects"},
        {"--extents", 0, CLI_FLAG, &args.extents, NULL, "append ' | ' and the extent's object ids"},
        {"--names", 0, CLI_FLAG, &args.names, NULL, "print names (from .cxt/CSV headers) instead of ids"},
        {"--format", 0, CLI_STRING, &args.format, "F", "input format: auto|fimi|cxt|csv"},
        {"--timings", 0, CLI_FLAG, &args.timings, NULL, "print the search's spread over the ranks and the steals on stderr"},
    };
    const cli_command command = {
        "fca", "INPUT [--count] [-o FILE] [--min-support N] [--extents] [--names]",
        "FCbO over the ranks of mpirun: every rank reads the context, the search tree is shared by work stealing "
        "(an idle rank takes another's shallowest pending node), rank 0 writes the concepts in canonical order, "
        "byte-identical to `parac fca`. --threads: rank 0's sort and write of the concepts (the search runs one thread a rank).",
        table, sizeof table / sizeof table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count, rank, ranks, code, threads;
    parac_fca_format format = PARAC_FCA_FORMAT_AUTO;
    parac_fca_context *context = NULL;
    parac_fca_concepts *concepts = NULL;
    parac_error error;
    mpi_fca_info info;
    uint64_t count = 0;
    double started = MPI_Wtime();
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    code = mpi_cli_parse(rank, &command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    parac_error_clear(&error);
    if (cli_parse_fca_format(args.format, &format)) return rank == 0 ? cli_usage_error("fca", "unknown --format '%s'", args.format) : 1;
    if (args.min_support < 0)
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "fca: --min-support must be >= 0");
    else if (rank == 0)
        cli_check_outputs(&args.output, 1, positionals, 1, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    parac_fca_context_read(positionals[0], format, &context, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
    mpi_cli_test_hook(rank);
    /* rank 0 sorts and writes after the search, while the other ranks wait (and poll) in MPI: their
     * cores count as busy now as then */
    threads = rank == 0 ? parac_threads_for_run(common.exec.threads) : 1;
    if (mpi_fca_run(comm, context, (uint64_t)args.min_support, threads, args.count_only ? NULL : &concepts, &count,
                    &info, &error) != PARAC_OK)
        mpi_cli_abort(comm, &error);
    if (rank == 0) write_concepts(&args, context, concepts, count, threads, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
    if (args.timings) {
        double slowest, idle_most, cpu_most, cpu_sum;
        uint64_t most = 0, fewest = 0, moved[2] = {info.steals, info.requests}, moved_sum[2] = {0, 0};
        MPI_Reduce(&info.seconds_search, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&info.seconds_idle, &idle_most, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&info.cpu_seconds_search, &cpu_most, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&info.cpu_seconds_search, &cpu_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        MPI_Reduce(&info.concepts_here, &most, 1, MPI_UINT64_T, MPI_MAX, 0, comm);
        MPI_Reduce(&info.concepts_here, &fewest, 1, MPI_UINT64_T, MPI_MIN, 0, comm);
        MPI_Reduce(moved, moved_sum, 2, MPI_UINT64_T, MPI_SUM, 0, comm);
        if (rank == 0)
            fprintf(stderr,
                    "timings: search %.3f s (slowest rank), idle at most %.3f s, search CPU %.3f s (slowest rank) "
                    "%.3f s (all), %llu first-level subtrees, %llu steals (%llu requests), concepts per rank "
                    "%llu..%llu\n",
                    slowest, idle_most, cpu_most, cpu_sum, (unsigned long long)info.subtrees, (unsigned long long)moved_sum[0],
                    (unsigned long long)moved_sum[1], (unsigned long long)fewest, (unsigned long long)most);
    }
    if (rank == 0 && !common.quiet)
        fprintf(stderr, "fca: %llu concepts (%d ranks, %.3f s)\n", (unsigned long long)count, ranks,
                MPI_Wtime() - started);
done:
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    return code;
}
