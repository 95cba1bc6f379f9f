/* ac/global_lex.c — lex: each list is lexicographically op the next (op <, <=, >=, >).
 *
 * One pair X op Y (>= and > swap the lists) is the regular language of an automaton over the pairs
 * (x_i, y_i) with two states, "equal so far" and "already smaller": forward and backward
 * reachability over its layers, which need only min / max / common values of each pair, leave
 * exactly the supported values, the GAC result of Frisch et al.'s lex algorithm, in O(n * d).
 * Several lists: each consecutive pair in turn (GAC per pair; a chain of three or more lists is
 * not GAC in general, the support search covers small ones).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

typedef struct lex_pair {
    const ac_term *x, *y;
    size_t n;
    int strict;
} lex_pair;

static int common_value(const ac_model *model, const ac_domains *domains, const ac_term *x, const ac_term *y,
                        int64_t *values)
{
    size_t count = ac_term_values(model, domains, x, values);
    for (size_t k = 0; k < count; k++)
        if (ac_term_has(model, domains, y, values[k])) return 1;
    return 0;
}

/* Prunes one side of position i: the values v of `term` with no partner in `other` (as x when
 * side_x, else as y). */
static int prune_side(const ac_model *model, ac_domains *domains, const ac_term *term, const ac_term *other,
                      int side_x, int from_equal_to_equal, int from_equal_to_less, int64_t *values, uint8_t *changed)
{
    int64_t other_min = ac_term_min(model, domains, other), other_max = ac_term_max(model, domains, other);
    size_t count = ac_term_values(model, domains, term, values);
    for (size_t k = 0; k < count; k++) {
        int64_t v = values[k];
        int less = side_x ? v < other_max : other_min < v;
        int ok = (from_equal_to_equal && ac_term_has(model, domains, other, v)) || (from_equal_to_less && less);
        if (!ok && ac_term_remove(model, domains, term, v, changed)) return 1;
    }
    return 0;
}

static int propagate_pair(const ac_model *model, ac_domains *domains, const lex_pair *p, int64_t *values,
                          uint8_t *changed)
{
    size_t n = p->n;
    uint8_t *f_equal = calloc(n + 1, 1), *f_less = calloc(n + 1, 1), *b_equal = calloc(n + 1, 1);
    uint8_t *b_less = calloc(n + 1, 1), *common = calloc(n + 1, 1), *can_less = calloc(n + 1, 1);
    int wipeout = 0;
    if (!f_equal || !f_less || !b_equal || !b_less || !common || !can_less) goto done;
    for (size_t i = 0; i < n; i++) {
        common[i] = (uint8_t)common_value(model, domains, &p->x[i], &p->y[i], values);
        can_less[i] = ac_term_min(model, domains, &p->x[i]) < ac_term_max(model, domains, &p->y[i]);
    }
    f_equal[0] = 1;
    for (size_t i = 0; i < n; i++) {
        f_equal[i + 1] = f_equal[i] && common[i];
        f_less[i + 1] = f_less[i] || (f_equal[i] && can_less[i]);
    }
    b_equal[n] = !p->strict, b_less[n] = 1;
    for (size_t i = n; i-- > 0;) {
        b_less[i] = b_less[i + 1];
        b_equal[i] = (common[i] && b_equal[i + 1]) || (can_less[i] && b_less[i + 1]);
    }
    if (!b_equal[0]) {
        wipeout = 1;
        goto done;
    }
    for (size_t i = 0; i < n && !wipeout; i++) {
        int free_here = f_less[i] && b_less[i + 1];
        int equal_equal = f_equal[i] && b_equal[i + 1], equal_less = f_equal[i] && b_less[i + 1];
        if (free_here) continue;
        wipeout = prune_side(model, domains, &p->x[i], &p->y[i], 1, equal_equal, equal_less, values, changed) ||
                  prune_side(model, domains, &p->y[i], &p->x[i], 0, equal_equal, equal_less, values, changed);
    }
done:
    free(f_equal), free(f_less), free(b_equal), free(b_less), free(common), free(can_less);
    return wipeout;
}

AC_PROPAGATOR(lex)
{
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    int wipeout = 0, swap = global->op == AC_OP_GE || global->op == AC_OP_GT;
    (void)stats;
    if (!values) return 0;
    for (size_t l = 0; l + 1 < global->list_count && !wipeout; l++) {
        lex_pair p = {global->lists[swap ? l + 1 : l], global->lists[swap ? l : l + 1], 0,
                      global->op == AC_OP_LT || global->op == AC_OP_GT};
        p.n = global->list_length[l] < global->list_length[l + 1] ? global->list_length[l] : global->list_length[l + 1];
        wipeout = propagate_pair(model, domains, &p, values, changed);
    }
    free(values);
    return wipeout;
}
