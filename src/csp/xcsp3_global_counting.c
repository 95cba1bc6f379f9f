/* csp/xcsp3_global_counting.c — readers of the XCSP3 counting globals: sum (coefficients,
 * variable ones included), count and its atLeast / atMost / exactly forms, nValues, cardinality.
 */
#include <stdlib.h>
#include <string.h>

#include "csp/xcsp3_global_reader.h"

/* Term i of the sum times a variable coefficient c (pycsp3's x * y <= 4 gives <coeffs> y[]):
 * c itself with the constant as its coefficient, or an auxiliary variable for mul(x, c). */
static parac_status variable_coefficient(global_reader *r, xmlNodePtr coeffs, size_t i, const term *coefficient)
{
    const parac_csp_network *n = r->x->network;
    ac_term *x = &r->g.lists[0][i];
    char text[2 * PARAC_ERROR_MESSAGE_SIZE];
    term product = {0};
    parac_status status;
    if (x->var == AC_TERM_CONSTANT) {
        r->g.coeffs[i] = x->value; /* k * c: the sum merges repeats of c, no decomposition */
        x->var = coefficient->var, x->value = 0;
        return PARAC_OK;
    }
    if ((size_t)x->var >= n->declared_variable_count || (size_t)coefficient->var >= n->declared_variable_count)
        return UNSUPPORTED(r, coeffs, "a variable coefficient of an expression term");
    snprintf(text, sizeof text, "mul(%s,%s)", n->variable_names[x->var], n->variable_names[coefficient->var]);
    status = xcsp3_expression_term(r->x, coeffs, text, strlen(text), NULL, &product, &r->expression_variables, r->error);
    r->droppable = status == PARAC_ERR_UNSUPPORTED;
    if (status != PARAC_OK) return status;
    x->var = product.var >= 0 ? product.var : AC_TERM_CONSTANT;
    x->value = product.var >= 0 ? 0 : product.constant;
    r->g.coeffs[i] = 1;
    return PARAC_OK;
}

/* <coeffs>: integers, or variables (a scalar product), one per term. */
static parac_status read_sum_coeffs(global_reader *r, xmlNodePtr coeffs)
{
    term_list terms = {0};
    size_t n = r->g.list_length[0];
    parac_status status = xcsp3_node_terms(r, coeffs, &terms);
    if (status == PARAC_OK && terms.count != n)
        status = BAD(r, coeffs, "%zu coefficients for a list of %zu", terms.count, n);
    if (status == PARAC_OK && n && !(r->g.coeffs = malloc(n * sizeof *r->g.coeffs))) status = xcsp3_no_memory(r);
    if (status == PARAC_OK) r->g.coeff_count = n;
    for (size_t i = 0; status == PARAC_OK && i < n; i++) {
        if (terms.items[i].var < 0) r->g.coeffs[i] = terms.items[i].constant;
        else status = variable_coefficient(r, coeffs, i, &terms.items[i]);
    }
    free(terms.items);
    return status;
}

parac_status xcsp3_read_sum(global_reader *r)
{
    static const char *const known[] = {"list", "coeffs", "condition", NULL};
    xmlNodePtr coeffs = xcsp_child(r->node, "coeffs");
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && coeffs) {
        status = read_sum_coeffs(r, coeffs);
    } else if (status == PARAC_OK && r->g.list_length[0]) {
        if (!(r->g.coeffs = malloc(r->g.list_length[0] * sizeof *r->g.coeffs))) return xcsp3_no_memory(r);
        for (size_t i = 0; i < r->g.list_length[0]; i++) r->g.coeffs[i] = 1;
        r->g.coeff_count = r->g.list_length[0];
    }
    if (status == PARAC_OK) status = xcsp3_required_condition(r);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_count(global_reader *r)
{
    static const char *const known[] = {"list", "values", "condition", NULL};
    xmlNodePtr values = xcsp_child(r->node, "values");
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && !values) status = BAD(r, NULL, "no <values>");
    if (status == PARAC_OK) status = xcsp3_node_list(r, values, 1);
    if (status == PARAC_OK) status = xcsp3_required_condition(r);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* atLeast / atMost / exactly: <list>, <value>, <k>; stored as COUNT with ge / le / eq k. */
static parac_status read_count_bound(global_reader *r, ac_operator op)
{
    static const char *const known[] = {"list", "value", "k", NULL};
    xmlNodePtr value = xcsp_child(r->node, "value"), k = xcsp_child(r->node, "k");
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && (!value || !k)) status = BAD(r, NULL, "needs <list>, <value> and <k>");
    if (status == PARAC_OK) status = xcsp3_node_list(r, value, 1);
    if (status == PARAC_OK && r->g.list_length[1] != 1) status = BAD(r, value, "<value> must hold one term");
    if (status == PARAC_OK) status = xcsp3_single_term(r, k, &r->g.condition.operand);
    r->g.condition.op = op;
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_n_values(global_reader *r)
{
    static const char *const known[] = {"list", "except", "condition", NULL};
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK) status = xcsp3_read_except(r);
    if (status == PARAC_OK) status = xcsp3_required_condition(r);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* <occurs>: per value a variable, an integer or a range lo..hi (then ranges[k], has_ranges). */
static parac_status read_occurs(global_reader *r, xmlNodePtr occurs)
{
    char *text = xcsp_node_text(occurs), *copy = malloc(strlen(text) + 1);
    term_list terms = {0};
    ac_range *ranges = NULL;
    size_t range_capacity = 0;
    parac_status status = copy ? PARAC_OK : xcsp3_no_memory(r);
    for (const char *at = xcsp3_skip_spaces(text); status == PARAC_OK && *at; at = xcsp3_skip_spaces(at)) {
        const char *start = at, *p = at;
        int64_t low, high;
        while (*at && !xcsp3_is_space(*at)) at++;
        if (terms.count == range_capacity) {
            ac_range *grown = realloc(ranges, (range_capacity = range_capacity ? 2 * range_capacity : 16) * sizeof *grown);
            if (!grown) {
                status = xcsp3_no_memory(r);
                break;
            }
            ranges = grown;
        }
        if (xcsp_read_integer(&p, &low) && p[0] == '.' && p[1] == '.') {
            p += 2;
            if (!xcsp_read_integer(&p, &high) || p != at || high < low) {
                status = BAD(r, occurs, "bad range '%.*s'", (int)(at - start), start);
                break;
            }
            ranges[terms.count] = (ac_range){low, high};
            r->g.has_ranges = 1;
            if (xcsp3_push_term(&terms, -1, low) < 0) status = xcsp3_no_memory(r);
            continue;
        }
        size_t before = terms.count;
        memcpy(copy, start, (size_t)(at - start));
        copy[at - start] = '\0';
        status = xcsp3_parse_text(r, occurs, copy, &terms); /* c[] gives several terms */
        if (status == PARAC_OK && terms.count > range_capacity) {
            ac_range *grown = realloc(ranges, (range_capacity = terms.count * 2) * sizeof *grown);
            if (!grown) status = xcsp3_no_memory(r);
            else ranges = grown;
        }
        for (size_t k = before; status == PARAC_OK && k < terms.count; k++) {
            const term *t = &terms.items[k];
            ranges[k] = t->var >= 0 ? (ac_range){0, 0} : (ac_range){t->constant, t->constant};
        }
    }
    if (status == PARAC_OK) status = xcsp3_set_list(r, 2, &terms);
    if (status == PARAC_OK && r->g.has_ranges) {
        r->g.ranges = ranges;
        ranges = NULL;
    }
    free(ranges);
    free(terms.items);
    free(copy);
    xmlFree(text);
    return status;
}

parac_status xcsp3_read_cardinality(global_reader *r)
{
    static const char *const known[] = {"list", "values", "occurs", NULL};
    xmlNodePtr values = xcsp_child(r->node, "values"), occurs = xcsp_child(r->node, "occurs");
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && (!values || !occurs)) status = BAD(r, NULL, "needs <list>, <values> and <occurs>");
    if (status == PARAC_OK) status = xcsp3_node_list(r, values, 1);
    if (status == PARAC_OK) status = read_occurs(r, occurs);
    if (status == PARAC_OK && r->g.list_length[1] != r->g.list_length[2])
        status = BAD(r, occurs, "%zu occurrences for %zu values", r->g.list_length[2], r->g.list_length[1]);
    if (status == PARAC_OK) r->g.closed = xcsp3_boolean_attribute(values, "closed", 0);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

parac_status xcsp3_read_at_least(global_reader *r) { return read_count_bound(r, AC_OP_GE); }
parac_status xcsp3_read_at_most(global_reader *r) { return read_count_bound(r, AC_OP_LE); }
parac_status xcsp3_read_exactly(global_reader *r) { return read_count_bound(r, AC_OP_EQ); }
