/* ac/global_ordered.c — ordered: x[i] + length[i] op x[i+1] for a chain (op <, <=, >=, >).
 *
 * Each link is monotone, so a forward pass (the values with a predecessor chain) and a backward
 * pass (those with a successor chain, among the former) leave exactly the supported values: GAC
 * for distinct variables. A chain needs only the extreme values: with < and <=, a value b has a
 * predecessor in S iff min(S) + length op b; with >= and >, iff max(S) + length op b.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

static int increasing(ac_operator op)
{
    return op == AC_OP_LT || op == AC_OP_LE;
}

/* Removes from `term` the values without a partner in the neighbour's (min, max): forward (the
 * neighbour precedes, link: neighbour + length op value) or backward (value + length op neighbour). */
static int filter(const ac_model *model, ac_domains *domains, const ac_term *term, const ac_term *neighbour,
                  int64_t length, ac_operator op, int forward, int64_t *values, uint8_t *changed)
{
    int64_t low = ac_term_min(model, domains, neighbour), high = ac_term_max(model, domains, neighbour);
    size_t count = ac_term_values(model, domains, term, values);
    for (size_t k = 0; k < count; k++) {
        int64_t v = values[k];
        int ok = forward ? ac_operator_holds(op, (increasing(op) ? low : high) + length, v)
                         : ac_operator_holds(op, v + length, increasing(op) ? high : low);
        if (!ok && ac_term_remove(model, domains, term, v, changed)) return 1;
    }
    return 0;
}

AC_PROPAGATOR(ordered)
{
    const ac_term *x = global->lists[0];
    size_t n = global->list_length[0];
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    int wipeout = 0;
    (void)stats;
    if (!values) return 0;
    for (size_t i = 1; i < n && !wipeout; i++) {
        int64_t length = global->coeffs && i - 1 < global->coeff_count ? global->coeffs[i - 1] : 0;
        wipeout = filter(model, domains, &x[i], &x[i - 1], length, global->op, 1, values, changed);
    }
    for (size_t i = n - (n > 0); i-- > 0 && !wipeout;) {
        int64_t length = global->coeffs && i < global->coeff_count ? global->coeffs[i] : 0;
        wipeout = filter(model, domains, &x[i], &x[i + 1], length, global->op, 0, values, changed);
    }
    free(values);
    return wipeout;
}
