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

/* count names, one per line (names may be empty); the first is `first` when given.
 * The array grows with the lines that really arrive, so a header claiming 10^8
 * objects in a short file fails as truncated without a large allocation. */
static parac_status read_names_into(parac_line_reader *reader, size_t count, const char *first, const char *what,
                                    char ***names, size_t *filled, parac_error *error)
{
    size_t capacity = 0;
    for (size_t i = 0; i < count; i++) {
        if (i == capacity) {
            size_t bigger = capacity ? (capacity * 2 < count ? capacity * 2 : count) : (count < 1024 ? count : 1024);
            char **grown = realloc(*names, bigger * sizeof *grown);
            if (!grown) return parac_fail_no_memory(error, "names", bigger * sizeof *grown);
            memset(grown + capacity, 0, (bigger - capacity) * sizeof *grown);
            *names = grown;
            capacity = bigger;
        }
        if (!(i == 0 && first)) {
            int got = parac_line_reader_next(reader, error);
            if (got < 0) return error ? error->status : PARAC_ERR_IO;
            if (got == 0) return truncated(reader, what, error);
        }
        (*names)[i] = strdup(i == 0 && first ? first : reader->buffer);
        if (!(*names)[i]) return parac_fail_no_memory(error, "a name", reader->length);
        *filled = i + 1;
    }
    return PARAC_OK;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; names && i < count; i++) free(names[i]);
    free(names);
}

/* As read_names_into; on failure nothing is kept (*names is NULL). */
static parac_status read_names(parac_line_reader *reader, size_t count, const char *first, const char *what,
                               char ***names, parac_error *error)
{
    size_t filled = 0;
    parac_status status;
    *names = NULL;
    status = read_names_into(reader, count, first, what, names, &filled, error);
    if (status != PARAC_OK) {
        free_names(*names, filled);
        *names = NULL;
    }
    return status;
}

static parac_status read_rows(parac_line_reader *reader, parac_fca_context *context, parac_error *error)
{
    int got;
    for (size_t o = 0; o < context->objects; o++) {
        size_t length;
        got = parac_line_reader_next(reader, error);
        if (got < 0) return error ? error->status : PARAC_ERR_IO;
        if (got == 0) return truncated(reader, "one row per object", error);
        length = reader->length;
        while (length && reader->buffer[length - 1] == ' ') length--;
        if (length != context->attributes)
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                 "row has %zu entries, expected %zu (one per attribute)", length, context->attributes);
        for (size_t a = 0; a < length; a++) {
            char c = reader->buffer[a];
            parac_status status;
            if (c == 'X' || c == 'x') {
                if ((status = fca_context_add(context, o, a, error)) != PARAC_OK) return status;
            } else if (c != '.')
                return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                     "unexpected '%c' in row (only 'X' and '.')", c);
        }
    }
    /* Rows beyond the header's count mean the counts are wrong: refuse rather than drop them. */
    got = next_nonblank(reader, error);
    if (got < 0) return error ? error->status : PARAC_ERR_IO;
    if (got > 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "more rows than the header's %zu objects", context->objects);
    fca_context_end_cells(context);
    return PARAC_OK;
}

parac_status fca_read_cxt(const parac_input *input, parac_fca_context **context, parac_error *error)
{
    parac_line_reader reader;
    size_t objects = 0, attributes = 0;
    char **object_names = NULL, **attribute_names = NULL;
    parac_fca_context *made = NULL;
    parac_status status = parac_line_reader_open_input(&reader, input, error);
    int got;
    if (status != PARAC_OK) return status;
    got = next_nonblank(&reader, error);
    if (got <= 0) {
        status = got < 0 ? (error ? error->status : PARAC_ERR_IO)
                         : parac_fail_at(error, PARAC_ERR_PARSE, reader.path, 1, "empty file: expected a 'B' header");
        goto done;
    }
    if (strncmp(reader.buffer, "B", 1) != 0 || reader.buffer[1 + strspn(reader.buffer + 1, " \t")]) {
        status = parac_fail_at(error, PARAC_ERR_PARSE, reader.path, reader.line_number, "expected 'B' (Burmeister header)");
        goto done;
    }
    if ((status = read_count(&reader, "number of objects", &objects, error)) != PARAC_OK) goto done;
    if ((status = read_count(&reader, "number of attributes", &attributes, error)) != PARAC_OK) goto done;
    if (!fca_context_size_ok(objects, attributes)) {
        status = parac_fail_at(error, PARAC_ERR_PARSE, reader.path, reader.line_number,
                               "a context of %zu objects x %zu attributes is above the limit of %llu cells", objects,
                               attributes, (unsigned long long)PARAC_FCA_MAX_CONTEXT_CELLS);
        goto done;
    }
    /* the optional blank line before the names is skipped by peeking: the first name may not be blank */
    if (objects + attributes) {
        got = next_nonblank(&reader, error);
        if (got <= 0) {
            status = got < 0 ? (error ? error->status : PARAC_ERR_IO) : truncated(&reader, "names", error);
            goto done;
        }
        status = read_names(&reader, objects, reader.buffer, "more object names", &object_names, error);
        if (status == PARAC_OK)
            status = read_names(&reader, attributes, objects ? NULL : reader.buffer, "more attribute names",
                                &attribute_names, error);
        if (status != PARAC_OK) goto done;
    }
    if ((status = fca_context_alloc(objects, attributes, &made, error)) != PARAC_OK) goto done;
    made->object_names = object_names;
    made->attribute_names = attribute_names;
    object_names = attribute_names = NULL;
    status = read_rows(&reader, made, error);
done:
    parac_line_reader_close(&reader);
    free_names(object_names, objects);
    free_names(attribute_names, attributes);
    if (status != PARAC_OK) parac_fca_context_destroy(made);
    else *context = made;
    return status;
}
