/* core/select_nth.c — quickselect of point ids by one coordinate (see select_nth.h). */
#include "core/select_nth.h"

static void swap_ids(uint32_t *ids, size_t a, size_t b)
{
    uint32_t held = ids[a];
    ids[a] = ids[b];
    ids[b] = held;
}

void parac_select_nth(uint32_t *ids, size_t begin, size_t end, size_t nth, const double *points, size_t stride,
                      size_t k)
{
#define COORDINATE(i) points[(size_t)ids[i] * stride + k]
    while (end - begin > 2) {
        size_t middle = begin + (end - begin) / 2, last = end - 1, store = begin, pivot_at;
        double a = COORDINATE(begin), b = COORDINATE(middle), c = COORDINATE(last), pivot;
        pivot_at = (a < b) == (b < c) ? middle : ((b < a) == (a < c) ? begin : last);
        pivot = COORDINATE(pivot_at);
        swap_ids(ids, pivot_at, last);
        for (size_t i = begin; i < last; i++)
            if (COORDINATE(i) < pivot) swap_ids(ids, i, store++);
        swap_ids(ids, store, last);
        if (store == nth) return;
        if (nth < store) end = store;
        else begin = store + 1;
    }
    if (end - begin == 2 && COORDINATE(begin + 1) < COORDINATE(begin)) swap_ids(ids, begin, begin + 1);
#undef COORDINATE
}
