/* cli/cmd_gen.c — `parac gen KIND ...`: dispatches to each module's generator. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct generator {
    const char *kind;
    int (*run)(int argc, char **argv);
    const char *summary;
} generator;

static const generator GENERATORS[] = {
    {"context", cli_gen_context, "random binary context (FIMI .dat) for fca"},
    {"points", cli_gen_points, "point clouds (blobs, uniform, moons) for dbscan, birch"},
    {"matrix", cli_gen_matrix, "dense, banded or block-sparse matrices for gemm"},
    {"csp", cli_gen_csp, "random binary constraint networks (XCSP3) for ac"},
};
#define GENERATOR_COUNT (sizeof GENERATORS / sizeof GENERATORS[0])

int cli_gen(int argc, char **argv)
{
    if (argc >= 2) {
        for (size_t i = 0; i < GENERATOR_COUNT; i++)
            if (strcmp(argv[1], GENERATORS[i].kind) == 0) return GENERATORS[i].run(argc - 1, argv + 1);
    }
    if (argc >= 2 && strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0) {
        fprintf(stderr, "parac: error: gen: unknown kind '%s' (see 'parac gen --help')\n", argv[1]);
        return CLI_EXIT_USAGE;
    }
    printf("usage: parac gen KIND [options] -o FILE\n\nkinds:\n");
    for (size_t i = 0; i < GENERATOR_COUNT; i++) printf("  %-8s %s\n", GENERATORS[i].kind, GENERATORS[i].summary);
    if (argc >= 2) return CLI_EXIT_OK;
    fprintf(stderr, "parac: error: gen: missing KIND (see 'parac gen --help')\n");
    return CLI_EXIT_USAGE;
}
