/* fca/io_fimi.c — FIMI transaction files: one object per line, attribute ids
 * separated by blanks. Ids are kept as written (see parac/fca.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/line_reader.h"
#include "fca/fca_internal.h"

typedef struct id_list {
    uint32_t *ids;
    size_t count, capacity;
} id_list;

static int id_list_push(id_list *list, uint32_t value)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 4096;
        uint32_t *grown = realloc(list->ids, capacity * sizeof *grown);
        if (!grown) return -1;
        list->ids = grown;
        list->capacity = capacity;
    }
    list->ids[list->count++] = value;
    return 0;
}

/* Parses one line's ids (each at most id_limit) into ids; returns PARAC_OK or a parse error at the line. */
static parac_status parse_line(parac_line_reader *reader, uint32_t id_limit, id_list *ids, uint32_t *max_id,
                               parac_error *error)
{
    char *cursor = reader->buffer;
    for (;;) {
        char *end;
        long long value;
        while (isspace((unsigned char)*cursor)) cursor++;
        if (!*cursor) return PARAC_OK;
        errno = 0;
        value = strtoll(cursor, &end, 10);
        if (end == cursor || (*end && !isspace((unsigned char)*end))) {
            size_t length = strcspn(cursor, " \t\r\n");
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                 "'%.*s' is not an attribute id (a non-negative integer)", (int)(length > 40 ? 40 : length),
                                 cursor);
        }
        if (value < 0)
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                 "negative attribute id %lld", value);
        if (errno || value > (long long)id_limit)
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                 "attribute id %.*s is too large (at most %u)", (int)(end - cursor > 30 ? 30 : end - cursor),
                                 cursor, (unsigned)id_limit);
        if (id_list_push(ids, (uint32_t)value)) return parac_fail_no_memory(error, "attribute ids", ids->capacity * 8);
        if ((uint32_t)value > *max_id) *max_id = (uint32_t)value;
        cursor = end;
    }
}

static parac_status build_context(const id_list *ids, const id_list *starts, uint32_t max_id, int any_id,
                                  parac_fca_context **context, parac_error *error)
{
    size_t objects = starts->count - 1;
    parac_status status = fca_context_alloc(objects, any_id ? (size_t)max_id + 1 : 0, context, error);
    if (status != PARAC_OK) return status;
    for (size_t o = 0; o < objects; o++)
        for (size_t i = starts->ids[o]; i < starts->ids[o + 1]; i++) fca_context_set(*context, o, ids->ids[i]);
    return PARAC_OK;
}

parac_status fca_read_fimi(const parac_input *input, parac_fca_context **context, parac_error *error)
{
    return fca_read_fimi_limited(input, PARAC_FCA_MAX_ATTRIBUTE_ID, context, error);
}

parac_status fca_read_fimi_limited(const parac_input *input, uint32_t id_limit, parac_fca_context **context,
                                   parac_error *error)
{
    parac_line_reader reader;
    id_list ids = {0}, starts = {0};
    uint32_t max_id = 0;
    parac_status status = parac_line_reader_open_input(&reader, input, error);
    int got;
    if (status != PARAC_OK) return status;
    if (id_list_push(&starts, 0)) goto no_memory;
    while ((got = parac_line_reader_next(&reader, error)) == 1) {
        if (reader.buffer[0] == '#') continue;
        status = parse_line(&reader, id_limit, &ids, &max_id, error);
        if (status != PARAC_OK) goto done;
        if (ids.count > UINT32_MAX - 1) {
            status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, reader.path, reader.line_number, "more than 2^32 ids");
            goto done;
        }
        if (id_list_push(&starts, (uint32_t)ids.count)) goto no_memory;
        /* Checked as the file is read: a small file of many lines naming a large id
         * must fail here, not when the bit matrix is allocated. */
        if (!fca_context_size_ok(starts.count - 1, ids.count ? (size_t)max_id + 1 : 0)) {
            status = parac_fail_at(error, PARAC_ERR_PARSE, reader.path, reader.line_number,
                                   "the context (%zu objects x %zu attributes so far) is above the limit of %llu cells",
                                   starts.count - 1, (size_t)max_id + 1, (unsigned long long)PARAC_FCA_MAX_CONTEXT_CELLS);
            goto done;
        }
    }
    if (got < 0) {
        status = error ? error->status : PARAC_ERR_IO;
        goto done;
    }
    if (starts.count == 1) {
        status = parac_fail_at(error, PARAC_ERR_PARSE, reader.path, 1, "empty file: no objects");
        goto done;
    }
    status = build_context(&ids, &starts, max_id, ids.count > 0, context, error);
    goto done;
no_memory:
    status = parac_fail_no_memory(error, "FIMI object list", (starts.capacity + ids.capacity) * 8ULL);
done:
    parac_line_reader_close(&reader);
    free(ids.ids);
    free(starts.ids);
    return status;
}
