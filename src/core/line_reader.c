/* core/line_reader.c — lines are split out of chunks of bytes with memchr; a
 * chunk comes from gzread (a file, plain or gzip: zlib reads both, 256 KiB at
 * a time), from the caller's buffer as it is (plain bytes in memory), or from
 * zlib's inflate over the caller's buffer (gzip bytes in memory). */
#include "core/line_reader.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "core/error.h"

#define FILE_CHUNK_BYTES ((size_t)256 * 1024)
#define INFLATE_CHUNK_BYTES ((size_t)64 * 1024)
#define FIRST_LINE_CAPACITY ((size_t)4096)

static int starts_with_gzip_magic(const unsigned char *bytes, size_t size)
{
    return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

/* The line buffer and the chunk buffer (chunk_bytes 0: none); the source is already set. */
static parac_status allocate_buffers(parac_line_reader *reader, size_t chunk_bytes, parac_error *error)
{
    reader->max_line_length = PARAC_LINE_MAX;
    reader->capacity = FIRST_LINE_CAPACITY;
    reader->buffer = malloc(reader->capacity);
    if (chunk_bytes) reader->chunk_buffer = malloc(chunk_bytes);
    if (!reader->buffer || (chunk_bytes && !reader->chunk_buffer)) {
        parac_line_reader_close(reader);
        return parac_fail_no_memory(error, "a line buffer", FIRST_LINE_CAPACITY + chunk_bytes);
    }
    reader->buffer[0] = '\0';
    return PARAC_OK;
}

parac_status parac_line_reader_open(parac_line_reader *reader, const char *path, parac_error *error)
{
    gzFile gz;
    memset(reader, 0, sizeof *reader);
    reader->path = path;
    if (strcmp(path, "-") == 0) {
        int fd = dup(STDIN_FILENO);
        gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
        reader->path = "<stdin>";
    } else {
        gz = gzopen(path, "rb");
    }
    if (!gz) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot open: %s", strerror(errno ? errno : ENOENT));
    gzbuffer(gz, 256 * 1024);
    reader->gz = gz;
    return allocate_buffers(reader, FILE_CHUNK_BYTES, error);
}

parac_status parac_line_reader_open_memory(parac_line_reader *reader, const void *data, size_t size, const char *name,
                                           parac_error *error)
{
    memset(reader, 0, sizeof *reader);
    reader->path = name ? name : "<memory>";
    reader->memory = data;
    reader->memory_left = data ? size : 0;
    if (starts_with_gzip_magic(reader->memory, reader->memory_left)) {
        z_stream *inflater = calloc(1, sizeof *inflater);
        if (!inflater) return parac_fail_no_memory(error, "a gzip decoder", sizeof *inflater);
        if (inflateInit2(inflater, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip wrapper, not zlib's */
            free(inflater);
            return parac_fail_no_memory(error, "a gzip decoder", sizeof *inflater);
        }
        reader->inflater = inflater;
        return allocate_buffers(reader, INFLATE_CHUNK_BYTES, error);
    }
    return allocate_buffers(reader, 0, error);
}

parac_status parac_line_reader_open_piece(parac_line_reader *reader, const void *data, size_t size, const char *name,
                                          long first_line_number, parac_error *error)
{
    memset(reader, 0, sizeof *reader);
    reader->path = name ? name : "<memory>";
    reader->memory = data;
    reader->memory_left = data ? size : 0;
    reader->line_number = first_line_number - 1; /* of the line "last returned": the one before the piece */
    return allocate_buffers(reader, 0, error);
}

parac_status parac_line_reader_open_input(parac_line_reader *reader, const parac_input *input, parac_error *error)
{
    if (input->in_memory) return parac_line_reader_open_memory(reader, input->data, input->size, input->name, error);
    return parac_line_reader_open(reader, input->name, error);
}

static int fail_line(parac_line_reader *reader, parac_error *error, parac_status status, const char *what)
{
    parac_fail_at(error, status, reader->path, reader->line_number + 1, "%s", what);
    return -1;
}

static int too_long(parac_line_reader *reader, parac_error *error)
{
    parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number + 1,
                  "line is longer than the limit of %zu bytes", reader->max_line_length);
    return -1;
}

static int truncated_gzip(parac_line_reader *reader, const char *message, parac_error *error)
{
    parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number + 1, "gzip data is truncated (%s)",
                  message);
    return -1;
}

static int corrupt_gzip(parac_line_reader *reader, const char *message, parac_error *error)
{
    parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number + 1, "gzip data is corrupt (%s)", message);
    return -1;
}

/* End of a file or a read error: 0 (clean end), -1 (error, filled). */
static int file_end_or_error(parac_line_reader *reader, parac_error *error)
{
    int code;
    const char *message = gzerror((gzFile)reader->gz, &code);
    size_t path_length = strlen(reader->path);
    /* gzerror says "path: problem"; the report names the path already */
    if (strncmp(message, reader->path, path_length) == 0 && strncmp(message + path_length, ": ", 2) == 0)
        message += path_length + 2;
    /* zlib reports a gzip stream cut short as Z_BUF_ERROR at what looks like the
     * end of the file: that is a damaged input, not a shorter one. */
    if (code == Z_BUF_ERROR) return truncated_gzip(reader, message, error);
    if (code == Z_DATA_ERROR) return corrupt_gzip(reader, message, error);
    if (code != Z_OK) {
        parac_fail_at(error, PARAC_ERR_IO, reader->path, reader->line_number + 1, "read failed: %s", message);
        return -1;
    }
    return 0;
}

static int refill_from_file(parac_line_reader *reader, parac_error *error)
{
    int got = gzread((gzFile)reader->gz, reader->chunk_buffer, (unsigned)FILE_CHUNK_BYTES);
    if (got <= 0) return file_end_or_error(reader, error);
    reader->chunk = reader->chunk_buffer;
    reader->chunk_left = (size_t)got;
    return 1;
}

/* Hands the inflater more of the buffer when it has used what it had (avail_in is 32 bits). */
static void feed_inflater(parac_line_reader *reader, z_stream *inflater)
{
    size_t piece;
    if (inflater->avail_in || !reader->memory_left) return;
    piece = reader->memory_left < (size_t)1 << 30 ? reader->memory_left : (size_t)1 << 30;
    inflater->next_in = (Bytef *)(uintptr_t)reader->memory;
    inflater->avail_in = (uInt)piece;
    reader->memory += piece;
    reader->memory_left -= piece;
}

/* After a gzip member: another member follows (its magic), or the rest is ignored, as gzread does.
 * 1 when another member starts, 0 at the end. */
static int next_gzip_member(parac_line_reader *reader, z_stream *inflater)
{
    /* what the inflater holds unused lies just before reader->memory: take it back */
    reader->memory = inflater->next_in;
    reader->memory_left += inflater->avail_in;
    inflater->avail_in = 0;
    if (!starts_with_gzip_magic(reader->memory, reader->memory_left)) {
        reader->memory_left = 0;
        return 0;
    }
    inflateReset(inflater);
    reader->member_ended = 0;
    return 1;
}

static int refill_from_inflater(parac_line_reader *reader, parac_error *error)
{
    z_stream *inflater = reader->inflater;
    for (;;) {
        int code;
        size_t produced;
        if (reader->member_ended && !next_gzip_member(reader, inflater)) return 0;
        feed_inflater(reader, inflater);
        inflater->next_out = reader->chunk_buffer;
        inflater->avail_out = (uInt)INFLATE_CHUNK_BYTES;
        code = inflate(inflater, Z_NO_FLUSH);
        produced = INFLATE_CHUNK_BYTES - inflater->avail_out;
        if (code == Z_STREAM_END) {
            reader->member_ended = 1;
        } else if (code == Z_MEM_ERROR) {
            parac_fail_no_memory(error, "a gzip decoder", INFLATE_CHUNK_BYTES);
            return -1;
        } else if (code != Z_OK && code != Z_BUF_ERROR) {
            return corrupt_gzip(reader, inflater->msg ? inflater->msg : "inflate failed", error);
        } else if (!produced && !inflater->avail_in && !reader->memory_left) {
            return truncated_gzip(reader, "unexpected end of file", error);
        }
        if (produced) {
            reader->chunk = reader->chunk_buffer;
            reader->chunk_left = produced;
            return 1;
        }
    }
}

/* Fills reader->chunk: 1 with bytes, 0 at the end of the input, -1 on error (filled). */
static int refill(parac_line_reader *reader, parac_error *error)
{
    if (reader->gz) return refill_from_file(reader, error);
    if (reader->inflater) return refill_from_inflater(reader, error);
    if (!reader->memory_left) return 0;
    reader->chunk = reader->memory;
    reader->chunk_left = reader->memory_left;
    reader->memory_left = 0;
    return 1;
}

/* Room for `needed` bytes and the terminator. */
static int reserve(parac_line_reader *reader, size_t needed, parac_error *error)
{
    size_t capacity = reader->capacity;
    char *bigger;
    if (needed + 1 <= capacity) return 0;
    while (capacity < needed + 1) capacity *= 2;
    bigger = realloc(reader->buffer, capacity);
    if (!bigger) {
        parac_fail_no_memory(error, "a long line", capacity);
        return -1;
    }
    reader->buffer = bigger;
    reader->capacity = capacity;
    return 0;
}

int parac_line_reader_next(parac_line_reader *reader, parac_error *error)
{
    size_t length = 0;
    int any = 0;
    for (;;) {
        const unsigned char *start, *newline, *nul;
        size_t span, take;
        if (!reader->chunk_left) {
            int got = refill(reader, error);
            if (got < 0) return -1;
            if (got == 0) {
                if (!any) return 0;
                reader->ended_without_newline = 1;
                break;
            }
        }
        any = 1;
        start = reader->chunk;
        newline = memchr(start, '\n', reader->chunk_left);
        span = newline ? (size_t)(newline - start) : reader->chunk_left;
        nul = memchr(start, '\0', span);
        take = nul ? (size_t)(nul - start) : span;
        /* max_line_length bytes and one more for a '\r' */
        if (take > reader->max_line_length + 1 - length) return too_long(reader, error);
        if (reserve(reader, length + take, error) < 0) return -1;
        memcpy(reader->buffer + length, start, take);
        length += take;
        if (nul) return fail_line(reader, error, PARAC_ERR_PARSE, "line contains a NUL byte (a binary file?)");
        reader->chunk += span + (newline != NULL);
        reader->chunk_left -= span + (newline != NULL);
        if (newline) break;
    }
    if (length && reader->buffer[length - 1] == '\r') length--;
    if (length > reader->max_line_length) return too_long(reader, error);
    reader->buffer[length] = '\0';
    /* A UTF-8 byte-order mark (spreadsheet exports) is not part of the first field. */
    if (reader->line_number == 0 && length >= 3 && memcmp(reader->buffer, "\xEF\xBB\xBF", 3) == 0) {
        memmove(reader->buffer, reader->buffer + 3, length - 2);
        length -= 3;
    }
    reader->length = length;
    reader->line_number++;
    return 1;
}

void parac_line_reader_close(parac_line_reader *reader)
{
    if (reader->gz) gzclose((gzFile)reader->gz);
    if (reader->inflater) {
        inflateEnd(reader->inflater);
        free(reader->inflater);
    }
    free(reader->chunk_buffer);
    free(reader->buffer);
    memset(reader, 0, sizeof *reader);
}

int parac_path_has_extension(const char *path, const char *ext)
{
    size_t path_length = strlen(path), ext_length = strlen(ext);
    if (path_length > 3 && strcasecmp(path + path_length - 3, ".gz") == 0) path_length -= 3;
    return path_length >= ext_length && strncasecmp(path + path_length - ext_length, ext, ext_length) == 0;
}
