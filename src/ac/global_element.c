/* ac/global_element.c — element: list[index] (or matrix[row][column]) satisfies the condition
 * (usually "= value"). GAC for distinct variables:
 *  - a cell is feasible when its indices are in the index domains and some value of it satisfies
 *    the condition for some operand value;
 *  - an index value is kept iff it has a feasible cell (with some value of the other index);
 *  - the operand keeps b iff some feasible cell holds an x with x op b;
 *  - a cell's term is pruned only when it is the one feasible cell (then to the values satisfying
 *    the condition); otherwise another cell can satisfy it and the term is free.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

/* What the operand's pruning needs of the feasible cell values, in memory bounded by the operand's
 * domain (not cells x values): the least and greatest, two distinct ones (for ne), and for eq
 * which of the operand variable's slots occur. */
typedef struct feasible_summary {
    size_t count;           /* values added (with repeats) */
    int64_t low, high, first, second;
    int distinct;           /* 1 or 2 distinct values seen (capped) */
    parac_word *marked;     /* eq with a variable operand: its slots seen */
} feasible_summary;

static int summary_init(feasible_summary *s, const ac_model *model, const ac_condition *condition)
{
    s->low = INT64_MAX, s->high = INT64_MIN;
    if (condition->op != AC_OP_EQ || condition->operand.var < 0) return 1;
    s->marked = calloc(parac_bitset_words(model->network->domain_size[condition->operand.var]) + 1, sizeof *s->marked);
    return s->marked != NULL;
}

static void summary_add(feasible_summary *s, const ac_model *model, const ac_condition *condition, int64_t x)
{
    s->count++;
    if (x < s->low) s->low = x;
    if (x > s->high) s->high = x;
    if (s->distinct == 0) s->first = x, s->distinct = 1;
    else if (s->distinct == 1 && x != s->first) s->second = x, s->distinct = 2;
    if (s->marked) {
        long slot = ac_value_slot(model->network, (uint32_t)condition->operand.var, x);
        if (slot >= 0) parac_bitset_set(s->marked, (size_t)slot);
    }
}

/* A list ac_condition_prune_operand reads as the feasible values (ascending): eq: the operand's
 * marked values; ne: up to two distinct values; the order operators: least and greatest. */
static size_t summary_values(const feasible_summary *s, const ac_model *model, const ac_condition *condition,
                             int64_t *out)
{
    const parac_csp_network *net = model->network;
    size_t count = 0;
    if (s->marked) {
        uint32_t var = (uint32_t)condition->operand.var, size = net->domain_size[var];
        for (size_t slot = parac_bitset_next(s->marked, size, 0); slot < size; slot = parac_bitset_next(s->marked, size, slot + 1))
            out[count++] = net->values[net->value_offset[var] + slot];
        if (!count) out[count++] = s->low; /* nothing of the operand's domain: any value outside it */
        return count;
    }
    if (condition->op == AC_OP_NE) {
        out[count++] = s->distinct == 2 && s->second < s->first ? s->second : s->first;
        if (s->distinct == 2) out[count++] = s->second < s->first ? s->first : s->second;
        return count;
    }
    out[count++] = s->low;
    if (s->high != s->low) out[count++] = s->high;
    return count;
}

AC_PROPAGATOR(element)
{
    int matrix = global->dims[1] > 0;
    size_t length = global->list_length[0], largest = ac_largest_domain(model->network);
    int64_t rows = matrix ? global->dims[0] : (int64_t)length, columns = matrix ? global->dims[1] : 1;
    const ac_term zero = {AC_TERM_CONSTANT, 0};
    const ac_term *row_term = &global->index, *column_term = matrix ? &global->index2 : &zero;
    int64_t row_start = global->start_index, column_start = matrix ? global->start_index2 : 0;
    if (matrix && rows > (int64_t)(length / (size_t)columns) + 1) rows = (int64_t)(length / (size_t)columns) + 1; /* rows past the list are empty */
    int64_t column_span = columns < (int64_t)length ? columns : (int64_t)length; /* columns that can hold a cell */
    uint8_t *row_ok = calloc((size_t)(rows > 0 ? rows : 0) + 1, 1), *column_ok = calloc((size_t)column_span + 1, 1);
    int64_t *values = malloc((largest + 1) * sizeof *values), *feasible = malloc((largest + 2) * sizeof *feasible);
    feasible_summary summary = {0};
    size_t cells = 0, only = 0;
    int wipeout = 0;
    (void)stats;
    if (!row_ok || !column_ok || !values || !feasible) goto done;
    if (!summary_init(&summary, model, &global->condition)) goto done;
    for (int64_t r = 0; r < rows; r++) {
        if (!ac_term_has(model, domains, row_term, r + row_start)) continue;
        for (int64_t c = 0; c < column_span; c++) {
            size_t cell = (size_t)(r * columns + c), count, before = summary.count;
            if (cell >= length || !ac_term_has(model, domains, column_term, c + column_start)) continue;
            count = ac_term_values(model, domains, &global->lists[0][cell], values);
            for (size_t k = 0; k < count; k++)
                if (ac_condition_possible(model, domains, &global->condition, values[k]))
                    summary_add(&summary, model, &global->condition, values[k]);
            if (summary.count == before) continue;
            row_ok[r] = column_ok[c] = 1;
            cells++, only = cell;
        }
    }
    if (!cells) {
        wipeout = 1;
        goto done;
    }
    { /* index values without a feasible cell */
        size_t count = ac_term_values(model, domains, row_term, values);
        for (size_t k = 0; k < count && !wipeout; k++) {
            int64_t r = values[k] - row_start;
            if (r < 0 || r >= rows || !row_ok[r]) wipeout = ac_term_remove(model, domains, row_term, values[k], changed);
        }
        if (matrix) {
            count = ac_term_values(model, domains, column_term, values);
            for (size_t k = 0; k < count && !wipeout; k++) {
                int64_t c = values[k] - column_start;
                if (c < 0 || c >= column_span || !column_ok[c])
                    wipeout = ac_term_remove(model, domains, column_term, values[k], changed);
            }
        }
    }
    if (!wipeout && cells == 1) { /* the one feasible cell must satisfy the condition */
        size_t count = ac_term_values(model, domains, &global->lists[0][only], values);
        for (size_t k = 0; k < count && !wipeout; k++)
            if (!ac_condition_possible(model, domains, &global->condition, values[k]))
                wipeout = ac_term_remove(model, domains, &global->lists[0][only], values[k], changed);
    }
    if (!wipeout) {
        size_t feasible_count = summary_values(&summary, model, &global->condition, feasible);
        wipeout = ac_condition_prune_operand(model, domains, &global->condition, feasible, feasible_count, changed);
    }
done:
    free(row_ok), free(column_ok), free(values), free(feasible), free(summary.marked);
    return wipeout;
}
