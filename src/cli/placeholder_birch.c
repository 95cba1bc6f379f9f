/* TEMPORARY placeholder: replaced by the birch module's own CLI files. */
#include "cli/cli.h"
#include <stdio.h>
int cli_birch(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_birch is not built yet\n"); return 4; }
