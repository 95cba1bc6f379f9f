/* core/csv.h — numeric CSV/TSV/whitespace tables, read in chunks of rows.
 *
 * Accepts an optional header row, '#' comments (whole lines or line ends),
 * blank lines, CRLF and a UTF-8 byte-order mark. The header is explicit
 * (PARAC_CSV_HEADER_PRESENT / _NONE) or, with _AUTO, taken only when EVERY
 * field of the first row is not a number: a first row mixing names and numbers
 * is data, and its bad field is an error naming line and column.
 * The delimiter is found on the first row: ',' if present, else tab, else runs
 * of spaces. Ragged rows, non-numbers and (unless allowed) NaN/inf are errors
 * naming file, line and column.
 */
#ifndef PARAC_CORE_CSV_H
#define PARAC_CORE_CSV_H

#include <stddef.h>

#include <parac/status.h>

#include "core/line_reader.h"

typedef enum parac_csv_header {
    PARAC_CSV_HEADER_AUTO = 0,
    PARAC_CSV_HEADER_NONE,
    PARAC_CSV_HEADER_PRESENT
} parac_csv_header;

typedef struct parac_csv_options {
    parac_csv_header header;
    int allow_nonfinite; /* accept nan, inf, -inf */
} parac_csv_options;

typedef struct parac_csv_reader {
    parac_line_reader lines;
    parac_csv_options options;
    char delimiter;        /* ',', '\t' or ' ' (any run of blanks) */
    size_t columns;        /* fixed by the first data row; 0 for an empty table */
    int has_header;
    double *pending;       /* the first data row, parsed while probing */
    int pending_valid;
    int at_end;
} parac_csv_reader;

/* What a table's first content line decides: the delimiter, whether that line is the header, and
 * the column count (the header's fields, or the first data row's). */
typedef struct parac_csv_shape {
    char delimiter;
    int has_header;
    size_t columns;
} parac_csv_shape;

/* Opens the file and reads up to its first data row to learn the shape. */
parac_status parac_csv_open(parac_csv_reader *reader, const char *path, const parac_csv_options *options,
                            parac_error *error);
/* The same over a file or a buffer (core/input.h). */
parac_status parac_csv_open_input(parac_csv_reader *reader, const parac_input *input, const parac_csv_options *options,
                                  parac_error *error);
/* Reads up to max_rows rows into dst (row-major, columns values each). */
parac_status parac_csv_read_rows(parac_csv_reader *reader, double *dst, size_t max_rows, size_t *rows_got,
                                 parac_error *error);
void parac_csv_close(parac_csv_reader *reader);

/* A table read in pieces (parac-mpi: each rank parses the lines of its byte range of one file) by
 * the same code as parac_csv_open, in three steps; parac_csv_open is these steps on one piece.
 * 1. parac_csv_open_piece: the piece's lines (core/line_reader.h, parac_line_reader_open_piece),
 *    numbered from first_line_number, read up to its first content line; reader->at_end when the
 *    piece has none (blank and comment lines only).
 * 2. parac_csv_piece_shape, on the piece that holds the table's first content line only: the shape
 *    that line gives, by parac_csv_open's rules (the caller hands it to the other pieces).
 * 3. parac_csv_piece_begin, on every piece with content: takes the table's shape; the piece holding
 *    the first content line (holds_first_line) steps over it when it is the header; then the
 *    piece's first data row is parsed (errors name its line). parac_csv_read_rows reads the rest. */
parac_status parac_csv_open_piece(parac_csv_reader *reader, const void *data, size_t size, const char *name,
                                  long first_line_number, const parac_csv_options *options, parac_error *error);
parac_status parac_csv_piece_shape(parac_csv_reader *reader, parac_csv_shape *shape, parac_error *error);
parac_status parac_csv_piece_begin(parac_csv_reader *reader, const parac_csv_shape *shape, int holds_first_line,
                                   parac_error *error);

#endif
