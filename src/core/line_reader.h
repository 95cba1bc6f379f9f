/* core/line_reader.h — buffered line-by-line reading with line numbers.
 *
 * Reads plain or gzip-compressed files transparently ("-" is standard input).
 * The trailing "\n" or "\r\n" is removed, and a UTF-8 byte-order mark at the
 * start of the file is skipped. Readers of text formats use line_number and
 * path to build "file:line: problem" errors.
 *
 * Limits (PARAC_ERR_PARSE naming the file and line): a line is at most
 * PARAC_LINE_MAX bytes (64 MiB; a small .gz that expands to one endless line
 * cannot take unbounded memory), and a line may not contain a NUL byte (a
 * binary file given as text).
 */
#ifndef PARAC_CORE_LINE_READER_H
#define PARAC_CORE_LINE_READER_H

#include <stddef.h>

#include <parac/status.h>

#define PARAC_LINE_MAX ((size_t)64 << 20)

typedef struct parac_line_reader {
    void *gz;            /* gzFile */
    const char *path;    /* as given, for messages */
    long line_number;    /* of the line last returned; 0 before the first */
    char *buffer;        /* the current line, NUL-terminated */
    size_t length;       /* its length without the terminator */
    size_t capacity;
    int ended_without_newline; /* the last line had no final newline */
    size_t max_line_length;    /* PARAC_LINE_MAX after open; tests may lower it */
} parac_line_reader;

parac_status parac_line_reader_open(parac_line_reader *reader, const char *path, parac_error *error);

/* 1 and the next line in reader->buffer; 0 at end of file; -1 on error (filled). */
int parac_line_reader_next(parac_line_reader *reader, parac_error *error);

void parac_line_reader_close(parac_line_reader *reader);

/* 1 when the path's extension is `ext` (".dat", ...), also under a trailing ".gz". */
int parac_path_has_extension(const char *path, const char *ext);

#endif
