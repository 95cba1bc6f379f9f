/* csp/xcsp_input.h — an xmlTextReader over a plain, .xz or .lzma XCSP file (the
 * format is told from the first bytes, not the name), or over memory. libxml2's
 * own error printing is replaced by a handler that keeps the first error and its
 * line, so the library never prints. */
#ifndef PARAC_CSP_XCSP_INPUT_H
#define PARAC_CSP_XCSP_INPUT_H

#include <stdio.h>

#include <libxml/xmlreader.h>
#include <lzma.h>

#include <parac/status.h>

typedef struct xcsp_input {
    xmlTextReaderPtr reader;
    const char *name;        /* for messages */
    FILE *file;              /* compressed input only */
    lzma_stream lzma;
    int lzma_started;
    int lzma_failed;
    uint8_t buffer[1 << 16]; /* compressed bytes */
    int xml_failed;          /* the error handler ran */
    long xml_error_line;
    char xml_error[256];
} xcsp_input;

/* Opens path; on failure fills error (PARAC_ERR_IO) and leaves nothing open. `in` must stay
 * at the same address while open (libxml2 holds a pointer to it). */
parac_status xcsp_input_open(xcsp_input *in, const char *path, parac_error *error);
parac_status xcsp_input_open_memory(xcsp_input *in, const char *xml, size_t size, const char *name,
                                    parac_error *error);
/* Fills error from a failed xmlTextReaderRead (the kept libxml2 message, or a decompression
 * failure) and returns its status. */
parac_status xcsp_input_fail(xcsp_input *in, parac_error *error);
void xcsp_input_close(xcsp_input *in);

#endif
