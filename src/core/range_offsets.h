/* core/range_offsets.h — the middle step of a parallel stable counting sort.
 *
 * Each thread owns a fixed contiguous range of the input and counts its keys
 * per bucket (counts[range * stride + bucket]); this turns the counts into
 * write positions: bucket by bucket, range by range, so that every thread can
 * scatter its range in input order and the output is the one stable order
 * whatever the number of ranges. Users: dbscan's radix sort, birch's grouping
 * of a window's points by root entry. */
#ifndef PARAC_CORE_RANGE_OFFSETS_H
#define PARAC_CORE_RANGE_OFFSETS_H

#include <stddef.h>

/* counts: `ranges` rows of `stride` (>= buckets) counters, replaced by the first
 * output position of (range, bucket). bucket_first (NULL allowed, else
 * buckets + 1 entries) receives where each bucket begins, and the total last. */
void parac_range_counts_to_offsets(size_t *counts, size_t buckets, int ranges, size_t stride, size_t *bucket_first);

#endif
