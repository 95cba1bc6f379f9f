/* core/select_nth.c — a median kd-tree node's split (see select_nth.h). */
#include "core/select_nth.h"

static void swap_ids(uint32_t *ids, size_t a, size_t b)
{
    uint32_t held = ids[a];
    ids[a] = ids[b];
    ids[b] = held;
}

size_t parac_box_widest(const double *low, const double *high, size_t dims)
{
    size_t widest = 0;
    for (size_t k = 1; k < dims; k++)
        if (high[k] - low[k] > high[widest] - low[widest]) widest = k;
    return widest;
}

void parac_select_nth(uint32_t *ids, size_t begin, size_t end, size_t nth, const double *points, size_t stride,
                      size_t k)
{
#define COORDINATE(i) points[(size_t)ids[i] * stride + k]
    /* Three-way partition around the pivot ([begin, less) below, [less, more) equal, [more, end) above):
     * equal coordinates (duplicate points, a grid's repeated values) end the search at once. A two-way
     * partition shrank by one per round on them: 100,000 duplicates took seconds, 10^6 minutes. */
    while (end - begin > 1) {
        size_t middle = begin + (end - begin) / 2, last = end - 1, less = begin, more = end, i = begin;
        double a = COORDINATE(begin), b = COORDINATE(middle), c = COORDINATE(last);
        double pivot = (a < b) == (b < c) ? b : ((b < a) == (a < c) ? a : c);
        while (i < more) {
            double value = COORDINATE(i);
            if (value < pivot) swap_ids(ids, less++, i++);
            else if (value > pivot) swap_ids(ids, i, --more);
            else i++;
        }
        if (nth < less) end = less;
        else if (nth >= more) begin = more;
        else return;
    }
#undef COORDINATE
}
