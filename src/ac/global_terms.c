/* ac/global_terms.c — what every global propagator reads and writes: a term's current domain
 * (a variable's bitset over slots, or a constant) and conditions "(op, operand)". */
#include "ac/global_propagate.h"

#include <stdint.h>
#include <stdlib.h>

size_t ac_lower_bound(const int64_t *sorted, size_t count, int64_t x)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (sorted[mid] < x) low = mid + 1;
        else high = mid;
    }
    return low;
}

long ac_value_slot(const parac_csp_network *network, uint32_t var, int64_t value)
{
    const int64_t *values = network->values + network->value_offset[var]; /* ascending by slot */
    size_t slot = ac_lower_bound(values, network->domain_size[var], value);
    return slot < network->domain_size[var] && values[slot] == value ? (long)slot : -1;
}

int ac_term_has(const ac_model *model, const ac_domains *domains, const ac_term *term, int64_t value)
{
    long slot;
    if (term->var < 0) return term->value == value;
    slot = ac_value_slot(model->network, (uint32_t)term->var, value);
    return slot >= 0 && parac_bitset_test(ac_domain_of(model, domains, (uint32_t)term->var), (size_t)slot);
}

int64_t ac_term_min(const ac_model *model, const ac_domains *domains, const ac_term *term)
{
    const parac_csp_network *net = model->network;
    uint32_t var = (uint32_t)term->var, size;
    size_t slot;
    if (term->var < 0) return term->value;
    size = net->domain_size[var];
    slot = parac_bitset_next(ac_domain_of(model, domains, var), size, 0);
    return slot < size ? net->values[net->value_offset[var] + slot] : INT64_MAX;
}

int64_t ac_term_max(const ac_model *model, const ac_domains *domains, const ac_term *term)
{
    const parac_csp_network *net = model->network;
    const parac_word *dom;
    uint32_t var = (uint32_t)term->var;
    if (term->var < 0) return term->value;
    dom = ac_domain_of(model, domains, var);
    for (size_t slot = net->domain_size[var]; slot-- > 0;)
        if (parac_bitset_test(dom, slot)) return net->values[net->value_offset[var] + slot];
    return INT64_MIN;
}

size_t ac_term_size(const ac_model *model, const ac_domains *domains, const ac_term *term)
{
    return term->var < 0 ? 1 : domains->size[term->var];
}

size_t ac_term_values(const ac_model *model, const ac_domains *domains, const ac_term *term, int64_t *out)
{
    const parac_csp_network *net = model->network;
    const parac_word *dom;
    uint32_t var = (uint32_t)term->var, size;
    size_t count = 0;
    if (term->var < 0) {
        out[0] = term->value;
        return 1;
    }
    dom = ac_domain_of(model, domains, var);
    size = net->domain_size[var];
    for (size_t s = parac_bitset_next(dom, size, 0); s < size; s = parac_bitset_next(dom, size, s + 1))
        out[count++] = net->values[net->value_offset[var] + s];
    return count;
}

int ac_term_remove(const ac_model *model, ac_domains *domains, const ac_term *term, int64_t value, uint8_t *changed)
{
    long slot;
    parac_word *dom;
    if (term->var < 0) return term->value == value;
    slot = ac_value_slot(model->network, (uint32_t)term->var, value);
    if (slot < 0) return domains->size[term->var] == 0;
    dom = ac_domain_of(model, domains, (uint32_t)term->var);
    if (parac_bitset_test(dom, (size_t)slot)) {
        parac_bitset_clear_bit(dom, (size_t)slot);
        domains->size[term->var]--;
        if (changed) changed[term->var] = 1;
    }
    return domains->size[term->var] == 0;
}

int ac_term_restrict(const ac_model *model, ac_domains *domains, const ac_term *term, int64_t low, int64_t high,
                     uint8_t *changed)
{
    const parac_csp_network *net = model->network;
    uint32_t var = (uint32_t)term->var, size;
    parac_word *dom;
    if (term->var < 0) return term->value < low || term->value > high;
    dom = ac_domain_of(model, domains, var);
    size = net->domain_size[var];
    for (size_t s = parac_bitset_next(dom, size, 0); s < size; s = parac_bitset_next(dom, size, s + 1)) {
        int64_t value = net->values[net->value_offset[var] + s];
        if (value >= low && value <= high) continue;
        parac_bitset_clear_bit(dom, s);
        domains->size[var]--;
        if (changed) changed[var] = 1;
    }
    return domains->size[var] == 0;
}

static int by_after(const void *x, const void *y)
{
    __int128 a = ((const ac_open_interval *)x)->after, b = ((const ac_open_interval *)y)->after;
    return a < b ? -1 : a > b;
}

void ac_sort_intervals(ac_open_interval *intervals, size_t count) { qsort(intervals, count, sizeof *intervals, by_after); }

int ac_term_remove_intervals(const ac_model *model, ac_domains *domains, const ac_term *term,
                             const ac_open_interval *intervals, size_t count, int64_t *scratch, uint8_t *changed)
{
    size_t value_count = ac_term_values(model, domains, term, scratch), next = 0;
    __int128 reach = 0; /* the largest `before` among the intervals opening below the value */
    int wipeout = 0, opened = 0;
    for (size_t v = 0; v < value_count && !wipeout; v++) {
        __int128 a = scratch[v];
        while (next < count && intervals[next].after < a) {
            if (!opened || intervals[next].before > reach) reach = intervals[next].before;
            opened = 1;
            next++;
        }
        if (opened && a < reach) wipeout = ac_term_remove(model, domains, term, scratch[v], changed);
    }
    return wipeout;
}

size_t ac_largest_domain(const parac_csp_network *network)
{
    size_t largest = 1;
    for (size_t v = 0; v < network->variable_count; v++)
        if (network->domain_size[v] > largest) largest = network->domain_size[v];
    return largest;
}

static int set_contains(const int64_t *set, size_t count, int64_t x)
{
    size_t at = ac_lower_bound(set, count, x);
    return at < count && set[at] == x;
}

int ac_operator_holds(ac_operator op, int64_t x, int64_t operand)
{
    switch (op) {
    case AC_OP_LT: return x < operand;
    case AC_OP_LE: return x <= operand;
    case AC_OP_GE: return x >= operand;
    case AC_OP_GT: return x > operand;
    case AC_OP_EQ: return x == operand;
    case AC_OP_NE: return x != operand;
    default: return 1;
    }
}

int ac_condition_holds(const ac_condition *condition, int64_t x, int64_t operand)
{
    int inside;
    switch (condition->op) {
    case AC_OP_NONE: return 1;
    case AC_OP_LT:
    case AC_OP_LE:
    case AC_OP_GE:
    case AC_OP_GT:
    case AC_OP_EQ:
    case AC_OP_NE: return ac_operator_holds(condition->op, x, operand);
    case AC_OP_IN:
    case AC_OP_NOT_IN:
        inside = condition->is_range ? x >= condition->low && x <= condition->high
                                     : set_contains(condition->set, condition->set_count, x);
        return condition->op == AC_OP_IN ? inside : !inside;
    }
    return 0;
}

int ac_condition_possible(const ac_model *model, const ac_domains *domains, const ac_condition *condition, int64_t x)
{
    const ac_term *operand = &condition->operand;
    if (condition->op == AC_OP_IN || condition->op == AC_OP_NOT_IN || condition->op == AC_OP_NONE ||
        operand->var < 0)
        return ac_condition_holds(condition, x, operand->value);
    switch (condition->op) {
    case AC_OP_EQ: return ac_term_has(model, domains, operand, x);
    case AC_OP_NE: return ac_term_size(model, domains, operand) > 1 || !ac_term_has(model, domains, operand, x);
    case AC_OP_LT: return x < ac_term_max(model, domains, operand);
    case AC_OP_LE: return x <= ac_term_max(model, domains, operand);
    case AC_OP_GT: return x > ac_term_min(model, domains, operand);
    case AC_OP_GE: return x >= ac_term_min(model, domains, operand);
    default: return 0;
    }
}

int ac_condition_prune_operand(const ac_model *model, ac_domains *domains, const ac_condition *condition,
                               const int64_t *feasible, size_t count, uint8_t *changed)
{
    const parac_csp_network *net = model->network;
    uint32_t var = (uint32_t)condition->operand.var, size;
    parac_word *dom;
    if (condition->operand.var < 0 || condition->op == AC_OP_NONE || condition->op == AC_OP_IN ||
        condition->op == AC_OP_NOT_IN)
        return 0;
    dom = ac_domain_of(model, domains, var);
    size = net->domain_size[var];
    for (size_t s = parac_bitset_next(dom, size, 0); s < size; s = parac_bitset_next(dom, size, s + 1)) {
        int64_t b = net->values[net->value_offset[var] + s];
        int supported;
        switch (condition->op) { /* some x of feasible with x op b */
        case AC_OP_EQ: supported = set_contains(feasible, count, b); break;
        case AC_OP_NE: supported = count > 1 || feasible[0] != b; break;
        case AC_OP_LT: supported = feasible[0] < b; break;
        case AC_OP_LE: supported = feasible[0] <= b; break;
        case AC_OP_GT: supported = feasible[count - 1] > b; break;
        case AC_OP_GE: supported = feasible[count - 1] >= b; break;
        default: supported = 1;
        }
        if (supported) continue;
        parac_bitset_clear_bit(dom, s);
        domains->size[var]--;
        if (changed) changed[var] = 1;
    }
    return domains->size[var] == 0;
}
