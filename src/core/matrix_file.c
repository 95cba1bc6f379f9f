/* core/matrix_file.c — one reader for .npy and text tables. */
#include "core/matrix_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/finite.h"
#include "core/line_reader.h"

static parac_status open_npy(parac_matrix_stream *stream, const char *path, parac_error *error)
{
    parac_status status = parac_npy_reader_open(&stream->npy, path, error);
    if (status != PARAC_OK) return status;
    if (stream->npy.ndim > 2 || stream->npy.ndim == 0) {
        parac_npy_reader_close(&stream->npy);
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, path, 0, "expected a 1-D or 2-D array, found %d dimensions",
                             stream->npy.ndim);
    }
    stream->cols = stream->npy.ndim == 2 ? (size_t)stream->npy.shape[1] : 1;
    stream->rows_total = (size_t)stream->npy.row_count;
    return PARAC_OK;
}

parac_status parac_matrix_stream_open(parac_matrix_stream *stream, const char *path, int force_npy,
                                      int allow_nonfinite, parac_error *error)
{
    memset(stream, 0, sizeof *stream);
    stream->path = path;
    stream->allow_nonfinite = allow_nonfinite;
    stream->is_npy = force_npy || parac_path_has_extension(path, ".npy");
    if (stream->is_npy) return open_npy(stream, path, error);
    {
        parac_csv_options options = {PARAC_CSV_HEADER_AUTO, allow_nonfinite};
        parac_status status = parac_csv_open(&stream->csv, path, &options, error);
        if (status != PARAC_OK) {
            parac_csv_close(&stream->csv);
            return status;
        }
        stream->cols = stream->csv.columns;
        stream->rows_total = SIZE_MAX;
    }
    return PARAC_OK;
}

static double value_at(const void *raw, parac_dtype dtype, size_t index)
{
    switch (dtype) {
    case PARAC_DTYPE_F32: return ((const float *)raw)[index];
    case PARAC_DTYPE_F64: return ((const double *)raw)[index];
    case PARAC_DTYPE_I32: return ((const int32_t *)raw)[index];
    case PARAC_DTYPE_I64: return (double)((const int64_t *)raw)[index];
    }
    return 0.0;
}

static parac_status read_npy_rows(parac_matrix_stream *stream, double *dst, size_t max_rows, size_t *rows_got,
                                  parac_error *error)
{
    size_t elem = parac_dtype_size(stream->npy.dtype);
    uint64_t got;
    parac_status status;
    if (stream->npy.dtype == PARAC_DTYPE_F64) {
        status = parac_npy_reader_read_rows(&stream->npy, dst, max_rows, &got, error);
    } else {
        if (stream->scratch_rows < max_rows) {
            free(stream->scratch);
            stream->scratch = malloc(max_rows * stream->cols * elem + 1);
            if (!stream->scratch) return parac_fail_no_memory(error, "an npy chunk", max_rows * stream->cols * elem);
            stream->scratch_rows = max_rows;
        }
        status = parac_npy_reader_read_rows(&stream->npy, stream->scratch, max_rows, &got, error);
        for (size_t i = 0; status == PARAC_OK && i < got * stream->cols; i++)
            dst[i] = value_at(stream->scratch, stream->npy.dtype, i);
    }
    if (status != PARAC_OK) return status;
    if (!stream->allow_nonfinite) {
        size_t i = parac_first_non_finite(dst, got * stream->cols, 1);
        if (i < got * stream->cols)
            return parac_fail_at(error, PARAC_ERR_PARSE, stream->path, 0, "row %zu, column %zu: non-finite value",
                                 stream->rows_read + i / stream->cols + 1, i % stream->cols + 1);
    }
    *rows_got = (size_t)got;
    return PARAC_OK;
}

parac_status parac_matrix_stream_read(parac_matrix_stream *stream, double *dst, size_t max_rows, size_t *rows_got,
                                      parac_error *error)
{
    parac_status status;
    *rows_got = 0;
    if (stream->is_npy) status = read_npy_rows(stream, dst, max_rows, rows_got, error);
    else status = parac_csv_read_rows(&stream->csv, dst, max_rows, rows_got, error);
    stream->rows_read += *rows_got;
    return status;
}

void parac_matrix_stream_close(parac_matrix_stream *stream)
{
    if (stream->is_npy) parac_npy_reader_close(&stream->npy);
    else parac_csv_close(&stream->csv);
    free(stream->scratch);
    stream->scratch = NULL;
}

parac_status parac_matrix_load(const char *path, int allow_nonfinite, parac_matrix *matrix, parac_error *error)
{
    parac_matrix_stream stream;
    parac_status status = parac_matrix_stream_open(&stream, path, 0, allow_nonfinite, error);
    size_t capacity, got;
    memset(matrix, 0, sizeof *matrix);
    if (status != PARAC_OK) return status;
    matrix->cols = stream.cols;
    capacity = stream.rows_total != SIZE_MAX ? stream.rows_total : 1024;
    matrix->data = malloc((capacity ? capacity : 1) * (matrix->cols ? matrix->cols : 1) * sizeof(double));
    if (!matrix->data) {
        parac_matrix_stream_close(&stream);
        return parac_fail_no_memory(error, path, capacity * matrix->cols * sizeof(double));
    }
    for (;;) {
        if (matrix->rows == capacity) {
            double *bigger;
            size_t bytes;
            /* A .npy header gave the exact row count: everything is read. (Growing a
             * 0-row buffer would also ask realloc for 0 bytes, which frees it.) */
            if (stream.rows_total != SIZE_MAX) break;
            capacity *= 2;
            bytes = capacity * (matrix->cols ? matrix->cols : 1) * sizeof(double);
            bigger = realloc(matrix->data, bytes);
            if (!bigger) {
                status = parac_fail_no_memory(error, path, bytes);
                break;
            }
            matrix->data = bigger;
        }
        status = parac_matrix_stream_read(&stream, matrix->data + matrix->rows * matrix->cols,
                                          capacity - matrix->rows, &got, error);
        if (status != PARAC_OK || got == 0) break;
        matrix->rows += got;
    }
    parac_matrix_stream_close(&stream);
    if (status != PARAC_OK) parac_matrix_free(matrix);
    return status;
}

void parac_matrix_free(parac_matrix *matrix)
{
    free(matrix->data);
    matrix->data = NULL;
    matrix->rows = matrix->cols = 0;
}

static FILE *open_text_output(const char *path, parac_error *error)
{
    FILE *file = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!file) parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot create: %s", strerror(errno));
    return file;
}

static parac_status close_text_output(FILE *file, const char *path, parac_error *error)
{
    int failed = ferror(file);
    if (file == stdout) failed |= fflush(file) != 0;
    else failed |= fclose(file) != 0;
    return failed ? parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed") : PARAC_OK;
}

parac_status parac_matrix_save(const char *path, const double *data, size_t rows, size_t cols, parac_error *error)
{
    FILE *file;
    if (parac_path_has_extension(path, ".npy")) {
        uint64_t shape[2] = {rows, cols};
        return parac_npy_write(path, PARAC_DTYPE_F64, 2, shape, data, error);
    }
    file = open_text_output(path, error);
    if (!file) return PARAC_ERR_IO;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            fprintf(file, "%.17g%c", data[r * cols + c], c + 1 == cols ? '\n' : ',');
    return close_text_output(file, path, error);
}

parac_status parac_labels_save(const char *path, const int32_t *labels, size_t count, parac_error *error)
{
    FILE *file;
    if (parac_path_has_extension(path, ".npy")) {
        uint64_t shape[1] = {count};
        return parac_npy_write(path, PARAC_DTYPE_I32, 1, shape, labels, error);
    }
    file = open_text_output(path, error);
    if (!file) return PARAC_ERR_IO;
    for (size_t i = 0; i < count; i++) fprintf(file, "%d\n", labels[i]);
    return close_text_output(file, path, error);
}

parac_status parac_labels_load(const char *path, int32_t **labels, size_t *count, parac_error *error)
{
    parac_matrix matrix;
    parac_status status = parac_matrix_load(path, 0, &matrix, error);
    *labels = NULL;
    *count = 0;
    if (status != PARAC_OK) return status;
    if (matrix.cols != 1 && matrix.rows) {
        size_t cols = matrix.cols; /* parac_matrix_free zeroes it */
        parac_matrix_free(&matrix);
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "expected one label per row, found %zu columns", cols);
    }
    *labels = malloc((matrix.rows ? matrix.rows : 1) * sizeof **labels);
    if (!*labels) {
        parac_matrix_free(&matrix);
        return parac_fail_no_memory(error, "labels", matrix.rows * sizeof(int32_t));
    }
    for (size_t i = 0; i < matrix.rows; i++) {
        double value = matrix.data[i];
        if (value != floor(value) || value < -2147483648.0 || value > 2147483647.0) {
            free(*labels);
            *labels = NULL;
            parac_matrix_free(&matrix);
            return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "row %zu: label %.17g is not a 32-bit integer", i + 1, value);
        }
        (*labels)[i] = (int32_t)value;
    }
    *count = matrix.rows;
    parac_matrix_free(&matrix);
    return PARAC_OK;
}
