/* TEMPORARY placeholder: replaced by the fca module's own CLI files. */
#include "cli/cli.h"
#include <stdio.h>
int cli_fca(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_fca is not built yet\n"); return 4; }
int cli_lattice(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_lattice is not built yet\n"); return 4; }
int cli_gen_context(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_gen_context is not built yet\n"); return 4; }
