/* fca/io_fimi.c — FIMI transaction files: one object per line, attribute ids
 * separated by blanks. Ids are kept as written (see parac/fca.h).
 *
 * The context is built straight from the cells (each line's ids sorted, duplicates dropped): no
 * objects x attributes matrix (issue 18). A plain file of at least PARALLEL_MIN_BYTES (or such a
 * buffer) is parsed by the threads at once: mapped, cut into pieces of whole lines
 * (core/text_pieces.h), each piece read by the line reader with its lines numbered as in the whole
 * file, the pieces' cells joined in file order. Any problem in any piece (a bad id, a line too long,
 * a context over the cell limit, no objects) makes the serial reader read the input again, so the
 * error reported is the first one of the file, in the words and at the line the serial reader gives
 * (an input that fails costs a second read; one that succeeds, none). Gzip, standard input and
 * smaller inputs are read serially. */
#define _FILE_OFFSET_BITS 64
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sort_ids.h"
#include "core/error.h"
#include "core/line_reader.h"
#include "core/text_pieces.h"
#include "core/threads.h"
#include "fca/fca_internal.h"

/* Below this, one thread reads faster than a team starts (T10I4D100K is 4 MB). */
#define PARALLEL_MIN_BYTES ((size_t)1 << 20)
/* Pieces per thread: lines differ in length, more pieces even the threads out. */
#define PIECES_PER_THREAD 4

/* The cells of a run of lines: ids of object o (relative to the run) at ids[ends[o - 1] .. ends[o]). */
typedef struct fimi_cells {
    uint32_t *ids;
    size_t id_count, id_capacity;
    size_t *ends;
    size_t object_count, object_capacity;
    uint32_t max_id;
    int any_id;
} fimi_cells;

static void fimi_cells_free(fimi_cells *cells)
{
    free(cells->ids);
    free(cells->ends);
    memset(cells, 0, sizeof *cells);
}

static int push_id(fimi_cells *cells, uint32_t value)
{
    if (cells->id_count == cells->id_capacity) {
        size_t capacity = cells->id_capacity ? cells->id_capacity * 2 : 4096;
        uint32_t *grown = realloc(cells->ids, capacity * sizeof *grown);
        if (!grown) return -1;
        cells->ids = grown;
        cells->id_capacity = capacity;
    }
    cells->ids[cells->id_count++] = value;
    return 0;
}

static int push_end(fimi_cells *cells)
{
    if (cells->object_count == cells->object_capacity) {
        size_t capacity = cells->object_capacity ? cells->object_capacity * 2 : 1024;
        size_t *grown = realloc(cells->ends, capacity * sizeof *grown);
        if (!grown) return -1;
        cells->ends = grown;
        cells->object_capacity = capacity;
    }
    cells->ends[cells->object_count++] = cells->id_count;
    return 0;
}

/* Sorts ids[0..count) and drops repeats; returns the new count. */
static size_t sort_distinct(uint32_t *ids, size_t count)
{
    size_t kept = 0;
    parac_sort_u32(ids, count);
    for (size_t i = 0; i < count; i++)
        if (kept == 0 || ids[i] != ids[kept - 1]) ids[kept++] = ids[i];
    return kept;
}

/* Parses one line's ids (each at most id_limit) as one object; PARAC_OK or a parse error at the line. */
static parac_status parse_line(parac_line_reader *reader, uint32_t id_limit, fimi_cells *cells, parac_error *error)
{
    char *cursor = reader->buffer;
    size_t first = cells->id_count;
    for (;;) {
        char *end;
        long long value;
        while (isspace((unsigned char)*cursor)) cursor++;
        if (!*cursor) break;
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
        if (push_id(cells, (uint32_t)value))
            return parac_fail_no_memory(error, "attribute ids", cells->id_capacity * 8);
        if ((uint32_t)value > cells->max_id) cells->max_id = (uint32_t)value;
        cells->any_id = 1;
        cursor = end;
    }
    if (cells->id_count > first) /* an empty line before any id: ids is still NULL */
        cells->id_count = first + sort_distinct(cells->ids + first, cells->id_count - first);
    if (push_end(cells)) return parac_fail_no_memory(error, "FIMI object list", cells->object_capacity * 16);
    return PARAC_OK;
}

/* Every line of the reader into cells. The cell limit is checked after each line, so that a small
 * file of many lines naming a large id fails there, not at an allocation (in a piece this sees only
 * the piece's lines: the joined pieces are checked again). */
static parac_status parse_lines(parac_line_reader *reader, uint32_t id_limit, fimi_cells *cells, parac_error *error)
{
    int got;
    while ((got = parac_line_reader_next(reader, error)) == 1) {
        parac_status status;
        if (reader->buffer[0] == '#') continue;
        if ((status = parse_line(reader, id_limit, cells, error)) != PARAC_OK) return status;
        if (cells->id_count > UINT32_MAX - 1)
            return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, reader->path, reader->line_number, "more than 2^32 ids");
        if (!fca_context_size_ok(cells->object_count, cells->any_id ? (size_t)cells->max_id + 1 : 0))
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                 "the context (%zu objects x %zu attributes so far) is above the limit of %llu cells",
                                 cells->object_count, (size_t)cells->max_id + 1,
                                 (unsigned long long)PARAC_FCA_MAX_CONTEXT_CELLS);
    }
    return got < 0 ? (error ? error->status : PARAC_ERR_IO) : PARAC_OK;
}

/* The context of the joined cells (takes the arrays of cells: ends become the offsets). */
static parac_status adopt(fimi_cells *cells, parac_fca_context **context, parac_error *error)
{
    size_t objects = cells->object_count;
    size_t *offsets = realloc(cells->ends, (objects + 1) * sizeof *offsets);
    if (!offsets) {
        fimi_cells_free(cells);
        return parac_fail_no_memory(error, "FIMI object list", (objects + 1) * 8ULL);
    }
    memmove(offsets + 1, offsets, objects * sizeof *offsets);
    offsets[0] = 0;
    cells->ends = NULL;
    return fca_context_adopt_cells(objects, cells->any_id ? (size_t)cells->max_id + 1 : 0, offsets, cells->ids,
                                   context, error);
}

static parac_status read_serial(const parac_input *input, uint32_t id_limit, parac_fca_context **context,
                                parac_error *error)
{
    parac_line_reader reader;
    fimi_cells cells = {0};
    parac_status status = parac_line_reader_open_input(&reader, input, error);
    if (status != PARAC_OK) return status;
    status = parse_lines(&reader, id_limit, &cells, error);
    if (status == PARAC_OK && cells.object_count == 0)
        status = parac_fail_at(error, PARAC_ERR_PARSE, reader.path, 1, "empty file: no objects");
    parac_line_reader_close(&reader);
    if (status != PARAC_OK) {
        fimi_cells_free(&cells);
        return status;
    }
    return adopt(&cells, context, error);
}

/* ---- the parallel reader --------------------------------------------------------------------- */

typedef struct fimi_piece {
    uint64_t start, end, lines_before;
    fimi_cells cells;
    size_t objects_before, ids_before;
    parac_status status;
} fimi_piece;

/* Cuts the bytes into count pieces and parses them at once, each with its true first line number;
 * 0 when every piece succeeded. */
static int parse_pieces(const unsigned char *bytes, uint64_t size, const char *name, uint32_t id_limit,
                        fimi_piece *pieces, int count, int threads)
{
    int failed = 0;
    uint64_t lines = 0;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int p = 0; p < count; p++) {
        pieces[p].start = parac_text_piece_start(bytes, size, (uint64_t)count, (uint64_t)p);
        pieces[p].end = parac_text_piece_start(bytes, size, (uint64_t)count, (uint64_t)p + 1);
        pieces[p].lines_before = parac_text_count_newlines(bytes + pieces[p].start, pieces[p].end - pieces[p].start);
    }
    for (int p = 0; p < count; p++) { /* each piece's newlines become the lines before the next */
        uint64_t newlines = pieces[p].lines_before;
        pieces[p].lines_before = lines;
        lines += newlines;
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(| : failed)
    for (int p = 0; p < count; p++) {
        parac_line_reader reader;
        parac_error error;
        fimi_piece *piece = &pieces[p];
        piece->status = parac_line_reader_open_piece(&reader, bytes + piece->start, (size_t)(piece->end - piece->start),
                                                     name, (long)(piece->lines_before + 1), &error);
        if (piece->status == PARAC_OK) piece->status = parse_lines(&reader, id_limit, &piece->cells, &error);
        parac_line_reader_close(&reader);
        failed |= piece->status != PARAC_OK;
    }
    return failed;
}

/* The pieces' cells in file order, as one fimi_cells (ends absolute); PARAC_ERR_PARSE (no message:
 * the serial reader will say it) when the whole is over a limit or has no objects. */
static parac_status join_pieces(fimi_piece *pieces, int count, int threads, fimi_cells *joined, parac_error *error)
{
    size_t objects = 0, ids = 0;
    uint32_t max_id = 0;
    int any_id = 0;
    for (int p = 0; p < count; p++) {
        pieces[p].objects_before = objects;
        pieces[p].ids_before = ids;
        objects += pieces[p].cells.object_count;
        ids += pieces[p].cells.id_count;
        any_id |= pieces[p].cells.any_id;
        if (pieces[p].cells.max_id > max_id) max_id = pieces[p].cells.max_id;
    }
    if (objects == 0 || ids > UINT32_MAX - 1 || !fca_context_size_ok(objects, any_id ? (size_t)max_id + 1 : 0))
        return PARAC_ERR_PARSE;
    joined->ids = malloc((ids ? ids : 1) * sizeof *joined->ids);
    joined->ends = malloc((objects + 1) * sizeof *joined->ends);
    if (!joined->ids || !joined->ends) {
        fimi_cells_free(joined);
        return parac_fail_no_memory(error, "FIMI cells", (unsigned long long)ids * 4 + objects * 8);
    }
    joined->id_count = joined->id_capacity = ids;
    joined->object_count = joined->object_capacity = objects;
    joined->max_id = max_id;
    joined->any_id = any_id;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int p = 0; p < count; p++) {
        const fimi_cells *cells = &pieces[p].cells;
        if (cells->id_count)
            memcpy(joined->ids + pieces[p].ids_before, cells->ids, cells->id_count * sizeof *cells->ids);
        for (size_t o = 0; o < cells->object_count; o++)
            joined->ends[pieces[p].objects_before + o] = pieces[p].ids_before + cells->ends[o];
    }
    return PARAC_OK;
}

/* The bytes read by the threads; PARAC_ERR_PARSE (no message) when the serial reader must read
 * them again to report the file's first problem. */
static parac_status read_parallel(const unsigned char *bytes, uint64_t size, const char *name, uint32_t id_limit,
                                  int threads, parac_fca_context **context, parac_error *error)
{
    int count = threads * PIECES_PER_THREAD;
    fimi_piece *pieces = calloc((size_t)count, sizeof *pieces);
    fimi_cells joined = {0};
    parac_status status;
    if (!pieces) return parac_fail_no_memory(error, "FIMI pieces", (unsigned long long)count * sizeof *pieces);
    if (parse_pieces(bytes, size, name, id_limit, pieces, count, threads)) status = PARAC_ERR_PARSE;
    else status = join_pieces(pieces, count, threads, &joined, error);
    for (int p = 0; p < count; p++) fimi_cells_free(&pieces[p].cells);
    free(pieces);
    return status == PARAC_OK ? adopt(&joined, context, error) : status;
}

static int starts_with_gzip_magic(const unsigned char *bytes, size_t size)
{
    return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

/* A plain regular file mapped for reading (*bytes NULL when it is not one: gzip, a pipe, "-", small,
 * or it cannot be mapped; the serial reader then opens it and reports what is wrong). Looked at with
 * stat before any open: opening a FIFO here and closing it again would block until a writer came,
 * then leave that writer with no reader (SIGPIPE) until the serial reader opened it anew. */
static void map_plain_file(const char *path, const unsigned char **bytes, size_t *size)
{
    struct stat info;
    unsigned char magic[2];
    void *mapped;
    int fd;
    *bytes = NULL;
    if (strcmp(path, "-") == 0 || stat(path, &info) != 0 || !S_ISREG(info.st_mode) ||
        (uint64_t)info.st_size < PARALLEL_MIN_BYTES || (fd = open(path, O_RDONLY)) < 0)
        return;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && (uint64_t)info.st_size >= PARALLEL_MIN_BYTES &&
        !(pread(fd, magic, 2, 0) == 2 && starts_with_gzip_magic(magic, 2))) {
        mapped = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapped != MAP_FAILED) {
            *bytes = mapped;
            *size = (size_t)info.st_size;
        }
    }
    close(fd);
}

parac_status fca_read_fimi(const parac_input *input, parac_fca_context **context, parac_error *error)
{
    return fca_read_fimi_limited(input, PARAC_FCA_MAX_ATTRIBUTE_ID, context, error);
}

parac_status fca_read_fimi_limited(const parac_input *input, uint32_t id_limit, parac_fca_context **context,
                                   parac_error *error)
{
    return fca_read_fimi_threads(input, id_limit, parac_threads_resolve(0), context, error);
}

parac_status fca_read_fimi_threads(const parac_input *input, uint32_t id_limit, int threads,
                                   parac_fca_context **context, parac_error *error)
{
    const unsigned char *bytes = NULL;
    size_t size = 0;
    int mapped = 0;
    parac_status status = PARAC_ERR_PARSE;
    if (threads > 1) {
        if (input->in_memory) {
            bytes = input->data;
            size = input->size;
            if (size < PARALLEL_MIN_BYTES || starts_with_gzip_magic(bytes, size)) bytes = NULL;
        } else {
            map_plain_file(input->name, &bytes, &size);
            mapped = bytes != NULL;
        }
    }
    if (bytes) status = read_parallel(bytes, size, input->name, id_limit, threads, context, error);
    if (mapped) munmap((void *)bytes, size);
    if (status == PARAC_ERR_PARSE) status = read_serial(input, id_limit, context, error);
    return status;
}
