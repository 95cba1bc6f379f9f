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

#endif
