/* csp/xcsp2_reader.c — XCSP 2.1 (<domains>, <variables>, <relations>,
 * <predicates>, <constraints>) into a parac_csp_network, on the same streaming
 * walk as XCSP3. Relations and predicates are parsed once and bound to each
 * constraint that references them. Global constraints and soft relations are
 * unsupported. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp_build.h"
#include "csp/xcsp_readers.h"

typedef struct domain2 {
    int64_t *values;
    uint32_t count;
} domain2;

typedef struct relation2 {
    xcsp_tuples tuples;
    int supports;
} relation2;

typedef struct predicate2 {
    xcsp_expr expr;
    size_t parameter_count;
} predicate2;

typedef struct xcsp2 {
    xcsp_input *in;
    parac_csp_network *network;
    const parac_csp_load_options *options;
    xcsp_names domain_names, variable_names, relation_names, predicate_names;
    domain2 *domains;
    relation2 *relations;
    predicate2 *predicates;
    size_t domain_count, relation_count, predicate_count;
    char why[256];
} xcsp2;

static parac_status fail_node(xcsp2 *x, xmlNodePtr node, parac_status status, const char *what, parac_error *error)
{
    return parac_fail_at(error, status, x->in->name, xmlGetLineNo(node), "%s", what);
}

static char *attribute(xmlNodePtr node, const char *name) { return (char *)xmlGetProp(node, (const xmlChar *)name); }

/* Grows a typed array by one element; returns the new element or NULL. */
static void *append(void **array, size_t *count, size_t size)
{
    char *grown = realloc(*array, (*count + 1) * size);
    if (!grown) return NULL;
    *array = grown;
    memset(grown + *count * size, 0, size);
    return grown + (*count)++ * size;
}

static parac_status read_domain(xcsp2 *x, xmlNodePtr node, parac_error *error)
{
    char *name = attribute(node, "name"), *text = xcsp_node_text(node);
    domain2 *domain = NULL;
    parac_status status = PARAC_OK;
    if (!name) status = fail_node(x, node, PARAC_ERR_PARSE, "<domain> without name", error);
    else if (!(domain = append((void **)&x->domains, &x->domain_count, sizeof *domain)) ||
             xcsp_names_put(&x->domain_names, name, strlen(name), (int64_t)x->domain_count - 1) < 0)
        status = parac_fail_no_memory(error, "domains", 64);
    else if (xcsp_parse_domain(text, x->in->limits.max_values, &domain->values, &domain->count, x->why, sizeof x->why) < 0)
        status = fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
    xmlFree(name);
    xmlFree(text);
    return status;
}

static parac_status read_variable(xcsp2 *x, xmlNodePtr node, parac_error *error)
{
    char *name = attribute(node, "name"), *domain_name = attribute(node, "domain");
    int64_t d = domain_name ? xcsp_names_get(&x->domain_names, domain_name, strlen(domain_name)) : -1;
    uint32_t index;
    parac_status status;
    if (!name || d < 0) status = fail_node(x, node, PARAC_ERR_PARSE, "<variable> needs a name and a declared domain", error);
    else {
        xcsp_site site = {x->in->name, xmlGetLineNo(node), x->options->max_table_tuples};
        status = xcsp_add_variable(x->network, &x->in->limits, name, x->domains[d].values, x->domains[d].count, &index,
                                   &site, error);
    }
    if (status == PARAC_OK && xcsp_names_put(&x->variable_names, name, strlen(name), index) < 0)
        status = parac_fail_no_memory(error, "variables", 64);
    xmlFree(name);
    xmlFree(domain_name);
    return status;
}

static parac_status read_relation(xcsp2 *x, xmlNodePtr node, parac_error *error)
{
    char *name = attribute(node, "name"), *arity = attribute(node, "arity"), *semantics = attribute(node, "semantics");
    char *text = xcsp_node_text(node);
    relation2 *relation = NULL;
    parac_status status = PARAC_OK;
    int parsed;
    const char *arity_at = arity;
    int64_t arity_value = 0;
    if (!name || !arity || !xcsp_read_integer(&arity_at, &arity_value) || arity_value < 1 || arity_value > UINT32_MAX ||
        !semantics)
        status = fail_node(x, node, PARAC_ERR_PARSE, "<relation> needs name, arity and semantics", error);
    else if (strcmp(semantics, "supports") != 0 && strcmp(semantics, "conflicts") != 0)
        status = fail_node(x, node, PARAC_ERR_UNSUPPORTED, "relation semantics other than supports/conflicts", error);
    else if (!(relation = append((void **)&x->relations, &x->relation_count, sizeof *relation)) ||
             xcsp_names_put(&x->relation_names, name, strlen(name), (int64_t)x->relation_count - 1) < 0)
        status = parac_fail_no_memory(error, "relations", 64);
    else {
        relation->supports = strcmp(semantics, "supports") == 0;
        parsed = xcsp_parse_tuples2(text, (uint32_t)arity_value, &relation->tuples, x->why, sizeof x->why);
        if (parsed == -2) status = parac_fail_no_memory(error, "relation", 64);
        else if (parsed < 0) status = fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
    }
    xmlFree(name);
    xmlFree(arity);
    xmlFree(semantics);
    xmlFree(text);
    return status;
}

/* Formal parameters "int X0 int X1": resolver context mapping names to positions. */
typedef struct formal_parameters {
    char names[64][64];
    size_t count;
} formal_parameters;

static int64_t resolve_formal(void *context, const char *name, size_t length)
{
    const formal_parameters *formals = context;
    for (size_t i = 0; i < formals->count; i++)
        if (strlen(formals->names[i]) == length && strncmp(formals->names[i], name, length) == 0) return (int64_t)i;
    return -1;
}

static int parse_formals(const char *text, formal_parameters *formals)
{
    char token[64];
    int consumed;
    formals->count = 0;
    while (sscanf(text, " %63s%n", token, &consumed) == 1) {
        text += consumed;
        if (strcmp(token, "int") == 0) continue;
        if (formals->count == 64) return -1;
        snprintf(formals->names[formals->count++], sizeof formals->names[0], "%s", token);
    }
    return 0;
}

static parac_status read_predicate(xcsp2 *x, xmlNodePtr node, parac_error *error)
{
    char *name = attribute(node, "name");
    xmlNodePtr functional = xcsp_child(xcsp_child(node, "expression"), "functional");
    char *parameters = xcsp_node_text(xcsp_child(node, "parameters")), *text = xcsp_node_text(functional);
    formal_parameters *formals = malloc(sizeof *formals);
    predicate2 *predicate = NULL;
    parac_status status = PARAC_OK;
    int parsed;
    if (!name || !functional)
        status = fail_node(x, node, PARAC_ERR_UNSUPPORTED, "<predicate> needs a name and a <functional> expression", error);
    else if (!formals || !(predicate = append((void **)&x->predicates, &x->predicate_count, sizeof *predicate)) ||
             xcsp_names_put(&x->predicate_names, name, strlen(name), (int64_t)x->predicate_count - 1) < 0)
        status = parac_fail_no_memory(error, "predicates", 64);
    else if (parse_formals(parameters, formals) < 0)
        status = fail_node(x, node, PARAC_ERR_UNSUPPORTED, "predicate with more than 64 parameters", error);
    else {
        predicate->parameter_count = formals->count;
        parsed = xcsp_expr_parse(text, resolve_formal, formals, &predicate->expr, x->why, sizeof x->why);
        if (parsed == -2) status = parac_fail_no_memory(error, "predicate", 64);
        else if (parsed < 0) status = fail_node(x, functional, PARAC_ERR_PARSE, x->why, error);
    }
    free(formals);
    xmlFree(name);
    xmlFree(parameters);
    xmlFree(text);
    return status;
}

/* Actual parameters: variable names or integers, one per formal parameter. */
static parac_status bind_predicate(xcsp2 *x, xmlNodePtr node, const predicate2 *predicate, parac_error *error)
{
    char *text = xcsp_node_text(xcsp_child(node, "parameters"));
    size_t n = predicate->parameter_count, k = 0;
    int64_t *vars = malloc((n + 1) * sizeof *vars), *constants = malloc((n + 1) * sizeof *constants);
    xcsp_site site = {x->in->name, xmlGetLineNo(node), x->options->max_table_tuples};
    parac_status status = PARAC_OK;
    const char *at = text;
    if (!vars || !constants) status = parac_fail_no_memory(error, "parameters", n * 16);
    while (status == PARAC_OK) {
        const char *start;
        while (*at == ' ' || *at == '\n' || *at == '\t' || *at == '\r') at++;
        if (!*at) break;
        start = at;
        while (*at && *at != ' ' && *at != '\n' && *at != '\t' && *at != '\r') at++;
        if (k == n) {
            status = fail_node(x, node, PARAC_ERR_PARSE, "more actual parameters than the predicate has", error);
            break;
        }
        vars[k] = xcsp_names_get(&x->variable_names, start, (size_t)(at - start));
        constants[k] = 0;
        if (vars[k] < 0) {
            const char *digits = start;
            if (!xcsp_read_integer(&digits, &constants[k]) || digits != at)
                status = parac_fail_at(error, PARAC_ERR_PARSE, x->in->name, site.line, "unknown variable '%.*s'",
                                       (int)(at - start), start);
        }
        k++;
    }
    if (status == PARAC_OK && k != n) status = fail_node(x, node, PARAC_ERR_PARSE, "fewer actual parameters than the predicate has", error);
    if (status == PARAC_OK) status = xcsp_add_intension(x->network, &predicate->expr, vars, constants, n, &site, error);
    free(vars);
    free(constants);
    xmlFree(text);
    return status;
}

static parac_status read_scope(xcsp2 *x, xmlNodePtr node, const char *scope_text, uint32_t **scope, uint32_t *arity,
                               parac_error *error)
{
    size_t capacity = 8;
    const char *at = scope_text;
    *arity = 0;
    *scope = malloc(capacity * sizeof **scope);
    while (*scope) {
        const char *start;
        int64_t var;
        while (*at == ' ' || *at == '\n' || *at == '\t') at++;
        if (!*at) return PARAC_OK;
        start = at;
        while (*at && *at != ' ' && *at != '\n' && *at != '\t') at++;
        var = xcsp_names_get(&x->variable_names, start, (size_t)(at - start));
        if (var < 0)
            return parac_fail_at(error, PARAC_ERR_PARSE, x->in->name, xmlGetLineNo(node), "unknown variable '%.*s' in scope",
                                 (int)(at - start), start);
        if (*arity == capacity) {
            uint32_t *grown = realloc(*scope, (capacity *= 2) * sizeof *grown);
            if (!grown) break;
            *scope = grown;
        }
        (*scope)[(*arity)++] = (uint32_t)var;
    }
    return parac_fail_no_memory(error, "scope", capacity * 4);
}

static parac_status unsupported(xcsp2 *x, xmlNodePtr node, const char *what, parac_error *error)
{
    char description[160];
    snprintf(description, sizeof description, "%s at line %ld", what, xmlGetLineNo(node));
    if (x->options->ignore_unsupported) return parac_csp_note_dropped(x->network, description, error);
    return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(node),
                         "unsupported constraint %s (use --ignore-unsupported to drop it)", what);
}

static parac_status read_constraint(xcsp2 *x, xmlNodePtr node, parac_error *error)
{
    char *reference = attribute(node, "reference"), *scope_text = attribute(node, "scope");
    uint32_t *scope = NULL, arity = 0;
    int64_t r;
    xcsp_site site = {x->in->name, xmlGetLineNo(node), x->options->max_table_tuples};
    parac_status status = PARAC_OK;
    if (!reference || !scope_text) status = fail_node(x, node, PARAC_ERR_PARSE, "<constraint> needs scope and reference", error);
    else if (strncmp(reference, "global:", 7) == 0) {
        char what[96];
        snprintf(what, sizeof what, "'%.80s'", reference);
        status = unsupported(x, node, what, error);
    } else if ((status = read_scope(x, node, scope_text, &scope, &arity, error)) != PARAC_OK) {
    } else if ((r = xcsp_names_get(&x->relation_names, reference, strlen(reference))) >= 0) {
        if (x->relations[r].tuples.arity != arity) status = fail_node(x, node, PARAC_ERR_PARSE, "scope and relation arities differ", error);
        else status = xcsp_add_extension(x->network, scope, arity, &x->relations[r].tuples, x->relations[r].supports, &site, error);
    } else if ((r = xcsp_names_get(&x->predicate_names, reference, strlen(reference))) >= 0) {
        status = bind_predicate(x, node, &x->predicates[r], error);
    } else {
        status = parac_fail_at(error, PARAC_ERR_PARSE, x->in->name, site.line, "reference '%s' names no relation or predicate",
                               reference);
    }
    free(scope);
    xmlFree(reference);
    xmlFree(scope_text);
    return status;
}

static parac_status on_section(void *context, const char *section, long line, parac_error *error)
{
    xcsp2 *x = context;
    (void)line;
    if (strcmp(section, "relations") == 0 || strcmp(section, "predicates") == 0 || strcmp(section, "constraints") == 0 ||
        strcmp(section, "functions") == 0)
        return parac_csp_finish_variables(x->network, error);
    return PARAC_OK;
}

static parac_status on_element(void *context, const char *section, xmlNodePtr node, parac_error *error)
{
    xcsp2 *x = context;
    const char *name = (const char *)node->name;
    if (strcmp(section, "domains") == 0 && strcmp(name, "domain") == 0) return read_domain(x, node, error);
    if (strcmp(section, "variables") == 0 && strcmp(name, "variable") == 0) {
        if (x->network->present) return fail_node(x, node, PARAC_ERR_PARSE, "variables declared after constraints", error);
        return read_variable(x, node, error);
    }
    if (strcmp(section, "relations") == 0 && strcmp(name, "relation") == 0) return read_relation(x, node, error);
    if (strcmp(section, "predicates") == 0 && strcmp(name, "predicate") == 0) return read_predicate(x, node, error);
    if (strcmp(section, "constraints") == 0 && strcmp(name, "constraint") == 0) return read_constraint(x, node, error);
    if (strcmp(section, "functions") == 0) return unsupported(x, node, "<function>", error);
    return PARAC_OK;
}

static void free_xcsp2(xcsp2 *x)
{
    for (size_t i = 0; i < x->domain_count; i++) free(x->domains[i].values);
    for (size_t i = 0; i < x->relation_count; i++) xcsp_tuples_free(&x->relations[i].tuples);
    for (size_t i = 0; i < x->predicate_count; i++) xcsp_expr_free(&x->predicates[i].expr);
    free(x->domains);
    free(x->relations);
    free(x->predicates);
    xcsp_names_free(&x->domain_names);
    xcsp_names_free(&x->variable_names);
    xcsp_names_free(&x->relation_names);
    xcsp_names_free(&x->predicate_names);
}

parac_status xcsp2_read(xcsp_input *in, parac_csp_network *network, const parac_csp_load_options *options,
                        parac_error *error)
{
    xcsp2 x;
    parac_status status;
    memset(&x, 0, sizeof x);
    x.in = in;
    x.network = network;
    x.options = options;
    status = xcsp_walk(in, on_section, on_element, &x, error);
    if (status == PARAC_OK) status = parac_csp_finish_variables(network, error);
    free_xcsp2(&x);
    return status;
}
