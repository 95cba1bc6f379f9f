/* csp/xcsp_walk.c — the streaming walk shared by both XCSP readers: sections at
 * depth 1, one expanded element at a time at depth 2 (see xcsp_readers.h). */
#include <string.h>

#include "core/error.h"
#include "csp/xcsp_readers.h"

char *xcsp_node_text(xmlNodePtr node)
{
    xmlChar *text = node ? xmlNodeGetContent(node) : NULL;
    return text ? (char *)text : (char *)xmlStrdup((const xmlChar *)"");
}

xmlNodePtr xcsp_child(xmlNodePtr node, const char *name)
{
    for (xmlNodePtr c = node ? node->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
    return NULL;
}

/* Handles the element the reader stands on at depth 2 and moves past its subtree. */
static int handle_element(xcsp_input *in, const char *section, xcsp_element_fn element, void *context,
                          parac_status *status, parac_error *error)
{
    xmlNodePtr node = xcsp_input_expand(in);
    /* a budget, corrupt compressed data or a libxml2 limit, rather than a document cut short */
    if (!node && (in->budget_error[0] || in->lzma_failed || in->read_failed ||
                  (in->xml_failed && !strstr(in->xml_error, "Extra content at the end")))) {
        *status = xcsp_input_fail(in, error);
        return -1;
    }
    if (!node) { /* libxml2 then tells of the end of input in odd words; name the open element */
        const char *name = (const char *)xmlTextReaderConstName(in->reader);
        *status = parac_fail_at(error, PARAC_ERR_PARSE, in->name, xmlTextReaderGetParserLineNumber(in->reader),
                                "<%s> is never closed: truncated or malformed XML (libxml2: %s)", name ? name : "?",
                                in->xml_failed ? in->xml_error : "no detail");
        return -1;
    }
    *status = xcsp_input_check_subtree(in, node, error);
    if (*status == PARAC_OK) *status = element(context, section, node, error);
    return xmlTextReaderNext(in->reader);
}

parac_status xcsp_walk(xcsp_input *in, xcsp_section_fn section, xcsp_element_fn element, void *context,
                       parac_error *error)
{
    char current[64] = "";
    parac_status status = PARAC_OK;
    int more = xmlTextReaderRead(in->reader);
    while (more == 1 && status == PARAC_OK) {
        int type = xmlTextReaderNodeType(in->reader), depth = xmlTextReaderDepth(in->reader);
        const char *name = (const char *)xmlTextReaderConstName(in->reader);
        if (type == XML_READER_TYPE_ENTITY_REFERENCE) {
            status = parac_fail_at(error, PARAC_ERR_PARSE, in->name, xmlTextReaderGetParserLineNumber(in->reader),
                                   "entity reference &%s; (XCSP input takes no entities; write the text itself)",
                                   name ? name : "?");
            break;
        }
        if (type == XML_READER_TYPE_ELEMENT && depth == 1) {
            snprintf(current, sizeof current, "%s", name ? name : "");
            status = section(context, current, xmlTextReaderGetParserLineNumber(in->reader), error);
        } else if (type == XML_READER_TYPE_ELEMENT && depth == 2) {
            more = handle_element(in, current, element, context, &status, error);
            continue;
        }
        more = xmlTextReaderRead(in->reader);
    }
    if (status != PARAC_OK) return status;
    if (more < 0 || in->xml_failed || in->lzma_failed || in->read_failed || in->budget_error[0]) return xcsp_input_fail(in, error);
    return PARAC_OK;
}
