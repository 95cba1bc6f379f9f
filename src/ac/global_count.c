/* ac/global_count.c — count (and atLeast / atMost / exactly): the number k of terms of lists[0]
 * taking a value of lists[1] satisfies the condition.
 *
 * With constant values V: "sure" terms have their domain inside V, "possible" ones meet V; k can be
 * any number between sure and possible (terms are independent), so with K = the counts in
 * [sure, possible] the condition allows (for some operand value), an undecided term keeps its
 * values in V iff some k in K exceeds sure, and its others iff some k in K is below possible; the
 * operand keeps the values b for which some k in [sure, possible] satisfies k op b. GAC for
 * distinct variables.
 * One value given as a variable y: the same reasoning for each w of D(y) (sure_w, possible_w, the
 * allowed counts K_w): y keeps w iff K_w is not empty; x_i keeps w iff some k of K_w is reachable
 * with x_i counted, and a != w iff for some w the counts without x_i reach K_w. GAC, in
 * O(|D(y)| * n * d). Several values with variables among them: only the support search.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct count_range {
    int64_t sure, possible;
} count_range;

/* Some k in [low, high] satisfies the condition (for some operand value). */
static int allowed_between(const ac_model *model, const ac_domains *domains, const ac_condition *condition,
                           int64_t low, int64_t high)
{
    for (int64_t k = low; k <= high; k++)
        if (ac_condition_possible(model, domains, condition, k)) return 1;
    return 0;
}

/* count with lists[1] = one variable y. Returns 1 on wipe-out. */
static int count_variable_value(const ac_model *model, ac_domains *domains, const parac_csp_global *global,
                                uint8_t *changed)
{
    const ac_term *terms = global->lists[0], *y = &global->lists[1][0];
    size_t n = global->list_length[0], largest = ac_largest_domain(model->network), w_count;
    int64_t *ws = malloc((largest + 1) * sizeof *ws), *values = malloc((largest + 1) * sizeof *values);
    int64_t *feasible = malloc((n + 2) * sizeof *feasible);
    count_range *ranges = NULL;
    uint8_t *y_ok = NULL;
    int wipeout = 0;
    if (!ws || !values || !feasible) goto done;
    w_count = ac_term_values(model, domains, y, ws);
    ranges = malloc((w_count + 1) * sizeof *ranges), y_ok = calloc(w_count + 1, 1);
    if (!ranges || !y_ok) goto done;
    for (size_t k = 0; k < w_count; k++) {
        ranges[k].sure = ranges[k].possible = 0;
        for (size_t i = 0; i < n; i++)
            if (ac_term_has(model, domains, &terms[i], ws[k])) {
                ranges[k].possible++;
                ranges[k].sure += ac_term_size(model, domains, &terms[i]) == 1;
            }
        y_ok[k] = (uint8_t)allowed_between(model, domains, &global->condition, ranges[k].sure, ranges[k].possible);
    }
    for (size_t i = 0; i < n && !wipeout; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values);
        for (size_t v = 0; v < count && !wipeout; v++) {
            int ok = 0;
            for (size_t k = 0; k < w_count && !ok; k++) {
                int has = ac_term_has(model, domains, &terms[i], ws[k]), sure = has && count == 1;
                if (!y_ok[k]) continue;
                if (values[v] == ws[k]) /* x_i counted */
                    ok = allowed_between(model, domains, &global->condition, ranges[k].sure + !sure, ranges[k].possible);
                else /* x_i not counted (it cannot be sure for w: it holds another value) */
                    ok = allowed_between(model, domains, &global->condition, ranges[k].sure, ranges[k].possible - has);
            }
            if (!ok) wipeout = ac_term_remove(model, domains, &terms[i], values[v], changed);
        }
    }
    for (size_t k = 0; k < w_count && !wipeout; k++)
        if (!y_ok[k]) wipeout = ac_term_remove(model, domains, y, ws[k], changed);
    if (!wipeout && global->condition.operand.var >= 0) { /* b kept iff some w and k in [sure_w, possible_w] fit */
        int64_t low = INT64_MAX, high = INT64_MIN;
        size_t all = 0;
        for (size_t k = 0; k < w_count; k++) {
            if (ranges[k].sure < low) low = ranges[k].sure;
            if (ranges[k].possible > high) high = ranges[k].possible;
        }
        for (int64_t c = low; c <= high && w_count; c++) {
            int reachable = 0;
            for (size_t k = 0; k < w_count && !reachable; k++) reachable = ranges[k].sure <= c && c <= ranges[k].possible;
            if (reachable) feasible[all++] = c;
        }
        if (all) wipeout = ac_condition_prune_operand(model, domains, &global->condition, feasible, all, changed);
    }
done:
    free(ws), free(values), free(feasible), free(ranges), free(y_ok);
    return wipeout;
}

/* count's exact case with values as variables: one value, a variable. */
int ac_count_variable_value(const parac_csp_global *global)
{
    return global->list_length[1] == 1 && global->lists[1][0].var >= 0;
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
    if (ac_count_variable_value(global)) {
        wipeout = count_variable_value(model, domains, global, changed);
        goto done;
    }
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
