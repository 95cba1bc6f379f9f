/* tests/ac/support_global_semantics.c — the global constraint tests' own reading of the XCSP3
 * semantics of every global kind (test_satisfied), written apart from the library's
 * ac_global_satisfied so that both are checked (test_global_gac.c compares them through brute force). */
#include "support_global_semantics.h"

#include <stdlib.h>
#include <string.h>

/* ---- an independent reading of the semantics ---- */
static int64_t val(const int64_t *x, const ac_term *t)
{
    return t->var < 0 ? t->value : x[t->var];
}

static int op_holds(const ac_condition *c, int64_t v, const int64_t *x)
{
    int64_t k = val(x, &c->operand);
    switch (c->op) {
    case AC_OP_LT: return v < k;
    case AC_OP_LE: return v <= k;
    case AC_OP_GE: return v >= k;
    case AC_OP_GT: return v > k;
    case AC_OP_EQ: return v == k;
    case AC_OP_NE: return v != k;
    case AC_OP_IN:
    case AC_OP_NOT_IN: {
        int in = 0;
        if (c->is_range) in = v >= c->low && v <= c->high;
        for (size_t i = 0; !c->is_range && i < c->set_count; i++) in |= c->set[i] == v;
        return c->op == AC_OP_IN ? in : !in;
    }
    default: return 1;
    }
}

static int rel(ac_operator op, int64_t a, int64_t b)
{
    return op == AC_OP_LT ? a < b : op == AC_OP_LE ? a <= b : op == AC_OP_GE ? a >= b : a > b;
}

static int excepted(const parac_csp_global *g, int64_t v)
{
    for (size_t i = 0; i < g->value_count; i++)
        if (g->values[i] == v) return 1;
    return 0;
}

int test_satisfied(const parac_csp_global *g, const int64_t *x)
{
    const ac_term *L = g->lists[0];
    size_t n = g->list_length[0];
    switch (g->kind) {
    case AC_GLOBAL_ALL_DIFFERENT:
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (val(x, &L[i]) == val(x, &L[j]) && !excepted(g, val(x, &L[i]))) return 0;
        return 1;
    case AC_GLOBAL_ALL_EQUAL:
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (val(x, &L[i]) != val(x, &L[j]) && !excepted(g, val(x, &L[i])) && !excepted(g, val(x, &L[j])))
                    return 0;
        return 1;
    case AC_GLOBAL_SUM: {
        int64_t s = 0;
        for (size_t i = 0; i < n; i++) s += (g->coeffs ? g->coeffs[i] : 1) * val(x, &L[i]);
        return op_holds(&g->condition, s, x);
    }
    case AC_GLOBAL_COUNT: {
        int64_t c = 0;
        for (size_t i = 0; i < n; i++) {
            int hit = 0;
            for (size_t k = 0; k < g->list_length[1]; k++) hit |= val(x, &L[i]) == val(x, &g->lists[1][k]);
            c += hit;
        }
        return op_holds(&g->condition, c, x);
    }
    case AC_GLOBAL_NVALUES: {
        int64_t c = 0;
        for (size_t i = 0; i < n; i++) {
            int first = !excepted(g, val(x, &L[i]));
            for (size_t j = 0; j < i; j++) first &= val(x, &L[j]) != val(x, &L[i]);
            c += first;
        }
        return op_holds(&g->condition, c, x);
    }
    case AC_GLOBAL_CARDINALITY:
        for (size_t k = 0; k < g->list_length[1]; k++) {
            int64_t c = 0;
            for (size_t i = 0; i < n; i++) c += val(x, &L[i]) == val(x, &g->lists[1][k]);
            if (g->has_ranges && g->lists[2][k].var < 0 ? (c < g->ranges[k].low || c > g->ranges[k].high)
                                                        : c != val(x, &g->lists[2][k]))
                return 0;
        }
        for (size_t i = 0; g->closed && i < n; i++) {
            int listed = 0;
            for (size_t k = 0; k < g->list_length[1]; k++) listed |= val(x, &L[i]) == val(x, &g->lists[1][k]);
            if (!listed) return 0;
        }
        return 1;
    case AC_GLOBAL_ELEMENT: {
        int64_t r = val(x, &g->index) - g->start_index, c = 0, columns = g->dims[1] > 0 ? g->dims[1] : 1;
        int64_t rows = g->dims[1] > 0 ? g->dims[0] : (int64_t)n;
        if (g->dims[1] > 0) c = val(x, &g->index2) - g->start_index2;
        if (r < 0 || r >= rows || c < 0 || c >= columns) return 0;
        return op_holds(&g->condition, val(x, &L[r * columns + c]), x);
    }
    case AC_GLOBAL_CHANNEL:
        if (g->list_count == 1 && g->condition.op == AC_OP_EQ) {
            int64_t ones = 0;
            for (size_t i = 0; i < n; i++) {
                int64_t b = val(x, &L[i]);
                if (b != 0 && b != 1) return 0;
                if ((b == 1) != (val(x, &g->condition.operand) == (int64_t)i + g->start_index)) return 0;
                ones += b;
            }
            return ones == 1;
        } else {
            const ac_term *Y = g->list_count == 1 ? L : g->lists[1];
            size_t m = g->list_count == 1 ? n : g->list_length[1];
            int64_t xs = g->start_index, ys = g->list_count == 1 ? g->start_index : g->start_index2;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < m; j++) {
                    int xi_is_j = val(x, &L[i]) == (int64_t)j + ys, yj_is_i = val(x, &Y[j]) == (int64_t)i + xs;
                    if (xi_is_j && !yj_is_i) return 0;
                    if (n == m && yj_is_i && !xi_is_j) return 0;
                }
            for (size_t i = 0; i < n; i++) /* every x[i] names some y */
                if (val(x, &L[i]) < ys || val(x, &L[i]) >= ys + (int64_t)m) return 0;
            for (size_t j = 0; n == m && j < m; j++)
                if (val(x, &Y[j]) < xs || val(x, &Y[j]) >= xs + (int64_t)n) return 0;
            return 1;
        }
    case AC_GLOBAL_ORDERED:
        for (size_t i = 0; i + 1 < n; i++)
            if (!rel(g->op, val(x, &L[i]) + (g->coeffs ? g->coeffs[i] : 0), val(x, &L[i + 1]))) return 0;
        return 1;
    case AC_GLOBAL_LEX:
        for (size_t l = 0; l + 1 < g->list_count; l++) {
            int cmp = 0;
            for (size_t i = 0; i < g->list_length[l] && !cmp; i++) {
                int64_t a = val(x, &g->lists[l][i]), b = val(x, &g->lists[l + 1][i]);
                cmp = a < b ? -1 : a > b;
            }
            if (!rel(g->op, cmp, 0)) return 0;
        }
        return 1;
    case AC_GLOBAL_REGULAR:
    case AC_GLOBAL_MDD: {
        uint32_t set = 1u << g->start; /* states < 32 here */
        for (size_t i = 0; i < n; i++) {
            uint32_t next = 0;
            for (size_t t = 0; t < g->transition_count; t++)
                if ((set >> g->transitions[3 * t]) & 1 && g->transitions[3 * t + 1] == val(x, &L[i]))
                    next |= 1u << g->transitions[3 * t + 2];
            set = next;
        }
        for (size_t f = 0; f < g->final_count; f++)
            if ((set >> g->finals[f]) & 1) return 1;
        return 0;
    }
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM: {
        int64_t best = val(x, &L[0]);
        for (size_t i = 1; i < n; i++)
            if (g->kind == AC_GLOBAL_MINIMUM ? val(x, &L[i]) < best : val(x, &L[i]) > best) best = val(x, &L[i]);
        return op_holds(&g->condition, best, x);
    }
    case AC_GLOBAL_NO_OVERLAP: {
        size_t k = g->dims[0] > 1 ? (size_t)g->dims[0] : 1;
        for (size_t i = 0; i < n / k; i++)
            for (size_t j = 0; j < i; j++) {
                int apart = 0, zero = 0;
                for (size_t d = 0; d < k; d++) {
                    int64_t oi = val(x, &L[i * k + d]), oj = val(x, &L[j * k + d]);
                    int64_t li = val(x, &g->lists[1][i * k + d]), lj = val(x, &g->lists[1][j * k + d]);
                    zero |= li == 0 || lj == 0;
                    apart |= oi + li <= oj || oj + lj <= oi;
                }
                if (!apart && !(zero && g->zero_ignored)) return 0;
            }
        return 1;
    }
    case AC_GLOBAL_CUMULATIVE:
        for (size_t i = 0; i < n; i++) {
            int64_t t = val(x, &L[i]), h = 0;
            if (g->list_count > 3 && val(x, &g->lists[3][i]) != t + val(x, &g->lists[1][i])) return 0;
            if (val(x, &g->lists[1][i]) <= 0) continue;
            for (size_t j = 0; j < n; j++)
                if (val(x, &L[j]) <= t && t < val(x, &L[j]) + val(x, &g->lists[1][j])) h += val(x, &g->lists[2][j]);
            if (!op_holds(&g->condition, h, x)) return 0;
        }
        return 1;
    case AC_GLOBAL_CIRCUIT: {
        int64_t in = 0, steps = 0;
        size_t start = n;
        for (size_t i = 0; i < n; i++) {
            int64_t s = val(x, &L[i]) - g->start_index;
            if (s < 0 || s >= (int64_t)n) return 0;
            if (s != (int64_t)i) in++, start = start == n ? i : start;
            for (size_t j = 0; j < i; j++)
                if (val(x, &L[j]) == val(x, &L[i])) return 0; /* successors distinct */
        }
        if (in < 2) return 0;
        for (size_t at = start; (steps == 0 || at != start) && steps <= (int64_t)n; steps++) at = (size_t)(val(x, &L[at]) - g->start_index);
        if (steps != in) return 0;
        return g->size.var < 0 && g->size.value == 0 ? 1 : val(x, &g->size) == in;
    }
    case AC_GLOBAL_BIN_PACKING: /* every bin some item uses has a load within the condition */
        for (size_t i = 0; i < n; i++) {
            int64_t load = 0;
            for (size_t j = 0; j < n; j++)
                if (val(x, &L[j]) == val(x, &L[i])) load += g->coeffs[j];
            if (!op_holds(&g->condition, load, x)) return 0;
        }
        return 1;
    case AC_GLOBAL_KNAPSACK: {
        int64_t weight = 0, profit = 0;
        for (size_t i = 0; i < n; i++) weight += g->coeffs[i] * val(x, &L[i]), profit += g->values[i] * val(x, &L[i]);
        return op_holds(&g->condition, weight, x) && op_holds(&g->condition2, profit, x);
    }
    default: return 1;
    }
}
