/* dbscan/radix_sort.h — parallel LSD radix sort of (u64 key, u32 value) pairs.
 *
 * Stable, so the result does not depend on the thread count. Only the low
 * key_bits bits are sorted (keys must fit in them).
 */
#ifndef PARAC_DBSCAN_RADIX_SORT_H
#define PARAC_DBSCAN_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

/* Sorts keys/values in place using scratch buffers it allocates. */
parac_status dbscan_radix_sort_pairs(uint64_t *keys, uint32_t *values, size_t count, int key_bits, int threads,
                                     parac_error *error);

#endif
