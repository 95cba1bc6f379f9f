/* core/sort_ids.h — ascending sort of uint32 ids: the one comparator the modules share (readers
 * sorting a row's ids, fca's Lindig candidates, ac's value lists). */
#ifndef PARAC_CORE_SORT_IDS_H
#define PARAC_CORE_SORT_IDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int parac_compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Short lists (a row's ids, an intent, the usual case) by insertion: an ascending one costs a comparison
 * an id, and no call through qsort's comparator; longer ones by qsort. */
#define PARAC_SORT_U32_INSERTION_MAX 48

static inline void parac_sort_u32(uint32_t *ids, size_t count)
{
    if (count > PARAC_SORT_U32_INSERTION_MAX) {
        qsort(ids, count, sizeof *ids, parac_compare_u32);
        return;
    }
    for (size_t i = 1; i < count; i++) {
        uint32_t value = ids[i];
        size_t j = i;
        while (j > 0 && ids[j - 1] > value) ids[j] = ids[j - 1], j--;
        ids[j] = value;
    }
}

#endif
