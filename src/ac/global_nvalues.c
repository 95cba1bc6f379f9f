/* ac/global_nvalues.c — nValues: the number of distinct values (except values not counted)
 * satisfies the condition. NP-hard to make GAC; this is the standard counting reasoning:
 *  - the count lies in [lb, ub]: lb = distinct values of the fixed terms, ub = min(terms that can
 *    take a counted value, counted values in the union of the domains); no allowed count in
 *    it: wipe-out; the operand keeps the values some count in [lb, ub] satisfies;
 *  - when the largest allowed count is lb, no term may bring a new value: the unfixed terms keep
 *    only the fixed terms' values and except values (atMostNValues' pruning).
 * Strength "partial" (the support search gives GAC on small scopes).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int is_in(const int64_t *set, size_t count, int64_t v)
{
    return count && bsearch(&v, set, count, sizeof v, compare_i64) != NULL;
}

AC_PROPAGATOR(nvalues)
{
    const ac_term *terms = global->lists[0];
    size_t n = global->list_length[0], total = 0, fixed_count = 0, union_count = 0, can_count = 0;
    size_t largest = ac_largest_domain(model->network), lb, ub, feasible_count = 0;
    int64_t *fixed = malloc((n + 1) * sizeof *fixed), *all = NULL, *values = malloc((largest + 1) * sizeof *values);
    int64_t *feasible = malloc((n + 2) * sizeof *feasible), max_allowed = -1;
    int wipeout = 0;
    (void)stats;
    if (!fixed || !values || !feasible) goto done;
    for (size_t i = 0; i < n; i++) total += ac_term_size(model, domains, &terms[i]);
    all = malloc((total + 1) * sizeof *all);
    if (!all) goto done;
    for (size_t i = 0; i < n; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values), counted = 0;
        for (size_t k = 0; k < count; k++)
            if (!is_in(global->values, global->value_count, values[k])) all[union_count++] = values[k], counted++;
        if (count == 1 && counted == 1) fixed[fixed_count++] = values[0];
        can_count += counted > 0;
    }
    qsort(fixed, fixed_count, sizeof *fixed, compare_i64);
    qsort(all, union_count, sizeof *all, compare_i64);
    lb = 0;
    for (size_t k = 0; k < fixed_count; k++) lb += k == 0 || fixed[k] != fixed[k - 1];
    ub = 0;
    for (size_t k = 0; k < union_count; k++) ub += k == 0 || all[k] != all[k - 1];
    if (ub > can_count) ub = can_count;
    for (size_t k = lb; k <= ub; k++) {
        feasible[feasible_count++] = (int64_t)k;
        if (ac_condition_possible(model, domains, &global->condition, (int64_t)k)) max_allowed = (int64_t)k;
    }
    if (max_allowed < 0) {
        wipeout = 1;
        goto done;
    }
    if ((size_t)max_allowed == lb) /* no new value may appear */
        for (size_t i = 0; i < n && !wipeout; i++) {
            size_t count = ac_term_values(model, domains, &terms[i], values), k = 0;
            if (count == 1) continue;
            for (; k < count && !wipeout; k++) {
                int64_t v = values[k];
                int kept = is_in(global->values, global->value_count, v);
                for (size_t f = 0; f < n && !kept; f++) /* a fixed term's value */
                    kept = ac_term_size(model, domains, &terms[f]) == 1 && ac_term_min(model, domains, &terms[f]) == v &&
                           f != i;
                if (!kept) wipeout = ac_term_remove(model, domains, &terms[i], v, changed);
            }
        }
    if (!wipeout) wipeout = ac_condition_prune_operand(model, domains, &global->condition, feasible, feasible_count, changed);
done:
    free(fixed), free(all), free(values), free(feasible);
    return wipeout;
}
