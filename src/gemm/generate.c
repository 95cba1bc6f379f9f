/* gemm/generate.c — dense, banded and block-sparse test matrices.
 *
 * Values come from one random stream per row (parac_rng_split), so a matrix
 * is the same whatever the thread count; the block pattern from one stream
 * per block row. Power-law block rows (for irregular work) get densities
 * proportional to 1/rank, ranks shuffled, rescaled to the requested mean.
 */
#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/rng.h"
#include <parac/gemm.h>

#define PATTERN_STREAM_OFFSET 0x9e3779b97f4a7c15ull

static double *block_row_densities(const parac_gemm_matrix_spec *spec, int64_t block_rows)
{
    double *density = malloc((size_t)block_rows * sizeof *density), sum = 0.0, scale;
    int64_t *rank = malloc((size_t)block_rows * sizeof *rank);
    parac_rng rng;
    if (!density || !rank) {
        free(density);
        free(rank);
        return NULL;
    }
    for (int64_t r = 0; r < block_rows; r++) rank[r] = r;
    parac_rng_seed(&rng, spec->seed ^ PATTERN_STREAM_OFFSET);
    for (int64_t r = block_rows - 1; r > 0; r--) { /* Fisher-Yates */
        int64_t j = (int64_t)parac_rng_below(&rng, (uint64_t)r + 1), t = rank[r];
        rank[r] = rank[j];
        rank[j] = t;
    }
    for (int64_t r = 0; r < block_rows; r++) sum += spec->power_law ? 1.0 / (double)(rank[r] + 1) : 1.0;
    scale = spec->density * (double)block_rows / sum;
    for (int64_t r = 0; r < block_rows; r++) {
        density[r] = (spec->power_law ? 1.0 / (double)(rank[r] + 1) : 1.0) * scale;
        if (density[r] > 1.0) density[r] = 1.0;
    }
    free(rank);
    return density;
}

static parac_status check_spec(const parac_gemm_matrix_spec *spec, parac_error *error)
{
    if (spec->rows < 1 || spec->cols < 1)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "matrix: rows and cols must be >= 1");
    if (spec->kind == PARAC_GEMM_MATRIX_BANDED && spec->band < 0)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "matrix: band must be >= 0");
    if (spec->kind == PARAC_GEMM_MATRIX_BLOCK_SPARSE && (spec->block < 1 || !(spec->density > 0.0 && spec->density <= 1.0)))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "matrix: block-sparse needs block >= 1 and density in (0, 1]");
    return PARAC_OK;
}

static int keep_block(const parac_gemm_matrix_spec *spec, const double *density, int64_t block_row, int64_t block_col,
                      int64_t block_cols)
{
    parac_rng rng;
    parac_rng_split(&rng, spec->seed ^ PATTERN_STREAM_OFFSET, (uint64_t)(block_row * block_cols + block_col));
    return parac_rng_uniform(&rng) < density[block_row];
}

parac_status parac_gemm_matrix_generate(const parac_gemm_matrix_spec *spec, float *values, parac_error *error)
{
    parac_status status = check_spec(spec, error);
    int64_t block = spec->kind == PARAC_GEMM_MATRIX_BLOCK_SPARSE ? spec->block : 1;
    int64_t block_rows = (spec->rows + block - 1) / block, block_cols = (spec->cols + block - 1) / block;
    double *density = NULL;
    if (status != PARAC_OK) return status;
    if (spec->kind == PARAC_GEMM_MATRIX_BLOCK_SPARSE && !(density = block_row_densities(spec, block_rows)))
        return parac_fail_no_memory(error, "block densities", (unsigned long long)block_rows * 16);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < spec->rows; r++) {
        parac_rng rng;
        float *row = values + r * spec->cols;
        parac_rng_split(&rng, spec->seed, (uint64_t)r);
        for (int64_t c = 0; c < spec->cols; c++) row[c] = (float)(2.0 * parac_rng_uniform(&rng) - 1.0);
        if (spec->kind == PARAC_GEMM_MATRIX_BANDED)
            for (int64_t c = 0; c < spec->cols; c++)
                if (llabs(r - c) > spec->band) row[c] = 0.0f;
        if (spec->kind == PARAC_GEMM_MATRIX_BLOCK_SPARSE)
            for (int64_t bc = 0; bc < block_cols; bc++)
                if (!keep_block(spec, density, r / block, bc, block_cols))
                    for (int64_t c = bc * block; c < (bc + 1) * block && c < spec->cols; c++) row[c] = 0.0f;
    }
    free(density);
    return PARAC_OK;
}
