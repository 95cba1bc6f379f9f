/* csp/xcsp_input.c — see xcsp_input.h. liblzma's auto decoder reads both .xz and
 * .lzma streams; it feeds libxml2 through xmlReaderForIO, so a compressed file is
 * never held whole in memory. */
#include "csp/xcsp_input.h"

#include <errno.h>
#include <string.h>

#include "core/error.h"

#define XCSP_XML_OPTIONS (XML_PARSE_HUGE | XML_PARSE_BIG_LINES | XML_PARSE_NONET | XML_PARSE_NOBLANKS)

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
            in->lzma_failed = 1;
            return -1;
        }
    }
    return size - (int)in->lzma.avail_out;
}

static int close_compressed(void *context)
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

static parac_status open_compressed(xcsp_input *in, const char *path, parac_error *error)
{
    if (lzma_auto_decoder(&in->lzma, UINT64_MAX, 0) != LZMA_OK)
        return parac_fail_at(error, PARAC_ERR_NO_MEMORY, path, 0, "cannot start the lzma decoder");
    in->lzma_started = 1;
    in->reader = xmlReaderForIO(read_compressed, close_compressed, in, path, NULL, XCSP_XML_OPTIONS);
    return PARAC_OK;
}

parac_status xcsp_input_open(xcsp_input *in, const char *path, parac_error *error)
{
    unsigned char head[16];
    size_t length;
    lzma_stream blank = LZMA_STREAM_INIT;
    memset(in, 0, sizeof *in);
    in->lzma = blank;
    in->name = path;
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
        in->reader = xmlReaderForFile(path, NULL, XCSP_XML_OPTIONS);
    }
    if (!in->reader) {
        xcsp_input_close(in);
        return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot read as XML");
    }
    xmlTextReaderSetErrorHandler(in->reader, keep_first_error, in);
    return PARAC_OK;
}

parac_status xcsp_input_open_memory(xcsp_input *in, const char *xml, size_t size, const char *name,
                                    parac_error *error)
{
    lzma_stream blank = LZMA_STREAM_INIT;
    memset(in, 0, sizeof *in);
    in->lzma = blank;
    in->name = name;
    if (size > INT32_MAX) return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, name, 0, "document over 2 GiB");
    in->reader = xmlReaderForMemory(xml, (int)size, name, NULL, XCSP_XML_OPTIONS);
    if (!in->reader) return parac_fail_at(error, PARAC_ERR_NO_MEMORY, name, 0, "cannot create an XML reader");
    xmlTextReaderSetErrorHandler(in->reader, keep_first_error, in);
    return PARAC_OK;
}

parac_status xcsp_input_fail(xcsp_input *in, parac_error *error)
{
    if (in->lzma_failed)
        return parac_fail_at(error, PARAC_ERR_IO, in->name, 0, "corrupt or truncated compressed data");
    if (in->xml_failed)
        return parac_fail_at(error, PARAC_ERR_PARSE, in->name, in->xml_error_line, "malformed XML: %s", in->xml_error);
    return parac_fail_at(error, PARAC_ERR_PARSE, in->name, 0, "malformed XML");
}

void xcsp_input_close(xcsp_input *in)
{
    if (in->reader) xmlFreeTextReader(in->reader);
    if (in->file) fclose(in->file);
    if (in->lzma_started) lzma_end(&in->lzma);
    in->reader = NULL;
    in->file = NULL;
    in->lzma_started = 0;
}
