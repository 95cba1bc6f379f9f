/* csp/xcsp_input.c — see xcsp_input.h. liblzma's auto decoder reads both .xz and
 * .lzma streams and zlib's gzread reads gzip or plain files; either feeds libxml2
 * through xmlReaderForIO, so a compressed file is never held whole in memory, and
 * every byte passes through count_bytes (the budgets) on its way in. */
#include "csp/xcsp_input.h"

#include <errno.h>
#include <string.h>

#include "core/error.h"

/* No XML_PARSE_HUGE (it lifts the entity-amplification, depth and text-size limits), no
 * XML_PARSE_NOENT (it would substitute external entities), no XML_PARSE_DTDLOAD. */
#define XCSP_XML_OPTIONS (XML_PARSE_BIG_LINES | XML_PARSE_NONET | XML_PARSE_NOBLANKS)

void xcsp_limits_default(xcsp_limits *limits)
{
    limits->max_bytes = 4ULL << 30;
    limits->max_elements = 100000000ULL;
    limits->max_subtree_elements = 10000000ULL;
    limits->max_variables = 10000000ULL;
    limits->max_values = 100000000ULL;
}

/* libxml2 ends a message about one of its limits with "use XML_PARSE_HUGE option", which a
 * parac user cannot set: say which limit it is instead. */
static void name_the_limit(char *message, size_t size)
{
    char *advice = strstr(message, " use XML_PARSE_HUGE option");
    if (!advice) advice = strstr(message, ", use XML_PARSE_HUGE option");
    if (advice) snprintf(advice, size - (size_t)(advice - message), " (libxml2's default limit)");
}

/* libxml2's generic-error channel while an input is open: the messages (encoding conversion, I/O)
 * also fail the reader, whose own handler names the line, so nothing is lost by dropping them. */
static void discard_generic_error(void *context, const char *message, ...)
{
    (void)context;
    (void)message;
}

/* Silences libxml2's generic errors on this thread until restore_libxml_errors (the library never prints). */
static void quiet_libxml_errors(xcsp_input *in)
{
    if (in->quieted) return;
    in->saved_generic_error = xmlGenericError;
    in->saved_generic_context = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, discard_generic_error);
    in->quieted = 1;
}

static void restore_libxml_errors(xcsp_input *in)
{
    if (!in->quieted) return;
    xmlSetGenericErrorFunc(in->saved_generic_context, in->saved_generic_error);
    in->quieted = 0;
}

static void keep_first_error(void *context, const char *message, xmlParserSeverities severity,
                             xmlTextReaderLocatorPtr locator)
{
    xcsp_input *in = context;
    size_t length;
    if (severity == XML_PARSER_SEVERITY_WARNING || severity == XML_PARSER_SEVERITY_VALIDITY_WARNING) return;
    if (in->xml_failed) return;
    in->xml_failed = 1;
    in->xml_error_line = locator ? xmlTextReaderLocatorLineNumber(locator) : 0;
    snprintf(in->xml_error, sizeof in->xml_error, "%s", message ? message : "malformed XML");
    length = strlen(in->xml_error);
    while (length && (in->xml_error[length - 1] == '\n' || in->xml_error[length - 1] == ' '))
        in->xml_error[--length] = '\0';
    name_the_limit(in->xml_error, sizeof in->xml_error);
}

/* Counts `length` bytes about to be handed to libxml2 and the start tags in them ('<' not
 * followed by '/', '!' or '?'; a '<' in a comment counts too, which only errs on the safe
 * side). Returns length, or 0 (end of input: libxml2 then stops on a truncated document)
 * when a budget runs out; the bytes past the budget are never parsed. */
static int count_bytes(xcsp_input *in, const char *data, int length)
{
    const char *at = data, *end = data + (length > 0 ? length : 0);
    if (length <= 0) return length;
    if (in->budget_error[0]) return 0;
    if ((uint64_t)length > in->limits.max_bytes - in->bytes) {
        snprintf(in->budget_error, sizeof in->budget_error,
                 "more than %llu bytes of XML after decompression (the input budget)",
                 (unsigned long long)in->limits.max_bytes);
        return 0;
    }
    in->bytes += (uint64_t)length;
    while (at < end) {
        const char *angle;
        if (in->after_angle) {
            in->after_angle = 0;
            if (*at != '/' && *at != '!' && *at != '?') in->elements++;
        }
        if (!(angle = memchr(at, '<', (size_t)(end - at)))) break;
        at = angle + 1;
        in->after_angle = 1;
    }
    if (in->elements > in->limits.max_elements) {
        snprintf(in->budget_error, sizeof in->budget_error, "more than %llu XML elements (the element budget)",
                 (unsigned long long)in->limits.max_elements);
        return 0;
    }
    if (in->subtree_start != UINT64_MAX && in->elements - in->subtree_start > in->limits.max_subtree_elements) {
        snprintf(in->budget_error, sizeof in->budget_error,
                 "an element holding more than %llu elements (the budget of one constraint or group)",
                 (unsigned long long)in->limits.max_subtree_elements);
        return 0;
    }
    return length;
}

static int read_compressed(void *context, char *out, int size)
{
    xcsp_input *in = context;
    in->lzma.next_out = (uint8_t *)out;
    in->lzma.avail_out = (size_t)size;
    while (in->lzma.avail_out == (size_t)size) {
        lzma_action action = LZMA_RUN;
        lzma_ret ret;
        if (in->lzma.avail_in == 0) {
            in->lzma.next_in = in->buffer;
            in->lzma.avail_in = fread(in->buffer, 1, sizeof in->buffer, in->file);
            if (in->lzma.avail_in == 0) action = LZMA_FINISH;
        }
        ret = lzma_code(&in->lzma, action);
        if (ret == LZMA_STREAM_END) break;
        if (ret != LZMA_OK || (action == LZMA_FINISH && in->lzma.avail_out == (size_t)size)) {
            in->lzma_failed = ret == LZMA_MEMLIMIT_ERROR ? 2 : 1;
            return 0; /* libxml2 then reports a truncated document; xcsp_input_fail names the cause */
        }
    }
    return count_bytes(in, out, size - (int)in->lzma.avail_out);
}

static int read_plain(void *context, char *out, int size)
{
    xcsp_input *in = context;
    int got = gzread(in->gz, out, (unsigned)size);
    if (got < 0) {
        in->read_failed = 1; /* a read error, or a corrupt gzip stream */
        return 0;
    }
    return count_bytes(in, out, got);
}

static int read_memory(void *context, char *out, int size)
{
    xcsp_input *in = context;
    size_t left = in->memory_size - in->memory_at, take = left < (size_t)size ? left : (size_t)size;
    memcpy(out, in->memory + in->memory_at, take);
    in->memory_at += take;
    return count_bytes(in, out, (int)take);
}

static int close_nothing(void *context)
{
    (void)context;
    return 0;
}

static int is_compressed(const unsigned char *head, size_t length)
{
    static const unsigned char xz_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
    if (length >= 6 && memcmp(head, xz_magic, 6) == 0) return 1;
    return length >= 13 && head[0] == 0x5D && head[1] == 0x00 && head[2] == 0x00; /* .lzma (LZMA_alone) */
}

static void start(xcsp_input *in, const char *name, const xcsp_limits *limits)
{
    lzma_stream blank = LZMA_STREAM_INIT;
    memset(in, 0, sizeof *in);
    in->lzma = blank;
    in->name = name;
    in->subtree_start = UINT64_MAX;
    if (limits) in->limits = *limits;
    else xcsp_limits_default(&in->limits);
}

#define XCSP_LZMA_MEMORY ((uint64_t)256 << 20) /* the decoder's memory limit */

static parac_status open_compressed(xcsp_input *in, const char *path, parac_error *error)
{
    /* A 32-byte .lzma header may declare a 4 GiB dictionary, which the decoder would allocate (fuzz_xcsp_xz,
     * 2026-12-02): streams needing more than XCSP_LZMA_MEMORY (xz -9 needs 65 MiB) are refused. */
    if (lzma_auto_decoder(&in->lzma, XCSP_LZMA_MEMORY, 0) != LZMA_OK)
        return parac_fail_at(error, PARAC_ERR_NO_MEMORY, path, 0, "cannot start the lzma decoder");
    in->lzma_started = 1;
    quiet_libxml_errors(in);
    in->reader = xmlReaderForIO(read_compressed, close_nothing, in, path, NULL, XCSP_XML_OPTIONS);
    return PARAC_OK;
}

parac_status xcsp_input_open(xcsp_input *in, const char *path, const xcsp_limits *limits, parac_error *error)
{
    unsigned char head[16];
    size_t length;
    start(in, path, limits);
    in->file = fopen(path, "rb");
    if (!in->file) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    length = fread(head, 1, sizeof head, in->file);
    if (is_compressed(head, length)) {
        rewind(in->file);
        if (open_compressed(in, path, error) != PARAC_OK) {
            xcsp_input_close(in);
            return error ? error->status : PARAC_ERR_NO_MEMORY;
        }
    } else {
        fclose(in->file);
        in->file = NULL;
        if (!(in->gz = gzopen(path, "rb")))
            return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
        quiet_libxml_errors(in);
        in->reader = xmlReaderForIO(read_plain, close_nothing, in, path, NULL, XCSP_XML_OPTIONS);
    }
    if (!in->reader) {
        xcsp_input_close(in);
        return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot read as XML");
    }
    xmlTextReaderSetErrorHandler(in->reader, keep_first_error, in);
    return PARAC_OK;
}

parac_status xcsp_input_open_memory(xcsp_input *in, const char *xml, size_t size, const char *name,
                                    const xcsp_limits *limits, parac_error *error)
{
    start(in, name, limits);
    in->memory = xml;
    in->memory_size = size;
    quiet_libxml_errors(in);
    in->reader = xmlReaderForIO(read_memory, close_nothing, in, name, NULL, XCSP_XML_OPTIONS);
    if (!in->reader) {
        restore_libxml_errors(in);
        return parac_fail_at(error, PARAC_ERR_NO_MEMORY, name, 0, "cannot create an XML reader");
    }
    xmlTextReaderSetErrorHandler(in->reader, keep_first_error, in);
    return PARAC_OK;
}

/* 1 when the document has a DOCTYPE with declarations of its own (entities, elements ...). */
static int declares_entities(xcsp_input *in)
{
    /* the node itself: xmlTextReaderCurrentDoc would make the reader keep (and leak) the document */
    xmlNodePtr node = xmlTextReaderCurrentNode(in->reader);
    xmlDtdPtr dtd = node && node->type == XML_DTD_NODE ? (xmlDtdPtr)node : NULL;
    return dtd && (dtd->children || dtd->entities || dtd->pentities);
}

/* The line of the DOCTYPE the reader stands on (the parser may have read further). */
static long doctype_line(xcsp_input *in)
{
    xmlNodePtr node = xmlTextReaderCurrentNode(in->reader);
    long line = node ? xmlGetLineNo(node) : 0;
    return line > 0 ? line : xmlTextReaderGetParserLineNumber(in->reader);
}

parac_status xcsp_input_find_root(xcsp_input *in, parac_error *error)
{
    int more;
    while ((more = xmlTextReaderRead(in->reader)) == 1) {
        int type = xmlTextReaderNodeType(in->reader);
        if (type == XML_READER_TYPE_DOCUMENT_TYPE && declares_entities(in))
            return parac_fail_at(error, PARAC_ERR_PARSE, in->name, doctype_line(in),
                                 "the document declares a DTD internal subset (<!DOCTYPE ... [...]>): XCSP input "
                                 "takes no entity declarations");
        if (type == XML_READER_TYPE_ELEMENT) break;
    }
    if (more == 1 && !in->budget_error[0] && !in->lzma_failed && !in->read_failed) return PARAC_OK;
    if (more == 0 && !in->xml_failed && !in->budget_error[0] && !in->lzma_failed && !in->read_failed)
        return parac_fail_at(error, PARAC_ERR_PARSE, in->name, 0, "empty document");
    return xcsp_input_fail(in, error);
}

xmlNodePtr xcsp_input_expand(xcsp_input *in)
{
    xmlNodePtr node;
    in->subtree_start = in->elements; /* its own start tag was counted already: counted once more, harmless */
    node = xmlTextReaderExpand(in->reader);
    in->subtree_start = UINT64_MAX;
    return node;
}

/* The next node of a depth-first walk of root's subtree (attributes not included), or NULL. */
static xmlNodePtr next_in_subtree(xmlNodePtr root, xmlNodePtr node)
{
    if (node->children && node->type != XML_ENTITY_REF_NODE) return node->children;
    while (node != root && !node->next) node = node->parent;
    return node == root ? NULL : node->next;
}

static parac_status refuse_entity(xcsp_input *in, xmlNodePtr at, const xmlChar *name, parac_error *error)
{
    return parac_fail_at(error, PARAC_ERR_PARSE, in->name, xmlGetLineNo(at),
                         "entity reference &%s; (XCSP input takes no entities; write the text itself)",
                         name ? (const char *)name : "?");
}

parac_status xcsp_input_check_subtree(xcsp_input *in, xmlNodePtr root, parac_error *error)
{
    for (xmlNodePtr node = root; node; node = next_in_subtree(root, node)) {
        if (node->type == XML_ENTITY_REF_NODE) return refuse_entity(in, node->parent ? node->parent : node, node->name, error);
        if (node->type != XML_ELEMENT_NODE) continue;
        for (xmlAttrPtr attribute = node->properties; attribute; attribute = attribute->next)
            for (xmlNodePtr part = attribute->children; part; part = part->next)
                if (part->type == XML_ENTITY_REF_NODE) return refuse_entity(in, node, part->name, error);
    }
    return PARAC_OK;
}

parac_status xcsp_input_fail(xcsp_input *in, parac_error *error)
{
    long line = in->reader ? xmlTextReaderGetParserLineNumber(in->reader) : 0;
    if (in->budget_error[0]) return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, in->name, line, "%s", in->budget_error);
    if (in->lzma_failed == 2)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, in->name, 0,
                             "the compressed stream needs more than %d MiB to decode", (int)(XCSP_LZMA_MEMORY >> 20));
    if (in->lzma_failed)
        return parac_fail_at(error, PARAC_ERR_IO, in->name, 0, "corrupt or truncated compressed data");
    if (in->read_failed)
        return parac_fail_at(error, PARAC_ERR_IO, in->name, 0, "cannot read: an I/O error or corrupt gzip data");
    if (in->xml_failed)
        return parac_fail_at(error, PARAC_ERR_PARSE, in->name, in->xml_error_line ? in->xml_error_line : line,
                             "malformed XML: %s", in->xml_error);
    return parac_fail_at(error, PARAC_ERR_PARSE, in->name, line, "malformed XML");
}

void xcsp_input_close(xcsp_input *in)
{
    if (in->reader) xmlFreeTextReader(in->reader);
    if (in->file) fclose(in->file);
    if (in->gz) gzclose(in->gz);
    if (in->lzma_started) lzma_end(&in->lzma);
    in->reader = NULL;
    in->file = NULL;
    in->gz = NULL;
    in->lzma_started = 0;
    restore_libxml_errors(in);
}
