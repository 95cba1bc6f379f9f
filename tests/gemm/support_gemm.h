/* tests/gemm/support_gemm.h — random matrices and comparisons for the gemm tests. */
#ifndef PARAC_TEST_SUPPORT_GEMM_H
#define PARAC_TEST_SUPPORT_GEMM_H

#include <stdint.h>

#include <parac/gemm.h>

/* Storage size of a rows x cols matrix with leading dimension ld in layout. */
int64_t support_storage(parac_gemm_layout layout, int64_t rows, int64_t cols, int64_t ld);
/* malloc'ed matrix (rows x cols in layout, ld 0 = packed) with values uniform in [-1, 1). */
float *support_random(uint64_t seed, parac_gemm_layout layout, int64_t rows, int64_t cols, int64_t ld);
/* Zeroes the (tile_rows x tile_cols) tiles of x whose mask entry is 0; returns the mask (malloc'ed). */
unsigned char *support_zero_tiles(float *x, parac_gemm_layout layout, int64_t rows, int64_t cols, int64_t ld,
                                  int tile_rows, int tile_cols, double keep, uint64_t seed);
/* max |c - ref| / (|alpha| * sum_k |a||b| + |beta||c0|), elementwise, via a double pass. */
double support_error_bound_ratio(const parac_gemm_options *o, float alpha, const float *a, const float *b, float beta,
                                 const float *c0, const float *c, const float *ref);
float *support_copy(const float *x, int64_t count);

#endif
