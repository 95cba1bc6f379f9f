/* csp/xcsp3_global_packing.c — readers of the XCSP3 packing and scheduling globals:
 * noOverlap (intervals or k-dimensional boxes), cumulative, binPacking, knapsack; and
 * circuit (the graph global: a successor list).
 */
#include <stdlib.h>
#include <string.h>

#include "csp/xcsp3_global_reader.h"

/* origins / lengths of noOverlap and cumulative: plain lists, or (a,b)(c,d) boxes for noOverlap. */
static parac_status box_list(global_reader *r, xmlNodePtr node, size_t which, size_t *width)
{
    char *text = xcsp_node_text(node);
    term_list terms = {0};
    size_t groups = 0;
    parac_status status = PARAC_OK;
    if (xcsp3_parse_groups(r, node, text, &terms, &groups, width, &status) < 0) {
        *width = 1;
        status = xcsp3_parse_text(r, node, text, &terms);
    }
    if (status == PARAC_OK) status = xcsp3_set_list(r, which, &terms);
    free(terms.items);
    xmlFree(text);
    return status;
}

parac_status xcsp3_read_no_overlap(global_reader *r)
{
    static const char *const known[] = {"origins", "lengths", NULL};
    xmlNodePtr origins = xcsp_child(r->node, "origins"), lengths = xcsp_child(r->node, "lengths");
    size_t origin_width = 0, length_width = 0;
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK && (!origins || !lengths)) status = BAD(r, NULL, "needs <origins> and <lengths>");
    if (status == PARAC_OK) status = box_list(r, origins, 0, &origin_width);
    if (status == PARAC_OK) status = box_list(r, lengths, 1, &length_width);
    if (status == PARAC_OK && (origin_width != length_width || r->g.list_length[0] != r->g.list_length[1]))
        status = BAD(r, lengths, "<origins> and <lengths> differ in shape");
    r->g.dims[0] = (int64_t)origin_width;
    r->g.zero_ignored = xcsp3_boolean_attribute(r->node, "zeroIgnored", 1);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_cumulative(global_reader *r)
{
    static const char *const known[] = {"origins", "lengths", "ends", "heights", "condition", NULL};
    static const char *const parts[] = {"origins", "lengths", "heights", "ends"};
    parac_status status = xcsp3_only_children(r, known);
    for (size_t p = 0; p < 4 && status == PARAC_OK; p++) {
        xmlNodePtr node = xcsp_child(r->node, parts[p]);
        if (!node && p < 3) status = BAD(r, NULL, "needs <origins>, <lengths> and <heights>");
        else if (node) status = xcsp3_node_list(r, node, p);
        if (status == PARAC_OK && node && r->g.list_length[p] != r->g.list_length[0])
            status = BAD(r, node, "<%s> is not as long as <origins>", parts[p]);
    }
    if (status == PARAC_OK) status = xcsp3_required_condition(r);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_circuit(global_reader *r)
{
    static const char *const known[] = {"list", "size", NULL};
    xmlNodePtr size = xcsp_child(r->node, "size"), list = NULL;
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, &list);
    if (status == PARAC_OK) status = xcsp3_integer_attribute(r, list, "startIndex", 0, &r->g.start_index);
    r->g.size = (ac_term){-1, 0};
    if (status == PARAC_OK && size) status = xcsp3_single_term(r, size, &r->g.size);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* Integers of `name` (one per term of the main list) into *values. */
static parac_status per_item_integers(global_reader *r, const char *name, int64_t **values, size_t *count)
{
    xmlNodePtr node = xcsp_child(r->node, name);
    parac_status status;
    if (!node) return BAD(r, NULL, "no <%s>", name);
    status = xcsp3_node_integers(r, node, values, count);
    if (status == PARAC_OK && *count != r->g.list_length[0])
        status = BAD(r, node, "%zu <%s> for a list of %zu", *count, name, r->g.list_length[0]);
    return status;
}

parac_status xcsp3_read_bin_packing(global_reader *r)
{
    static const char *const known[] = {"list", "sizes", "condition", NULL};
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK) status = per_item_integers(r, "sizes", &r->g.coeffs, &r->g.coeff_count);
    if (status == PARAC_OK) status = xcsp3_required_condition(r);
    /* a load at least k (ge, gt, eq, in ...) depends on which bins exist: refused, not guessed */
    if (status == PARAC_OK && r->g.condition.op != AC_OP_LE && r->g.condition.op != AC_OP_LT)
        status = UNSUPPORTED(r, xcsp_child(r->node, "condition"), "a load condition other than le or lt");
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* <list>, <weights>, <profits> and two <condition>s: the first on the weight, the second on the
 * profit, as pycsp3 writes Knapsack(x, weights, wlimit, profits) >= p. */
parac_status xcsp3_read_knapsack(global_reader *r)
{
    static const char *const known[] = {"list", "weights", "profits", "condition", NULL};
    xmlNodePtr conditions[2] = {NULL, NULL};
    size_t found = 0;
    parac_status status = xcsp3_only_children(r, known);
    for (xmlNodePtr c = r->node->children; c; c = c->next)
        if (xcsp3_is_named(c, "condition")) {
            if (found == 2) return BAD(r, c, "more than two <condition>s");
            conditions[found++] = c;
        }
    if (status == PARAC_OK && found != 2) status = BAD(r, NULL, "two <condition>s (weight, profit) expected");
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK) status = per_item_integers(r, "weights", &r->g.coeffs, &r->g.coeff_count);
    if (status == PARAC_OK) status = per_item_integers(r, "profits", &r->g.values, &r->g.value_count);
    if (status == PARAC_OK) status = xcsp3_parse_condition(r, conditions[0], &r->g.condition);
    if (status == PARAC_OK) status = xcsp3_parse_condition(r, conditions[1], &r->g.condition2);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}
