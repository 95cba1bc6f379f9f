/* core/finite.c — see finite.h. */
#include "core/finite.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

/* Values per block: large enough that a block's scan outweighs taking it. */
#define FINITE_BLOCK 4096

#define ABS64 0x7fffffffffffffffull
#define ABS32 0x7fffffffu
#define FLOAT32_INFINITY_BITS 0x7f800000u

static int is_beyond64(const double *v, uint64_t limit_bits)
{
    uint64_t bits;
    memcpy(&bits, v, sizeof bits);
    return (bits & ABS64) > limit_bits;
}

static int is_beyond32(const float *v)
{
    uint32_t bits;
    memcpy(&bits, v, sizeof bits);
    return (bits & ABS32) >= FLOAT32_INFINITY_BITS;
}

/* Whether v[0..n) holds a value beyond the limit (given as the bits of |limit|). */
static int block_beyond64(const double *v, size_t n, uint64_t limit_bits)
{
    uint64_t found = 0;
    for (size_t i = 0; i < n; i++) found |= (uint64_t)is_beyond64(v + i, limit_bits);
    return found != 0;
}

static int block_non_finite32(const float *v, size_t n)
{
    uint32_t found = 0;
    for (size_t i = 0; i < n; i++) found |= (uint32_t)is_beyond32(v + i);
    return found != 0;
}

static size_t block_length(size_t n, size_t b) { return n - b * FINITE_BLOCK < FINITE_BLOCK ? n - b * FINITE_BLOCK : FINITE_BLOCK; }

size_t parac_first_beyond(const double *values, size_t n, double limit, int threads)
{
    size_t blocks = (n + FINITE_BLOCK - 1) / FINITE_BLOCK, first_bad = blocks;
    uint64_t limit_bits;
    memcpy(&limit_bits, &limit, sizeof limit_bits);
    limit_bits &= ABS64;
    if (threads < 1) threads = 1;
#pragma omp parallel for schedule(dynamic, 4) reduction(min : first_bad) num_threads(threads) if (threads > 1 && blocks > 16)
    for (size_t b = 0; b < blocks; b++)
        if (b < first_bad && block_beyond64(values + b * FINITE_BLOCK, block_length(n, b), limit_bits)) first_bad = b;
    if (first_bad == blocks) return n;
    for (size_t i = first_bad * FINITE_BLOCK;; i++) /* the bad block holds one */
        if (is_beyond64(values + i, limit_bits)) return i;
}

size_t parac_first_non_finite(const double *values, size_t n, int threads)
{
    return parac_first_beyond(values, n, DBL_MAX, threads);
}

size_t parac_first_non_finite_f32(const float *values, size_t n, int threads)
{
    size_t blocks = (n + FINITE_BLOCK - 1) / FINITE_BLOCK, first_bad = blocks;
    if (threads < 1) threads = 1;
#pragma omp parallel for schedule(dynamic, 4) reduction(min : first_bad) num_threads(threads) if (threads > 1 && blocks > 16)
    for (size_t b = 0; b < blocks; b++)
        if (b < first_bad && block_non_finite32(values + b * FINITE_BLOCK, block_length(n, b))) first_bad = b;
    if (first_bad == blocks) return n;
    for (size_t i = first_bad * FINITE_BLOCK;; i++)
        if (is_beyond32(values + i)) return i;
}
