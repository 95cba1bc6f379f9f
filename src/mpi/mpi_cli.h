/* mpi/mpi_cli.h — what the parac-mpi subcommands share (mpi_cli.c): parsing on every rank with
 * one rank printing, collective error agreement, aborting the job, the test hook. */
#ifndef PARAC_MPI_CLI_H
#define PARAC_MPI_CLI_H

#include <mpi.h>

#include <parac/status.h>

#include "cli/cli.h"

/* Every rank calls this with its own status. When any rank failed, the lowest failing rank prints
 * its message (cli_report) and every rank returns that rank's exit code; 0 when all succeeded. */
int mpi_cli_agree(MPI_Comm comm, const parac_error *error);
/* For failures the other ranks cannot see (they may wait in a collective): prints
 * "parac: error: rank R: ..." and ends the job with MPI_Abort. */
void mpi_cli_abort(MPI_Comm comm, const parac_error *error);
/* cli_parse on every rank; only rank 0's usage errors and --help reach the terminal. */
int mpi_cli_parse(int rank, const cli_command *command, int argc, char **argv, cli_common *common,
                  const char **positionals, int *positional_count);
/* --spread-gpus: the CUDA device of this rank, (first + rank on this host) mod the host's device count,
 * so that ranks sharing a host use its GPUs in turn; first when there is no GPU. Collective. */
int mpi_cli_spread_gpus(MPI_Comm comm, int first);
/* PARAC_MPI_TEST_KILL_RANK=r makes rank r die by SIGKILL (tests: a lost node must end the job). */
void mpi_cli_test_hook(int rank);

/* The options of the distributed commands that run a rank's work on a device (dbscan, birch, gemm), as
 * cli_option entries bound to two int flags: --timings (each phase on the slowest rank) and --spread-gpus. */
#define MPI_CLI_RANK_OPTIONS(timings, spread_gpus)                                                          \
    {"--timings", 0, CLI_FLAG, &(timings), NULL, "print each phase's time (slowest rank) and the traffic"}, \
    {"--spread-gpus", 0, CLI_FLAG, &(spread_gpus), NULL,                                                    \
     "ranks on one host take its GPUs in turn, from --cuda-device on (default: all use --cuda-device)"}

int mpi_cmd_dbscan(MPI_Comm comm, int argc, char **argv);
int mpi_cmd_fca(MPI_Comm comm, int argc, char **argv);
int mpi_cmd_birch(MPI_Comm comm, int argc, char **argv);
int mpi_cmd_gemm(MPI_Comm comm, int argc, char **argv);

#endif
