/* ac/global_check.c — the semantics of every global constraint kind as a check of one complete
 * assignment of its scope (XCSP3 3.1's definitions). The generic support search and the tests'
 * brute force both rest on it; the dedicated propagators must agree with it.
 *
 * Choices where the XCSP3 text leaves room (the same in every propagator):
 *  - a sum, or a cumulative height sum, outside int64 does not satisfy;
 *  - cumulative: the condition holds at every task's start (the height profile's peaks);
 *  - circuit: x[i] = i (start_index added) leaves node i out; the other nodes form one cycle of at
 *    least 2 nodes, whose length equals `size` when given;
 *  - channel with lists of different lengths: only x[i] = j => y[j] = i (the shorter list first).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>
#include <string.h>

typedef struct assignment {
    const uint32_t *scope;
    const int64_t *values;
    size_t count;
} assignment;

static int64_t value_of(const assignment *a, const ac_term *term)
{
    size_t low = 0, high = a->count;
    if (term->var < 0) return term->value;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (a->scope[mid] < (uint64_t)term->var) low = mid + 1;
        else high = mid;
    }
    return low < a->count ? a->values[low] : 0;
}

static int in_sorted(const int64_t *set, size_t count, int64_t x)
{
    for (size_t i = 0; i < count; i++)
        if (set[i] == x) return 1;
    return 0;
}

static int condition_at(const assignment *a, const ac_condition *condition, int64_t x)
{
    return ac_condition_holds(condition, x, value_of(a, &condition->operand));
}

static int check_all_different(const assignment *a, const parac_csp_global *g)
{
    for (size_t i = 0; i < g->list_length[0]; i++) {
        int64_t vi = value_of(a, &g->lists[0][i]);
        if (in_sorted(g->values, g->value_count, vi)) continue;
        for (size_t j = i + 1; j < g->list_length[0]; j++)
            if (value_of(a, &g->lists[0][j]) == vi) return 0;
    }
    return 1;
}

static int check_all_equal(const assignment *a, const parac_csp_global *g)
{
    int seen = 0;
    int64_t first = 0;
    for (size_t i = 0; i < g->list_length[0]; i++) {
        int64_t v = value_of(a, &g->lists[0][i]);
        if (in_sorted(g->values, g->value_count, v)) continue;
        if (seen && v != first) return 0;
        seen = 1, first = v;
    }
    return 1;
}

static int check_sum(const assignment *a, const parac_csp_global *g)
{
    int64_t total = 0;
    for (size_t i = 0; i < g->list_length[0]; i++) {
        int64_t term, coeff = g->coeffs && i < g->coeff_count ? g->coeffs[i] : 1;
        if (__builtin_mul_overflow(coeff, value_of(a, &g->lists[0][i]), &term)) return 0;
        if (__builtin_add_overflow(total, term, &total)) return 0;
    }
    return condition_at(a, &g->condition, total);
}

/* sum(weights[i] * list[i]) satisfies condition; 0 on overflow (no 64-bit sum is that value). */
static int weighted_sum_holds(const assignment *a, const ac_term *terms, size_t count, const int64_t *weights,
                              const ac_condition *condition)
{
    int64_t total = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t term;
        if (__builtin_mul_overflow(weights[i], value_of(a, &terms[i]), &term)) return 0;
        if (__builtin_add_overflow(total, term, &total)) return 0;
    }
    return condition_at(a, condition, total);
}

static int check_knapsack(const assignment *a, const parac_csp_global *g)
{
    return weighted_sum_holds(a, g->lists[0], g->list_length[0], g->coeffs, &g->condition) &&
           weighted_sum_holds(a, g->lists[0], g->list_length[0], g->values, &g->condition2);
}

/* Every bin that some item is put in has a load (the sum of its items' sizes) satisfying the
 * condition. */
static int check_bin_packing(const assignment *a, const parac_csp_global *g)
{
    size_t n = g->list_length[0];
    for (size_t i = 0; i < n; i++) {
        int64_t bin = value_of(a, &g->lists[0][i]), load = 0;
        int first = 1;
        for (size_t j = 0; j < n && first; j++) first = j >= i || value_of(a, &g->lists[0][j]) != bin;
        if (!first) continue; /* bin i's load was checked at its first item */
        for (size_t j = i; j < n; j++)
            if (value_of(a, &g->lists[0][j]) == bin && __builtin_add_overflow(load, g->coeffs[j], &load)) return 0;
        if (!condition_at(a, &g->condition, load)) return 0;
    }
    return 1;
}

static int check_count(const assignment *a, const parac_csp_global *g)
{
    int64_t count = 0;
    for (size_t i = 0; i < g->list_length[0]; i++) {
        int64_t v = value_of(a, &g->lists[0][i]);
        for (size_t k = 0; k < g->list_length[1]; k++)
            if (value_of(a, &g->lists[1][k]) == v) {
                count++;
                break;
            }
    }
    return condition_at(a, &g->condition, count);
}

static int check_nvalues(const assignment *a, const parac_csp_global *g)
{
    int64_t distinct = 0;
    for (size_t i = 0; i < g->list_length[0]; i++) {
        int64_t v = value_of(a, &g->lists[0][i]);
        int earlier = 0;
        if (in_sorted(g->values, g->value_count, v)) continue;
        for (size_t j = 0; j < i && !earlier; j++) earlier = value_of(a, &g->lists[0][j]) == v;
        distinct += !earlier;
    }
    return condition_at(a, &g->condition, distinct);
}

static int check_cardinality(const assignment *a, const parac_csp_global *g)
{
    for (size_t k = 0; k < g->list_length[1]; k++) {
        int64_t value = value_of(a, &g->lists[1][k]), count = 0;
        const ac_term *occurs = &g->lists[2][k];
        for (size_t i = 0; i < g->list_length[0]; i++) count += value_of(a, &g->lists[0][i]) == value;
        if (g->has_ranges && occurs->var < 0) {
            if (count < g->ranges[k].low || count > g->ranges[k].high) return 0;
        } else if (count != value_of(a, occurs)) {
            return 0;
        }
    }
    if (g->closed)
        for (size_t i = 0; i < g->list_length[0]; i++) {
            int64_t v = value_of(a, &g->lists[0][i]);
            int listed = 0;
            for (size_t k = 0; k < g->list_length[1] && !listed; k++) listed = value_of(a, &g->lists[1][k]) == v;
            if (!listed) return 0;
        }
    return 1;
}

static int check_element(const assignment *a, const parac_csp_global *g)
{
    int matrix = g->dims[1] > 0;
    int64_t rows = matrix ? g->dims[0] : (int64_t)g->list_length[0], columns = matrix ? g->dims[1] : 1;
    int64_t row = value_of(a, &g->index) - g->start_index, column = 0;
    if (matrix) column = value_of(a, &g->index2) - g->start_index2;
    if (row < 0 || row >= rows || column < 0 || column >= columns) return 0;
    if ((uint64_t)(row * columns + column) >= g->list_length[0]) return 0;
    return condition_at(a, &g->condition, value_of(a, &g->lists[0][row * columns + column]));
}

static int check_channel(const assignment *a, const parac_csp_global *g)
{
    size_t n = g->list_length[0];
    if (g->list_count < 2 && g->condition.op == AC_OP_EQ) { /* x[i] = 1 <=> v = i */
        int64_t v = value_of(a, &g->condition.operand), ones = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t x = value_of(a, &g->lists[0][i]);
            if (x != 0 && x != 1) return 0;
            if ((x == 1) != (v == (int64_t)i + g->start_index)) return 0;
            ones += x;
        }
        return ones == 1;
    }
    if (g->list_count < 2) { /* x[i] = j <=> x[j] = i */
        for (size_t i = 0; i < n; i++) {
            int64_t j = value_of(a, &g->lists[0][i]) - g->start_index;
            if (j < 0 || (uint64_t)j >= n) return 0;
            if (value_of(a, &g->lists[0][j]) - g->start_index != (int64_t)i) return 0;
        }
        return 1;
    }
    {
        size_t m = g->list_length[1];
        for (size_t i = 0; i < n; i++) { /* x[i] = j => y[j] = i */
            int64_t j = value_of(a, &g->lists[0][i]) - g->start_index2;
            if (j < 0 || (uint64_t)j >= m) return 0;
            if (value_of(a, &g->lists[1][j]) - g->start_index != (int64_t)i) return 0;
        }
        if (n == m)
            for (size_t j = 0; j < m; j++) { /* and y[j] = i => x[i] = j */
                int64_t i = value_of(a, &g->lists[1][j]) - g->start_index;
                if (i < 0 || (uint64_t)i >= n) return 0;
                if (value_of(a, &g->lists[0][i]) - g->start_index2 != (int64_t)j) return 0;
            }
    }
    return 1;
}

static int check_ordered(const assignment *a, const parac_csp_global *g)
{
    for (size_t i = 0; i + 1 < g->list_length[0]; i++) {
        int64_t length = g->coeffs && i < g->coeff_count ? g->coeffs[i] : 0, left;
        if (__builtin_add_overflow(value_of(a, &g->lists[0][i]), length, &left)) return 0;
        if (!ac_operator_holds(g->op, left, value_of(a, &g->lists[0][i + 1]))) return 0;
    }
    return 1;
}

static int check_lex(const assignment *a, const parac_csp_global *g)
{
    for (size_t l = 0; l + 1 < g->list_count; l++) {
        size_t n = g->list_length[l] < g->list_length[l + 1] ? g->list_length[l] : g->list_length[l + 1];
        int order = 0; /* -1: list l smaller, 1: larger, 0: equal */
        for (size_t i = 0; i < n && !order; i++) {
            int64_t x = value_of(a, &g->lists[l][i]), y = value_of(a, &g->lists[l + 1][i]);
            order = (x > y) - (x < y);
        }
        if (!ac_operator_holds(g->op, order, 0)) return 0;
    }
    return 1;
}

/* regular and mdd: the (possibly non-deterministic) automaton accepts the list's values. */
static int check_automaton(const assignment *a, const parac_csp_global *g)
{
    size_t states = g->state_count > 0 ? (size_t)g->state_count : 1;
    uint8_t *now = calloc(states, 1), *next = calloc(states, 1);
    int accepted = 0;
    if (!now || !next) goto done;
    if (g->start >= 0 && (size_t)g->start < states) now[g->start] = 1;
    for (size_t i = 0; i < g->list_length[0]; i++) {
        int64_t v = value_of(a, &g->lists[0][i]);
        memset(next, 0, states);
        for (size_t t = 0; t < g->transition_count; t++) {
            const int64_t *tr = g->transitions + 3 * t;
            if (tr[0] >= 0 && (size_t)tr[0] < states && now[tr[0]] && tr[1] == v && tr[2] >= 0 && (size_t)tr[2] < states)
                next[tr[2]] = 1;
        }
        memcpy(now, next, states);
    }
    for (size_t f = 0; f < g->final_count; f++)
        if (g->finals[f] >= 0 && (size_t)g->finals[f] < states && now[g->finals[f]]) accepted = 1;
done:
    free(now);
    free(next);
    return accepted;
}

static int check_min_max(const assignment *a, const parac_csp_global *g)
{
    int64_t best;
    if (!g->list_length[0]) return 0;
    best = value_of(a, &g->lists[0][0]);
    for (size_t i = 1; i < g->list_length[0]; i++) {
        int64_t v = value_of(a, &g->lists[0][i]);
        if (g->kind == AC_GLOBAL_MINIMUM ? v < best : v > best) best = v;
    }
    return condition_at(a, &g->condition, best);
}

static int check_no_overlap(const assignment *a, const parac_csp_global *g)
{
    size_t k = g->dims[0] > 1 ? (size_t)g->dims[0] : 1, boxes = g->list_length[0] / k;
    for (size_t i = 0; i < boxes; i++)
        for (size_t j = i + 1; j < boxes; j++) {
            int apart = 0, zero = 0;
            for (size_t d = 0; d < k; d++) {
                int64_t oi = value_of(a, &g->lists[0][i * k + d]), li = value_of(a, &g->lists[1][i * k + d]);
                int64_t oj = value_of(a, &g->lists[0][j * k + d]), lj = value_of(a, &g->lists[1][j * k + d]);
                zero |= li == 0 || lj == 0;
                apart |= oi + li <= oj || oj + lj <= oi;
            }
            if (!apart && !(zero && g->zero_ignored)) return 0;
        }
    return 1;
}

static int check_cumulative(const assignment *a, const parac_csp_global *g)
{
    size_t n = g->list_length[0];
    for (size_t i = 0; i < n; i++)
        if (g->list_count > 3 &&
            value_of(a, &g->lists[3][i]) != value_of(a, &g->lists[0][i]) + value_of(a, &g->lists[1][i]))
            return 0;
    for (size_t i = 0; i < n; i++) {
        int64_t t = value_of(a, &g->lists[0][i]), height = 0;
        if (value_of(a, &g->lists[1][i]) <= 0) continue;
        for (size_t j = 0; j < n; j++) {
            int64_t o = value_of(a, &g->lists[0][j]), l = value_of(a, &g->lists[1][j]);
            if (o <= t && t < o + l && __builtin_add_overflow(height, value_of(a, &g->lists[2][j]), &height)) return 0;
        }
        if (!condition_at(a, &g->condition, height)) return 0;
    }
    return 1;
}

static int check_circuit(const assignment *a, const parac_csp_global *g)
{
    size_t n = g->list_length[0], in = 0, first = n, length = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t j = value_of(a, &g->lists[0][i]) - g->start_index;
        if (j < 0 || (uint64_t)j >= n) return 0;
        if ((size_t)j != i) {
            in++;
            if (first == n) first = i;
        }
    }
    if (in < 2) return 0;
    for (size_t at = first;;) { /* walk from the first node in the circuit */
        at = (size_t)(value_of(a, &g->lists[0][at]) - g->start_index);
        length++;
        if (at == first || length > in) break;
    }
    if (length != in) return 0;
    if (g->size.var >= 0 || g->size.value != 0) return value_of(a, &g->size) == (int64_t)in;
    return 1;
}

int ac_global_well_formed(const parac_csp_global *g)
{
    size_t n = g->list_length[0];
    if (g->list_count < 1 || g->list_count > AC_GLOBAL_MAX_LISTS) return 0;
    for (size_t l = 0; l < g->list_count; l++)
        if (g->list_length[l] && !g->lists[l]) return 0;
    if (g->value_count && !g->values) return 0;
    if (g->coeff_count && !g->coeffs) return 0;
    if (g->transition_count && !g->transitions) return 0;
    if (g->final_count && !g->finals) return 0;
    if ((g->condition.op == AC_OP_IN || g->condition.op == AC_OP_NOT_IN) && !g->condition.is_range &&
        g->condition.set_count && !g->condition.set)
        return 0;
    switch (g->kind) {
    case AC_GLOBAL_COUNT: return g->list_count >= 2;
    case AC_GLOBAL_CARDINALITY:
        return g->list_count >= 3 && g->list_length[2] == g->list_length[1] && (!g->has_ranges || g->ranges);
    case AC_GLOBAL_NO_OVERLAP:
        return g->list_count >= 2 && g->list_length[1] == n && (g->dims[0] <= 1 || n % (size_t)g->dims[0] == 0);
    case AC_GLOBAL_CUMULATIVE:
        return g->list_count >= 3 && g->list_length[1] == n && g->list_length[2] == n &&
               (g->list_count < 4 || g->list_length[3] == n);
    case AC_GLOBAL_ELEMENT: return g->dims[1] <= 0 || g->dims[0] >= 0;
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM: return n >= 1;
    case AC_GLOBAL_BIN_PACKING:
        return g->coeff_count == n && (g->condition.op == AC_OP_LE || g->condition.op == AC_OP_LT);
    case AC_GLOBAL_KNAPSACK: return g->coeff_count == n && g->value_count == n && (n == 0 || g->values);
    default: return 1;
    }
}

int ac_global_satisfied(const parac_csp_global *global, const uint32_t *scope, const int64_t *values, size_t count)
{
    assignment a = {scope, values, count};
    if (!ac_global_well_formed(global)) return 1; /* the reader refuses such constraints; prune nothing */
    switch (global->kind) {
    case AC_GLOBAL_ALL_DIFFERENT: return check_all_different(&a, global);
    case AC_GLOBAL_ALL_EQUAL: return check_all_equal(&a, global);
    case AC_GLOBAL_SUM: return check_sum(&a, global);
    case AC_GLOBAL_COUNT: return check_count(&a, global);
    case AC_GLOBAL_NVALUES: return check_nvalues(&a, global);
    case AC_GLOBAL_CARDINALITY: return check_cardinality(&a, global);
    case AC_GLOBAL_ELEMENT: return check_element(&a, global);
    case AC_GLOBAL_CHANNEL: return check_channel(&a, global);
    case AC_GLOBAL_ORDERED: return check_ordered(&a, global);
    case AC_GLOBAL_LEX: return check_lex(&a, global);
    case AC_GLOBAL_REGULAR:
    case AC_GLOBAL_MDD: return check_automaton(&a, global);
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM: return check_min_max(&a, global);
    case AC_GLOBAL_NO_OVERLAP: return check_no_overlap(&a, global);
    case AC_GLOBAL_CUMULATIVE: return check_cumulative(&a, global);
    case AC_GLOBAL_CIRCUIT: return check_circuit(&a, global);
    case AC_GLOBAL_BIN_PACKING: return check_bin_packing(&a, global);
    case AC_GLOBAL_KNAPSACK: return check_knapsack(&a, global);
    default: return 1;
    }
}
