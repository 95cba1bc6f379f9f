/* core/range_offsets.c — counts per (thread range, bucket) to stable write positions. */
#include "core/range_offsets.h"

void parac_range_counts_to_offsets(size_t *counts, size_t buckets, int ranges, size_t stride, size_t *bucket_first)
{
    size_t position = 0;
    for (size_t bucket = 0; bucket < buckets; bucket++) {
        if (bucket_first) bucket_first[bucket] = position;
        for (int range = 0; range < ranges; range++) {
            size_t *count = &counts[(size_t)range * stride + bucket];
            size_t here = *count;
            *count = position;
            position += here;
        }
    }
    if (bucket_first) bucket_first[buckets] = position;
}
