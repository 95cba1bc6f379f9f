/* csp/xcsp3_global_comparison.c — readers of the XCSP3 globals that compare values:
 * allDifferent (lists, matrix, except), allEqual, ordered, lex (lists or a matrix).
 */
#include <stdlib.h>
#include <string.h>

#include "csp/xcsp3_global_reader.h"

parac_status xcsp3_read_all_different(global_reader *r)
{
    static const char *const known[] = {"list", "matrix", "except", NULL};
    xmlNodePtr matrix = xcsp_child(r->node, "matrix");
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_read_except(r);
    if (status == PARAC_OK && matrix) {
        term_list cells = {0};
        size_t rows = 0, columns = 0;
        status = xcsp3_read_matrix(r, matrix, &cells, &rows, &columns);
        if (status == PARAC_OK) status = xcsp3_add_rows_and_columns(r, &cells, rows, columns);
        free(cells.items);
        return status;
    }
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_all_equal(global_reader *r)
{
    static const char *const known[] = {"list", "except", NULL};
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_read_except(r);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_ordered(global_reader *r)
{
    static const char *const known[] = {"list", "lengths", "operator", NULL};
    xmlNodePtr lengths = xcsp_child(r->node, "lengths");
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && lengths) {
        status = xcsp3_node_integers(r, lengths, &r->g.coeffs, &r->g.coeff_count);
        if (status == PARAC_OK && r->g.coeff_count + 1 != r->g.list_length[0] && r->g.list_length[0])
            status = BAD(r, lengths, "%zu lengths for a list of %zu (one fewer expected)", r->g.coeff_count, r->g.list_length[0]);
    }
    if (status == PARAC_OK) status = xcsp3_read_operator(r);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* A lex chain L0 <= L1 <= ... (or <, >=, >) over `count` lists of one length: one LEX constraint
 * when it fits AC_GLOBAL_MAX_LISTS lists, else windows of that many lists overlapping by one
 * (the chain is the conjunction of its consecutive pairs, so the windows state the same). */
static parac_status add_lex_chain(global_reader *r, const term_list *lists, size_t count)
{
    parac_status status = PARAC_OK;
    size_t step = AC_GLOBAL_MAX_LISTS - 1;
    if (count < 2) return PARAC_OK; /* one row or column: nothing to order */
    for (size_t first = 0; status == PARAC_OK && (first == 0 || first + 1 < count); first += step) {
        size_t in_window = count - first < AC_GLOBAL_MAX_LISTS ? count - first : AC_GLOBAL_MAX_LISTS;
        for (size_t l = 0; l < AC_GLOBAL_MAX_LISTS; l++) {
            free(r->g.lists[l]);
            r->g.lists[l] = NULL;
            r->g.list_length[l] = 0;
        }
        r->g.list_count = 0;
        for (size_t l = 0; status == PARAC_OK && l < in_window; l++) status = xcsp3_set_list(r, l, &lists[first + l]);
        if (status == PARAC_OK) status = xcsp3_add_global(r);
    }
    return status;
}

static void free_lists(term_list *lists, size_t count)
{
    for (size_t l = 0; l < count; l++) free(lists[l].items);
    free(lists);
}

/* lex over the rows of a matrix, then over its columns. */
static parac_status read_lex_matrix(global_reader *r, xmlNodePtr matrix)
{
    term_list cells = {0}, *lines = NULL;
    size_t rows = 0, columns = 0;
    parac_status status = xcsp3_read_matrix(r, matrix, &cells, &rows, &columns);
    for (int pass = 0; pass < 2 && status == PARAC_OK; pass++) {
        size_t outer = pass ? columns : rows, inner = pass ? rows : columns;
        if (!(lines = calloc(outer, sizeof *lines))) status = xcsp3_no_memory(r);
        for (size_t o = 0; o < outer && status == PARAC_OK; o++)
            for (size_t i = 0; i < inner && status == PARAC_OK; i++) {
                const term *t = &cells.items[pass ? i * columns + o : o * columns + i];
                if (xcsp3_push_term(&lines[o], t->var, t->constant) < 0) status = xcsp3_no_memory(r);
            }
        if (status == PARAC_OK) status = add_lex_chain(r, lines, outer);
        if (lines) free_lists(lines, outer);
        lines = NULL;
    }
    free(cells.items);
    return status;
}

parac_status xcsp3_read_lex(global_reader *r)
{
    static const char *const known[] = {"list", "matrix", "operator", NULL};
    xmlNodePtr matrix = xcsp_child(r->node, "matrix");
    size_t count = xcsp3_count_children(r->node, "list"), which = 0;
    term_list *lists;
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_read_operator(r);
    if (status == PARAC_OK && matrix) return read_lex_matrix(r, matrix);
    if (status == PARAC_OK && count < 2) status = BAD(r, NULL, "needs two or more <list> or a <matrix>");
    if (status != PARAC_OK) return status;
    if (!(lists = calloc(count, sizeof *lists))) return xcsp3_no_memory(r);
    for (xmlNodePtr c = r->node->children; status == PARAC_OK && c; c = c->next) {
        if (!xcsp3_is_named(c, "list")) continue;
        status = xcsp3_node_terms(r, c, &lists[which]);
        if (status == PARAC_OK && lists[which].count != lists[0].count) status = BAD(r, c, "lists of different lengths");
        which++;
    }
    if (status == PARAC_OK) status = add_lex_chain(r, lists, count);
    free_lists(lists, count);
    return status;
}
