/* ac/global_cardinality.c — cardinality (global cardinality constraint): value v_k occurs o_k
 * times in the list (o_k a constant, a variable or a range); closed: only listed values.
 * The counting reasoning, not Régin's flow (strength "partial"; the support search gives GAC on
 * small scopes): with sure_k terms fixed to v_k and possible_k terms able to take it,
 *  - o_k keeps [sure_k, possible_k]; an empty intersection is a wipe-out;
 *  - when sure_k reaches o_k's maximum, the other terms lose v_k;
 *  - when possible_k equals o_k's minimum, every term able to take v_k takes it;
 *  - closed: values not listed go.
 * Values given as variables are skipped (no pruning on their account).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

static int listed(const parac_csp_global *g, int64_t v)
{
    for (size_t k = 0; k < g->list_length[1]; k++)
        if (g->lists[1][k].var < 0 && g->lists[1][k].value == v) return 1;
    return 0;
}

static int all_values_constant(const parac_csp_global *g)
{
    for (size_t k = 0; k < g->list_length[1]; k++)
        if (g->lists[1][k].var >= 0) return 0;
    return 1;
}

AC_PROPAGATOR(cardinality)
{
    const ac_term *terms = global->lists[0];
    size_t n = global->list_length[0];
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    int wipeout = 0;
    (void)stats;
    if (!values) return 0;
    for (size_t k = 0; k < global->list_length[1] && !wipeout; k++) {
        const ac_term *occurs = &global->lists[2][k];
        int64_t v = global->lists[1][k].value, sure = 0, possible = 0, low, high;
        if (global->lists[1][k].var >= 0) continue;
        for (size_t i = 0; i < n; i++)
            if (ac_term_has(model, domains, &terms[i], v)) {
                possible++;
                sure += ac_term_size(model, domains, &terms[i]) == 1;
            }
        if (global->has_ranges && occurs->var < 0) {
            low = global->ranges[k].low, high = global->ranges[k].high;
        } else {
            if (ac_term_restrict(model, domains, occurs, sure, possible, changed)) {
                wipeout = 1;
                break;
            }
            low = ac_term_min(model, domains, occurs), high = ac_term_max(model, domains, occurs);
        }
        if (sure > high || possible < low) {
            wipeout = 1;
            break;
        }
        for (size_t i = 0; i < n && !wipeout; i++) {
            if (!ac_term_has(model, domains, &terms[i], v) || ac_term_size(model, domains, &terms[i]) == 1) continue;
            if (sure == high) wipeout = ac_term_remove(model, domains, &terms[i], v, changed);
            else if (possible == low) wipeout = ac_term_restrict(model, domains, &terms[i], v, v, changed);
        }
    }
    if (global->closed && all_values_constant(global))
        for (size_t i = 0; i < n && !wipeout; i++) {
            size_t count = ac_term_values(model, domains, &terms[i], values);
            for (size_t k = 0; k < count && !wipeout; k++)
                if (!listed(global, values[k])) wipeout = ac_term_remove(model, domains, &terms[i], values[k], changed);
        }
    free(values);
    return wipeout;
}
