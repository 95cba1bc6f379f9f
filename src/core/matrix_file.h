/* core/matrix_file.h — numeric n×d tables from .npy or CSV/TSV, and label files.
 *
 * The format is chosen by extension (.npy; anything else is read as text),
 * values arrive as double, row-major. Points for dbscan, birch and metrics,
 * matrices for gemm all come through here. The stream form reads a file in
 * chunks of rows, for inputs larger than memory and for standard input.
 */
#ifndef PARAC_CORE_MATRIX_FILE_H
#define PARAC_CORE_MATRIX_FILE_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "core/csv.h"
#include "core/input.h"
#include "core/npy.h"

typedef struct parac_matrix {
    size_t rows;
    size_t cols;
    double *data; /* rows * cols, malloc'ed */
} parac_matrix;

typedef struct parac_matrix_stream {
    int is_npy;
    parac_npy_reader npy;
    parac_csv_reader csv;
    const char *path;
    size_t cols;
    size_t rows_total;     /* known for .npy; SIZE_MAX for text */
    size_t rows_read;
    int allow_nonfinite;
    void *scratch;         /* raw npy rows before conversion */
    size_t scratch_rows;
} parac_matrix_stream;

/* force_npy: 1 to read "-" or an oddly named file as .npy, 0 to decide by extension. */
parac_status parac_matrix_stream_open(parac_matrix_stream *stream, const char *path, int force_npy,
                                      int allow_nonfinite, parac_error *error);
/* The same over a file or a buffer (core/input.h; the format by the input's name). */
parac_status parac_matrix_stream_open_input(parac_matrix_stream *stream, const parac_input *input, int force_npy,
                                            int allow_nonfinite, parac_error *error);
/* Up to max_rows rows into dst (max_rows * cols doubles). *rows_got == 0 at the end. */
parac_status parac_matrix_stream_read(parac_matrix_stream *stream, double *dst, size_t max_rows, size_t *rows_got,
                                      parac_error *error);
void parac_matrix_stream_close(parac_matrix_stream *stream);

/* Whole file. A 1-D .npy array is read as n×1; an n×0 one (n > 0) is refused.
 * A .npy file goes through parac_npy_read (memory-mapped when it is a regular
 * file), converted straight into the table; text grows the table as rows
 * arrive. Empty files give rows = 0. */
parac_status parac_matrix_load(const char *path, int allow_nonfinite, parac_matrix *matrix, parac_error *error);
parac_status parac_matrix_load_input(const parac_input *input, int allow_nonfinite, parac_matrix *matrix,
                                     parac_error *error);
void parac_matrix_free(parac_matrix *matrix);

/* Writes .npy (float64) or CSV (%.17g) by extension. */
parac_status parac_matrix_save(const char *path, const double *data, size_t rows, size_t cols, parac_error *error);

/* Labels: .npy int32 or text, one per line. */
parac_status parac_labels_save(const char *path, const int32_t *labels, size_t count, parac_error *error);
/* Reads labels from .npy (int32/int64, or integral floats) or text (one integer
 * per line; '#' comments and blank lines allowed). A value that is not an
 * integer in int32's range, a bad number or a row of several values is
 * PARAC_ERR_PARSE naming the file and line (the row for .npy). */
parac_status parac_labels_load(const char *path, int32_t **labels, size_t *count, parac_error *error);
parac_status parac_labels_load_input(const parac_input *input, int32_t **labels, size_t *count, parac_error *error);

#endif
