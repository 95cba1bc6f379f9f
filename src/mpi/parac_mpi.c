/* mpi/parac_mpi.c — the `parac-mpi` program: `mpirun -n R parac-mpi dbscan|fca|birch|gemm ...` (docs/DISTRIBUTED.md).
 *
 * Options and messages are the parac CLI's own (src/cli/cli_args.c, cli_common.c and
 * cli_output.c are linked in): every rank parses the same argv, only rank 0 prints.
 * Errors every rank can see (a bad option, an unreadable or malformed file, a
 * non-finite coordinate) are agreed on collectively: the lowest failing rank prints
 * "parac: error: ..." and every rank exits with its code. An error that leaves the
 * other ranks inside a collective (memory, device) is printed with its rank and ends
 * the job with MPI_Abort. A rank that dies makes mpirun end the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi/mpi_cli.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: mpirun -n R parac-mpi dbscan INPUT --eps E --min-samples M [-o LABELS] [options]\n"
                "       mpirun -n R parac-mpi fca INPUT [--count] [-o FILE] [--min-support N]\n"
                "       mpirun -n R parac-mpi birch INPUT [--threshold T] [--n-clusters K] [-o LABELS] [options]\n"
                "       mpirun -n R parac-mpi gemm [A B -o C] [--m M --n N --k K] [--grid PxQ] [options]\n"
                "       parac-mpi dbscan|fca|birch|gemm --help\n");
}

int main(int argc, char **argv)
{
    int rank, code;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc >= 2 && strcmp(argv[1], "dbscan") == 0) {
        code = mpi_cmd_dbscan(MPI_COMM_WORLD, argc - 1, argv + 1);
    } else if (argc >= 2 && strcmp(argv[1], "birch") == 0) {
        code = mpi_cmd_birch(MPI_COMM_WORLD, argc - 1, argv + 1);
    } else if (argc >= 2 && strcmp(argv[1], "fca") == 0) {
        code = mpi_cmd_fca(MPI_COMM_WORLD, argc - 1, argv + 1);
    } else if (argc >= 2 && strcmp(argv[1], "gemm") == 0) {
        code = mpi_cmd_gemm(MPI_COMM_WORLD, argc - 1, argv + 1);
    } else {
        if (rank == 0) usage(stderr);
        code = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) ? 0 : CLI_EXIT_USAGE;
    }
    fflush(stdout);
    MPI_Finalize();
    return code;
}
