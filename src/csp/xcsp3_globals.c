/* csp/xcsp3_globals.c — XCSP3 global constraints into parac_csp_global (ac/global.h).
 *
 * One reader per kind, each reading the element's children into one plain
 * struct that the network copies (parac_csp_add_global). Every list goes
 * through the reader's list parser (xcsp3_parse_terms), so compact references
 * (x[], m[][2]), integer constants and group/slide parameters (%i, %...) work
 * everywhere. A child element a kind does not know is refused (unsupported,
 * with its line) rather than ignored: dropping part of a constraint would
 * change what it means. instantiation is applied to the domains, not stored.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_internal.h"

typedef struct global_reader {
    xcsp3 *x;
    const term_list *args; /* group / slide parameters, or NULL */
    xmlNodePtr node;       /* the constraint element */
    parac_csp_global g;
    parac_error *error;
    int droppable; /* the failure is a form parac does not read: ignore_unsupported drops the constraint */
    term_list expression_variables; /* the distinct variables of each expression term read, one run per term */
} global_reader;

/* ---- messages ------------------------------------------------------------------------------- */

static parac_status fail_at(global_reader *r, xmlNodePtr at, parac_status status, const char *format, ...)
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

#define BAD(r, at, ...) fail_at(r, at, PARAC_ERR_PARSE, __VA_ARGS__)
#define UNSUPPORTED(r, at, ...) fail_at(r, at, PARAC_ERR_UNSUPPORTED, __VA_ARGS__)

static parac_status no_memory(global_reader *r) { return parac_fail_no_memory(r->error, "global constraint", 64); }

/* ---- children ------------------------------------------------------------------------------- */

static int is_named(xmlNodePtr node, const char *name)
{
    return node && node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

static int has_element_children(xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return 1;
    return 0;
}

static size_t count_children(xmlNodePtr node, const char *name)
{
    size_t count = 0;
    for (xmlNodePtr c = node->children; c; c = c->next) count += is_named(c, name);
    return count;
}

/* Refuses a child element outside `known` (a NULL-terminated list of names). */
static parac_status only_children(global_reader *r, const char *const *known)
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
static parac_status integer_attribute(global_reader *r, xmlNodePtr node, const char *name, int64_t fallback,
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
static int boolean_attribute(xmlNodePtr node, const char *name, int fallback)
{
    char *text = (char *)xmlGetProp(node, (const xmlChar *)name);
    int value = text ? strcmp(text, "true") == 0 : fallback;
    xmlFree(text);
    return value;
}

/* ---- terms ---------------------------------------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

static const char *skip_spaces(const char *at)
{
    while (is_space(*at)) at++;
    return at;
}

static parac_status parse_plain_text(global_reader *r, xmlNodePtr at, const char *text, term_list *out)
{
    int parsed = xcsp3_parse_terms(r->x, text, r->args, out);
    if (parsed == -2) return no_memory(r);
    if (parsed < 0) return BAD(r, at, "%s", r->x->why);
    return PARAC_OK;
}

/* A list with expression terms ("x[0] add(x[1],1) mul(x[2],y)", as pycsp3 writes
 * AllDifferent(x[i] + i)): each expression becomes an auxiliary variable (xcsp3_expression_term),
 * the other terms are read as usual. */
static parac_status parse_text_with_expressions(global_reader *r, xmlNodePtr at, const char *text, term_list *out)
{
    parac_status status = PARAC_OK;
    const char *cursor = skip_spaces(text);
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
            if (status == PARAC_OK && xcsp3_push_term(out, value.var, value.constant) < 0) status = no_memory(r);
        } else if (!(plain = malloc((size_t)(end - cursor) + 1))) {
            status = no_memory(r);
        } else {
            memcpy(plain, cursor, (size_t)(end - cursor));
            plain[end - cursor] = '\0';
            status = parse_plain_text(r, at, plain, out);
            free(plain);
            plain = NULL;
        }
        cursor = skip_spaces(end);
    }
    return status;
}

static parac_status parse_text(global_reader *r, xmlNodePtr at, const char *text, term_list *out)
{
    return strchr(text, '(') ? parse_text_with_expressions(r, at, text, out) : parse_plain_text(r, at, text, out);
}

/* The terms of node's text, appended to out. */
static parac_status node_terms(global_reader *r, xmlNodePtr node, term_list *out)
{
    char *text = xcsp_node_text(node);
    parac_status status = parse_text(r, node, text, out);
    xmlFree(text);
    return status;
}

/* A copy of terms as ac_terms (NULL when empty). */
static ac_term *copy_terms(const term_list *terms)
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
static parac_status set_list(global_reader *r, size_t which, const term_list *terms)
{
    free(r->g.lists[which]);
    r->g.lists[which] = copy_terms(terms);
    if (terms->count && !r->g.lists[which]) return no_memory(r);
    r->g.list_length[which] = terms->count;
    if (r->g.list_count < which + 1) r->g.list_count = which + 1;
    return PARAC_OK;
}

static parac_status node_list(global_reader *r, xmlNodePtr node, size_t which)
{
    term_list terms = {0};
    parac_status status = node_terms(r, node, &terms);
    if (status == PARAC_OK) status = set_list(r, which, &terms);
    free(terms.items);
    return status;
}

/* The constraint's main list: its <list> child, or its own text in the simple form
 * (<allDifferent> x[] </allDifferent>). *list_node is the node read (for startIndex). */
static parac_status main_list(global_reader *r, xmlNodePtr *list_node)
{
    xmlNodePtr list = xcsp_child(r->node, "list");
    if (count_children(r->node, "list") > 1) return UNSUPPORTED(r, NULL, "more than one <list>");
    if (!list && has_element_children(r->node)) return BAD(r, NULL, "no <list>");
    if (list_node) *list_node = list;
    return node_list(r, list ? list : r->node, 0);
}

/* Integer constants of node's text (parameters bound to constants allowed), as a malloc'd array. */
static parac_status node_integers(global_reader *r, xmlNodePtr node, int64_t **values, size_t *count)
{
    term_list terms = {0};
    parac_status status = node_terms(r, node, &terms);
    *values = NULL;
    *count = 0;
    if (status == PARAC_OK && terms.count && !(*values = malloc(terms.count * sizeof **values))) status = no_memory(r);
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

static size_t sort_distinct(int64_t *values, size_t count)
{
    size_t kept = 0;
    if (!count) return 0;
    qsort(values, count, sizeof *values, compare_i64);
    for (size_t i = 0; i < count; i++)
        if (!kept || values[i] != values[kept - 1]) values[kept++] = values[i];
    return kept;
}

/* <except> into values (sorted, distinct), when present. */
static parac_status read_except(global_reader *r)
{
    xmlNodePtr except = xcsp_child(r->node, "except");
    parac_status status;
    if (!except) return PARAC_OK;
    status = node_integers(r, except, &r->g.values, &r->g.value_count);
    r->g.value_count = sort_distinct(r->g.values, r->g.value_count);
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
    if (!(c->set = malloc(capacity * sizeof *c->set))) return no_memory(r);
    text = skip_spaces(text + 1);
    while (*text != '}') {
        if (c->set_count == capacity || !xcsp_read_integer(&text, &c->set[c->set_count]))
            return BAD(r, at, "bad value set in the condition");
        c->set_count++;
        text = skip_spaces(text);
        if (*text == ',') text = skip_spaces(text + 1);
        else if (*text != '}') return BAD(r, at, "bad value set in the condition");
    }
    if (skip_spaces(text + 1) != end) return BAD(r, at, "text after the value set in the condition");
    c->set_count = sort_distinct(c->set, c->set_count);
    return PARAC_OK;
}

/* The operand of an in / notin: a range low..high or a set. */
static parac_status condition_values(global_reader *r, xmlNodePtr at, const char *text, const char *end, ac_condition *c)
{
    const char *p = text;
    if (*p == '{') return condition_set(r, at, text, end, c);
    if (!xcsp_read_integer(&p, &c->low) || p[0] != '.' || p[1] != '.') return BAD(r, at, "in/notin needs low..high or {values}");
    p += 2;
    if (!xcsp_read_integer(&p, &c->high) || skip_spaces(p) != end || c->high < c->low)
        return BAD(r, at, "in/notin needs low..high with low <= high");
    c->is_range = 1;
    return PARAC_OK;
}

static parac_status condition_operand(global_reader *r, xmlNodePtr at, const char *text, const char *end, ac_condition *c)
{
    term_list terms = {0};
    char *copy = malloc((size_t)(end - text) + 1);
    parac_status status;
    if (!copy) return no_memory(r);
    memcpy(copy, text, (size_t)(end - text));
    copy[end - text] = '\0';
    status = parse_text(r, at, copy, &terms);
    if (status == PARAC_OK && terms.count != 1) status = BAD(r, at, "the condition's operand must be one variable or integer");
    if (status == PARAC_OK) {
        c->operand.var = terms.items[0].var >= 0 ? terms.items[0].var : AC_TERM_CONSTANT;
        c->operand.value = terms.items[0].var >= 0 ? 0 : terms.items[0].constant;
    }
    free(terms.items);
    free(copy);
    return status;
}

static parac_status parse_condition(global_reader *r, xmlNodePtr node, ac_condition *c)
{
    char *text = xcsp_node_text(node);
    const char *at = skip_spaces(text), *name, *end;
    parac_status status;
    if (*at != '(') {
        status = BAD(r, node, "a condition is written (operator, operand)");
        goto done;
    }
    name = at = skip_spaces(at + 1);
    while ((*at >= 'a' && *at <= 'z')) at++;
    c->op = operator_named(name, (size_t)(at - name));
    at = skip_spaces(at);
    end = strrchr(at, ')');
    if (c->op == AC_OP_NONE || *at != ',' || !end || *skip_spaces(end + 1)) {
        c->op = AC_OP_NONE;
        status = BAD(r, node, "a condition is (lt|le|ge|gt|eq|ne|in|notin, operand)");
        goto done;
    }
    at = skip_spaces(at + 1);
    while (end > at && is_space(end[-1])) end--;
    status = c->op == AC_OP_IN || c->op == AC_OP_NOT_IN ? condition_values(r, node, at, end, c)
                                                        : condition_operand(r, node, at, end, c);
done:
    xmlFree(text);
    return status;
}

static parac_status required_condition(global_reader *r)
{
    xmlNodePtr condition = xcsp_child(r->node, "condition");
    if (!condition) return BAD(r, NULL, "no <condition>");
    return parse_condition(r, condition, &r->g.condition);
}

/* A term given alone (<value>, <index>, <size>, <k>) into *out. */
static parac_status single_term(global_reader *r, xmlNodePtr node, ac_term *out)
{
    term_list terms = {0};
    parac_status status = node_terms(r, node, &terms);
    if (status == PARAC_OK && terms.count != 1) status = BAD(r, node, "<%s> must hold one variable or integer", (const char *)node->name);
    if (status == PARAC_OK) {
        out->var = terms.items[0].var >= 0 ? terms.items[0].var : AC_TERM_CONSTANT;
        out->value = terms.items[0].var >= 0 ? 0 : terms.items[0].constant;
    }
    free(terms.items);
    return status;
}

static parac_status read_operator(global_reader *r)
{
    xmlNodePtr node = xcsp_child(r->node, "operator");
    char *text;
    const char *at, *end;
    if (!node) return BAD(r, NULL, "no <operator>");
    text = xcsp_node_text(node);
    at = skip_spaces(text);
    end = at;
    while (*end && !is_space(*end)) end++;
    r->g.op = operator_named(at, (size_t)(end - at));
    if (*skip_spaces(end) || (r->g.op != AC_OP_LT && r->g.op != AC_OP_LE && r->g.op != AC_OP_GE && r->g.op != AC_OP_GT))
        r->g.op = AC_OP_NONE;
    xmlFree(text);
    return r->g.op == AC_OP_NONE ? BAD(r, node, "<operator> must be lt, le, ge or gt") : PARAC_OK;
}

/* ---- tuples of terms: "(x1,y1)(x2,y2)" (matrix rows, k-dimensional boxes) -------------------- */

/* Appends every group's terms to out; *groups and *width give their count and common size.
 * Returns -1 (no change) when the text has no '(' (the caller then tries the compact form). */
static int parse_groups(global_reader *r, xmlNodePtr node, const char *text, term_list *out, size_t *groups,
                        size_t *width, parac_status *status)
{
    const char *at = skip_spaces(text);
    char *copy;
    *groups = *width = 0;
    *status = PARAC_OK;
    if (*at != '(') return -1;
    if (!(copy = malloc(strlen(at) + 1))) {
        *status = no_memory(r);
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
        *status = parse_text(r, node, copy, out);
        if (*status != PARAC_OK) break;
        if (*groups && out->count - before != *width) *status = BAD(r, node, "groups of different sizes");
        *width = out->count - before;
        if (*width == 0) *status = BAD(r, node, "an empty group ()");
        (*groups)++;
        at = skip_spaces(close + 1);
    }
    free(copy);
    return 0;
}

/* A <matrix>: rows "(a,b)(c,d)" or a compact two-dimensional reference "m[][]". */
static parac_status read_matrix(global_reader *r, xmlNodePtr node, term_list *cells, size_t *rows, size_t *columns)
{
    char *text = xcsp_node_text(node);
    parac_status status = PARAC_OK;
    if (parse_groups(r, node, text, cells, rows, columns, &status) < 0) {
        const char *at = skip_spaces(text), *end = at;
        while (*end && !is_space(*end)) end++;
        if (*skip_spaces(end) || xcsp3_matrix_shape(r->x, at, (size_t)(end - at), rows, columns) < 0)
            status = BAD(r, node, "a <matrix> is (a,b,...)(c,d,...) rows or a reference such as m[][]");
        else status = parse_text(r, node, text, cells);
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
    if (!scope) return no_memory(r);
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
static parac_status add_global(global_reader *r)
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
static parac_status add_rows_and_columns(global_reader *r, const term_list *cells, size_t rows, size_t columns)
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
                    return no_memory(r);
                }
            }
            status = set_list(r, 0, &line);
            if (status == PARAC_OK) status = add_global(r);
        }
    }
    free(line.items);
    return status;
}

/* ---- the kinds ------------------------------------------------------------------------------ */

static parac_status read_all_different(global_reader *r)
{
    static const char *const known[] = {"list", "matrix", "except", NULL};
    xmlNodePtr matrix = xcsp_child(r->node, "matrix");
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = read_except(r);
    if (status == PARAC_OK && matrix) {
        term_list cells = {0};
        size_t rows = 0, columns = 0;
        status = read_matrix(r, matrix, &cells, &rows, &columns);
        if (status == PARAC_OK) status = add_rows_and_columns(r, &cells, rows, columns);
        free(cells.items);
        return status;
    }
    if (status == PARAC_OK) status = main_list(r, NULL);
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_all_equal(global_reader *r)
{
    static const char *const known[] = {"list", "except", NULL};
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = read_except(r);
    if (status == PARAC_OK) status = main_list(r, NULL);
    return status == PARAC_OK ? add_global(r) : status;
}

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
    parac_status status = node_terms(r, coeffs, &terms);
    if (status == PARAC_OK && terms.count != n)
        status = BAD(r, coeffs, "%zu coefficients for a list of %zu", terms.count, n);
    if (status == PARAC_OK && n && !(r->g.coeffs = malloc(n * sizeof *r->g.coeffs))) status = no_memory(r);
    if (status == PARAC_OK) r->g.coeff_count = n;
    for (size_t i = 0; status == PARAC_OK && i < n; i++) {
        if (terms.items[i].var < 0) r->g.coeffs[i] = terms.items[i].constant;
        else status = variable_coefficient(r, coeffs, i, &terms.items[i]);
    }
    free(terms.items);
    return status;
}

static parac_status read_sum(global_reader *r)
{
    static const char *const known[] = {"list", "coeffs", "condition", NULL};
    xmlNodePtr coeffs = xcsp_child(r->node, "coeffs");
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && coeffs) {
        status = read_sum_coeffs(r, coeffs);
    } else if (status == PARAC_OK && r->g.list_length[0]) {
        if (!(r->g.coeffs = malloc(r->g.list_length[0] * sizeof *r->g.coeffs))) return no_memory(r);
        for (size_t i = 0; i < r->g.list_length[0]; i++) r->g.coeffs[i] = 1;
        r->g.coeff_count = r->g.list_length[0];
    }
    if (status == PARAC_OK) status = required_condition(r);
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_count(global_reader *r)
{
    static const char *const known[] = {"list", "values", "condition", NULL};
    xmlNodePtr values = xcsp_child(r->node, "values");
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && !values) status = BAD(r, NULL, "no <values>");
    if (status == PARAC_OK) status = node_list(r, values, 1);
    if (status == PARAC_OK) status = required_condition(r);
    return status == PARAC_OK ? add_global(r) : status;
}

/* atLeast / atMost / exactly: <list>, <value>, <k>; stored as COUNT with ge / le / eq k. */
static parac_status read_count_bound(global_reader *r, ac_operator op)
{
    static const char *const known[] = {"list", "value", "k", NULL};
    xmlNodePtr value = xcsp_child(r->node, "value"), k = xcsp_child(r->node, "k");
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && (!value || !k)) status = BAD(r, NULL, "needs <list>, <value> and <k>");
    if (status == PARAC_OK) status = node_list(r, value, 1);
    if (status == PARAC_OK && r->g.list_length[1] != 1) status = BAD(r, value, "<value> must hold one term");
    if (status == PARAC_OK) status = single_term(r, k, &r->g.condition.operand);
    r->g.condition.op = op;
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_n_values(global_reader *r)
{
    static const char *const known[] = {"list", "except", "condition", NULL};
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK) status = read_except(r);
    if (status == PARAC_OK) status = required_condition(r);
    return status == PARAC_OK ? add_global(r) : status;
}

/* <occurs>: per value a variable, an integer or a range lo..hi (then ranges[k], has_ranges). */
static parac_status read_occurs(global_reader *r, xmlNodePtr occurs)
{
    char *text = xcsp_node_text(occurs), *copy = malloc(strlen(text) + 1);
    term_list terms = {0};
    ac_range *ranges = NULL;
    size_t range_capacity = 0;
    parac_status status = copy ? PARAC_OK : no_memory(r);
    for (const char *at = skip_spaces(text); status == PARAC_OK && *at; at = skip_spaces(at)) {
        const char *start = at, *p = at;
        int64_t low, high;
        while (*at && !is_space(*at)) at++;
        if (terms.count == range_capacity) {
            ac_range *grown = realloc(ranges, (range_capacity = range_capacity ? 2 * range_capacity : 16) * sizeof *grown);
            if (!grown) {
                status = no_memory(r);
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
            if (xcsp3_push_term(&terms, -1, low) < 0) status = no_memory(r);
            continue;
        }
        size_t before = terms.count;
        memcpy(copy, start, (size_t)(at - start));
        copy[at - start] = '\0';
        status = parse_text(r, occurs, copy, &terms); /* c[] gives several terms */
        if (status == PARAC_OK && terms.count > range_capacity) {
            ac_range *grown = realloc(ranges, (range_capacity = terms.count * 2) * sizeof *grown);
            if (!grown) status = no_memory(r);
            else ranges = grown;
        }
        for (size_t k = before; status == PARAC_OK && k < terms.count; k++) {
            const term *t = &terms.items[k];
            ranges[k] = t->var >= 0 ? (ac_range){0, 0} : (ac_range){t->constant, t->constant};
        }
    }
    if (status == PARAC_OK) status = set_list(r, 2, &terms);
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

static parac_status read_cardinality(global_reader *r)
{
    static const char *const known[] = {"list", "values", "occurs", NULL};
    xmlNodePtr values = xcsp_child(r->node, "values"), occurs = xcsp_child(r->node, "occurs");
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && (!values || !occurs)) status = BAD(r, NULL, "needs <list>, <values> and <occurs>");
    if (status == PARAC_OK) status = node_list(r, values, 1);
    if (status == PARAC_OK) status = read_occurs(r, occurs);
    if (status == PARAC_OK && r->g.list_length[1] != r->g.list_length[2])
        status = BAD(r, occurs, "%zu occurrences for %zu values", r->g.list_length[2], r->g.list_length[1]);
    if (status == PARAC_OK) r->g.closed = boolean_attribute(values, "closed", 0);
    return status == PARAC_OK ? add_global(r) : status;
}

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
        return single_term(r, value, &r->g.condition.operand);
    }
    return required_condition(r);
}

static parac_status read_element_matrix(global_reader *r, xmlNodePtr matrix, xmlNodePtr index)
{
    term_list cells = {0}, indices = {0};
    size_t rows = 0, columns = 0;
    parac_status status = read_matrix(r, matrix, &cells, &rows, &columns);
    if (status == PARAC_OK) status = set_list(r, 0, &cells);
    if (status == PARAC_OK) status = integer_attribute(r, matrix, "startRowIndex", 0, &r->g.start_index);
    if (status == PARAC_OK) status = integer_attribute(r, matrix, "startColIndex", 0, &r->g.start_index2);
    if (status == PARAC_OK) status = node_terms(r, index, &indices);
    if (status == PARAC_OK && indices.count != 2) status = BAD(r, index, "a matrix element needs two indices");
    if (status == PARAC_OK) {
        ac_term *both = copy_terms(&indices);
        if (!both) return free(cells.items), free(indices.items), no_memory(r);
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

static parac_status read_element(global_reader *r)
{
    static const char *const known[] = {"list", "matrix", "index", "value", "condition", NULL};
    xmlNodePtr matrix = xcsp_child(r->node, "matrix"), index = xcsp_child(r->node, "index"), list = NULL;
    parac_status status = only_children(r, known);
    if (status == PARAC_OK && !index) status = UNSUPPORTED(r, NULL, "element without <index> (member form)");
    if (status == PARAC_OK) status = check_rank(r, index);
    if (status == PARAC_OK && matrix) status = read_element_matrix(r, matrix, index);
    else if (status == PARAC_OK) {
        status = main_list(r, &list);
        if (status == PARAC_OK) status = integer_attribute(r, list, "startIndex", 0, &r->g.start_index);
        if (status == PARAC_OK) status = single_term(r, index, &r->g.index);
    }
    if (status == PARAC_OK) status = element_value(r);
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_channel(global_reader *r)
{
    static const char *const known[] = {"list", "value", NULL};
    size_t lists = count_children(r->node, "list"), which = 0;
    xmlNodePtr value = xcsp_child(r->node, "value");
    parac_status status = only_children(r, known);
    if (status == PARAC_OK && lists > 2) status = BAD(r, NULL, "more than two <list>");
    if (status == PARAC_OK && lists == 2 && value) status = BAD(r, value, "<value> goes with one <list>");
    if (status == PARAC_OK && lists == 0) status = has_element_children(r->node) ? BAD(r, NULL, "no <list>") : node_list(r, r->node, 0);
    for (xmlNodePtr c = r->node->children; status == PARAC_OK && c; c = c->next) {
        if (!is_named(c, "list")) continue;
        status = node_list(r, c, which);
        if (status == PARAC_OK) status = integer_attribute(r, c, "startIndex", 0, which ? &r->g.start_index2 : &r->g.start_index);
        which++;
    }
    if (status == PARAC_OK && lists == 2 && r->g.list_length[0] != r->g.list_length[1])
        status = BAD(r, NULL, "two lists of different lengths");
    if (status == PARAC_OK && value) {
        r->g.condition.op = AC_OP_EQ;
        status = single_term(r, value, &r->g.condition.operand);
    }
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_ordered(global_reader *r)
{
    static const char *const known[] = {"list", "lengths", "operator", NULL};
    xmlNodePtr lengths = xcsp_child(r->node, "lengths");
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && lengths) {
        status = node_integers(r, lengths, &r->g.coeffs, &r->g.coeff_count);
        if (status == PARAC_OK && r->g.coeff_count + 1 != r->g.list_length[0] && r->g.list_length[0])
            status = BAD(r, lengths, "%zu lengths for a list of %zu (one fewer expected)", r->g.coeff_count, r->g.list_length[0]);
    }
    if (status == PARAC_OK) status = read_operator(r);
    return status == PARAC_OK ? add_global(r) : status;
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
        for (size_t l = 0; status == PARAC_OK && l < in_window; l++) status = set_list(r, l, &lists[first + l]);
        if (status == PARAC_OK) status = add_global(r);
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
    parac_status status = read_matrix(r, matrix, &cells, &rows, &columns);
    for (int pass = 0; pass < 2 && status == PARAC_OK; pass++) {
        size_t outer = pass ? columns : rows, inner = pass ? rows : columns;
        if (!(lines = calloc(outer, sizeof *lines))) status = no_memory(r);
        for (size_t o = 0; o < outer && status == PARAC_OK; o++)
            for (size_t i = 0; i < inner && status == PARAC_OK; i++) {
                const term *t = &cells.items[pass ? i * columns + o : o * columns + i];
                if (xcsp3_push_term(&lines[o], t->var, t->constant) < 0) status = no_memory(r);
            }
        if (status == PARAC_OK) status = add_lex_chain(r, lines, outer);
        if (lines) free_lists(lines, outer);
        lines = NULL;
    }
    free(cells.items);
    return status;
}

static parac_status read_lex(global_reader *r)
{
    static const char *const known[] = {"list", "matrix", "operator", NULL};
    xmlNodePtr matrix = xcsp_child(r->node, "matrix");
    size_t count = count_children(r->node, "list"), which = 0;
    term_list *lists;
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = read_operator(r);
    if (status == PARAC_OK && matrix) return read_lex_matrix(r, matrix);
    if (status == PARAC_OK && count < 2) status = BAD(r, NULL, "needs two or more <list> or a <matrix>");
    if (status != PARAC_OK) return status;
    if (!(lists = calloc(count, sizeof *lists))) return no_memory(r);
    for (xmlNodePtr c = r->node->children; status == PARAC_OK && c; c = c->next) {
        if (!is_named(c, "list")) continue;
        status = node_terms(r, c, &lists[which]);
        if (status == PARAC_OK && lists[which].count != lists[0].count) status = BAD(r, c, "lists of different lengths");
        which++;
    }
    if (status == PARAC_OK) status = add_lex_chain(r, lists, count);
    free_lists(lists, count);
    return status;
}

/* instantiation: x[i] = v[i] applied to the initial domains (a value outside a domain empties it). */
static parac_status read_instantiation(global_reader *r)
{
    static const char *const known[] = {"list", "values", NULL};
    xmlNodePtr values = xcsp_child(r->node, "values");
    int64_t *wanted = NULL;
    size_t count = 0;
    parac_csp_network *n = r->x->network;
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && !values) status = BAD(r, NULL, "no <values>");
    if (status == PARAC_OK) status = node_integers(r, values, &wanted, &count);
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

/* State names of an automaton or nodes of an mdd -> 0, 1, ... in order of first appearance. */
typedef struct state_names {
    xcsp_names names;
    int64_t count;
} state_names;

static int64_t state_number(state_names *s, const char *name, size_t length)
{
    int64_t number = xcsp_names_get(&s->names, name, length);
    if (number >= 0) return number;
    if (xcsp_names_put(&s->names, name, length, s->count) < 0) return -1;
    return s->count++;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
           c == '$' || c == '%';
}

/* One state name at *at (advanced); -1 when none or out of memory. */
static int64_t read_state(state_names *s, const char **at)
{
    const char *start = *at = skip_spaces(*at);
    while (is_name_char(**at)) (*at)++;
    if (*at == start) return -1;
    return state_number(s, start, (size_t)(*at - start));
}

/* "(a,0,b)(b,1,a)" into (from, value, to) triples. */
static parac_status read_transitions(global_reader *r, xmlNodePtr node, state_names *states)
{
    char *text = xcsp_node_text(node);
    const char *at = skip_spaces(text);
    size_t capacity = 0;
    parac_status status = PARAC_OK;
    while (status == PARAC_OK && *at) {
        int64_t from = -1, value = 0, to = -1;
        int ok = *at == '(';
        if (ok) at++;
        ok = ok && (from = read_state(states, &at)) >= 0 && *(at = skip_spaces(at)) == ',';
        if (ok) at++;
        ok = ok && xcsp_read_integer(&at, &value) && *(at = skip_spaces(at)) == ',';
        if (ok) at++;
        ok = ok && (to = read_state(states, &at)) >= 0 && *(at = skip_spaces(at)) == ')';
        if (!ok) {
            status = BAD(r, node, "a transition is (state,value,state)");
            break;
        }
        at = skip_spaces(at + 1);
        if (r->g.transition_count == capacity) {
            int64_t *grown = realloc(r->g.transitions, (capacity = capacity ? 2 * capacity : 64) * 3 * sizeof *grown);
            if (!grown) {
                status = no_memory(r);
                break;
            }
            r->g.transitions = grown;
        }
        r->g.transitions[3 * r->g.transition_count] = from;
        r->g.transitions[3 * r->g.transition_count + 1] = value;
        r->g.transitions[3 * r->g.transition_count + 2] = to;
        r->g.transition_count++;
    }
    xmlFree(text);
    if (status == PARAC_OK && !r->g.transition_count) status = BAD(r, node, "no transition");
    return status;
}

/* The states named in a <start> / <final> text, appended to finals (or the one start). */
static parac_status read_state_list(global_reader *r, xmlNodePtr node, state_names *states, int64_t **out, size_t *count)
{
    char *text = xcsp_node_text(node);
    const char *at = skip_spaces(text);
    parac_status status = PARAC_OK;
    size_t capacity = 0;
    while (status == PARAC_OK && *at) {
        int64_t state = read_state(states, &at);
        if (state < 0 || (*at && !is_space(*at))) {
            status = BAD(r, node, "bad state name");
            break;
        }
        at = skip_spaces(at);
        if (*count == capacity) {
            int64_t *grown = realloc(*out, (capacity = capacity ? 2 * capacity : 8) * sizeof *grown);
            if (!grown) {
                status = no_memory(r);
                break;
            }
            *out = grown;
        }
        (*out)[(*count)++] = state;
    }
    xmlFree(text);
    return status;
}

static parac_status read_regular(global_reader *r)
{
    static const char *const known[] = {"list", "transitions", "start", "final", NULL};
    xmlNodePtr transitions = xcsp_child(r->node, "transitions"), start = xcsp_child(r->node, "start");
    xmlNodePtr final = xcsp_child(r->node, "final");
    state_names states = {0};
    int64_t *start_state = NULL;
    size_t start_count = 0;
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && (!transitions || !start || !final)) status = BAD(r, NULL, "needs <transitions>, <start> and <final>");
    if (status == PARAC_OK) status = read_state_list(r, start, &states, &start_state, &start_count);
    if (status == PARAC_OK && start_count != 1) status = BAD(r, start, "<start> names one state");
    if (status == PARAC_OK) status = read_transitions(r, transitions, &states);
    if (status == PARAC_OK) status = read_state_list(r, final, &states, &r->g.finals, &r->g.final_count);
    if (status == PARAC_OK) {
        r->g.start = start_state[0];
        r->g.state_count = states.count;
        r->g.final_count = sort_distinct(r->g.finals, r->g.final_count);
    }
    free(start_state);
    xcsp_names_free(&states.names);
    return status == PARAC_OK ? add_global(r) : status;
}

/* mdd: the root is the one node without an incoming arc, the terminal(s) those without outgoing ones. */
static parac_status mdd_ends(global_reader *r, xmlNodePtr transitions)
{
    size_t n = (size_t)r->g.state_count;
    unsigned char *role = calloc(n ? n : 1, 1); /* bit 0: has an incoming arc, bit 1: an outgoing one */
    size_t roots = 0;
    if (!role) return no_memory(r);
    for (size_t t = 0; t < r->g.transition_count; t++) {
        role[r->g.transitions[3 * t]] |= 2;
        role[r->g.transitions[3 * t + 2]] |= 1;
    }
    for (size_t s = 0; s < n; s++) {
        if (!(role[s] & 1)) r->g.start = (int64_t)s, roots++;
        if (!(role[s] & 2)) r->g.final_count++;
    }
    if (roots != 1 || !r->g.final_count) {
        free(role);
        return BAD(r, transitions, "an mdd has one root and at least one terminal node (%zu roots)", roots);
    }
    if (!(r->g.finals = malloc(r->g.final_count * sizeof *r->g.finals))) return free(role), no_memory(r);
    r->g.final_count = 0;
    for (size_t s = 0; s < n; s++)
        if (!(role[s] & 2)) r->g.finals[r->g.final_count++] = (int64_t)s;
    free(role);
    return PARAC_OK;
}

static parac_status read_mdd(global_reader *r)
{
    static const char *const known[] = {"list", "transitions", NULL};
    xmlNodePtr transitions = xcsp_child(r->node, "transitions");
    state_names states = {0};
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK && !transitions) status = BAD(r, NULL, "no <transitions>");
    if (status == PARAC_OK) status = read_transitions(r, transitions, &states);
    r->g.state_count = states.count;
    xcsp_names_free(&states.names);
    if (status == PARAC_OK) status = mdd_ends(r, transitions);
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_extremum(global_reader *r)
{
    static const char *const known[] = {"list", "condition", NULL};
    parac_status status = xcsp_child(r->node, "index") ? UNSUPPORTED(r, xcsp_child(r->node, "index"), "the arg-min/max form (<index>)")
                                                       : only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK) status = required_condition(r);
    return status == PARAC_OK ? add_global(r) : status;
}

/* origins / lengths of noOverlap and cumulative: plain lists, or (a,b)(c,d) boxes for noOverlap. */
static parac_status box_list(global_reader *r, xmlNodePtr node, size_t which, size_t *width)
{
    char *text = xcsp_node_text(node);
    term_list terms = {0};
    size_t groups = 0;
    parac_status status = PARAC_OK;
    if (parse_groups(r, node, text, &terms, &groups, width, &status) < 0) {
        *width = 1;
        status = parse_text(r, node, text, &terms);
    }
    if (status == PARAC_OK) status = set_list(r, which, &terms);
    free(terms.items);
    xmlFree(text);
    return status;
}

static parac_status read_no_overlap(global_reader *r)
{
    static const char *const known[] = {"origins", "lengths", NULL};
    xmlNodePtr origins = xcsp_child(r->node, "origins"), lengths = xcsp_child(r->node, "lengths");
    size_t origin_width = 0, length_width = 0;
    parac_status status = only_children(r, known);
    if (status == PARAC_OK && (!origins || !lengths)) status = BAD(r, NULL, "needs <origins> and <lengths>");
    if (status == PARAC_OK) status = box_list(r, origins, 0, &origin_width);
    if (status == PARAC_OK) status = box_list(r, lengths, 1, &length_width);
    if (status == PARAC_OK && (origin_width != length_width || r->g.list_length[0] != r->g.list_length[1]))
        status = BAD(r, lengths, "<origins> and <lengths> differ in shape");
    r->g.dims[0] = (int64_t)origin_width;
    r->g.zero_ignored = boolean_attribute(r->node, "zeroIgnored", 1);
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_cumulative(global_reader *r)
{
    static const char *const known[] = {"origins", "lengths", "ends", "heights", "condition", NULL};
    static const char *const parts[] = {"origins", "lengths", "heights", "ends"};
    parac_status status = only_children(r, known);
    for (size_t p = 0; p < 4 && status == PARAC_OK; p++) {
        xmlNodePtr node = xcsp_child(r->node, parts[p]);
        if (!node && p < 3) status = BAD(r, NULL, "needs <origins>, <lengths> and <heights>");
        else if (node) status = node_list(r, node, p);
        if (status == PARAC_OK && node && r->g.list_length[p] != r->g.list_length[0])
            status = BAD(r, node, "<%s> is not as long as <origins>", parts[p]);
    }
    if (status == PARAC_OK) status = required_condition(r);
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_circuit(global_reader *r)
{
    static const char *const known[] = {"list", "size", NULL};
    xmlNodePtr size = xcsp_child(r->node, "size"), list = NULL;
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, &list);
    if (status == PARAC_OK) status = integer_attribute(r, list, "startIndex", 0, &r->g.start_index);
    r->g.size = (ac_term){-1, 0};
    if (status == PARAC_OK && size) status = single_term(r, size, &r->g.size);
    return status == PARAC_OK ? add_global(r) : status;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

typedef struct global_entry {
    const char *name;
    ac_global_kind kind;
    parac_status (*read)(global_reader *r);
} global_entry;

/* Integers of `name` (one per term of the main list) into *values. */
static parac_status per_item_integers(global_reader *r, const char *name, int64_t **values, size_t *count)
{
    xmlNodePtr node = xcsp_child(r->node, name);
    parac_status status;
    if (!node) return BAD(r, NULL, "no <%s>", name);
    status = node_integers(r, node, values, count);
    if (status == PARAC_OK && *count != r->g.list_length[0])
        status = BAD(r, node, "%zu <%s> for a list of %zu", *count, name, r->g.list_length[0]);
    return status;
}

static parac_status read_bin_packing(global_reader *r)
{
    static const char *const known[] = {"list", "sizes", "condition", NULL};
    parac_status status = only_children(r, known);
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK) status = per_item_integers(r, "sizes", &r->g.coeffs, &r->g.coeff_count);
    if (status == PARAC_OK) status = required_condition(r);
    /* a load at least k (ge, gt, eq, in ...) depends on which bins exist: refused, not guessed */
    if (status == PARAC_OK && r->g.condition.op != AC_OP_LE && r->g.condition.op != AC_OP_LT)
        status = UNSUPPORTED(r, xcsp_child(r->node, "condition"), "a load condition other than le or lt");
    return status == PARAC_OK ? add_global(r) : status;
}

/* <list>, <weights>, <profits> and two <condition>s: the first on the weight, the second on the
 * profit, as pycsp3 writes Knapsack(x, weights, wlimit, profits) >= p. */
static parac_status read_knapsack(global_reader *r)
{
    static const char *const known[] = {"list", "weights", "profits", "condition", NULL};
    xmlNodePtr conditions[2] = {NULL, NULL};
    size_t found = 0;
    parac_status status = only_children(r, known);
    for (xmlNodePtr c = r->node->children; c; c = c->next)
        if (is_named(c, "condition")) {
            if (found == 2) return BAD(r, c, "more than two <condition>s");
            conditions[found++] = c;
        }
    if (status == PARAC_OK && found != 2) status = BAD(r, NULL, "two <condition>s (weight, profit) expected");
    if (status == PARAC_OK) status = main_list(r, NULL);
    if (status == PARAC_OK) status = per_item_integers(r, "weights", &r->g.coeffs, &r->g.coeff_count);
    if (status == PARAC_OK) status = per_item_integers(r, "profits", &r->g.values, &r->g.value_count);
    if (status == PARAC_OK) status = parse_condition(r, conditions[0], &r->g.condition);
    if (status == PARAC_OK) status = parse_condition(r, conditions[1], &r->g.condition2);
    return status == PARAC_OK ? add_global(r) : status;
}

static parac_status read_at_least(global_reader *r) { return read_count_bound(r, AC_OP_GE); }
static parac_status read_at_most(global_reader *r) { return read_count_bound(r, AC_OP_LE); }
static parac_status read_exactly(global_reader *r) { return read_count_bound(r, AC_OP_EQ); }

static const global_entry entries[] = {
    {"allDifferent", AC_GLOBAL_ALL_DIFFERENT, read_all_different},
    {"allEqual", AC_GLOBAL_ALL_EQUAL, read_all_equal},
    {"sum", AC_GLOBAL_SUM, read_sum},
    {"count", AC_GLOBAL_COUNT, read_count},
    {"atLeast", AC_GLOBAL_COUNT, read_at_least},
    {"atMost", AC_GLOBAL_COUNT, read_at_most},
    {"exactly", AC_GLOBAL_COUNT, read_exactly},
    {"nValues", AC_GLOBAL_NVALUES, read_n_values},
    {"cardinality", AC_GLOBAL_CARDINALITY, read_cardinality},
    {"element", AC_GLOBAL_ELEMENT, read_element},
    {"channel", AC_GLOBAL_CHANNEL, read_channel},
    {"ordered", AC_GLOBAL_ORDERED, read_ordered},
    {"lex", AC_GLOBAL_LEX, read_lex},
    {"instantiation", AC_GLOBAL_KIND_COUNT, read_instantiation},
    {"regular", AC_GLOBAL_REGULAR, read_regular},
    {"mdd", AC_GLOBAL_MDD, read_mdd},
    {"minimum", AC_GLOBAL_MINIMUM, read_extremum},
    {"maximum", AC_GLOBAL_MAXIMUM, read_extremum},
    {"noOverlap", AC_GLOBAL_NO_OVERLAP, read_no_overlap},
    {"cumulative", AC_GLOBAL_CUMULATIVE, read_cumulative},
    {"circuit", AC_GLOBAL_CIRCUIT, read_circuit},
    {"binPacking", AC_GLOBAL_BIN_PACKING, read_bin_packing},
    {"knapsack", AC_GLOBAL_KNAPSACK, read_knapsack},
};

static const global_entry *entry_named(const char *name)
{
    for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++)
        if (strcmp(entries[k].name, name) == 0) return &entries[k];
    return NULL;
}

int xcsp3_is_global(const char *name) { return entry_named(name) != NULL; }

parac_status xcsp3_read_global(xcsp3 *x, xmlNodePtr node, const term_list *args, parac_error *error)
{
    const global_entry *entry = entry_named((const char *)node->name);
    global_reader r;
    parac_status status;
    if (!entry) return xcsp3_unsupported(x, node, error);
    memset(&r, 0, sizeof r);
    r.x = x;
    r.args = args;
    /* the variables of expressions among the group's <args> (read_global_group) */
    for (size_t i = 0; args && i < x->args_expression_variables.count; i++)
        if (xcsp3_push_term(&r.expression_variables, x->args_expression_variables.items[i].var, 0) < 0)
            return parac_fail_no_memory(error, "global constraint", 64);
    r.node = node;
    r.error = error;
    ac_global_init(&r.g, entry->kind == AC_GLOBAL_KIND_COUNT ? AC_GLOBAL_ALL_DIFFERENT : entry->kind);
    status = entry->read(&r);
    ac_global_free(&r.g);
    free(r.expression_variables.items);
    if (status == PARAC_ERR_UNSUPPORTED && r.droppable && x->options->ignore_unsupported) {
        char description[PARAC_ERROR_MESSAGE_SIZE + 64];
        snprintf(description, sizeof description, "element <%s> at line %ld (%s)", (const char *)node->name,
                 xmlGetLineNo(node), error->message);
        memset(error, 0, sizeof *error);
        return parac_csp_note_dropped(x->network, description, error);
    }
    return status;
}

parac_status xcsp3_count_template(xcsp3 *x, xmlNodePtr template, size_t template_length, parac_error *error)
{
    uint64_t budget = x->in->limits.max_bytes, length = (uint64_t)template_length + 1;
    if (length > budget || x->template_bytes > budget - length)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(template),
                             "<%s>: templates re-read for more than %llu bytes in all (the byte budget)",
                             (const char *)template->name, (unsigned long long)budget);
    x->template_bytes += length;
    return PARAC_OK;
}
