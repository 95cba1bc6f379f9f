/* csp/xcsp_input.h — an xmlTextReader over a plain, .gz, .xz or .lzma XCSP file (the
 * format is told from the first bytes, not the name), or over memory, with budgets.
 *
 * Hostile input is bounded here, before any tree is built:
 * - libxml2 runs with its default limits (no XML_PARSE_HUGE: 10^7 bytes per text node,
 *   256 levels of nesting, entity-amplification checks), without network access, DTD
 *   loading or entity substitution;
 * - a document that declares entities (a DOCTYPE with an internal subset) is refused,
 *   and so is any entity reference that reaches the readers (xcsp_input_check_subtree):
 *   content is never silently dropped;
 * - every byte handed to libxml2 (after decompression) is counted against max_bytes and
 *   every start tag against max_elements, so a small .xz cannot expand into an endless
 *   parse; the tags read while one element is expanded count against max_subtree_elements,
 *   which bounds the memory of that tree (about 100 bytes a node).
 * libxml2's own error printing is replaced by a handler that keeps the first error and
 * its line, so the library never prints. */
#ifndef PARAC_CSP_XCSP_INPUT_H
#define PARAC_CSP_XCSP_INPUT_H

#include <stdio.h>

#include <libxml/xmlreader.h>
#include <lzma.h>
#include <zlib.h>

#include <parac/status.h>

/* Budgets of one load; xcsp_limits_default gives the documented defaults (docs/xcsp.md). */
typedef struct xcsp_limits {
    uint64_t max_bytes;     /* XML text after decompression (default 4 GiB) */
    uint64_t max_elements;  /* start tags in the document (default 10^8) */
    uint64_t max_subtree_elements; /* start tags in one expanded element, e.g. a <group> (default 10^7) */
    uint64_t max_variables; /* variables of the network, and terms of one list (default 10^7) */
    uint64_t max_values;    /* sum of the domain sizes, and values of one domain (default 10^8) */
} xcsp_limits;

void xcsp_limits_default(xcsp_limits *limits);

typedef struct xcsp_input {
    xmlTextReaderPtr reader;
    const char *name;        /* for messages */
    xcsp_limits limits;
    FILE *file;              /* xz/lzma input */
    gzFile gz;               /* plain or gzip input */
    const char *memory;      /* in-memory input */
    size_t memory_size, memory_at;
    lzma_stream lzma;
    int lzma_started;
    int lzma_failed;
    int read_failed;         /* gzread failed (I/O error, corrupt gzip stream) */
    uint64_t bytes;          /* XML bytes handed to libxml2 so far */
    uint64_t elements;       /* start tags seen in them */
    uint64_t subtree_start;  /* elements when the current expansion began; UINT64_MAX when none */
    int after_angle;         /* the last byte handed over was '<' */
    char budget_error[160];  /* set when a budget ran out (the read callback then fails) */
    uint8_t buffer[1 << 16]; /* compressed bytes */
    int xml_failed;          /* the error handler ran */
    /* libxml2 reports encoding and I/O errors through its per-thread generic handler, which prints
     * to stderr; while the input is open that handler is a silent one (the reader's own handler still
     * fails the parse), and the caller's is put back at close. */
    int quieted;
    xmlGenericErrorFunc saved_generic_error;
    void *saved_generic_context;
    long xml_error_line;
    char xml_error[256];
} xcsp_input;

/* Opens path; on failure fills error (PARAC_ERR_IO) and leaves nothing open. `in` must stay
 * at the same address while open (libxml2 holds a pointer to it). limits may be NULL (defaults). */
parac_status xcsp_input_open(xcsp_input *in, const char *path, const xcsp_limits *limits, parac_error *error);
parac_status xcsp_input_open_memory(xcsp_input *in, const char *xml, size_t size, const char *name,
                                    const xcsp_limits *limits, parac_error *error);
/* Moves the reader onto the root element, refusing a DTD internal subset (entity declarations). */
parac_status xcsp_input_find_root(xcsp_input *in, parac_error *error);
/* xmlTextReaderExpand within max_subtree_elements (NULL when it fails, as xmlTextReaderExpand). */
xmlNodePtr xcsp_input_expand(xcsp_input *in);
/* Fails (PARAC_ERR_PARSE) when an expanded subtree holds an entity reference, which the readers
 * would otherwise skip as if its text were not there. */
parac_status xcsp_input_check_subtree(xcsp_input *in, xmlNodePtr node, parac_error *error);
/* Fills error from a failed xmlTextReaderRead (a budget, a decompression failure or the kept
 * libxml2 message) and returns its status. */
parac_status xcsp_input_fail(xcsp_input *in, parac_error *error);
void xcsp_input_close(xcsp_input *in);

#endif
