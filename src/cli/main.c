/* cli/main.c — `parac <command> ...`: finds the subcommand and runs it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <parac/version.h>

#include "cli/cli.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand SUBCOMMANDS[] = {
    {"fca", cli_fca, "formal concepts of a binary context (FCbO)"},
    {"lattice", cli_lattice, "covering edges of the concept lattice (dot, graphml, json)"},
    {"dbscan", cli_dbscan, "exact DBSCAN clustering"},
    {"birch", cli_birch, "BIRCH clustering (CF tree, global step, labels), also streamed"},
    {"metrics", cli_metrics, "ARI, NMI, silhouette and Davies-Bouldin of a labelling"},
    {"gemm", cli_gemm, "plan-driven (KDA) matrix multiply, dense, banded or block-sparse"},
    {"ac", cli_ac, "arc consistency (and SAC) of XCSP constraint networks"},
    {"gen", cli_gen, "reproducible synthetic inputs (context, points, matrix, csp)"},
    {"devices", cli_devices, "list the GPUs parac can use"},
};
#define SUBCOMMAND_COUNT (sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0])

static void print_help(void)
{
    printf("parac %s — hard-to-parallelize algorithms on CPU and NVIDIA GPUs\n\n", PARAC_VERSION_STRING);
    printf("usage: parac <command> [options] [input]\n\ncommands:\n");
    for (size_t i = 0; i < SUBCOMMAND_COUNT; i++) printf("  %-10s %s\n", SUBCOMMANDS[i].name, SUBCOMMANDS[i].summary);
    printf("\ncommon options: --device auto|cpu|cuda, --threads N, --json, --quiet, --seed S\n");
    printf("'parac <command> --help' describes a command. Exit codes: 0 ok, 1 usage, 2 bad input,\n"
           "3 out of memory or device failure, 4 internal error, 130 interrupted.\n");
}

/* A standard stream closed by the caller (`parac ... >&-`) would hand its number to the next file
 * opened, and the summary printf would land in an output file. Park /dev/null there, opened the
 * wrong way round, so writes to stdout fail (and are reported) instead. */
static void hold_standard_streams(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        int held = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (held >= 0 && held != fd) {
            dup2(held, fd);
            close(held);
        }
    }
}

static int run(int argc, char **argv)
{
    for (size_t i = 0; i < SUBCOMMAND_COUNT; i++)
        if (strcmp(argv[1], SUBCOMMANDS[i].name) == 0) return SUBCOMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "parac: error: unknown command '%s' (see 'parac --help')\n", argv[1]);
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    hold_standard_streams();
    cli_signals_install();
    if (argc < 2) {
        print_help();
        fprintf(stderr, "parac: error: missing command (see 'parac --help')\n");
        return cli_finish(CLI_EXIT_USAGE);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        print_help();
        return cli_finish(CLI_EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("parac %s (%s)\n", PARAC_VERSION_STRING, parac_built_with_cuda() ? "with CUDA" : "CPU only");
        return cli_finish(CLI_EXIT_OK);
    }
    return cli_finish(run(argc, argv));
}
