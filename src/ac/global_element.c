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

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

AC_PROPAGATOR(element)
{
    int matrix = global->dims[1] > 0;
    size_t length = global->list_length[0], largest = ac_largest_domain(model->network);
    int64_t rows = matrix ? global->dims[0] : (int64_t)length, columns = matrix ? global->dims[1] : 1;
    const ac_term zero = {AC_TERM_CONSTANT, 0};
    const ac_term *row_term = &global->index, *column_term = matrix ? &global->index2 : &zero;
    int64_t row_start = global->start_index, column_start = matrix ? global->start_index2 : 0;
    uint8_t *row_ok = calloc((size_t)(rows > 0 ? rows : 0) + 1, 1), *column_ok = calloc((size_t)columns + 1, 1);
    int64_t *values = malloc((largest + 1) * sizeof *values), *feasible = malloc((length * largest + 1) * sizeof *feasible);
    size_t feasible_count = 0, cells = 0, only = 0;
    int wipeout = 0;
    (void)stats;
    if (!row_ok || !column_ok || !values || !feasible) goto done;
    for (int64_t r = 0; r < rows; r++) {
        if (!ac_term_has(model, domains, row_term, r + row_start)) continue;
        for (int64_t c = 0; c < columns; c++) {
            size_t cell = (size_t)(r * columns + c), count, before = feasible_count;
            if (cell >= length || !ac_term_has(model, domains, column_term, c + column_start)) continue;
            count = ac_term_values(model, domains, &global->lists[0][cell], values);
            for (size_t k = 0; k < count; k++)
                if (ac_condition_possible(model, domains, &global->condition, values[k]))
                    feasible[feasible_count++] = values[k];
            if (feasible_count == before) continue;
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
                if (c < 0 || c >= columns || !column_ok[c])
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
        size_t distinct = 0;
        qsort(feasible, feasible_count, sizeof *feasible, compare_i64);
        for (size_t k = 0; k < feasible_count; k++) /* distinct values: "ne" counts them */
            if (k == 0 || feasible[k] != feasible[k - 1]) feasible[distinct++] = feasible[k];
        feasible_count = distinct;
        wipeout = ac_condition_prune_operand(model, domains, &global->condition, feasible, feasible_count, changed);
    }
done:
    free(row_ok), free(column_ok), free(values), free(feasible);
    return wipeout;
}
