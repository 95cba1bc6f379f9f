/* csp/xcsp3_global_connection.c — readers of the XCSP3 globals that connect variables to
 * positions or values: element (a list or a matrix), channel, minimum / maximum, and
 * instantiation (applied to the initial domains, not stored).
 */
#include <stdlib.h>
#include <string.h>

#include "csp/xcsp3_global_reader.h"

/* <index rank="any"> is the default meaning; first / last (the extreme index) are refused. */
static parac_status check_rank(global_reader *r, xmlNodePtr index)
{
    char *rank = (char *)xmlGetProp(index, (const xmlChar *)"rank");
    int ok = !rank || strcmp(rank, "any") == 0;
    parac_status status = ok ? PARAC_OK : UNSUPPORTED(r, index, "rank=\"%s\" (only rank=\"any\")", rank);
    xmlFree(rank);
    return status;
}

/* The element's value: <value> (eq) or a <condition>. */
static parac_status element_value(global_reader *r)
{
    xmlNodePtr value = xcsp_child(r->node, "value");
    if (value) {
        r->g.condition.op = AC_OP_EQ;
        return xcsp3_single_term(r, value, &r->g.condition.operand);
    }
    return xcsp3_required_condition(r);
}

static parac_status read_element_matrix(global_reader *r, xmlNodePtr matrix, xmlNodePtr index)
{
    term_list cells = {0}, indices = {0};
    size_t rows = 0, columns = 0;
    parac_status status = xcsp3_read_matrix(r, matrix, &cells, &rows, &columns);
    if (status == PARAC_OK) status = xcsp3_set_list(r, 0, &cells);
    if (status == PARAC_OK) status = xcsp3_integer_attribute(r, matrix, "startRowIndex", 0, &r->g.start_index);
    if (status == PARAC_OK) status = xcsp3_integer_attribute(r, matrix, "startColIndex", 0, &r->g.start_index2);
    if (status == PARAC_OK) status = xcsp3_node_terms(r, index, &indices);
    if (status == PARAC_OK && indices.count != 2) status = BAD(r, index, "a matrix element needs two indices");
    if (status == PARAC_OK) {
        ac_term *both = xcsp3_copy_terms(&indices);
        if (!both) return free(cells.items), free(indices.items), xcsp3_no_memory(r);
        r->g.index = both[0];
        r->g.index2 = both[1];
        free(both);
        r->g.dims[0] = (int64_t)rows;
        r->g.dims[1] = (int64_t)columns;
    }
    free(cells.items);
    free(indices.items);
    return status;
}

parac_status xcsp3_read_element(global_reader *r)
{
    static const char *const known[] = {"list", "matrix", "index", "value", "condition", NULL};
    xmlNodePtr matrix = xcsp_child(r->node, "matrix"), index = xcsp_child(r->node, "index"), list = NULL;
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK && !index) status = UNSUPPORTED(r, NULL, "element without <index> (member form)");
    if (status == PARAC_OK) status = check_rank(r, index);
    if (status == PARAC_OK && matrix) status = read_element_matrix(r, matrix, index);
    else if (status == PARAC_OK) {
        status = xcsp3_main_list(r, &list);
        if (status == PARAC_OK) status = xcsp3_integer_attribute(r, list, "startIndex", 0, &r->g.start_index);
        if (status == PARAC_OK) status = xcsp3_single_term(r, index, &r->g.index);
    }
    if (status == PARAC_OK) status = element_value(r);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_channel(global_reader *r)
{
    static const char *const known[] = {"list", "value", NULL};
    size_t lists = xcsp3_count_children(r->node, "list"), which = 0;
    xmlNodePtr value = xcsp_child(r->node, "value");
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK && lists > 2) status = BAD(r, NULL, "more than two <list>");
    if (status == PARAC_OK && lists == 2 && value) status = BAD(r, value, "<value> goes with one <list>");
    if (status == PARAC_OK && lists == 0) status = xcsp3_has_element_children(r->node) ? BAD(r, NULL, "no <list>") : xcsp3_node_list(r, r->node, 0);
    for (xmlNodePtr c = r->node->children; status == PARAC_OK && c; c = c->next) {
        if (!xcsp3_is_named(c, "list")) continue;
        status = xcsp3_node_list(r, c, which);
        if (status == PARAC_OK) status = xcsp3_integer_attribute(r, c, "startIndex", 0, which ? &r->g.start_index2 : &r->g.start_index);
        which++;
    }
    if (status == PARAC_OK && lists == 2 && r->g.list_length[0] != r->g.list_length[1])
        status = BAD(r, NULL, "two lists of different lengths");
    if (status == PARAC_OK && value) {
        r->g.condition.op = AC_OP_EQ;
        status = xcsp3_single_term(r, value, &r->g.condition.operand);
    }
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_extremum(global_reader *r)
{
    static const char *const known[] = {"list", "condition", NULL};
    parac_status status = xcsp_child(r->node, "index") ? UNSUPPORTED(r, xcsp_child(r->node, "index"), "the arg-min/max form (<index>)")
                                                       : xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK) status = xcsp3_required_condition(r);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* instantiation: x[i] = v[i] applied to the initial domains (a value outside a domain empties it). */
parac_status xcsp3_read_instantiation(global_reader *r)
{
    static const char *const known[] = {"list", "values", NULL};
    xmlNodePtr values = xcsp_child(r->node, "values");
    int64_t *wanted = NULL;
    size_t count = 0;
    parac_csp_network *n = r->x->network;
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && !values) status = BAD(r, NULL, "no <values>");
    if (status == PARAC_OK) status = xcsp3_node_integers(r, values, &wanted, &count);
    if (status == PARAC_OK && count != r->g.list_length[0])
        status = BAD(r, values, "%zu values for a list of %zu", count, r->g.list_length[0]);
    for (size_t i = 0; status == PARAC_OK && i < count; i++) /* refused before any domain changes */
        if (r->g.lists[0][i].var < 0 && r->g.lists[0][i].value != wanted[i])
            status = UNSUPPORTED(r, values, "an integer in the list that differs from its value");
    for (size_t i = 0; status == PARAC_OK && i < count; i++) {
        const ac_term *t = &r->g.lists[0][i];
        if (t->var < 0) continue;
        for (uint32_t slot = 0; slot < n->domain_size[t->var]; slot++)
            if (n->values[n->value_offset[t->var] + slot] != wanted[i]) parac_csp_remove_initial_value(n, (uint32_t)t->var, slot);
    }
    free(wanted);
    return status;
}
