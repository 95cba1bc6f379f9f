/* TEMPORARY placeholder: replaced by the ac module's own CLI files. */
#include "cli/cli.h"
#include <stdio.h>
int cli_ac(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_ac is not built yet\n"); return 4; }
int cli_gen_csp(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_gen_csp is not built yet\n"); return 4; }
