/* mpi/mpi_cli.c — parsing, error agreement and aborts shared by the parac-mpi subcommands (mpi_cli.h). */
#include "mpi/mpi_cli.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <parac/devices.h>

int mpi_cli_agree(MPI_Comm comm, const parac_error *error)
{
    int rank, ranks, mine, failed, code = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    mine = error->status != PARAC_OK ? rank : ranks;
    MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MIN, comm);
    if (failed == ranks) return 0;
    if (rank == failed) code = cli_report(error);
    MPI_Bcast(&code, 1, MPI_INT, failed, comm);
    return code;
}

void mpi_cli_abort(MPI_Comm comm, const parac_error *error)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    fprintf(stderr, "parac: error: rank %d: %s\n", rank, error->message);
    fflush(stderr);
    MPI_Abort(comm, parac_status_exit_code(error->status));
}

int mpi_cli_parse(int rank, const cli_command *command, int argc, char **argv, cli_common *common,
                  const char **positionals, int *positional_count)
{
    int saved_out = -1, saved_err = -1, null_fd, code;
    if (rank != 0 && (null_fd = open("/dev/null", O_WRONLY)) >= 0) {
        fflush(stdout), fflush(stderr);
        saved_out = dup(1), saved_err = dup(2);
        dup2(null_fd, 1), dup2(null_fd, 2);
        close(null_fd);
    }
    code = cli_parse(command, argc, argv, common, positionals, positional_count);
    if (saved_out >= 0) {
        fflush(stdout), fflush(stderr);
        dup2(saved_out, 1), dup2(saved_err, 2);
        close(saved_out), close(saved_err);
    }
    return code;
}

int mpi_cli_spread_gpus(MPI_Comm comm, int first)
{
    MPI_Comm host;
    int local_rank = 0, devices = parac_cuda_device_count(NULL, 0);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &local_rank);
    MPI_Comm_free(&host);
    return devices > 0 ? (first + local_rank) % devices : first;
}

/* Test hook (tests/mpi/): the subcommands call it after reading their input. */
void mpi_cli_test_hook(int rank)
{
    const char *victim = getenv("PARAC_MPI_TEST_KILL_RANK");
    if (victim && *victim && atoi(victim) == rank) raise(SIGKILL);
}

