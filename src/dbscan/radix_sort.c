/* dbscan/radix_sort.c — parallel stable LSD radix sort, 8 bits a pass.
 *
 * Each thread owns a fixed contiguous slice: it counts its digits, a prefix
 * over (digit, thread) gives every thread its write positions, and the
 * scatter keeps input order within a digit, so the output is the one stable
 * order whatever the thread count.
 */
#include "dbscan/radix_sort.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/range_offsets.h"

#define DIGIT_BITS 8
#define DIGITS (1 << DIGIT_BITS)

static void scatter_pass(const uint64_t *keys_in, const uint32_t *values_in, uint64_t *keys_out, uint32_t *values_out,
                         size_t count, int shift, int threads, size_t *histogram)
{
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
        size_t begin = count * (size_t)t / (size_t)threads, end = count * (size_t)(t + 1) / (size_t)threads;
        size_t *mine = histogram + (size_t)t * DIGITS;
        memset(mine, 0, DIGITS * sizeof(size_t));
        for (size_t i = begin; i < end; i++) mine[(keys_in[i] >> shift) & (DIGITS - 1)]++;
#pragma omp barrier
#pragma omp single
        parac_range_counts_to_offsets(histogram, DIGITS, threads, DIGITS, NULL);
        for (size_t i = begin; i < end; i++) {
            size_t at = mine[(keys_in[i] >> shift) & (DIGITS - 1)]++;
            keys_out[at] = keys_in[i];
            values_out[at] = values_in[i];
        }
    }
}

parac_status dbscan_radix_sort_pairs(uint64_t *keys, uint32_t *values, size_t count, int key_bits, int threads,
                                     parac_error *error)
{
    int passes = (key_bits + DIGIT_BITS - 1) / DIGIT_BITS;
    uint64_t *key_scratch;
    uint32_t *value_scratch;
    size_t *histogram;
    if (passes == 0 || count < 2) return PARAC_OK;
    if (threads < 1) threads = 1;
    key_scratch = malloc(count * sizeof(uint64_t));
    value_scratch = malloc(count * sizeof(uint32_t));
    histogram = malloc((size_t)threads * DIGITS * sizeof(size_t));
    if (!key_scratch || !value_scratch || !histogram) {
        free(key_scratch);
        free(value_scratch);
        free(histogram);
        return parac_fail_no_memory(error, "radix sort scratch", (unsigned long long)count * 12);
    }
    for (int pass = 0; pass < passes; pass++) {
        int even = (pass % 2) == 0;
        scatter_pass(even ? keys : key_scratch, even ? values : value_scratch, even ? key_scratch : keys,
                     even ? value_scratch : values, count, pass * DIGIT_BITS, threads, histogram);
    }
    if (passes % 2) {
        memcpy(keys, key_scratch, count * sizeof(uint64_t));
        memcpy(values, value_scratch, count * sizeof(uint32_t));
    }
    free(key_scratch);
    free(value_scratch);
    free(histogram);
    return PARAC_OK;
}
