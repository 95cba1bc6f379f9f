/* core/line_reader.c — zlib's gzread handles plain files too, so one path
 * serves both; a 256 KiB buffer keeps it at fread speed. */
#include "core/line_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "core/error.h"

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
    reader->max_line_length = PARAC_LINE_MAX;
    reader->capacity = 4096;
    reader->buffer = malloc(reader->capacity);
    if (!reader->buffer) {
        gzclose(gz);
        reader->gz = NULL;
        return parac_fail_no_memory(error, "a line buffer", reader->capacity);
    }
    reader->buffer[0] = '\0';
    return PARAC_OK;
}

static int grow(parac_line_reader *reader, parac_error *error)
{
    size_t capacity = reader->capacity * 2;
    char *bigger = realloc(reader->buffer, capacity);
    if (!bigger) {
        parac_fail_no_memory(error, "a long line", capacity);
        return -1;
    }
    reader->buffer = bigger;
    reader->capacity = capacity;
    return 0;
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

/* End of input or a read error: 0 (clean end), -1 (error, filled). */
static int end_or_error(parac_line_reader *reader, parac_error *error)
{
    int code;
    const char *message = gzerror((gzFile)reader->gz, &code);
    /* zlib reports a gzip stream cut short as Z_BUF_ERROR at what looks like the
     * end of the file: that is a damaged input, not a shorter one. */
    if (code == Z_BUF_ERROR) {
        parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number + 1, "gzip data is truncated (%s)",
                      message);
        return -1;
    }
    if (code != Z_OK) {
        parac_fail_at(error, PARAC_ERR_IO, reader->path, reader->line_number + 1, "read failed: %s", message);
        return -1;
    }
    return 0;
}

int parac_line_reader_next(parac_line_reader *reader, parac_error *error)
{
    size_t length = 0;
    int any = 0;
    for (;;) {
        int ch = gzgetc((gzFile)reader->gz);
        if (ch == -1) {
            if (end_or_error(reader, error) < 0) return -1;
            if (!any) return 0;
            reader->ended_without_newline = 1;
            break;
        }
        any = 1;
        if (ch == '\n') break;
        if (ch == '\0') return fail_line(reader, error, PARAC_ERR_PARSE, "line contains a NUL byte (a binary file?)");
        if (length > reader->max_line_length) return too_long(reader, error); /* one more for a '\r' */
        if (length + 2 > reader->capacity && grow(reader, error) < 0) return -1;
        reader->buffer[length++] = (char)ch;
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
    free(reader->buffer);
    memset(reader, 0, sizeof *reader);
}

int parac_path_has_extension(const char *path, const char *ext)
{
    size_t path_length = strlen(path), ext_length = strlen(ext);
    if (path_length > 3 && strcasecmp(path + path_length - 3, ".gz") == 0) path_length -= 3;
    return path_length >= ext_length && strncasecmp(path + path_length - ext_length, ext, ext_length) == 0;
}
