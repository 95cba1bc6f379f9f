/* csp/xcsp3_constraints.c — the XCSP3 reader's plain constraints: <extension> (supports or
 * conflicts, '*', any arity), <intension> (its leaves bound to variables or group parameters),
 * expressions met as terms of a list (an auxiliary variable each), and the refusal of an
 * element parac does not handle.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_internal.h"

/* ---- constraints ---------------------------------------------------------------------------- */

parac_status xcsp3_unsupported(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    char description[160];
    snprintf(description, sizeof description, "element <%s> at line %ld", (const char *)node->name,
             xmlGetLineNo(node));
    if (x->options->ignore_unsupported) return parac_csp_note_dropped(x->network, description, error);
    return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(node),
                         "unsupported constraint <%s> (use --ignore-unsupported to drop it)", (const char *)node->name);
}

/* An extension over `scope_terms` with its tuples already parsed. */
parac_status xcsp3_add_extension_terms(xcsp3 *x, xmlNodePtr node, const term_list *scope_terms,
                                       const xcsp_tuples *tuples, int supports, parac_error *error)
{
    uint32_t *scope = malloc((scope_terms->count + 1) * sizeof *scope);
    xcsp_site site = xcsp3_site_of(x, node);
    parac_status status;
    if (!scope) return parac_fail_no_memory(error, "scope", scope_terms->count * 4);
    for (size_t i = 0; i < scope_terms->count; i++) {
        if (scope_terms->items[i].var < 0) {
            free(scope);
            return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "a constant in an extension's <list>", error);
        }
        scope[i] = (uint32_t)scope_terms->items[i].var;
    }
    status = xcsp_add_extension(x->network, scope, (uint32_t)scope_terms->count, tuples, supports, &site, error);
    free(scope);
    return status;
}

void xcsp3_free_extension_parts(extension_parts *p)
{
    xmlFree(p->list);
    xcsp_tuples_free(&p->tuples);
}

parac_status xcsp3_read_extension_parts(xcsp3 *x, xmlNodePtr node, const term_list *args, extension_parts *p,
                                        term_list *scope, parac_error *error)
{
    xmlNodePtr list = xcsp_child(node, "list"), supports = xcsp_child(node, "supports");
    xmlNodePtr conflicts = xcsp_child(node, "conflicts"), body = supports ? supports : conflicts;
    char *text;
    int parsed;
    memset(p, 0, sizeof *p);
    if (!list || !body) return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "<extension> needs <list> and <supports> or <conflicts>", error);
    p->list = xcsp_node_text(list);
    p->supports = supports != NULL;
    parsed = xcsp3_parse_terms(x, p->list, args, scope);
    if (parsed == -2) return parac_fail_no_memory(error, "list", 64);
    if (parsed < 0) return xcsp3_fail_node(x, list, PARAC_ERR_PARSE, x->why, error);
    text = xcsp_node_text(body);
    parsed = xcsp_parse_tuples3(text, (uint32_t)scope->count, x->in->limits.max_values, &p->tuples, x->why, sizeof x->why);
    xmlFree(text);
    if (parsed == -2) return parac_fail_no_memory(error, "tuples", 64);
    if (parsed < 0) return xcsp3_fail_node(x, body, PARAC_ERR_PARSE, x->why, error);
    return PARAC_OK;
}

parac_status xcsp3_read_extension(xcsp3 *x, xmlNodePtr node, const term_list *args, parac_error *error)
{
    extension_parts parts;
    term_list scope = {0};
    parac_status status = xcsp3_read_extension_parts(x, node, args, &parts, &scope, error);
    if (status == PARAC_OK) status = xcsp3_add_extension_terms(x, node, &scope, &parts.tuples, parts.supports, error);
    xcsp3_free_extension_parts(&parts);
    free(scope.items);
    return status;
}

void xcsp3_leaves_reset(leaf_context *c)
{
    c->leaves.count = 0;
    c->variable_count = 0;
    c->too_many_variables = 0;
    if (c->parameter_leaf) memset(c->parameter_leaf, 0, c->parameter_capacity * sizeof *c->parameter_leaf);
}

void xcsp3_leaves_free(leaf_context *c)
{
    free(c->leaves.items);
    free(c->parameter_leaf);
}

/* The leaf of parameter %i, added when new; -1 when i is past the list budget or out of memory. */
static int64_t parameter_leaf(leaf_context *c, int64_t i)
{
    if ((uint64_t)i >= c->x->in->limits.max_variables) return -1;
    if ((size_t)i >= c->parameter_capacity) {
        size_t capacity = c->parameter_capacity ? c->parameter_capacity : 16;
        size_t *grown;
        while (capacity <= (size_t)i) capacity *= 2;
        if (!(grown = realloc(c->parameter_leaf, capacity * sizeof *grown))) return -1;
        memset(grown + c->parameter_capacity, 0, (capacity - c->parameter_capacity) * sizeof *grown);
        c->parameter_leaf = grown;
        c->parameter_capacity = capacity;
    }
    if (c->parameter_leaf[i]) return (int64_t)c->parameter_leaf[i] - 1;
    if (xcsp3_push_term(&c->leaves, -1 - i, 0) < 0) return -1;
    c->parameter_leaf[i] = c->leaves.count;
    return (int64_t)c->leaves.count - 1;
}

static int64_t variable_leaf(leaf_context *c, int64_t var)
{
    for (size_t k = 0; k < c->variable_count; k++)
        if (c->leaves.items[c->variable_leaf[k]].var == var) return (int64_t)c->variable_leaf[k];
    if (c->variable_count == MAX_INTENSION_VARIABLES) {
        c->too_many_variables = 1;
        return -1;
    }
    if (xcsp3_push_term(&c->leaves, var, 0) < 0) return -1;
    c->variable_leaf[c->variable_count++] = c->leaves.count - 1;
    return (int64_t)c->leaves.count - 1;
}

static int64_t resolve_leaf(void *context, const char *name, size_t length)
{
    leaf_context *c = context;
    term_list found = {0};
    int64_t var;
    if (name[0] == '%') {
        const char *digits = name + 1;
        int64_t i;
        if (!xcsp_read_integer(&digits, &i) || digits != name + length || i < 0) return -1;
        return parameter_leaf(c, i);
    }
    if (xcsp3_expand_reference(c->x, name, length, &found) < 0 || found.count != 1) {
        free(found.items);
        return -1;
    }
    var = found.items[0].var;
    free(found.items);
    return variable_leaf(c, var);
}

/* Adds the intension once its leaves are bound to args (when a group template). */
parac_status xcsp3_bind_intension(xcsp3 *x, xmlNodePtr node, const xcsp_expr *expr, const term_list *leaves,
                                  const term_list *args, parac_error *error)
{
    int64_t *vars = malloc((leaves->count + 1) * sizeof *vars), *constants = malloc((leaves->count + 1) * sizeof *constants);
    xcsp_site site = xcsp3_site_of(x, node);
    parac_status status = PARAC_OK;
    if (!vars || !constants) status = parac_fail_no_memory(error, "intension", leaves->count * 16);
    for (size_t k = 0; status == PARAC_OK && k < leaves->count; k++) {
        int64_t key = leaves->items[k].var;
        vars[k] = key;
        constants[k] = 0;
        if (key >= 0) continue;
        if (!args || (size_t)(-1 - key) >= args->count) {
            status = xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "parameter %i outside a group or past its <args>", error);
            break;
        }
        vars[k] = args->items[-1 - key].var;
        constants[k] = args->items[-1 - key].constant;
    }
    if (status == PARAC_OK) status = xcsp_add_intension(x->network, expr, vars, constants, leaves->count, &site, error);
    free(vars);
    free(constants);
    return status;
}

parac_status xcsp3_parse_intension_text(xcsp3 *x, xmlNodePtr node, const char *text, xcsp_expr *expr,
                                        leaf_context *leaves, parac_error *error)
{
    int parsed;
    leaves->x = x;
    parsed = xcsp_expr_parse(text, resolve_leaf, leaves, expr, x->why, sizeof x->why);
    if (parsed == -2) return parac_fail_no_memory(error, "expression", 64);
    if (leaves->too_many_variables)
        return xcsp3_fail_node(x, node, PARAC_ERR_UNSUPPORTED, "intension over more than 64 variables", error);
    if (parsed < 0) return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
    return PARAC_OK;
}

/* The text of an <intension> (or of its <function> child), malloc'd by libxml2. */
char *xcsp3_intension_text(xmlNodePtr node)
{
    xmlNodePtr function = xcsp_child(node, "function");
    return xcsp_node_text(function ? function : node);
}

static parac_status parse_intension(xcsp3 *x, xmlNodePtr node, xcsp_expr *expr, leaf_context *leaves,
                                    parac_error *error)
{
    char *text = xcsp3_intension_text(node);
    parac_status status = xcsp3_parse_intension_text(x, node, text, expr, leaves, error);
    xmlFree(text);
    return status;
}

parac_status xcsp3_read_intension(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    xcsp_expr expr;
    leaf_context leaves = {0};
    parac_status status = parse_intension(x, node, &expr, &leaves, error);
    if (status == PARAC_OK) status = xcsp3_bind_intension(x, node, &expr, &leaves.leaves, NULL, error);
    xcsp_expr_free(&expr);
    xcsp3_leaves_free(&leaves);
    return status;
}

/* ---- expressions as list terms (xcsp3_internal.h) ------------------------------------------- */

/* Binds each leaf of an expression to a variable or a constant (its group parameter bound by
 * args); fills vars/constants (leaves->count entries each). */
static parac_status bind_leaves(xcsp3 *x, xmlNodePtr node, const term_list *leaves, const term_list *args,
                                int64_t *vars, int64_t *constants, parac_error *error)
{
    for (size_t k = 0; k < leaves->count; k++) {
        int64_t key = leaves->items[k].var;
        vars[k] = key;
        constants[k] = 0;
        if (key >= 0) continue;
        if (!args || (size_t)(-1 - key) >= args->count)
            return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "parameter %i outside a group or past its <args>", error);
        vars[k] = args->items[-1 - key].var;
        constants[k] = args->items[-1 - key].constant;
    }
    return PARAC_OK;
}

/* A name for the next auxiliary variable that no declared variable or array has. */
static void auxiliary_name(xcsp3 *x, char *name, size_t size)
{
    do snprintf(name, size, "parac_aux_%llu", (unsigned long long)x->expression_terms++);
    while (xcsp_names_get(&x->names, name, strlen(name)) != -1);
}

parac_status xcsp3_expression_term(xcsp3 *x, xmlNodePtr node, const char *text, size_t length, const term_list *args,
                                   term *out, term_list *variables, parac_error *error)
{
    char *copy = malloc(length + 1), name[48];
    xcsp_expr expr = {0};
    leaf_context leaves = {0};
    int64_t *vars = NULL, *constants = NULL;
    xcsp_site site = xcsp3_site_of(x, node);
    parac_status status;
    if (!copy) return parac_fail_no_memory(error, "expression term", length + 1);
    memcpy(copy, text, length);
    copy[length] = '\0';
    status = xcsp3_parse_intension_text(x, node, copy, &expr, &leaves, error);
    if (status == PARAC_OK) {
        vars = malloc((leaves.leaves.count + 1) * sizeof *vars);
        constants = malloc((leaves.leaves.count + 1) * sizeof *constants);
        if (!vars || !constants) status = parac_fail_no_memory(error, "expression term", leaves.leaves.count * 16);
    }
    if (status == PARAC_OK) status = bind_leaves(x, node, &leaves.leaves, args, vars, constants, error);
    for (size_t k = 0; status == PARAC_OK && k < leaves.leaves.count; k++) {
        int seen = 0;
        if (vars[k] < 0) continue;
        for (size_t j = 0; j < k; j++) seen |= vars[j] == vars[k];
        if (!seen && xcsp3_push_term(variables, vars[k], 0) < 0) status = parac_fail_no_memory(error, "expression term", 16);
    }
    if (status == PARAC_OK) {
        auxiliary_name(x, name, sizeof name);
        status = xcsp_add_expression_variable(x->network, &expr, vars, constants, leaves.leaves.count, name,
                                              x->in->limits.max_values, &site, &out->var, &out->constant, error);
    }
    free(copy);
    free(vars);
    free(constants);
    xcsp_expr_free(&expr);
    xcsp3_leaves_free(&leaves);
    return status;
}
