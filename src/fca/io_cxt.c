/* fca/io_cxt.c — Burmeister .cxt: "B", a blank line, the object and
 * attribute counts, a blank line, the names, then one row per object of 'X'
 * (has) and '.' (has not). Blank lines around the counts are optional. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/line_reader.h"
#include "fca/fca_internal.h"

/* Next line that is not blank; 0 at end of file (reported as truncation by the caller). */
static int next_nonblank(parac_line_reader *reader, parac_error *error)
{
    int got;
    while ((got = parac_line_reader_next(reader, error)) == 1)
        if (reader->buffer[strspn(reader->buffer, " \t\r")]) return 1;
    return got;
}

static parac_status truncated(parac_line_reader *reader, const char *expected, parac_error *error)
{
    return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number + 1,
                         "truncated file: expected %s", expected);
}

static parac_status read_count(parac_line_reader *reader, const char *what, size_t *count, parac_error *error)
{
    char *end;
    long long value;
    int got = next_nonblank(reader, error);
    if (got < 0) return error ? error->status : PARAC_ERR_IO;
    if (got == 0) return truncated(reader, what, error);
    errno = 0;
    value = strtoll(reader->buffer, &end, 10);
    end += strspn(end, " \t\r");
    if (end == reader->buffer || *end || errno || value < 0 || value > 100000000)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "expected the %s (an integer from 0 to 10^8), got '%.40s'", what, reader->buffer);
    *count = (size_t)value;
    return PARAC_OK;
}

static parac_status read_names(parac_line_reader *reader, size_t count, char ***names, parac_error *error)
{
    *names = calloc(count ? count : 1, sizeof **names);
    if (!*names) return parac_fail_no_memory(error, "names", count * sizeof(char *));
    for (size_t i = 0; i < count; i++) {
        int got = parac_line_reader_next(reader, error);
        if (got < 0) return error ? error->status : PARAC_ERR_IO;
        if (got == 0) return truncated(reader, "more names", error);
        (*names)[i] = strdup(reader->buffer);
        if (!(*names)[i]) return parac_fail_no_memory(error, "a name", reader->length);
    }
    return PARAC_OK;
}

static parac_status read_rows(parac_line_reader *reader, parac_fca_context *context, parac_error *error)
{
    for (size_t o = 0; o < context->objects; o++) {
        size_t length;
        int got = parac_line_reader_next(reader, error);
        if (got < 0) return error ? error->status : PARAC_ERR_IO;
        if (got == 0) return truncated(reader, "one row per object", error);
        length = reader->length;
        while (length && (reader->buffer[length - 1] == ' ' || reader->buffer[length - 1] == '\r')) length--;
        if (length != context->attributes)
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                 "row has %zu entries, expected %zu (one per attribute)", length, context->attributes);
        for (size_t a = 0; a < length; a++) {
            char c = reader->buffer[a];
            if (c == 'X' || c == 'x') fca_context_set(context, o, a);
            else if (c != '.')
                return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                     "unexpected '%c' in row (only 'X' and '.')", c);
        }
    }
    fca_context_finish(context);
    return PARAC_OK;
}

parac_status fca_read_cxt(const char *path, parac_fca_context **context, parac_error *error)
{
    parac_line_reader reader;
    size_t objects = 0, attributes = 0;
    parac_fca_context *made = NULL;
    parac_status status = parac_line_reader_open(&reader, path, error);
    int got;
    if (status != PARAC_OK) return status;
    got = next_nonblank(&reader, error);
    if (got <= 0) {
        status = got < 0 ? (error ? error->status : PARAC_ERR_IO)
                         : parac_fail_at(error, PARAC_ERR_PARSE, path, 1, "empty file: expected a 'B' header");
        goto done;
    }
    if (strncmp(reader.buffer, "B", 1) != 0 || reader.buffer[1 + strspn(reader.buffer + 1, " \t\r")]) {
        status = parac_fail_at(error, PARAC_ERR_PARSE, path, reader.line_number, "expected 'B' (Burmeister header)");
        goto done;
    }
    if ((status = read_count(&reader, "number of objects", &objects, error)) != PARAC_OK) goto done;
    if ((status = read_count(&reader, "number of attributes", &attributes, error)) != PARAC_OK) goto done;
    if ((status = fca_context_alloc(objects, attributes, &made, error)) != PARAC_OK) goto done;
    /* the optional blank line before the names is skipped by peeking: names may not be blank */
    if (objects + attributes) {
        got = next_nonblank(&reader, error);
        if (got <= 0) {
            status = got < 0 ? (error ? error->status : PARAC_ERR_IO) : truncated(&reader, "names", error);
            goto done;
        }
        made->object_names = calloc(objects ? objects : 1, sizeof(char *));
        if (!made->object_names) { status = parac_fail_no_memory(error, "names", objects * 8); goto done; }
        if (objects) {
            made->object_names[0] = strdup(reader.buffer);
            if (!made->object_names[0]) { status = parac_fail_no_memory(error, "a name", reader.length); goto done; }
            for (size_t i = 1; i < objects; i++) {
                got = parac_line_reader_next(&reader, error);
                if (got <= 0) { status = got < 0 ? error->status : truncated(&reader, "more object names", error); goto done; }
                if (!(made->object_names[i] = strdup(reader.buffer))) { status = parac_fail_no_memory(error, "a name", 1); goto done; }
            }
            status = read_names(&reader, attributes, &made->attribute_names, error);
        } else {
            made->attribute_names = calloc(attributes, sizeof(char *));
            if (!made->attribute_names || !(made->attribute_names[0] = strdup(reader.buffer))) {
                status = parac_fail_no_memory(error, "names", attributes * 8);
                goto done;
            }
            for (size_t i = 1; i < attributes && status == PARAC_OK; i++) {
                got = parac_line_reader_next(&reader, error);
                if (got <= 0) status = got < 0 ? error->status : truncated(&reader, "more attribute names", error);
                else if (!(made->attribute_names[i] = strdup(reader.buffer))) status = parac_fail_no_memory(error, "a name", 1);
            }
        }
        if (status != PARAC_OK) goto done;
    }
    status = read_rows(&reader, made, error);
done:
    parac_line_reader_close(&reader);
    if (status != PARAC_OK) parac_fca_context_destroy(made);
    else *context = made;
    return status;
}
