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

/* A table is a 1-D (n x 1) or 2-D array. Rows of no values are no points:
 * every consumer would loop over them for nothing. */
static parac_status npy_table_shape(const char *path, int ndim, const uint64_t *shape, size_t *rows, size_t *cols,
                                    parac_error *error)
{
    if (ndim > 2 || ndim == 0)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, path, 0, "expected a 1-D or 2-D array, found %d dimensions",
                             ndim);
    *rows = (size_t)shape[0];
    *cols = ndim == 2 ? (size_t)shape[1] : 1;
    if (*cols == 0 && *rows > 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "the array has %zu rows but no columns", *rows);
    return PARAC_OK;
}

static parac_status open_npy(parac_matrix_stream *stream, const parac_input *input, parac_error *error)
{
    const char *path = input->name;
    parac_status status = parac_npy_reader_open_input(&stream->npy, input, error);
    if (status != PARAC_OK) return status;
    status = npy_table_shape(path, stream->npy.ndim, stream->npy.shape, &stream->rows_total, &stream->cols, error);
    if (status != PARAC_OK) parac_npy_reader_close(&stream->npy);
    return status;
}

parac_status parac_matrix_stream_open(parac_matrix_stream *stream, const char *path, int force_npy,
                                      int allow_nonfinite, parac_error *error)
{
    parac_input input = parac_input_file(path);
    return parac_matrix_stream_open_input(stream, &input, force_npy, allow_nonfinite, error);
}

parac_status parac_matrix_stream_open_input(parac_matrix_stream *stream, const parac_input *input, int force_npy,
                                            int allow_nonfinite, parac_error *error)
{
    const char *path = input->name;
    memset(stream, 0, sizeof *stream);
    stream->path = path;
    stream->allow_nonfinite = allow_nonfinite;
    stream->is_npy = force_npy || parac_path_has_extension(path, ".npy");
    if (stream->is_npy) return open_npy(stream, input, error);
    {
        parac_csv_options options = {PARAC_CSV_HEADER_AUTO, allow_nonfinite};
        parac_status status = parac_csv_open_input(&stream->csv, input, &options, error);
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

/* rows x cols values, the first being row first_row (0-based) of the file. */
static parac_status check_finite(const char *path, const double *values, size_t rows, size_t cols, size_t first_row,
                                 parac_error *error)
{
    size_t i = parac_first_non_finite(values, rows * cols, 1);
    if (i < rows * cols)
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "row %zu, column %zu: non-finite value",
                             first_row + i / cols + 1, i % cols + 1);
    return PARAC_OK;
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
        size_t left = stream->rows_total - stream->rows_read, bytes;
        if (max_rows > left) max_rows = left; /* the caller's chunk may be far larger than the file */
        if (stream->scratch_rows < max_rows) {
            free(stream->scratch);
            stream->scratch = NULL;
            stream->scratch_rows = 0;
            if (__builtin_mul_overflow(max_rows, stream->cols * elem, &bytes) || bytes > SIZE_MAX - 1)
                return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, stream->path, 0, "a chunk of %zu rows is too large",
                                     max_rows);
            stream->scratch = malloc(bytes + 1);
            if (!stream->scratch) return parac_fail_no_memory(error, "an npy chunk", bytes);
            stream->scratch_rows = max_rows;
        }
        status = parac_npy_reader_read_rows(&stream->npy, stream->scratch, max_rows, &got, error);
        for (size_t i = 0; status == PARAC_OK && i < got * stream->cols; i++)
            dst[i] = value_at(stream->scratch, stream->npy.dtype, i);
    }
    if (status != PARAC_OK) return status;
    if (!stream->allow_nonfinite) {
        status = check_finite(stream->path, dst, got, stream->cols, stream->rows_read, error);
        if (status != PARAC_OK) return status;
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

/* rows * cols doubles (at least one), or 0 when that overflows size_t. No rows
 * take no room whatever the width: a (0, 2^40) .npy header is cheap to write. */
static size_t table_bytes(size_t rows, size_t cols)
{
    size_t values, bytes;
    if (__builtin_mul_overflow(rows, cols, &values) || __builtin_mul_overflow(values ? values : 1, sizeof(double), &bytes))
        return 0;
    return bytes;
}

/* Grows matrix->data to hold `capacity` rows. */
static parac_status reserve_rows(parac_matrix *matrix, size_t capacity, const char *path, parac_error *error)
{
    size_t bytes = table_bytes(capacity, matrix->cols);
    double *bigger;
    if (!bytes) return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "the table is too large (%zu rows of %zu values)",
                                     capacity, matrix->cols);
    bigger = realloc(matrix->data, bytes);
    if (!bigger) return parac_fail_no_memory(error, path, bytes);
    matrix->data = bigger;
    return PARAC_OK;
}

/* A whole .npy file through parac_npy_read, which maps a regular file: the
 * values are converted straight from the page cache into the table, with no
 * second copy of the file's data in memory (issue 16). */
static parac_status load_npy(const parac_input *input, int allow_nonfinite, parac_matrix *matrix, parac_error *error)
{
    const char *path = input->name;
    parac_npy_array array;
    size_t bytes;
    parac_status status = parac_npy_read_input(input, &array, error);
    if (status != PARAC_OK) return status;
    status = npy_table_shape(path, array.ndim, array.shape, &matrix->rows, &matrix->cols, error);
    bytes = table_bytes(matrix->rows, matrix->cols); /* within the file's size: checked by the reader */
    if (status == PARAC_OK && !(matrix->data = malloc(bytes)))
        status = parac_fail_no_memory(error, path, bytes);
    if (status == PARAC_OK && array.dtype == PARAC_DTYPE_F64)
        memcpy(matrix->data, array.data, (size_t)array.count * sizeof(double));
    else if (status == PARAC_OK)
        for (size_t i = 0; i < (size_t)array.count; i++) matrix->data[i] = value_at(array.data, array.dtype, i);
    if (status == PARAC_OK && !allow_nonfinite)
        status = check_finite(path, matrix->data, matrix->rows, matrix->cols, 0, error);
    parac_npy_array_free(&array);
    if (status != PARAC_OK) parac_matrix_free(matrix);
    return status;
}

parac_status parac_matrix_load(const char *path, int allow_nonfinite, parac_matrix *matrix, parac_error *error)
{
    parac_input input = parac_input_file(path);
    return parac_matrix_load_input(&input, allow_nonfinite, matrix, error);
}

parac_status parac_matrix_load_input(const parac_input *input, int allow_nonfinite, parac_matrix *matrix,
                                     parac_error *error)
{
    const char *path = input->name;
    parac_matrix_stream stream;
    parac_status status;
    size_t capacity, got;
    memset(matrix, 0, sizeof *matrix);
    if (parac_path_has_extension(path, ".npy")) return load_npy(input, allow_nonfinite, matrix, error);
    /* Text: the buffer grows with the rows that really arrive. */
    status = parac_matrix_stream_open_input(&stream, input, 0, allow_nonfinite, error);
    if (status != PARAC_OK) return status;
    matrix->cols = stream.cols;
    /* 1024 rows, or 1 MiB of rows when they are wide (a 64 MiB line has 32 M values). */
    capacity = stream.cols > 128 ? ((size_t)1 << 20) / (stream.cols * sizeof(double)) : 1024;
    if (capacity == 0) capacity = 1;
    status = reserve_rows(matrix, capacity, path, error);
    while (status == PARAC_OK) {
        if (matrix->rows == capacity) {
            status = reserve_rows(matrix, capacity * 2, path, error);
            if (status != PARAC_OK) break;
            capacity *= 2;
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

/* A label is an integer in int32's range, written as such or as an integral
 * float ("3.0", numpy's float arrays). */
static int to_label(double value, int32_t *label)
{
    if (!(value == floor(value) && value >= -2147483648.0 && value <= 2147483647.0)) return 0;
    *label = (int32_t)value;
    return 1;
}

static parac_status labels_from_npy(const parac_input *input, int32_t **labels, size_t *count, parac_error *error)
{
    const char *path = input->name;
    parac_matrix matrix;
    parac_status status = parac_matrix_load_input(input, 0, &matrix, error);
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
    for (size_t i = 0; i < matrix.rows && status == PARAC_OK; i++)
        if (!to_label(matrix.data[i], &(*labels)[i]))
            status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "row %zu: label %.17g is not a 32-bit integer", i + 1,
                                   matrix.data[i]);
    *count = matrix.rows;
    parac_matrix_free(&matrix);
    return status;
}

/* Text: one label per line, read one at a time so that an error names its line
 * (comments and blank lines make rows and lines differ). */
static parac_status labels_from_text(const parac_input *input, int32_t **labels, size_t *count, parac_error *error)
{
    const char *path = input->name;
    parac_csv_reader csv;
    parac_csv_options options = {PARAC_CSV_HEADER_AUTO, 0};
    size_t capacity = 0, got;
    parac_status status = parac_csv_open_input(&csv, input, &options, error);
    if (status == PARAC_OK && csv.columns > 1)
        status = parac_fail_at(error, PARAC_ERR_PARSE, path, csv.lines.line_number,
                               "expected one label per row, found %zu columns", csv.columns);
    while (status == PARAC_OK) {
        double value;
        status = parac_csv_read_rows(&csv, &value, 1, &got, error);
        if (status != PARAC_OK || got == 0) break;
        if (*count == capacity) {
            size_t bigger = capacity ? capacity * 2 : 1024;
            int32_t *grown = realloc(*labels, bigger * sizeof *grown);
            if (!grown) {
                status = parac_fail_no_memory(error, "labels", bigger * sizeof *grown);
                break;
            }
            *labels = grown;
            capacity = bigger;
        }
        if (!to_label(value, &(*labels)[*count]))
            status = parac_fail_at(error, PARAC_ERR_PARSE, path, csv.lines.line_number,
                                   "label %.17g is not a 32-bit integer", value);
        else
            (*count)++;
    }
    parac_csv_close(&csv);
    if (status == PARAC_OK && !*labels) {
        *labels = malloc(sizeof **labels);
        if (!*labels) status = parac_fail_no_memory(error, "labels", sizeof **labels);
    }
    return status;
}

parac_status parac_labels_load(const char *path, int32_t **labels, size_t *count, parac_error *error)
{
    parac_input input = parac_input_file(path);
    return parac_labels_load_input(&input, labels, count, error);
}

parac_status parac_labels_load_input(const parac_input *input, int32_t **labels, size_t *count, parac_error *error)
{
    const char *path = input->name;
    parac_status status;
    *labels = NULL;
    *count = 0;
    status = parac_path_has_extension(path, ".npy") ? labels_from_npy(input, labels, count, error)
                                                   : labels_from_text(input, labels, count, error);
    if (status != PARAC_OK) {
        free(*labels);
        *labels = NULL;
        *count = 0;
    }
    return status;
}
