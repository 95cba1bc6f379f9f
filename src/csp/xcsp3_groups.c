/* csp/xcsp3_groups.c — the XCSP3 reader's templates read again and again: <group> (its
 * template an extension, an intension — with %... expanded per argument count — or a global
 * constraint, once per <args>) and <slide> (circular, offset, collect).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_internal.h"

static xmlNodePtr first_element(xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

int xcsp3_is_named(xmlNodePtr node, const char *name)
{
    return node && node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

/* The first element child that is not a <list> (a slide's template). */
static xmlNodePtr first_element_not_list(xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !xcsp3_is_named(c, "list")) return c;
    return NULL;
}

/* The terms of one <args>. */
static parac_status read_args(xcsp3 *x, xmlNodePtr node, term_list *args, parac_error *error)
{
    char *text = xcsp_node_text(node);
    int parsed;
    args->count = 0;
    parsed = xcsp3_parse_terms(x, text, NULL, args);
    xmlFree(text);
    if (parsed == -2) return parac_fail_no_memory(error, "args", 64);
    if (parsed < 0) return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
    return PARAC_OK;
}

/* A group of extensions: the tuples are parsed once, the list re-bound per <args>. */
static parac_status read_extension_group(xcsp3 *x, xmlNodePtr group, xmlNodePtr template, parac_error *error)
{
    extension_parts parts = {0};
    term_list scope = {0}, args = {0};
    int have_tuples = 0;
    parac_status status = PARAC_OK;
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!xcsp3_is_named(c, "args")) continue;
        status = read_args(x, c, &args, error);
        scope.count = 0;
        if (status == PARAC_OK && !have_tuples) {
            status = xcsp3_read_extension_parts(x, template, &args, &parts, &scope, error);
            have_tuples = 1;
        } else if (status == PARAC_OK) {
            int parsed = xcsp3_parse_terms(x, parts.list, &args, &scope);
            if (parsed == -2) status = parac_fail_no_memory(error, "list", 64);
            else if (parsed < 0) status = xcsp3_fail_node(x, c, PARAC_ERR_PARSE, x->why, error);
            else if (scope.count != parts.tuples.arity)
                status = xcsp3_fail_node(x, c, PARAC_ERR_PARSE, "<args> give a list of another arity", error);
        }
        if (status == PARAC_OK) status = xcsp3_add_extension_terms(x, c, &scope, &parts.tuples, parts.supports, error);
    }
    xcsp3_free_extension_parts(&parts);
    free(scope.items);
    free(args.items);
    return status;
}

/* The longest function text that %... may expand to: libxml2's limit on a text node, so an
 * expanded function is never longer than one that could have been written out. */
#define MAX_EXPANDED_FUNCTION 10000000

/* The template text with each %... replaced by "%k,%k+1,...,%(arg_count-1)" (k = highest numbered + 1),
 * malloc'd; NULL when out of memory or longer than MAX_EXPANDED_FUNCTION (*too_long set).
 * *empty is set when %... would stand for no argument. */
static char *expand_rest_in_function(const char *text, size_t arg_count, int *empty, int *too_long)
{
    int64_t highest = xcsp3_highest_parameter(text);
    size_t start = highest < 0 ? 0 : (size_t)highest + 1, length = strlen(text), used = 0;
    uint64_t per_use = arg_count > start ? (uint64_t)(arg_count - start) * 22 : 0, need;
    size_t uses = 0;
    char *out;
    for (const char *at = strstr(text, "%..."); at; at = strstr(at + 4, "%...")) uses++;
    *empty = uses > 0 && start >= arg_count; /* a slide's template may have no %... */
    *too_long = __builtin_mul_overflow((uint64_t)uses, per_use, &need) || need > MAX_EXPANDED_FUNCTION;
    if (*too_long || !(out = malloc(length + (size_t)need + 1))) return NULL;
    for (const char *at = text; *at;) {
        if (strncmp(at, "%...", 4) != 0) {
            out[used++] = *at++;
            continue;
        }
        for (size_t i = start; i < arg_count; i++) used += (size_t)sprintf(out + used, i > start ? ",%%%zu" : "%%%zu", i);
        at += 4;
    }
    out[used] = '\0';
    return out;
}

/* A group whose intension uses %...: the expression depends on the number of arguments, so it is
 * parsed again whenever that number changes (usually once per group). */
typedef struct rest_template {
    char *text;
    xcsp_expr expr;
    leaf_context leaves;
    size_t arg_count; /* the one expr was parsed for; SIZE_MAX before the first */
} rest_template;

static parac_status bind_rest_template(xcsp3 *x, xmlNodePtr args_node, rest_template *t, const term_list *args,
                                       parac_error *error)
{
    if (args->count != t->arg_count) {
        int empty, too_long;
        char *expanded = expand_rest_in_function(t->text, args->count, &empty, &too_long);
        parac_status status;
        if (too_long)
            return xcsp3_fail_node(x, args_node, PARAC_ERR_UNSUPPORTED,
                                   "%... would expand the function to more than 10^7 characters", error);
        if (!expanded) return parac_fail_no_memory(error, "expression", strlen(t->text));
        if (empty) {
            free(expanded);
            return xcsp3_fail_node(x, args_node, PARAC_ERR_PARSE, "%... stands for no argument: <args> too short", error);
        }
        xcsp_expr_free(&t->expr);
        xcsp3_leaves_reset(&t->leaves);
        t->arg_count = SIZE_MAX;
        status = xcsp3_parse_intension_text(x, args_node, expanded, &t->expr, &t->leaves, error);
        free(expanded);
        if (status != PARAC_OK) return status;
        t->arg_count = args->count;
    }
    return xcsp3_bind_intension(x, args_node, &t->expr, &t->leaves.leaves, args, error);
}

static parac_status read_rest_intension_group(xcsp3 *x, xmlNodePtr group, char *text, parac_error *error)
{
    rest_template t = {text, {0}, {0}, SIZE_MAX};
    term_list args = {0};
    parac_status status = PARAC_OK;
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!xcsp3_is_named(c, "args")) continue;
        status = read_args(x, c, &args, error);
        if (status == PARAC_OK) status = bind_rest_template(x, c, &t, &args, error);
    }
    xcsp_expr_free(&t.expr);
    xcsp3_leaves_free(&t.leaves);
    free(args.items);
    return status;
}

static parac_status read_intension_group(xcsp3 *x, xmlNodePtr group, xmlNodePtr template, parac_error *error)
{
    xcsp_expr expr;
    leaf_context leaves = {0};
    term_list args = {0};
    char *text = xcsp3_intension_text(template);
    parac_status status;
    if (strstr(text, "%...")) {
        status = read_rest_intension_group(x, group, text, error);
        xmlFree(text);
        return status;
    }
    status = xcsp3_parse_intension_text(x, template, text, &expr, &leaves, error);
    xmlFree(text);
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!xcsp3_is_named(c, "args")) continue;
        status = read_args(x, c, &args, error);
        if (status == PARAC_OK) status = xcsp3_bind_intension(x, c, &expr, &leaves.leaves, &args, error);
    }
    xcsp_expr_free(&expr);
    xcsp3_leaves_free(&leaves);
    free(args.items);
    return status;
}

/* The terms of one <args> of a group over a global, where pycsp3 puts expressions
 * ("mul(x[0][0],y[0])"): each becomes an auxiliary variable (xcsp3_expression_term), its
 * variables kept in x->args_expression_variables for the global's strength. */
static parac_status read_global_args(xcsp3 *x, xmlNodePtr node, term_list *args, parac_error *error)
{
    char *text = xcsp_node_text(node);
    const char *cursor = text;
    parac_status status = PARAC_OK;
    args->count = 0;
    x->args_expression_variables.count = 0;
    if (!strchr(text, '(')) {
        xmlFree(text);
        return read_args(x, node, args, error);
    }
    while (xcsp3_is_space(*cursor)) cursor++;
    while (status == PARAC_OK && *cursor) {
        const char *end = xcsp3_term_end(cursor);
        if (!end) {
            status = xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "an expression in <args> with unbalanced parentheses", error);
            break;
        }
        if (memchr(cursor, '(', (size_t)(end - cursor))) {
            term value = {0};
            status = xcsp3_expression_term(x, node, cursor, (size_t)(end - cursor), NULL, &value,
                                           &x->args_expression_variables, error);
            if (status == PARAC_OK && xcsp3_push_term(args, value.var, value.constant) < 0)
                status = parac_fail_no_memory(error, "args", 64);
        } else {
            char *token = malloc((size_t)(end - cursor) + 1);
            int parsed;
            if (!token) {
                status = parac_fail_no_memory(error, "args", 64);
                break;
            }
            memcpy(token, cursor, (size_t)(end - cursor));
            token[end - cursor] = '\0';
            parsed = xcsp3_parse_terms(x, token, NULL, args);
            free(token);
            if (parsed == -2) status = parac_fail_no_memory(error, "args", 64);
            else if (parsed < 0) status = xcsp3_fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
        }
        cursor = end;
        while (xcsp3_is_space(*cursor)) cursor++;
    }
    xmlFree(text);
    return status;
}

/* A group over a global constraint: the template element is read again for each <args>. */
static parac_status read_global_group(xcsp3 *x, xmlNodePtr group, xmlNodePtr template, parac_error *error)
{
    term_list args = {0};
    char *text = xcsp_node_text(template);
    size_t length = strlen(text);
    parac_status status = PARAC_OK;
    xmlFree(text);
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!xcsp3_is_named(c, "args")) continue;
        status = read_global_args(x, c, &args, error);
        if (status == PARAC_OK) status = xcsp3_count_template(x, template, length, error);
        if (status == PARAC_OK) status = xcsp3_read_global(x, template, &args, error);
    }
    x->args_expression_variables.count = 0;
    free(args.items);
    return status;
}

/* ---- slide ---------------------------------------------------------------------------------- */

/* One <list> of a slide: its terms, offset (default 1) and collect (default 1; with a single list
 * and no collect, the template's arity). */
typedef struct slide_list {
    term_list terms;
    int64_t offset, collect;
} slide_list;

#define MAX_SLIDE_LISTS 8

/* The integer attribute `name` of node (fallback when absent). 0 ok, -1 not an integer >= 1. */
static int positive_attribute(xmlNodePtr node, const char *name, int64_t fallback, int64_t *value)
{
    char *text = (char *)xmlGetProp(node, (const xmlChar *)name);
    const char *at = text;
    int ok = 1;
    *value = fallback;
    if (text) {
        ok = xcsp_read_integer(&at, value) && *at == '\0' && *value >= 1;
        xmlFree(text);
    }
    return ok ? 0 : -1;
}

static parac_status read_slide_lists(xcsp3 *x, xmlNodePtr slide, slide_list *lists, size_t *list_count,
                                     parac_error *error)
{
    int collect_given = 0;
    *list_count = 0;
    for (xmlNodePtr c = slide->children; c; c = c->next) {
        if (!xcsp3_is_named(c, "list")) continue;
        if (*list_count == MAX_SLIDE_LISTS) return xcsp3_fail_node(x, c, PARAC_ERR_UNSUPPORTED, "<slide> with more than 8 lists", error);
        slide_list *l = &lists[(*list_count)++];
        char *text = xcsp_node_text(c), *collect = (char *)xmlGetProp(c, (const xmlChar *)"collect");
        int parsed = xcsp3_parse_terms(x, text, NULL, &l->terms);
        collect_given |= collect != NULL;
        xmlFree(text);
        xmlFree(collect);
        if (parsed == -2) return parac_fail_no_memory(error, "slide list", 64);
        if (parsed < 0) return xcsp3_fail_node(x, c, PARAC_ERR_PARSE, x->why, error);
        if (positive_attribute(c, "offset", 1, &l->offset) < 0 || positive_attribute(c, "collect", 1, &l->collect) < 0)
            return xcsp3_fail_node(x, c, PARAC_ERR_PARSE, "<slide>: offset and collect must be integers >= 1", error);
    }
    if (*list_count == 0) return xcsp3_fail_node(x, slide, PARAC_ERR_PARSE, "<slide> without <list>", error);
    if (*list_count == 1 && !collect_given) {
        char *text = xcsp_node_text(first_element_not_list(slide));
        lists[0].collect = xcsp3_highest_parameter(text) + 1;
        xmlFree(text);
        if (lists[0].collect < 1) return xcsp3_fail_node(x, slide, PARAC_ERR_PARSE, "<slide>: the template has no %i parameter", error);
    }
    return PARAC_OK;
}

/* The number of windows: each list gives (n - collect) / offset + 1 of them (n / offset when
 * circular, indices taken modulo n); the slide has the fewest. */
static uint64_t slide_steps(const slide_list *lists, size_t list_count, int circular)
{
    uint64_t steps = UINT64_MAX;
    for (size_t j = 0; j < list_count; j++) {
        uint64_t n = lists[j].terms.count, c = (uint64_t)lists[j].collect, o = (uint64_t)lists[j].offset;
        uint64_t here = circular ? n / o : n >= c ? (n - c) / o + 1 : 0;
        if (here < steps) steps = here;
    }
    return steps;
}

static parac_status bind_slide_step(xcsp3 *x, xmlNodePtr slide, xmlNodePtr template, rest_template *intension,
                                    const term_list *args, size_t template_length, parac_error *error)
{
    parac_status status;
    if (xcsp3_is_named(template, "intension")) return bind_rest_template(x, slide, intension, args, error);
    if ((status = xcsp3_count_template(x, template, template_length, error)) != PARAC_OK) return status;
    if (xcsp3_is_named(template, "extension")) return xcsp3_read_extension(x, template, args, error);
    return xcsp3_read_global(x, template, args, error);
}

static parac_status run_slide(xcsp3 *x, xmlNodePtr slide, xmlNodePtr template, const slide_list *lists,
                              size_t list_count, int circular, parac_error *error)
{
    uint64_t steps = slide_steps(lists, list_count, circular), per_step = 0, work;
    term_list args = {0};
    char *text = xcsp3_is_named(template, "intension") ? xcsp3_intension_text(template) : NULL, *content = xcsp_node_text(template);
    size_t template_length = strlen(content);
    rest_template intension = {text, {0}, {0}, SIZE_MAX};
    parac_status status = PARAC_OK;
    int overflow = 0;
    xmlFree(content);
    for (size_t j = 0; j < list_count; j++) overflow |= __builtin_add_overflow(per_step, (uint64_t)lists[j].collect, &per_step);
    if (overflow || __builtin_mul_overflow(steps, per_step, &work) || work > x->in->limits.max_values)
        status = xcsp3_fail_node(x, slide, PARAC_ERR_UNSUPPORTED, "<slide> past the value budget (windows x collected terms)", error);
    for (uint64_t i = 0; i < steps && status == PARAC_OK; i++) {
        args.count = 0;
        for (size_t j = 0; j < list_count && status == PARAC_OK; j++) {
            for (int64_t k = 0; k < lists[j].collect; k++) {
                uint64_t at = i * (uint64_t)lists[j].offset + (uint64_t)k;
                const term *t;
                if (circular) at %= lists[j].terms.count;
                t = &lists[j].terms.items[at];
                if (xcsp3_push_term(&args, t->var, t->constant) < 0) {
                    status = parac_fail_no_memory(error, "slide", 64);
                    break;
                }
            }
        }
        if (status == PARAC_OK) status = bind_slide_step(x, slide, template, &intension, &args, template_length, error);
    }
    xcsp_expr_free(&intension.expr);
    xcsp3_leaves_free(&intension.leaves);
    xmlFree(text);
    free(args.items);
    return status;
}

parac_status xcsp3_read_slide(xcsp3 *x, xmlNodePtr slide, parac_error *error)
{
    slide_list lists[MAX_SLIDE_LISTS];
    size_t list_count = 0;
    xmlNodePtr template = first_element_not_list(slide);
    char *circular = (char *)xmlGetProp(slide, (const xmlChar *)"circular");
    int is_circular = circular && strcmp(circular, "true") == 0;
    parac_status status;
    xmlFree(circular);
    memset(lists, 0, sizeof lists);
    if (!template) return xcsp3_fail_node(x, slide, PARAC_ERR_PARSE, "<slide> without a template constraint", error);
    if (!xcsp3_is_named(template, "intension") && !xcsp3_is_named(template, "extension") &&
        !xcsp3_is_global((const char *)template->name))
        return xcsp3_unsupported(x, template, error);
    status = read_slide_lists(x, slide, lists, &list_count, error);
    if (status == PARAC_OK) status = run_slide(x, slide, template, lists, list_count, is_circular, error);
    for (size_t j = 0; j < MAX_SLIDE_LISTS; j++) free(lists[j].terms.items);
    return status;
}

parac_status xcsp3_read_group(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    xmlNodePtr template = first_element(node);
    if (xcsp3_is_named(template, "extension")) return read_extension_group(x, node, template, error);
    if (xcsp3_is_named(template, "intension")) return read_intension_group(x, node, template, error);
    if (!template) return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "empty <group>", error);
    if (xcsp3_is_global((const char *)template->name)) return read_global_group(x, node, template, error);
    return xcsp3_unsupported(x, template, error);
}
