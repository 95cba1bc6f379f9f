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

/* The options parac gemm and parac-mpi gemm share (shape, generated inputs, arithmetic, plan), as
 * cli_option entries bound to the fields of `args` (a gemm_args): one list, so an option added here
 * reaches both programs. */
#define GEMM_SHARED_OPTIONS(args) \
    {"--m", 0, CLI_INT64, &(args).m, "M", "rows of A and C (generated input)"}, \
    {"--n", 0, CLI_INT64, &(args).n, "N", "columns of B and C (generated input)"}, \
    {"--k", 0, CLI_INT64, &(args).k, "K", "columns of A, rows of B (generated input)"}, \
    {"--dtype", 0, CLI_STRING, &(args).dtype, "fp32|tf32", "arithmetic (default fp32)"}, \
    {"--schedule", 0, CLI_STRING, &(args).schedule, "static|dynamic|auto", "tile scheduling (default auto)"}, \
    {"--variant", 0, CLI_STRING, &(args).variant, "NAME", \
     "GPU kernel family: auto (default), base, wgmma, wgmma_tma, n256, wgmma_ws, bk32, wgmma_ws_a"}, \
    {"--band", 0, CLI_INT64, &(args).band, "W", "A is banded: A(i,j) = 0 when |i-j| > W"}, \
    {"--block-density", 0, CLI_DOUBLE, &(args).density, "P", "A is block-sparse with a fraction P of non-zero blocks"}, \
    {"--block", 0, CLI_INT64, &(args).block, "B", "block edge for --block-density (default 64)"}, \
    {"--power-law", 0, CLI_FLAG, &(args).power_law, NULL, "block rows' densities follow a power law (irregular)"}, \
    {"--alpha", 0, CLI_DOUBLE, &(args).alpha, "X", "alpha (default 1)"}, \
    {"--beta", 0, CLI_DOUBLE, &(args).beta, "X", "beta (default 0; generated C is random when non-zero)"}, \
    {"--tile-m", 0, CLI_INT64, &(args).tile_m, "T", "C tile rows: 64 or 128 (default: chosen)"}, \
    {"--tile-n", 0, CLI_INT64, &(args).tile_n, "T", "C tile columns: 64 or 128 (default: chosen)"}, \
    {"--tile-k", 0, CLI_INT64, &(args).tile_k, "T", "k tile: multiple of 16 up to 256 (default 64)"}, \
    {"--split-k", 0, CLI_INT64, &(args).split_k, "S", "k segments per C tile (default: chosen)"}, \
    {"--stages", 0, CLI_INT, &(args).stages, "S", \
     "pipeline stages: wgmma_tma 4 or 6, n256 4 = its BK-16 kernel (default: chosen)"}, \
    {"--pack", 0, CLI_FLAG, &(args).pack, NULL, "pack B even where bk32 / n256 could copy it in place (to compare)"}

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
/* PARAC_OK when A (m x k), B (k x n), C and C's starting copy, all fp32, fit in what this process may
 * use (core/memory_limit.h); else PARAC_ERR_NO_MEMORY (exit 3) before anything is allocated. */
parac_status gemm_require_memory(int64_t m, int64_t n, int64_t k, parac_error *error);
/* A (banded or block-sparse when asked) and B generated from seed and seed + 1. */
parac_status gemm_generate_inputs(const gemm_args *args, uint64_t seed, gemm_inputs *in, parac_error *error);
/* A and B from files; a shape mismatch is PARAC_ERR_INVALID_ARGUMENT naming both; an operand with
 * more than a quarter zeros is scanned for zero tiles. */
parac_status gemm_read_inputs(const char *a_path, const char *b_path, gemm_inputs *in, parac_error *error);
/* A's columns must be B's rows: PARAC_ERR_INVALID_ARGUMENT naming both files otherwise. */
parac_status gemm_check_shapes(const char *a_path, int64_t a_rows, int64_t a_cols, const char *b_path, int64_t b_rows,
                               int64_t b_cols, parac_error *error);
/* The rule that makes an operand scanned for zero tiles: more than a quarter of its values are zero
 * (parac-mpi gemm adds up its ranks' counts of their pieces). */
int gemm_is_sparse(int64_t zeros, int64_t count);
int64_t gemm_count_zeros(const float *values, int64_t count);
/* Shape, layouts and zero-tile scans of the inputs (C row-major). */
void gemm_fill_options(const cli_common *common, const gemm_inputs *in, parac_gemm_options *options);
/* The C that beta multiplies: zeros, or (beta != 0) random from seed + 2. c has m x n floats. */
parac_status gemm_initial_c(const gemm_args *args, const cli_common *common, int64_t m, int64_t n, float *c,
                            parac_error *error);

#endif
