/* ac/global_count.c — count (and atLeast / atMost / exactly): the number k of terms of lists[0]
 * taking a value of lists[1] satisfies the condition.
 *
 * With constant values V: "sure" terms have their domain inside V, "possible" ones meet V; k can be
 * any number between sure and possible (terms are independent), so with K = the counts in
 * [sure, possible] the condition allows (for some operand value), an undecided term keeps its
 * values in V iff some k in K exceeds sure, and its others iff some k in K is below possible; the
 * operand keeps the values b for which some k in [sure, possible] satisfies k op b. GAC for
 * distinct variables. Values given as variables: only the support search (small scopes).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

AC_PROPAGATOR(count)
{
    const ac_term *terms = global->lists[0];
    size_t n = global->list_length[0], v_count = global->list_length[1], largest = ac_largest_domain(model->network);
    int64_t *set = malloc((v_count + 1) * sizeof *set), *values = malloc((largest + 1) * sizeof *values);
    int64_t *feasible = malloc((n + 2) * sizeof *feasible);
    uint8_t *state = malloc(n + 1); /* 0: outside V, 1: inside V, 2: undecided */
    size_t sure = 0, possible = 0, feasible_count = 0;
    int wipeout = 0, above = 0, below = 0;
    (void)stats;
    if (!set || !values || !feasible || !state) goto done;
    for (size_t k = 0; k < v_count; k++) {
        if (global->lists[1][k].var >= 0) goto done;
        set[k] = global->lists[1][k].value;
    }
    qsort(set, v_count, sizeof *set, compare_i64);
    for (size_t i = 0; i < n; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values), in = 0;
        for (size_t k = 0; k < count; k++) in += bsearch(&values[k], set, v_count, sizeof *set, compare_i64) != NULL;
        state[i] = in == count ? 1 : in == 0 ? 0 : 2;
        sure += in == count && count > 0;
        possible += in > 0;
    }
    for (size_t k = sure; k <= possible; k++)
        if (ac_condition_possible(model, domains, &global->condition, (int64_t)k)) {
            feasible[feasible_count++] = (int64_t)k;
            above |= k > sure, below |= k < possible;
        }
    if (!feasible_count) {
        wipeout = 1;
        goto done;
    }
    for (size_t i = 0; i < n && !wipeout; i++) {
        size_t count;
        if (state[i] != 2 || (above && below)) continue;
        count = ac_term_values(model, domains, &terms[i], values);
        for (size_t k = 0; k < count && !wipeout; k++) {
            int in = bsearch(&values[k], set, v_count, sizeof *set, compare_i64) != NULL;
            if (in ? !above : !below) wipeout = ac_term_remove(model, domains, &terms[i], values[k], changed);
        }
    }
    if (!wipeout) { /* the operand: counts reachable in [sure, possible] */
        size_t all = 0;
        for (size_t k = sure; k <= possible; k++) feasible[all++] = (int64_t)k;
        wipeout = ac_condition_prune_operand(model, domains, &global->condition, feasible, all, changed);
    }
done:
    free(set), free(values), free(feasible), free(state);
    return wipeout;
}
