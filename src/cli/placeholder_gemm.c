/* TEMPORARY placeholder: replaced by the gemm module's own CLI files. */
#include "cli/cli.h"
#include <stdio.h>
int cli_gemm(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_gemm is not built yet\n"); return 4; }
int cli_gen_matrix(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_gen_matrix is not built yet\n"); return 4; }
