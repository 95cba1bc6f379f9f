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

static inline void parac_sort_u32(uint32_t *ids, size_t count)
{
    if (count > 1) qsort(ids, count, sizeof *ids, parac_compare_u32);
}

#endif
