/* tests/gemm/support_gemm.c */
#include "support_gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

int64_t support_storage(parac_gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (!ld) ld = layout == PARAC_GEMM_ROW_MAJOR ? cols : rows;
    return layout == PARAC_GEMM_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

float *support_random(uint64_t seed, parac_gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    int64_t count = support_storage(layout, rows, cols, ld);
    float *x = malloc((size_t)count * sizeof *x);
    parac_rng rng;
    parac_rng_seed(&rng, seed);
    for (int64_t i = 0; i < count; i++) x[i] = (float)(2.0 * parac_rng_uniform(&rng) - 1.0);
    return x;
}

unsigned char *support_zero_tiles(float *x, parac_gemm_layout layout, int64_t rows, int64_t cols, int64_t ld,
                                  int tile_rows, int tile_cols, double keep, uint64_t seed)
{
    int64_t tr = (rows + tile_rows - 1) / tile_rows, tc = (cols + tile_cols - 1) / tile_cols;
    unsigned char *mask = malloc((size_t)(tr * tc));
    parac_rng rng;
    if (!ld) ld = layout == PARAC_GEMM_ROW_MAJOR ? cols : rows;
    parac_rng_seed(&rng, seed);
    for (int64_t t = 0; t < tr * tc; t++) mask[t] = parac_rng_uniform(&rng) < keep;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            if (!mask[(r / tile_rows) * tc + c / tile_cols])
                x[layout == PARAC_GEMM_ROW_MAJOR ? r * ld + c : c * ld + r] = 0.0f;
    return mask;
}

static float at(const float *x, parac_gemm_layout layout, int64_t ld, int64_t r, int64_t c)
{
    return layout == PARAC_GEMM_ROW_MAJOR ? x[r * ld + c] : x[c * ld + r];
}

double support_error_bound_ratio(const parac_gemm_options *o, float alpha, const float *a, const float *b, float beta,
                                 const float *c0, const float *c, const float *ref)
{
    int64_t lda = o->lda ? o->lda : (o->layout_a == PARAC_GEMM_ROW_MAJOR ? o->k : o->m);
    int64_t ldb = o->ldb ? o->ldb : (o->layout_b == PARAC_GEMM_ROW_MAJOR ? o->n : o->k);
    int64_t ldc = o->ldc ? o->ldc : (o->layout_c == PARAC_GEMM_ROW_MAJOR ? o->n : o->m);
    double worst = 0.0;
    for (int64_t r = 0; r < o->m; r++)
        for (int64_t col = 0; col < o->n; col++) {
            double magnitude = 0.0, d;
            for (int64_t kk = 0; kk < o->k; kk++)
                magnitude += fabs((double)at(a, o->layout_a, lda, r, kk) * at(b, o->layout_b, ldb, kk, col));
            magnitude = fabs((double)alpha) * magnitude + fabs((double)beta * at(c0, o->layout_c, ldc, r, col));
            d = fabs((double)at(c, o->layout_c, ldc, r, col) - at(ref, o->layout_c, ldc, r, col));
            if (isnan(d)) return INFINITY;
            d /= magnitude > 1e-30 ? magnitude : 1e-30;
            if (d > worst) worst = d;
        }
    return worst;
}

float *support_copy(const float *x, int64_t count)
{
    float *y = malloc((size_t)count * sizeof *y);
    memcpy(y, x, (size_t)count * sizeof *y);
    return y;
}
