/* cli/gemm_setup.h — what `parac gemm` and `parac-mpi gemm` share (gemm_setup.c): the options they
 * both parse, their checks, the generated or file inputs and the starting C, so that both programs
 * multiply the same matrices with the same plan options (parac-mpi's -n 1 output is parac gemm's). */
#ifndef PARAC_CLI_GEMM_SETUP_H
#define PARAC_CLI_GEMM_SETUP_H

#include <stdint.h>

#include <parac/gemm.h>

#include "cli/cli.h"

typedef struct gemm_args {
    int64_t m, n, k, band, block, tile_m, tile_n, tile_k, split_k;
    double density, alpha, beta;
    const char *dtype, *schedule, *variant, *output;
    int power_law, verify, explain, repeats, autotune, stages, pack;
    const char *tune_cache; /* --tune-cache: read by the plan; written by --autotune */
} gemm_args;

#define GEMM_UNSET INT64_MIN /* --m, --n, --k not given */
/* parac gemm's defaults: no shape, --block 64, alpha 1, beta 0, fp32, auto everything, 3 repeats. */
#define GEMM_ARGS_DEFAULT \
    {GEMM_UNSET, GEMM_UNSET, GEMM_UNSET, -1, 64, 0, 0, 0, 0, 0.0, 1.0, 0.0, "fp32", "auto", "auto", NULL, 0, 0, 0, 3, 0, 0, 0, NULL}

typedef struct gemm_inputs {
    parac_gemm_matrix a, b;
    float *c;
    int sparse_a, sparse_b; /* scan A / B for zero tiles */
} gemm_inputs;

/* Everything the command line alone decides: CLI_CONTINUE or the exit code after the error line. */
int gemm_check_args(const gemm_args *args, int positional_count);
/* The plan options the command line gives (dtype, schedule, variant, tiles, split, stages, pack, cache);
 * call after gemm_check_args accepted the names. */
void gemm_set_tuning(const gemm_args *args, parac_gemm_options *options);
/* A (banded or block-sparse when asked) and B generated from seed and seed + 1. */
parac_status gemm_generate_inputs(const gemm_args *args, uint64_t seed, gemm_inputs *in, parac_error *error);
/* A and B from files; a shape mismatch is PARAC_ERR_INVALID_ARGUMENT naming both; an operand with
 * more than a quarter zeros is scanned for zero tiles. */
parac_status gemm_read_inputs(const char *a_path, const char *b_path, gemm_inputs *in, parac_error *error);
/* Shape, layouts and zero-tile scans of the inputs (C row-major). */
void gemm_fill_options(const cli_common *common, const gemm_inputs *in, parac_gemm_options *options);
/* The C that beta multiplies: zeros, or (beta != 0) random from seed + 2. c has m x n floats. */
parac_status gemm_initial_c(const gemm_args *args, const cli_common *common, int64_t m, int64_t n, float *c,
                            parac_error *error);

#endif
