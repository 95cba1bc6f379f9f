/* ac/global_sum.c — sum(c_i * x_i) op k, with k a constant, a variable, a range or a set.
 *
 * A variable limit y becomes one more term (coefficient -1) compared with 0. Then:
 *  - GAC by dynamic programming over partial sums when it is cheap: the work, sum over terms of
 *    (range of the partial sums before it) x (its values), at most AC_SUM_DP_STATE_LIMIT: F_i = sums reachable by the first i
 *    terms, G_i = sums from which the remaining terms can reach a sum satisfying the condition;
 *    value a of term i is supported iff some s in F_i has s + c_i a in G_{i+1}. O(states * d).
 *  - bounds consistency otherwise (and for ne / not in, which bounds cannot use: nothing then):
 *    each term's weight must fit between the limit and the other terms' extreme sums, repeated
 *    until nothing changes.
 * Repeated variables are merged first (x + x = 2x; the limit variable too), so the DP is exact
 * whatever the repetitions.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

typedef struct sum_terms {
    size_t count;
    ac_term *terms;
    int64_t *coeffs;
    int64_t limit;          /* the constant compared with (0 when the limit variable became a term) */
} sum_terms;

typedef struct weighted_term {
    ac_term term;
    int64_t coeff;
} weighted_term;

static int compare_by_variable(const void *a, const void *b)
{
    int64_t x = ((const weighted_term *)a)->term.var, y = ((const weighted_term *)b)->term.var;
    return (x > y) - (x < y);
}

/* Terms over one variable become one term (coefficients added), constants one constant, so the DP
 * is exact whatever the repetitions (x + x = 2x). Left as is when a sum overflows. */
static void merge_terms(sum_terms *s)
{
    weighted_term *all = malloc((s->count + 1) * sizeof *all);
    size_t out = 0;
    int64_t constant = 0;
    int has_constant = 0;
    if (!all) return;
    for (size_t i = 0; i < s->count; i++) all[i] = (weighted_term){s->terms[i], s->coeffs[i]};
    qsort(all, s->count, sizeof *all, compare_by_variable);
    for (size_t i = 0; i < s->count; i++) {
        int64_t weight;
        if (all[i].term.var < 0) {
            if (__builtin_mul_overflow(all[i].coeff, all[i].term.value, &weight) ||
                __builtin_add_overflow(constant, weight, &constant))
                goto done;
            has_constant = 1;
        } else if (out > 0 && all[out - 1].term.var == all[i].term.var) {
            if (__builtin_add_overflow(all[out - 1].coeff, all[i].coeff, &all[out - 1].coeff)) goto done;
        } else {
            all[out++] = all[i];
        }
    }
    if (has_constant) all[out++] = (weighted_term){{AC_TERM_CONSTANT, constant}, 1};
    for (size_t i = 0; i < out; i++) s->terms[i] = all[i].term, s->coeffs[i] = all[i].coeff;
    s->count = out;
done:
    free(all);
}

static int sum_terms_build(const parac_csp_global *global, sum_terms *s)
{
    size_t n = global->list_length[0];
    int variable_limit = global->condition.operand.var >= 0 && global->condition.op != AC_OP_IN &&
                         global->condition.op != AC_OP_NOT_IN;
    s->count = n + (size_t)variable_limit;
    s->terms = malloc((s->count + 1) * sizeof *s->terms);
    s->coeffs = malloc((s->count + 1) * sizeof *s->coeffs);
    if (!s->terms || !s->coeffs) return -1;
    for (size_t i = 0; i < n; i++) {
        s->terms[i] = global->lists[0][i];
        s->coeffs[i] = global->coeffs && i < global->coeff_count ? global->coeffs[i] : 1;
    }
    s->limit = global->condition.operand.value;
    if (variable_limit) {
        s->terms[n] = global->condition.operand;
        s->coeffs[n] = -1;
        s->limit = 0;
    }
    merge_terms(s);
    return 0;
}

static void sum_terms_free(sum_terms *s)
{
    free(s->terms), free(s->coeffs);
}

typedef __int128 wide;

/* min/max of c * x over the term's values (given ascending). */
static void weight_range(int64_t coeff, int64_t low_value, int64_t high_value, wide *low, wide *high)
{
    wide a = (wide)coeff * low_value, b = (wide)coeff * high_value;
    *low = a < b ? a : b, *high = a < b ? b : a;
}

/* The DP's work: sum over terms of (states before the term) x (its values); saturates above the
 * limit (AC_SUM_DP_STATE_LIMIT bounds it, so a revision costs at most that many steps). */
static uint64_t dp_states(const sum_terms *s, const int64_t *lows, const int64_t *highs, const size_t *sizes)
{
    wide low = 0, high = 0;
    uint64_t work = 1;
    for (size_t i = 0; i < s->count; i++) {
        wide a, b;
        if (high - low >= (wide)AC_SUM_DP_STATE_LIMIT) return UINT64_MAX;
        work += ((uint64_t)(high - low) + 1) * (sizes[i] ? sizes[i] : 1);
        if (work > AC_SUM_DP_STATE_LIMIT) return UINT64_MAX;
        weight_range(s->coeffs[i], lows[i], highs[i], &a, &b);
        low += a, high += b;
    }
    if (high - low >= (wide)AC_SUM_DP_STATE_LIMIT) return UINT64_MAX;
    return work + (uint64_t)(high - low) + 1;
}

int ac_sum_dp_fits(const parac_csp_network *network, const parac_csp_global *global)
{
    sum_terms s = {0};
    int64_t *lows = NULL, *highs = NULL;
    size_t *sizes = NULL;
    int fits = 0;
    if (sum_terms_build(global, &s) != 0) goto done;
    lows = malloc((s.count + 1) * sizeof *lows), highs = malloc((s.count + 1) * sizeof *highs);
    sizes = malloc((s.count + 1) * sizeof *sizes);
    if (!lows || !highs || !sizes) goto done;
    for (size_t i = 0; i < s.count; i++) {
        const ac_term *t = &s.terms[i];
        if (t->var >= 0 && network->domain_size[t->var] == 0) goto done;
        lows[i] = t->var < 0 ? t->value : network->values[network->value_offset[t->var]];
        highs[i] = t->var < 0 ? t->value : network->values[network->value_offset[t->var] + network->domain_size[t->var] - 1];
        sizes[i] = t->var < 0 ? 1 : network->domain_size[t->var];
    }
    fits = dp_states(&s, lows, highs, sizes) <= AC_SUM_DP_STATE_LIMIT;
done:
    free(lows), free(highs), free(sizes);
    sum_terms_free(&s);
    return fits;
}

/* ---- GAC by dynamic programming ---- */

typedef struct sum_dp {
    int64_t *prefix_low;    /* count + 1: smallest sum of the first i terms */
    uint64_t *base;         /* count + 1: where prefix i's states start */
    uint8_t *forward, *good;
} sum_dp;

static int run_dp(const ac_model *model, ac_domains *domains, const parac_csp_global *global, const sum_terms *s,
                  int64_t **values, size_t *sizes, uint8_t *changed)
{
    size_t n = s->count;
    sum_dp dp = {malloc((n + 1) * sizeof(int64_t)), malloc((n + 2) * sizeof(uint64_t)), NULL, NULL};
    int64_t *prefix_high = malloc((n + 1) * sizeof *prefix_high);
    int wipeout = 0;
    if (!dp.prefix_low || !dp.base || !prefix_high) goto done;
    dp.prefix_low[0] = prefix_high[0] = 0, dp.base[0] = 0;
    for (size_t i = 0; i < n; i++) {
        wide a, b;
        weight_range(s->coeffs[i], values[i][0], values[i][sizes[i] - 1], &a, &b);
        dp.prefix_low[i + 1] = dp.prefix_low[i] + (int64_t)a;
        prefix_high[i + 1] = prefix_high[i] + (int64_t)b;
        dp.base[i + 1] = dp.base[i] + (uint64_t)(prefix_high[i] - dp.prefix_low[i]) + 1;
    }
    dp.base[n + 1] = dp.base[n] + (uint64_t)(prefix_high[n] - dp.prefix_low[n]) + 1;
    dp.forward = calloc(dp.base[n + 1] + 1, 1);
    dp.good = calloc(dp.base[n + 1] + 1, 1);
    if (!dp.forward || !dp.good) goto done;
    dp.forward[0] = 1;
    for (size_t i = 0; i < n; i++)
        for (int64_t sum = dp.prefix_low[i]; sum <= prefix_high[i]; sum++) {
            if (!dp.forward[dp.base[i] + (uint64_t)(sum - dp.prefix_low[i])]) continue;
            for (size_t k = 0; k < sizes[i]; k++)
                dp.forward[dp.base[i + 1] + (uint64_t)(sum + s->coeffs[i] * values[i][k] - dp.prefix_low[i + 1])] = 1;
        }
    for (int64_t sum = dp.prefix_low[n]; sum <= prefix_high[n]; sum++)
        dp.good[dp.base[n] + (uint64_t)(sum - dp.prefix_low[n])] = ac_condition_holds(&global->condition, sum, s->limit);
    for (size_t i = n; i-- > 0;)
        for (int64_t sum = dp.prefix_low[i]; sum <= prefix_high[i]; sum++) {
            uint8_t good = 0;
            for (size_t k = 0; k < sizes[i] && !good; k++)
                good = dp.good[dp.base[i + 1] + (uint64_t)(sum + s->coeffs[i] * values[i][k] - dp.prefix_low[i + 1])];
            dp.good[dp.base[i] + (uint64_t)(sum - dp.prefix_low[i])] = good;
        }
    if (!dp.good[0]) {
        wipeout = 1;
        goto done;
    }
    for (size_t i = 0; i < n && !wipeout; i++)
        for (size_t k = 0; k < sizes[i] && !wipeout; k++) {
            int supported = 0;
            for (int64_t sum = dp.prefix_low[i]; sum <= prefix_high[i] && !supported; sum++)
                supported = dp.forward[dp.base[i] + (uint64_t)(sum - dp.prefix_low[i])] &&
                            dp.good[dp.base[i + 1] + (uint64_t)(sum + s->coeffs[i] * values[i][k] - dp.prefix_low[i + 1])];
            if (!supported) wipeout = ac_term_remove(model, domains, &s->terms[i], values[i][k], changed);
        }
done:
    free(dp.prefix_low), free(dp.base), free(dp.forward), free(dp.good), free(prefix_high);
    return wipeout;
}

/* ---- bounds consistency ---- */

static wide floor_div(wide a, wide b)
{
    wide q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static wide ceil_div(wide a, wide b)
{
    return -floor_div(-a, b);
}

/* The limits [low, high] on the sum the condition allows; 0 when it gives none usable (ne, not in). */
static int sum_limits(const ac_model *model, const ac_domains *domains, const parac_csp_global *global,
                      const sum_terms *s, wide *low, wide *high)
{
    const ac_condition *c = &global->condition;
    wide k = s->limit, big = (wide)1 << 100;
    *low = -big, *high = big;
    (void)model, (void)domains;
    switch (c->op) {
    case AC_OP_LT: *high = k - 1; return 1;
    case AC_OP_LE: *high = k; return 1;
    case AC_OP_GE: *low = k; return 1;
    case AC_OP_GT: *low = k + 1; return 1;
    case AC_OP_EQ: *low = *high = k; return 1;
    case AC_OP_IN:
        if (c->is_range) *low = c->low, *high = c->high;
        else if (c->set_count) *low = c->set[0], *high = c->set[c->set_count - 1];
        else *low = 1, *high = 0;
        return 1;
    default: return 0;
    }
}

static int run_bounds(const ac_model *model, ac_domains *domains, const parac_csp_global *global, const sum_terms *s,
                      uint8_t *changed)
{
    wide low, high;
    int again = 1;
    if (!sum_limits(model, domains, global, s, &low, &high)) return 0;
    if (low > high) return 1;
    while (again) {
        wide total_low = 0, total_high = 0;
        again = 0;
        for (size_t i = 0; i < s->count; i++) {
            wide a, b;
            weight_range(s->coeffs[i], ac_term_min(model, domains, &s->terms[i]), ac_term_max(model, domains, &s->terms[i]), &a, &b);
            total_low += a, total_high += b;
        }
        if (total_low > high || total_high < low) return 1;
        for (size_t i = 0; i < s->count; i++) {
            int64_t c = s->coeffs[i], min = ac_term_min(model, domains, &s->terms[i]), max = ac_term_max(model, domains, &s->terms[i]);
            wide a, b, weight_low, weight_high, value_low, value_high;
            size_t before = ac_term_size(model, domains, &s->terms[i]);
            if (c == 0) continue;
            weight_range(c, min, max, &a, &b);
            weight_low = low - (total_high - b), weight_high = high - (total_low - a);
            if (c > 0) value_low = ceil_div(weight_low, c), value_high = floor_div(weight_high, c);
            else value_low = ceil_div(weight_high, c), value_high = floor_div(weight_low, c);
            if (value_low <= min && value_high >= max) continue;
            if (value_low > max || value_high < min) return ac_term_restrict(model, domains, &s->terms[i], 1, 0, changed) || 1;
            if (ac_term_restrict(model, domains, &s->terms[i], (int64_t)(value_low > min ? value_low : min),
                                 (int64_t)(value_high < max ? value_high : max), changed))
                return 1;
            if (ac_term_size(model, domains, &s->terms[i]) != before) {
                again = 1;
                break; /* totals changed: recompute */
            }
        }
    }
    return 0;
}

AC_PROPAGATOR(sum)
{
    sum_terms s = {0};
    int64_t **values = NULL, *lows = NULL, *highs = NULL, *storage = NULL;
    size_t *sizes = NULL, total = 0;
    int wipeout = 0;
    (void)stats;
    if (sum_terms_build(global, &s) != 0) goto done;
    values = malloc((s.count + 1) * sizeof *values), sizes = malloc((s.count + 1) * sizeof *sizes);
    lows = malloc((s.count + 1) * sizeof *lows), highs = malloc((s.count + 1) * sizeof *highs);
    if (!values || !sizes || !lows || !highs) goto done;
    for (size_t i = 0; i < s.count; i++) {
        sizes[i] = ac_term_size(model, domains, &s.terms[i]);
        if (!sizes[i]) {
            wipeout = 1;
            goto done;
        }
        lows[i] = ac_term_min(model, domains, &s.terms[i]), highs[i] = ac_term_max(model, domains, &s.terms[i]);
        total += sizes[i];
    }
    if (dp_states(&s, lows, highs, sizes) > AC_SUM_DP_STATE_LIMIT) {
        wipeout = run_bounds(model, domains, global, &s, changed);
        goto done;
    }
    storage = malloc((total + 1) * sizeof *storage);
    if (!storage) goto done;
    total = 0;
    for (size_t i = 0; i < s.count; i++) {
        values[i] = storage + total;
        total += ac_term_values(model, domains, &s.terms[i], values[i]);
    }
    wipeout = run_dp(model, domains, global, &s, values, sizes, changed);
done:
    free(values), free(sizes), free(lows), free(highs), free(storage);
    sum_terms_free(&s);
    return wipeout;
}
