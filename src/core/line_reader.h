/* core/line_reader.h — buffered line-by-line reading with line numbers.
 *
 * Reads plain or gzip-compressed files transparently ("-" is standard input),
 * or the same from a buffer in memory (parac_line_reader_open_memory: bytes
 * that start with the gzip magic are inflated in memory by zlib, member after
 * member as gzread does, trailing non-gzip bytes ignored as gzread does), with
 * the same line numbers, limits and errors either way.
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

#include "core/input.h"

#define PARAC_LINE_MAX ((size_t)64 << 20)

typedef struct parac_line_reader {
    void *gz;            /* gzFile, when reading a file */
    void *inflater;      /* z_stream, when reading gzip bytes from memory */
    int member_ended;    /* the inflater reached the end of a gzip member */
    const unsigned char *memory; /* memory input not yet handed to the line splitter or the inflater */
    size_t memory_left;
    unsigned char *chunk_buffer; /* what gzread or inflate produced (NULL for plain memory) */
    const unsigned char *chunk;  /* bytes not yet split into lines */
    size_t chunk_left;
    const char *path;    /* as given (or the memory input's name), for messages */
    long line_number;    /* of the line last returned; 0 before the first */
    char *buffer;        /* the current line, NUL-terminated */
    size_t length;       /* its length without the terminator */
    size_t capacity;
    int ended_without_newline; /* the last line had no final newline */
    size_t max_line_length;    /* PARAC_LINE_MAX after open; tests may lower it */
} parac_line_reader;

parac_status parac_line_reader_open(parac_line_reader *reader, const char *path, parac_error *error);
/* Lines of size bytes at data (kept alive by the caller until close); name is used in messages. */
parac_status parac_line_reader_open_memory(parac_line_reader *reader, const void *data, size_t size, const char *name,
                                           parac_error *error);
/* One piece of a plain-text file already in memory (a parac-mpi rank's byte range of a file,
 * cut at line starts): its lines are numbered from first_line_number, as in the whole file; the
 * bytes are never inflated (gzip is recognised at a file's start only) and a byte-order mark is
 * skipped only when the piece starts the file (first_line_number 1). */
parac_status parac_line_reader_open_piece(parac_line_reader *reader, const void *data, size_t size, const char *name,
                                          long first_line_number, parac_error *error);
/* A file or a buffer, as input says. */
parac_status parac_line_reader_open_input(parac_line_reader *reader, const parac_input *input, parac_error *error);

/* 1 and the next line in reader->buffer; 0 at end of file; -1 on error (filled). */
int parac_line_reader_next(parac_line_reader *reader, parac_error *error);

void parac_line_reader_close(parac_line_reader *reader);

/* 1 when the path's extension is `ext` (".dat", ...), also under a trailing ".gz". */
int parac_path_has_extension(const char *path, const char *ext);

#endif
