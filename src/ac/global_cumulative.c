/* ac/global_cumulative.c — cumulative by timetable reasoning on compulsory parts: task j surely
 * runs during [max o_j, min o_j + min l_j) with at least min h_j; origin a of task i stays only if
 * placing i at [a, a + min l_i) keeps the others' compulsory profile plus min h_i within the
 * capacity (condition le / lt with a constant or variable limit: its largest value). Heights that
 * can be negative disable it. Strength "partial" (the support search gives GAC on small scopes).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

typedef struct compulsory {
    int64_t start, end, height;  /* [start, end) */
} compulsory;

/* The largest load of the compulsory parts other than `skip` over [from, to). */
static int64_t peak_load(const compulsory *parts, size_t count, size_t skip, int64_t from, int64_t to)
{
    int64_t peak = 0;
    for (size_t c = 0; c <= count; c++) { /* the load is highest at from or at some part's start */
        int64_t t = c == count ? from : parts[c].start, load = 0;
        if (t < from || t >= to) continue;
        for (size_t j = 0; j < count; j++)
            if (j != skip && parts[j].start <= t && t < parts[j].end) load += parts[j].height;
        if (load > peak) peak = load;
    }
    return peak;
}

AC_PROPAGATOR(cumulative)
{
    const ac_term *origins = global->lists[0], *lengths = global->lists[1], *heights = global->lists[2];
    size_t n = global->list_length[0];
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values), capacity;
    compulsory *parts = malloc((n + 1) * sizeof *parts);
    int wipeout = 0;
    (void)stats;
    if (!values || !parts || global->list_count < 3) goto done;
    if (global->condition.op != AC_OP_LE && global->condition.op != AC_OP_LT) goto done;
    capacity = ac_term_max(model, domains, &global->condition.operand) - (global->condition.op == AC_OP_LT);
    for (size_t j = 0; j < n; j++) {
        int64_t latest = ac_term_max(model, domains, &origins[j]);
        int64_t earliest_end = ac_term_min(model, domains, &origins[j]) + ac_term_min(model, domains, &lengths[j]);
        if (ac_term_min(model, domains, &heights[j]) < 0 || ac_term_min(model, domains, &lengths[j]) < 0) goto done;
        parts[j] = (compulsory){latest, earliest_end > latest ? earliest_end : latest,
                                ac_term_min(model, domains, &heights[j])};
    }
    for (size_t i = 0; i < n && !wipeout; i++) {
        int64_t length = ac_term_min(model, domains, &lengths[i]), height = ac_term_min(model, domains, &heights[i]);
        size_t count;
        if (length == 0) continue;
        count = ac_term_values(model, domains, &origins[i], values);
        for (size_t k = 0; k < count && !wipeout; k++)
            if (peak_load(parts, n, i, values[k], values[k] + length) + height > capacity)
                wipeout = ac_term_remove(model, domains, &origins[i], values[k], changed);
    }
done:
    free(values), free(parts);
    return wipeout;
}
