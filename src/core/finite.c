/* core/finite.c — see finite.h. */
#include "core/finite.h"

#include <stdint.h>
#include <string.h>

/* Values per block: large enough that a block's scan outweighs taking it. */
#define FINITE_BLOCK 4096

/* Whether v[0..n) holds an infinity or NaN: all exponent bits set. */
static int block_has_non_finite(const double *v, size_t n)
{
    uint64_t found = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, v + i, sizeof bits);
        found |= (uint64_t)(((bits >> 52) & 0x7ff) == 0x7ff);
    }
    return found != 0;
}

size_t parac_first_non_finite(const double *values, size_t n, int threads)
{
    size_t blocks = (n + FINITE_BLOCK - 1) / FINITE_BLOCK, first_bad = blocks;
    if (threads < 1) threads = 1;
#pragma omp parallel for schedule(dynamic, 4) reduction(min : first_bad) num_threads(threads) if (threads > 1 && blocks > 16)
    for (size_t b = 0; b < blocks; b++) {
        size_t begin = b * FINITE_BLOCK, length = n - begin < FINITE_BLOCK ? n - begin : FINITE_BLOCK;
        if (b < first_bad && block_has_non_finite(values + begin, length)) first_bad = b;
    }
    if (first_bad == blocks) return n;
    for (size_t i = first_bad * FINITE_BLOCK;; i++) { /* the bad block holds one */
        uint64_t bits;
        memcpy(&bits, values + i, sizeof bits);
        if (((bits >> 52) & 0x7ff) == 0x7ff) return i;
    }
}

/* Float twin: an infinity or NaN has all 8 exponent bits set. */
static int block_has_non_finite_f32(const float *v, size_t n)
{
    uint32_t found = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, v + i, sizeof bits);
        found |= (uint32_t)(((bits >> 23) & 0xff) == 0xff);
    }
    return found != 0;
}

size_t parac_first_non_finite_f32(const float *values, size_t n, int threads)
{
    size_t blocks = (n + FINITE_BLOCK - 1) / FINITE_BLOCK, first_bad = blocks;
    if (threads < 1) threads = 1;
#pragma omp parallel for schedule(dynamic, 4) reduction(min : first_bad) num_threads(threads) if (threads > 1 && blocks > 16)
    for (size_t b = 0; b < blocks; b++) {
        size_t begin = b * FINITE_BLOCK, length = n - begin < FINITE_BLOCK ? n - begin : FINITE_BLOCK;
        if (b < first_bad && block_has_non_finite_f32(values + begin, length)) first_bad = b;
    }
    if (first_bad == blocks) return n;
    for (size_t i = first_bad * FINITE_BLOCK;; i++) {
        uint32_t bits;
        memcpy(&bits, values + i, sizeof bits);
        if (((bits >> 23) & 0xff) == 0xff) return i;
    }
}
