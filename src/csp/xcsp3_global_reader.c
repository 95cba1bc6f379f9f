/* csp/xcsp3_global_reader.c — the parts every reader of a global constraint uses: messages
 * (BAD, UNSUPPORTED, with the element's name and line), children and attributes, lists of
 * terms (expressions included), conditions ("(le, 10)", "(in, {1,3})"), tuples of terms
 * ("(x1,y1)(x2,y2)": matrix rows, boxes), and adding the finished constraint to the network.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_global_reader.h"

/* ---- messages ------------------------------------------------------------------------------- */

parac_status xcsp3_fail_at(global_reader *r, xmlNodePtr at, parac_status status, const char *format, ...)
{
    char what[200];
    va_list list;
    va_start(list, format);
    vsnprintf(what, sizeof what, format, list);
    va_end(list);
    r->droppable = status == PARAC_ERR_UNSUPPORTED;
    return parac_fail_at(r->error, status, r->x->in->name, xmlGetLineNo(at ? at : r->node), "<%s>: %s",
                         (const char *)r->node->name, what);
}

parac_status xcsp3_no_memory(global_reader *r) { return parac_fail_no_memory(r->error, "global constraint", 64); }

/* ---- children ------------------------------------------------------------------------------- */

int xcsp3_has_element_children(xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return 1;
    return 0;
}

size_t xcsp3_count_children(xmlNodePtr node, const char *name)
{
    size_t count = 0;
    for (xmlNodePtr c = node->children; c; c = c->next) count += xcsp3_is_named(c, name);
    return count;
}

/* Refuses a child element outside `known` (a NULL-terminated list of names). */
parac_status xcsp3_only_children(global_reader *r, const char *const *known)
{
    for (xmlNodePtr c = r->node->children; c; c = c->next) {
        size_t k = 0;
        if (c->type != XML_ELEMENT_NODE) continue;
        while (known[k] && strcmp(known[k], (const char *)c->name) != 0) k++;
        if (!known[k]) return UNSUPPORTED(r, c, "unsupported child <%s>", (const char *)c->name);
    }
    return PARAC_OK;
}

/* The value of attribute `name` as an integer (fallback when absent). */
parac_status xcsp3_integer_attribute(global_reader *r, xmlNodePtr node, const char *name, int64_t fallback,
                                     int64_t *value)
{
    char *text = node ? (char *)xmlGetProp(node, (const xmlChar *)name) : NULL;
    const char *at = text;
    int ok;
    *value = fallback;
    if (!text) return PARAC_OK;
    ok = xcsp_read_integer(&at, value);
    while (ok && (*at == ' ' || *at == '\t')) at++;
    ok = ok && *at == '\0';
    xmlFree(text);
    return ok ? PARAC_OK : BAD(r, node, "%s= is not an integer", name);
}

/* 1 when attribute `name` is "true" (fallback when absent). */
int xcsp3_boolean_attribute(xmlNodePtr node, const char *name, int fallback)
{
    char *text = (char *)xmlGetProp(node, (const xmlChar *)name);
    int value = text ? strcmp(text, "true") == 0 : fallback;
    xmlFree(text);
    return value;
}

/* ---- terms ---------------------------------------------------------------------------------- */

const char *xcsp3_skip_spaces(const char *at)
{
    while (xcsp3_is_space(*at)) at++;
    return at;
}

static parac_status parse_plain_text(global_reader *r, xmlNodePtr at, const char *text, term_list *out)
{
    int parsed = xcsp3_parse_terms(r->x, text, r->args, out);
    if (parsed == -2) return xcsp3_no_memory(r);
    if (parsed < 0) return BAD(r, at, "%s", r->x->why);
    return PARAC_OK;
}

/* A list with expression terms ("x[0] add(x[1],1) mul(x[2],y)", as pycsp3 writes
 * AllDifferent(x[i] + i)): each expression becomes an auxiliary variable (xcsp3_expression_term),
 * the other terms are read as usual. */
static parac_status parse_text_with_expressions(global_reader *r, xmlNodePtr at, const char *text, term_list *out)
{
    parac_status status = PARAC_OK;
    const char *cursor = xcsp3_skip_spaces(text);
    char *plain = NULL;
    if (strstr(text, "%..."))
        return UNSUPPORTED(r, at, "%%... in a list with expression terms");
    while (status == PARAC_OK && *cursor) {
        const char *end = xcsp3_term_end(cursor);
        if (!end) return BAD(r, at, "an expression term with unbalanced parentheses");
        if (memchr(cursor, '(', (size_t)(end - cursor))) {
            term value = {0};
            status = xcsp3_expression_term(r->x, at, cursor, (size_t)(end - cursor), r->args, &value,
                                           &r->expression_variables, r->error);
            r->droppable = status == PARAC_ERR_UNSUPPORTED;
            if (status == PARAC_OK && xcsp3_push_term(out, value.var, value.constant) < 0) status = xcsp3_no_memory(r);
        } else if (!(plain = malloc((size_t)(end - cursor) + 1))) {
            status = xcsp3_no_memory(r);
        } else {
            memcpy(plain, cursor, (size_t)(end - cursor));
            plain[end - cursor] = '\0';
            status = parse_plain_text(r, at, plain, out);
            free(plain);
            plain = NULL;
        }
        cursor = xcsp3_skip_spaces(end);
    }
    return status;
}

parac_status xcsp3_parse_text(global_reader *r, xmlNodePtr at, const char *text, term_list *out)
{
    return strchr(text, '(') ? parse_text_with_expressions(r, at, text, out) : parse_plain_text(r, at, text, out);
}

/* The terms of node's text, appended to out. */
parac_status xcsp3_node_terms(global_reader *r, xmlNodePtr node, term_list *out)
{
    char *text = xcsp_node_text(node);
    parac_status status = xcsp3_parse_text(r, node, text, out);
    xmlFree(text);
    return status;
}

/* A copy of terms as ac_terms (NULL when empty). */
ac_term *xcsp3_copy_terms(const term_list *terms)
{
    ac_term *copy;
    if (!terms->count) return NULL;
    if (!(copy = malloc(terms->count * sizeof *copy))) return NULL;
    for (size_t i = 0; i < terms->count; i++) {
        copy[i].var = terms->items[i].var >= 0 ? terms->items[i].var : AC_TERM_CONSTANT;
        copy[i].value = terms->items[i].var >= 0 ? 0 : terms->items[i].constant;
    }
    return copy;
}

/* Stores terms as lists[which] of the global. */
parac_status xcsp3_set_list(global_reader *r, size_t which, const term_list *terms)
{
    free(r->g.lists[which]);
    r->g.lists[which] = xcsp3_copy_terms(terms);
    if (terms->count && !r->g.lists[which]) return xcsp3_no_memory(r);
    r->g.list_length[which] = terms->count;
    if (r->g.list_count < which + 1) r->g.list_count = which + 1;
    return PARAC_OK;
}

parac_status xcsp3_node_list(global_reader *r, xmlNodePtr node, size_t which)
{
    term_list terms = {0};
    parac_status status = xcsp3_node_terms(r, node, &terms);
    if (status == PARAC_OK) status = xcsp3_set_list(r, which, &terms);
    free(terms.items);
    return status;
}

/* The constraint's main list: its <list> child, or its own text in the simple form
 * (<allDifferent> x[] </allDifferent>). *list_node is the node read (for startIndex). */
parac_status xcsp3_main_list(global_reader *r, xmlNodePtr *list_node)
{
    xmlNodePtr list = xcsp_child(r->node, "list");
    if (xcsp3_count_children(r->node, "list") > 1) return UNSUPPORTED(r, NULL, "more than one <list>");
    if (!list && xcsp3_has_element_children(r->node)) return BAD(r, NULL, "no <list>");
    if (list_node) *list_node = list;
    return xcsp3_node_list(r, list ? list : r->node, 0);
}

/* Integer constants of node's text (parameters bound to constants allowed), as a malloc'd array. */
parac_status xcsp3_node_integers(global_reader *r, xmlNodePtr node, int64_t **values, size_t *count)
{
    term_list terms = {0};
    parac_status status = xcsp3_node_terms(r, node, &terms);
    *values = NULL;
    *count = 0;
    if (status == PARAC_OK && terms.count && !(*values = malloc(terms.count * sizeof **values))) status = xcsp3_no_memory(r);
    for (size_t i = 0; status == PARAC_OK && i < terms.count; i++) {
        if (terms.items[i].var >= 0) status = UNSUPPORTED(r, node, "a variable in <%s>, where parac takes integers", (const char *)node->name);
        else (*values)[(*count)++] = terms.items[i].constant;
    }
    free(terms.items);
    if (status != PARAC_OK) {
        free(*values);
        *values = NULL;
        *count = 0;
    }
    return status;
}

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

size_t xcsp3_sort_distinct(int64_t *values, size_t count)
{
    size_t kept = 0;
    if (!count) return 0;
    qsort(values, count, sizeof *values, compare_i64);
    for (size_t i = 0; i < count; i++)
        if (!kept || values[i] != values[kept - 1]) values[kept++] = values[i];
    return kept;
}

/* <except> into values (sorted, distinct), when present. */
parac_status xcsp3_read_except(global_reader *r)
{
    xmlNodePtr except = xcsp_child(r->node, "except");
    parac_status status;
    if (!except) return PARAC_OK;
    status = xcsp3_node_integers(r, except, &r->g.values, &r->g.value_count);
    r->g.value_count = xcsp3_sort_distinct(r->g.values, r->g.value_count);
    return status;
}

/* ---- conditions: "(le, 10)", "(eq, y)", "(in, 2..5)", "(in, {1,3})" ------------------------- */


static ac_operator operator_named(const char *name, size_t length)
{
    static const struct {
        const char *name;
        ac_operator op;
    } table[] = {{"lt", AC_OP_LT}, {"le", AC_OP_LE}, {"ge", AC_OP_GE}, {"gt", AC_OP_GT},
                 {"eq", AC_OP_EQ}, {"ne", AC_OP_NE}, {"in", AC_OP_IN}, {"notin", AC_OP_NOT_IN}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        if (strlen(table[k].name) == length && memcmp(table[k].name, name, length) == 0) return table[k].op;
    return AC_OP_NONE;
}

/* "{1,3,5}" or "{}" into a sorted distinct set. */
static parac_status condition_set(global_reader *r, xmlNodePtr at, const char *text, const char *end, ac_condition *c)
{
    size_t capacity = 1;
    for (const char *p = text; p < end; p++) capacity += *p == ',';
    if (!(c->set = malloc(capacity * sizeof *c->set))) return xcsp3_no_memory(r);
    text = xcsp3_skip_spaces(text + 1);
    while (*text != '}') {
        if (c->set_count == capacity || !xcsp_read_integer(&text, &c->set[c->set_count]))
            return BAD(r, at, "bad value set in the condition");
        c->set_count++;
        text = xcsp3_skip_spaces(text);
        if (*text == ',') text = xcsp3_skip_spaces(text + 1);
        else if (*text != '}') return BAD(r, at, "bad value set in the condition");
    }
    if (xcsp3_skip_spaces(text + 1) != end) return BAD(r, at, "text after the value set in the condition");
    c->set_count = xcsp3_sort_distinct(c->set, c->set_count);
    return PARAC_OK;
}

/* The operand of an in / notin: a range low..high or a set. */
static parac_status condition_values(global_reader *r, xmlNodePtr at, const char *text, const char *end, ac_condition *c)
{
    const char *p = text;
    if (*p == '{') return condition_set(r, at, text, end, c);
    if (!xcsp_read_integer(&p, &c->low) || p[0] != '.' || p[1] != '.') return BAD(r, at, "in/notin needs low..high or {values}");
    p += 2;
    if (!xcsp_read_integer(&p, &c->high) || xcsp3_skip_spaces(p) != end || c->high < c->low)
        return BAD(r, at, "in/notin needs low..high with low <= high");
    c->is_range = 1;
    return PARAC_OK;
}

static parac_status condition_operand(global_reader *r, xmlNodePtr at, const char *text, const char *end, ac_condition *c)
{
    term_list terms = {0};
    char *copy = malloc((size_t)(end - text) + 1);
    parac_status status;
    if (!copy) return xcsp3_no_memory(r);
    memcpy(copy, text, (size_t)(end - text));
    copy[end - text] = '\0';
    status = xcsp3_parse_text(r, at, copy, &terms);
    if (status == PARAC_OK && terms.count != 1) status = BAD(r, at, "the condition's operand must be one variable or integer");
    if (status == PARAC_OK) {
        c->operand.var = terms.items[0].var >= 0 ? terms.items[0].var : AC_TERM_CONSTANT;
        c->operand.value = terms.items[0].var >= 0 ? 0 : terms.items[0].constant;
    }
    free(terms.items);
    free(copy);
    return status;
}

parac_status xcsp3_parse_condition(global_reader *r, xmlNodePtr node, ac_condition *c)
{
    char *text = xcsp_node_text(node);
    const char *at = xcsp3_skip_spaces(text), *name, *end;
    parac_status status;
    if (*at != '(') {
        status = BAD(r, node, "a condition is written (operator, operand)");
        goto done;
    }
    name = at = xcsp3_skip_spaces(at + 1);
    while ((*at >= 'a' && *at <= 'z')) at++;
    c->op = operator_named(name, (size_t)(at - name));
    at = xcsp3_skip_spaces(at);
    end = strrchr(at, ')');
    if (c->op == AC_OP_NONE || *at != ',' || !end || *xcsp3_skip_spaces(end + 1)) {
        c->op = AC_OP_NONE;
        status = BAD(r, node, "a condition is (lt|le|ge|gt|eq|ne|in|notin, operand)");
        goto done;
    }
    at = xcsp3_skip_spaces(at + 1);
    while (end > at && xcsp3_is_space(end[-1])) end--;
    status = c->op == AC_OP_IN || c->op == AC_OP_NOT_IN ? condition_values(r, node, at, end, c)
                                                        : condition_operand(r, node, at, end, c);
done:
    xmlFree(text);
    return status;
}

parac_status xcsp3_required_condition(global_reader *r)
{
    xmlNodePtr condition = xcsp_child(r->node, "condition");
    if (!condition) return BAD(r, NULL, "no <condition>");
    return xcsp3_parse_condition(r, condition, &r->g.condition);
}

/* A term given alone (<value>, <index>, <size>, <k>) into *out. */
parac_status xcsp3_single_term(global_reader *r, xmlNodePtr node, ac_term *out)
{
    term_list terms = {0};
    parac_status status = xcsp3_node_terms(r, node, &terms);
    if (status == PARAC_OK && terms.count != 1) status = BAD(r, node, "<%s> must hold one variable or integer", (const char *)node->name);
    if (status == PARAC_OK) {
        out->var = terms.items[0].var >= 0 ? terms.items[0].var : AC_TERM_CONSTANT;
        out->value = terms.items[0].var >= 0 ? 0 : terms.items[0].constant;
    }
    free(terms.items);
    return status;
}

parac_status xcsp3_read_operator(global_reader *r)
{
    xmlNodePtr node = xcsp_child(r->node, "operator");
    char *text;
    const char *at, *end;
    if (!node) return BAD(r, NULL, "no <operator>");
    text = xcsp_node_text(node);
    at = xcsp3_skip_spaces(text);
    end = at;
    while (*end && !xcsp3_is_space(*end)) end++;
    r->g.op = operator_named(at, (size_t)(end - at));
    if (*xcsp3_skip_spaces(end) || (r->g.op != AC_OP_LT && r->g.op != AC_OP_LE && r->g.op != AC_OP_GE && r->g.op != AC_OP_GT))
        r->g.op = AC_OP_NONE;
    xmlFree(text);
    return r->g.op == AC_OP_NONE ? BAD(r, node, "<operator> must be lt, le, ge or gt") : PARAC_OK;
}

/* ---- tuples of terms: "(x1,y1)(x2,y2)" (matrix rows, k-dimensional boxes) -------------------- */

/* Appends every group's terms to out; *groups and *width give their count and common size.
 * Returns -1 (no change) when the text has no '(' (the caller then tries the compact form). */
int xcsp3_parse_groups(global_reader *r, xmlNodePtr node, const char *text, term_list *out, size_t *groups,
                       size_t *width, parac_status *status)
{
    const char *at = xcsp3_skip_spaces(text);
    char *copy;
    *groups = *width = 0;
    *status = PARAC_OK;
    if (*at != '(') return -1;
    if (!(copy = malloc(strlen(at) + 1))) {
        *status = xcsp3_no_memory(r);
        return 0;
    }
    while (*status == PARAC_OK && *at) {
        const char *close;
        size_t before = out->count;
        if (*at != '(' || !(close = strchr(at, ')'))) {
            *status = BAD(r, node, "expected (term,term,...) groups");
            break;
        }
        size_t length = (size_t)(close - at - 1);
        memcpy(copy, at + 1, length);
        copy[length] = '\0';
        for (size_t i = 0; i < length; i++)
            if (copy[i] == ',') copy[i] = ' ';
        *status = xcsp3_parse_text(r, node, copy, out);
        if (*status != PARAC_OK) break;
        if (*groups && out->count - before != *width) *status = BAD(r, node, "groups of different sizes");
        *width = out->count - before;
        if (*width == 0) *status = BAD(r, node, "an empty group ()");
        (*groups)++;
        at = xcsp3_skip_spaces(close + 1);
    }
    free(copy);
    return 0;
}

/* A <matrix>: rows "(a,b)(c,d)" or a compact two-dimensional reference "m[][]". */
parac_status xcsp3_read_matrix(global_reader *r, xmlNodePtr node, term_list *cells, size_t *rows, size_t *columns)
{
    char *text = xcsp_node_text(node);
    parac_status status = PARAC_OK;
    if (xcsp3_parse_groups(r, node, text, cells, rows, columns, &status) < 0) {
        const char *at = xcsp3_skip_spaces(text), *end = at;
        while (*end && !xcsp3_is_space(*end)) end++;
        if (*xcsp3_skip_spaces(end) || xcsp3_matrix_shape(r->x, at, (size_t)(end - at), rows, columns) < 0)
            status = BAD(r, node, "a <matrix> is (a,b,...)(c,d,...) rows or a reference such as m[][]");
        else status = xcsp3_parse_text(r, node, text, cells);
        if (status == PARAC_OK && cells->count != *rows * *columns) status = BAD(r, node, "bad matrix reference");
    }
    xmlFree(text);
    return status;
}

/* ---- adding --------------------------------------------------------------------------------- */

/* The integers a global holds: its memory, up to a constant factor. */
static uint64_t stored_terms(const parac_csp_global *g)
{
    uint64_t terms = g->coeff_count + g->value_count + g->condition.set_count + g->condition2.set_count + g->final_count +
                     3 * (uint64_t)g->transition_count;
    for (size_t l = 0; l < g->list_count; l++) terms += g->list_length[l];
    return terms;
}

static int compare_terms_by_variable(const void *a, const void *b)
{
    int64_t x = ((const term *)a)->var, y = ((const term *)b)->var;
    return (x > y) - (x < y);
}

/* Sets g.shared_expression_variables when a variable read by an expression term occurs in a
 * second expression or as a term of its own (global.h: GAC is then that of the decomposition). */
static parac_status mark_shared_expression_variables(global_reader *r)
{
    term_list *e = &r->expression_variables;
    size_t declared = r->x->network->declared_variable_count, count = ac_global_scope(&r->g, NULL, 0);
    uint32_t *scope = malloc((count + 1) * sizeof *scope);
    int shared = 0;
    if (!scope) return xcsp3_no_memory(r);
    ac_global_scope(&r->g, scope, count);
    qsort(e->items, e->count, sizeof *e->items, compare_terms_by_variable);
    for (size_t i = 1; i < e->count; i++) shared |= e->items[i].var == e->items[i - 1].var;
    for (size_t i = 0; i < count && !shared; i++) {
        term key = {scope[i], 0};
        shared = scope[i] < declared && bsearch(&key, e->items, e->count, sizeof *e->items, compare_terms_by_variable);
    }
    free(scope);
    r->g.shared_expression_variables = shared;
    return PARAC_OK;
}

/* Adds the global, within the value budget for all globals together: a compact reference (x[])
 * repeated in many constraints must not multiply into unbounded memory. */
parac_status xcsp3_add_global(global_reader *r)
{
    uint64_t terms = stored_terms(&r->g), budget = r->x->in->limits.max_values;
    r->g.line = xmlGetLineNo(r->node);
    if (terms > budget || r->x->global_terms > budget - terms) {
        parac_status status = UNSUPPORTED(r, NULL, "global constraints holding more than %llu terms in all (the value budget)",
                                          (unsigned long long)budget);
        r->droppable = 0; /* a budget, not a form: never dropped silently */
        return status;
    }
    r->x->global_terms += terms;
    if (r->expression_variables.count) {
        parac_status status = mark_shared_expression_variables(r);
        if (status != PARAC_OK) return status;
    }
    return parac_csp_add_global(r->x->network, &r->g, r->error);
}

/* Adds one constraint of kind `kind` per row and one per column of a matrix (allDifferent, lex). */
parac_status xcsp3_add_rows_and_columns(global_reader *r, const term_list *cells, size_t rows, size_t columns)
{
    term_list line = {0};
    parac_status status = PARAC_OK;
    for (int pass = 0; pass < 2 && status == PARAC_OK; pass++) {
        size_t outer = pass ? columns : rows, inner = pass ? rows : columns;
        for (size_t o = 0; o < outer && status == PARAC_OK; o++) {
            line.count = 0;
            for (size_t i = 0; i < inner; i++) {
                const term *t = &cells->items[pass ? i * columns + o : o * columns + i];
                if (xcsp3_push_term(&line, t->var, t->constant) < 0) {
                    free(line.items);
                    return xcsp3_no_memory(r);
                }
            }
            status = xcsp3_set_list(r, 0, &line);
            if (status == PARAC_OK) status = xcsp3_add_global(r);
        }
    }
    free(line.items);
    return status;
}
