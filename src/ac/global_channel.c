/* ac/global_channel.c — channel.
 *  - list + value v: x[i] in {0, 1}; x[i] = 1 needs v = i, x[i] = 0 needs v != i; v = i needs x[i]
 *    able to be 1 and every other x[j] able to be 0; repeated to a fixpoint this is GAC (the
 *    solutions are the indexes k of v with x[k] able to be 1 and the others able to be 0).
 *  - two lists of equal length: y is the inverse permutation of x. After the channeling (x[i]
 *    keeps j iff y[j] can be i, and the converse), x[i] = j is supported iff the edge (i, j) is in
 *    a perfect matching of that graph: Régin's allDifferent on x, then y reflects x. GAC.
 *  - one list (x[i] = j <=> x[j] = i: an involution, a matching in a general graph) and lists of
 *    different lengths: channeling plus allDifferent, strength "partial" (the support search gives
 *    GAC on small scopes).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

/* Removes from x[i] the values j without an index j or without i in partner[j]. */
static int channel_side(const ac_model *model, ac_domains *domains, const ac_term *x, size_t n, int64_t x_start,
                        const ac_term *partner, size_t m, int64_t partner_start, int64_t *values, uint8_t *changed)
{
    for (size_t i = 0; i < n; i++) {
        size_t count = ac_term_values(model, domains, &x[i], values);
        for (size_t k = 0; k < count; k++) {
            int64_t j = values[k] - partner_start;
            if (j >= 0 && (uint64_t)j < m && ac_term_has(model, domains, &partner[j], (int64_t)i + x_start)) continue;
            if (ac_term_remove(model, domains, &x[i], values[k], changed)) return 1;
        }
    }
    return 0;
}

static int channel_value_once(const ac_model *model, ac_domains *domains, const parac_csp_global *global,
                              int64_t *values, uint8_t *changed)
{
    const ac_term *x = global->lists[0], *v = &global->condition.operand;
    size_t n = global->list_length[0], count;
    int64_t start = global->start_index;
    for (size_t i = 0; i < n; i++) {
        int64_t index = (int64_t)i + start;
        if (ac_term_restrict(model, domains, &x[i], 0, 1, changed)) return 1;
        if (!ac_term_has(model, domains, v, index) && ac_term_remove(model, domains, &x[i], 1, changed)) return 1;
        if (ac_term_size(model, domains, v) == 1 && ac_term_min(model, domains, v) == index &&
            ac_term_remove(model, domains, &x[i], 0, changed))
            return 1;
    }
    count = ac_term_values(model, domains, v, values);
    for (size_t k = 0; k < count; k++) {
        int64_t i = values[k] - start;
        int ok = i >= 0 && (uint64_t)i < n && ac_term_has(model, domains, &x[i], 1);
        for (size_t j = 0; j < n && ok; j++) ok = (int64_t)j == i || ac_term_has(model, domains, &x[j], 0);
        if (!ok && ac_term_remove(model, domains, v, values[k], changed)) return 1;
    }
    return 0;
}

static uint64_t values_left(const ac_model *model, const ac_domains *domains, const parac_csp_global *global)
{
    uint64_t total = ac_term_size(model, domains, &global->condition.operand);
    for (size_t i = 0; i < global->list_length[0]; i++) total += ac_term_size(model, domains, &global->lists[0][i]);
    return total;
}

static int channel_value(const ac_model *model, ac_domains *domains, const parac_csp_global *global, int64_t *values,
                         uint8_t *changed)
{
    uint64_t before;
    do {
        before = values_left(model, domains, global);
        if (channel_value_once(model, domains, global, values, changed)) return 1;
    } while (values_left(model, domains, global) < before);
    return 0;
}

AC_PROPAGATOR(channel)
{
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    size_t n = global->list_length[0];
    int wipeout = 0;
    (void)stats;
    if (!values) return 0;
    if (global->list_count < 2 && global->condition.op == AC_OP_EQ) {
        wipeout = channel_value(model, domains, global, values, changed);
    } else if (global->list_count < 2) {
        wipeout = channel_side(model, domains, global->lists[0], n, global->start_index, global->lists[0], n,
                               global->start_index, values, changed) ||
                  ac_all_different_terms(model, domains, global->lists[0], n, NULL, 0, changed);
    } else {
        size_t m = global->list_length[1];
        wipeout = channel_side(model, domains, global->lists[0], n, global->start_index, global->lists[1], m,
                               global->start_index2, values, changed);
        if (!wipeout && n == m)
            wipeout = channel_side(model, domains, global->lists[1], m, global->start_index2, global->lists[0], n,
                                   global->start_index, values, changed) ||
                      ac_all_different_terms(model, domains, global->lists[0], n, NULL, 0, changed) ||
                      channel_side(model, domains, global->lists[1], m, global->start_index2, global->lists[0], n,
                                   global->start_index, values, changed);
        else if (!wipeout)
            wipeout = ac_all_different_terms(model, domains, global->lists[0], n, NULL, 0, changed);
    }
    free(values);
    return wipeout;
}
