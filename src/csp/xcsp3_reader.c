/* csp/xcsp3_reader.c — XCSP3 (CSP) into a parac_csp_network.
 *
 * The document is streamed with xmlTextReader; only one element of <variables>
 * or <constraints> at a time is expanded into a small tree (xmlTextReaderExpand),
 * handled and dropped, so memory stays bounded by the largest constraint.
 * Supported: var/array (sizes, ranges, value lists, as=, <domain for=...>),
 * extension (supports/conflicts, '*', any arity), intension, group (%i and %...,
 * compact lists in <list> and <args>; templates intension, extension or a global),
 * block, slide (circular, offset, collect), objectives (kept verbatim, not enforced);
 * the global constraints are read by xcsp3_globals.c.
 *
 * This file holds the document (sections, objectives) and the dispatch of each
 * constraint element (blocks walked here); lists are parsed in xcsp3_terms.c,
 * <var>/<array> read in xcsp3_variables.c, extension and intension in
 * xcsp3_constraints.c, group and slide in xcsp3_groups.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_internal.h"

parac_status xcsp3_fail_node(xcsp3 *x, xmlNodePtr node, parac_status status, const char *what, parac_error *error)
{
    return parac_fail_at(error, status, x->in->name, xmlGetLineNo(node), "%s", what);
}

xcsp_site xcsp3_site_of(const xcsp3 *x, xmlNodePtr node)
{
    xcsp_site site = {x->in->name, xmlGetLineNo(node), x->options->max_table_tuples};
    return site;
}

static parac_status read_constraint(xcsp3 *x, xmlNodePtr node, parac_error *error);

/* The constraints of a block and of the blocks nested in it, in document order. The tree is
 * walked through its parent links, not by recursion: the nesting depth comes from the input. */
static parac_status read_block(xcsp3 *x, xmlNodePtr block, parac_error *error)
{
    xmlNodePtr node = block->children;
    while (node) {
        if (xcsp3_is_named(node, "block") && node->children) {
            node = node->children;
            continue;
        }
        if (node->type == XML_ELEMENT_NODE && !xcsp3_is_named(node, "block")) {
            parac_status status = read_constraint(x, node, error);
            if (status != PARAC_OK) return status;
        }
        while (node != block && !node->next) node = node->parent;
        node = node == block ? NULL : node->next;
    }
    return PARAC_OK;
}

static parac_status read_constraint(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    const char *name = (const char *)node->name;
    if (strcmp(name, "extension") == 0) return xcsp3_read_extension(x, node, NULL, error);
    if (strcmp(name, "intension") == 0) return xcsp3_read_intension(x, node, error);
    if (strcmp(name, "group") == 0) return xcsp3_read_group(x, node, error);
    if (strcmp(name, "block") == 0) return read_block(x, node, error);
    if (strcmp(name, "slide") == 0) return xcsp3_read_slide(x, node, error);
    if (xcsp3_is_global(name)) return xcsp3_read_global(x, node, NULL, error);
    if (strcmp(name, "comment") == 0) return PARAC_OK;
    return xcsp3_unsupported(x, node, error);
}

/* ---- the document --------------------------------------------------------------------------- */

static parac_status on_section(void *context, const char *section, long line, parac_error *error)
{
    xcsp3 *x = context;
    if (strcmp(section, "constraints") == 0 || strcmp(section, "objectives") == 0)
        return parac_csp_finish_variables(x->network, error);
    (void)line;
    return PARAC_OK;
}

/* The longest objectives text kept for the writer (the limit of one XML text node). */
#define MAX_OBJECTIVES_TEXT 10000000

/* The objectives text being kept: grows within MAX_OBJECTIVES_TEXT; `failed` 1 past it, 2 out of memory. */
typedef struct objective_text {
    xcsp3 *x;
    int failed;
} objective_text;

static void objective_put(objective_text *o, const char *s, size_t length)
{
    xcsp3 *x = o->x;
    char *grown;
    if (o->failed) return;
    if (length > MAX_OBJECTIVES_TEXT - 1 - x->objectives_length) {
        o->failed = 1;
        return;
    }
    if (!(grown = realloc(x->objectives, x->objectives_length + length + 1))) {
        o->failed = 2;
        return;
    }
    memcpy(grown + x->objectives_length, s, length);
    x->objectives = grown;
    x->objectives_length += length;
    grown[x->objectives_length] = '\0';
}

static void objective_put_escaped(objective_text *o, const char *s)
{
    for (const char *at = s; *at; at++) {
        const char *escape = *at == '&' ? "&amp;" : *at == '<' ? "&lt;" : *at == '>' ? "&gt;" : *at == '"' ? "&quot;" : NULL;
        if (escape) objective_put(o, escape, strlen(escape));
        else objective_put(o, at, 1);
    }
}

/* The element as XML text: its name, attributes, text and child elements (comments dropped).
 * Written here rather than by libxml2's serializer, which reports its own errors by printing.
 * Recursion is bounded by libxml2's nesting limit (256). */
static void objective_put_node(objective_text *o, xmlNodePtr node)
{
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
        if (node->content) objective_put_escaped(o, (const char *)node->content);
        return;
    }
    if (node->type != XML_ELEMENT_NODE) return;
    objective_put(o, "<", 1);
    objective_put(o, (const char *)node->name, strlen((const char *)node->name));
    for (xmlAttrPtr a = node->properties; a; a = a->next) {
        char *value = (char *)xmlNodeListGetString(node->doc, a->children, 1);
        objective_put(o, " ", 1);
        objective_put(o, (const char *)a->name, strlen((const char *)a->name));
        objective_put(o, "=\"", 2);
        if (value) objective_put_escaped(o, value);
        objective_put(o, "\"", 1);
        xmlFree(value);
    }
    objective_put(o, ">", 1);
    for (xmlNodePtr c = node->children; c; c = c->next) objective_put_node(o, c);
    objective_put(o, "</", 2);
    objective_put(o, (const char *)node->name, strlen((const char *)node->name));
    objective_put(o, ">", 1);
}

/* <minimize> / <maximize>: not enforced by consistency; noted, and kept as text so the reduced
 * instance can carry it (docs/xcsp.md). */
static parac_status read_objective(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    objective_text o = {x, 0};
    if (!xcsp3_is_named(node, "minimize") && !xcsp3_is_named(node, "maximize")) return xcsp3_unsupported(x, node, error);
    x->network->has_objective = 1;
    objective_put(&o, "    ", 4);
    objective_put_node(&o, node);
    objective_put(&o, "\n", 1);
    if (o.failed == 1) return xcsp3_fail_node(x, node, PARAC_ERR_UNSUPPORTED, "objectives longer than 10^7 bytes in all", error);
    if (o.failed) return parac_fail_no_memory(error, "objective", x->objectives_length);
    return PARAC_OK;
}

static parac_status on_element(void *context, const char *section, xmlNodePtr node, parac_error *error)
{
    xcsp3 *x = context;
    const char *name = (const char *)node->name;
    if (strcmp(section, "variables") == 0) {
        if (x->network->present)
            return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "variables declared after constraints", error);
        if (strcmp(name, "var") == 0) return xcsp3_read_var(x, node, error);
        if (strcmp(name, "array") == 0) return xcsp3_read_array(x, node, error);
        return xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "unexpected element in <variables>", error);
    }
    if (strcmp(section, "constraints") == 0) return read_constraint(x, node, error);
    if (strcmp(section, "objectives") == 0) return read_objective(x, node, error);
    return PARAC_OK; /* annotations and the like do not change the network */
}

parac_status xcsp3_read(xcsp_input *in, parac_csp_network *network, const parac_csp_load_options *options,
                        char **objectives, parac_error *error)
{
    xcsp3 x;
    parac_status status;
    char *type = (char *)xmlTextReaderGetAttribute(in->reader, (const xmlChar *)"type");
    memset(&x, 0, sizeof x);
    x.in = in;
    x.network = network;
    x.options = options;
    if (type && strcmp(type, "CSP") != 0 && strcmp(type, "COP") != 0 && !options->ignore_unsupported) {
        status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, in->name, xmlTextReaderGetParserLineNumber(in->reader),
                               "unsupported instance type=\"%s\" (only CSP and COP)", type);
    } else {
        status = xcsp_walk(in, on_section, on_element, &x, error);
        if (status == PARAC_OK) status = parac_csp_finish_variables(network, error);
    }
    xmlFree(type);
    if (status == PARAC_OK && objectives) {
        *objectives = x.objectives;
        x.objectives = NULL;
    }
    free(x.objectives);
    xcsp_names_free(&x.names);
    free(x.arrays);
    free(x.args_expression_variables.items);
    return status;
}
