/* gemm/io_mtx.c — dense matrices from and to .npy and Matrix Market files.
 *
 * Matrix Market "array" files are column-major on disk and are kept so (the
 * plan takes column-major operands as they are); "coordinate" files are
 * expanded into a row-major dense matrix, duplicates summed, symmetric and
 * skew-symmetric halves mirrored. Every value must be finite. Every size
 * taken from the file is checked (square when symmetric, rows x cols within
 * PARAC_GEMM_MAX_FILE_VALUES or the caller's lower limit, entries within
 * rows x cols) before it sizes an allocation.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/line_reader.h"
#include "core/memory_limit.h"
#include "core/npy.h"
#include "gemm/io_mtx.h"
#include <parac/gemm.h>

typedef enum mtx_symmetry { MTX_GENERAL, MTX_SYMMETRIC, MTX_SKEW } mtx_symmetry;

typedef struct mtx_header {
    int coordinate; /* else array */
    int pattern;
    mtx_symmetry symmetry;
} mtx_header;

static parac_status parse_banner(parac_line_reader *reader, mtx_header *h, parac_error *error)
{
    char object[32], format[32], field[32], symmetry[32];
    if (sscanf(reader->buffer, "%%%%MatrixMarket %31s %31s %31s %31s", object, format, field, symmetry) != 4 ||
        strcasecmp(object, "matrix") != 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "not a Matrix Market header (expected '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY')");
    h->coordinate = strcasecmp(format, "coordinate") == 0;
    if (!h->coordinate && strcasecmp(format, "array") != 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number, "unknown format '%s'", format);
    h->pattern = strcasecmp(field, "pattern") == 0;
    if (strcasecmp(field, "real") != 0 && strcasecmp(field, "integer") != 0 && strcasecmp(field, "double") != 0 &&
        !(h->pattern && h->coordinate))
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, reader->path, reader->line_number,
                             "field '%s' is not supported (real, integer, pattern)", field);
    if (strcasecmp(symmetry, "general") == 0) h->symmetry = MTX_GENERAL;
    else if (strcasecmp(symmetry, "symmetric") == 0) h->symmetry = MTX_SYMMETRIC;
    else if (strcasecmp(symmetry, "skew-symmetric") == 0) h->symmetry = MTX_SKEW;
    else if (strcasecmp(symmetry, "hermitian") == 0)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, reader->path, reader->line_number,
                             "symmetry 'hermitian' needs complex values, which are not supported");
    else
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, reader->path, reader->line_number,
                             "symmetry '%s' is not supported", symmetry);
    return PARAC_OK;
}

/* Next line that is neither a comment nor blank: 1, 0 at end, -1 on error. */
static int next_data_line(parac_line_reader *reader, parac_error *error)
{
    int got;
    while ((got = parac_line_reader_next(reader, error)) == 1) {
        const char *p = reader->buffer;
        while (*p == ' ' || *p == '\t') p++;
        if (*p != '%' && *p != '\0') return 1;
    }
    return got;
}

static parac_status parse_value(parac_line_reader *reader, const char *text, float *value, parac_error *error)
{
    char *end;
    double v = strtod(text, &end);
    while (*end == ' ' || *end == '\t') end++;
    if (end == text || *end != '\0')
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number, "expected a number, got '%s'", text);
    if (!isfinite(v) || !isfinite((float)v))
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number, "non-finite value '%s'", text);
    *value = (float)v;
    return PARAC_OK;
}

/* Whole-token integer at *text (advanced past it): 1, or 0 when there is none or it overflows. */
static int parse_index(const char **text, long long *value)
{
    char *end;
    errno = 0;
    *value = strtoll(*text, &end, 10);
    if (end == *text || errno || (*end && *end != ' ' && *end != '\t')) return 0;
    *text = end;
    return 1;
}

static int only_blanks(const char *text) { return text[strspn(text, " \t")] == '\0'; }

static parac_status read_coordinate_entry(parac_line_reader *reader, const mtx_header *h, parac_gemm_matrix *m,
                                          parac_error *error)
{
    long long r, c;
    const char *cursor = reader->buffer;
    float v = 1.0f;
    parac_status status;
    if (!parse_index(&cursor, &r) || !parse_index(&cursor, &c) || (h->pattern && !only_blanks(cursor)))
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             h->pattern ? "expected 'ROW COL'" : "expected 'ROW COL VALUE'");
    if (r < 1 || r > m->rows || c < 1 || c > m->cols)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "entry (%lld, %lld) is outside the %lld x %lld matrix", r, c, (long long)m->rows,
                             (long long)m->cols);
    /* Symmetric files hold the lower triangle; an upper entry would be counted twice. */
    if (h->symmetry != MTX_GENERAL && r < c)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "entry (%lld, %lld) is above the diagonal of a %s matrix (only the lower triangle is stored)",
                             r, c, h->symmetry == MTX_SKEW ? "skew-symmetric" : "symmetric");
    if (h->symmetry == MTX_SKEW && r == c)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "entry (%lld, %lld) is on the diagonal of a skew-symmetric matrix", r, c);
    if (!h->pattern && (status = parse_value(reader, cursor, &v, error)) != PARAC_OK) return status;
    m->values[(r - 1) * m->cols + (c - 1)] += v;
    if (h->symmetry != MTX_GENERAL && r != c)
        m->values[(c - 1) * m->cols + (r - 1)] += h->symmetry == MTX_SKEW ? -v : v;
    return PARAC_OK;
}

/* "ROWS COLS" (array) or "ROWS COLS ENTRIES" (coordinate), nothing else. */
static parac_status parse_size_line(parac_line_reader *reader, const mtx_header *h, long long *rows, long long *cols,
                                    long long *entries, parac_error *error)
{
    const char *cursor = reader->buffer + strspn(reader->buffer, " \t");
    *entries = 0;
    if (!parse_index(&cursor, rows) || !parse_index(&cursor, cols) || (h->coordinate && !parse_index(&cursor, entries)) ||
        !only_blanks(cursor) || *rows < 1 || *cols < 1 || *entries < 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             h->coordinate ? "bad size line: expected 'ROWS COLS ENTRIES' (positive integers)"
                                           : "bad size line: expected 'ROWS COLS' (positive integers)");
    return PARAC_OK;
}

/* Checks the sizes against each other and the limits. */
static parac_status check_sizes(parac_line_reader *reader, const mtx_header *h, long long rows, long long cols,
                                long long entries, uint64_t max_values, parac_error *error)
{
    uint64_t values;
    char what[96];
    if (h->symmetry != MTX_GENERAL && rows != cols)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "a %s matrix must be square, the size line says %lld x %lld",
                             h->symmetry == MTX_SKEW ? "skew-symmetric" : "symmetric", rows, cols);
    if (__builtin_mul_overflow((uint64_t)rows, (uint64_t)cols, &values) || values > max_values)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "a %lld x %lld matrix is above the limit of %llu values", rows, cols,
                             (unsigned long long)max_values);
    if ((uint64_t)entries > values)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "%lld entries do not fit in a %lld x %lld matrix", entries, rows, cols);
    /* A coordinate file of a few lines may declare a matrix of gigabytes; it is held dense (fp32). */
    snprintf(what, sizeof what, "a dense %lld x %lld matrix", rows, cols);
    return parac_require_host_bytes(error, reader->path, reader->line_number, values * sizeof(float), what);
}

/* Next value line of an array file, or a "file ends" error. */
static parac_status next_array_value(parac_line_reader *reader, long long done, long long expected, float *value,
                                     parac_error *error)
{
    int got = next_data_line(reader, error);
    if (got < 0) return error->status;
    if (got == 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "file ends after %lld of %lld values", done, expected);
    return parse_value(reader, reader->buffer, value, error);
}

/* Array files list columns top to bottom; symmetric ones only the lower
 * triangle of each column (skew: strictly lower), mirrored here. */
static parac_status read_array_values(parac_line_reader *reader, const mtx_header *h, parac_gemm_matrix *m,
                                      parac_error *error)
{
    long long n = m->rows, expected, done = 0;
    parac_status status = PARAC_OK;
    if (h->symmetry == MTX_GENERAL) {
        expected = m->rows * m->cols;
        for (long long e = 0; e < expected && status == PARAC_OK; e++)
            status = next_array_value(reader, e, expected, &m->values[e], error);
        return status;
    }
    expected = h->symmetry == MTX_SKEW ? n * (n - 1) / 2 : n * (n + 1) / 2;
    for (long long c = 0; c < n && status == PARAC_OK; c++)
        for (long long r = h->symmetry == MTX_SKEW ? c + 1 : c; r < n && status == PARAC_OK; r++) {
            float v;
            status = next_array_value(reader, done++, expected, &v, error);
            m->values[c * n + r] = v; /* column-major */
            m->values[r * n + c] = h->symmetry == MTX_SKEW ? -v : v;
        }
    return status;
}

/* After the last entry only comments and blank lines may follow. */
static parac_status expect_end(parac_line_reader *reader, parac_error *error)
{
    int got = next_data_line(reader, error);
    if (got < 0) return error->status;
    if (got > 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "more entries than the size line announced");
    return PARAC_OK;
}

static parac_status read_mtx_body(parac_line_reader *reader, const mtx_header *h, uint64_t max_values,
                                  parac_gemm_matrix *m, parac_error *error)
{
    long long rows = 0, cols = 0, entries = 0;
    int got = next_data_line(reader, error);
    parac_status status;
    if (got < 0) return error->status;
    if (got == 0) return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number + 1, "no size line");
    if ((status = parse_size_line(reader, h, &rows, &cols, &entries, error)) != PARAC_OK) return status;
    if ((status = check_sizes(reader, h, rows, cols, entries, max_values, error)) != PARAC_OK) return status;
    m->rows = rows;
    m->cols = cols;
    m->layout = h->coordinate ? PARAC_GEMM_ROW_MAJOR : PARAC_GEMM_COL_MAJOR;
    if (!(m->values = calloc((size_t)rows * (size_t)cols, sizeof(float))))
        return parac_fail_no_memory(error, "matrix", (unsigned long long)rows * (unsigned long long)cols * 4);
    if (!h->coordinate) {
        status = read_array_values(reader, h, m, error);
    } else {
        for (long long e = 0; e < entries && status == PARAC_OK; e++) {
            if ((got = next_data_line(reader, error)) != 1)
                return got < 0 ? error->status
                               : parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                               "file ends after %lld of %lld entries", e, entries);
            status = read_coordinate_entry(reader, h, m, error);
        }
    }
    return status == PARAC_OK ? expect_end(reader, error) : status;
}

static parac_status read_mtx(const parac_input *input, uint64_t max_values, parac_gemm_matrix *m, parac_error *error)
{
    const char *path = input->name;
    parac_line_reader reader;
    mtx_header header = {0, 0, MTX_GENERAL};
    parac_status status = parac_line_reader_open_input(&reader, input, error);
    int got;
    if (status != PARAC_OK) return status;
    got = parac_line_reader_next(&reader, error);
    if (got < 0) status = error->status;
    else if (got == 0) status = parac_fail_at(error, PARAC_ERR_PARSE, path, 1, "empty file");
    else status = parse_banner(&reader, &header, error);
    if (status == PARAC_OK) status = read_mtx_body(&reader, &header, max_values, m, error);
    parac_line_reader_close(&reader);
    return status;
}

static parac_status read_npy(const parac_input *input, parac_gemm_matrix *m, parac_error *error)
{
    const char *path = input->name;
    parac_npy_array array;
    parac_status status = parac_npy_read_input(input, &array, error);
    if (status != PARAC_OK) return status;
    if (array.ndim != 2 || array.shape[0] < 1 || array.shape[1] < 1) {
        parac_npy_array_free(&array);
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "expected a non-empty 2-D array, got %d dimensions",
                             array.ndim);
    }
    m->rows = (int64_t)array.shape[0];
    m->cols = (int64_t)array.shape[1];
    m->layout = PARAC_GEMM_ROW_MAJOR;
    m->values = malloc(array.count * sizeof(float));
    if (!m->values) status = parac_fail_no_memory(error, "matrix", array.count * 4);
    for (uint64_t i = 0; status == PARAC_OK && i < array.count; i++) {
        double v = array.dtype == PARAC_DTYPE_F32 ? ((const float *)array.data)[i]
                 : array.dtype == PARAC_DTYPE_F64 ? ((const double *)array.data)[i]
                 : array.dtype == PARAC_DTYPE_I32 ? ((const int32_t *)array.data)[i]
                                                  : (double)((const int64_t *)array.data)[i];
        if (!isfinite((float)v))
            status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "non-finite value at row %llu, column %llu",
                                   (unsigned long long)(i / array.shape[1]), (unsigned long long)(i % array.shape[1]));
        else
            m->values[i] = (float)v;
    }
    parac_npy_array_free(&array);
    return status;
}

parac_status parac_gemm_matrix_read(const char *path, parac_gemm_matrix *matrix, parac_error *error)
{
    parac_input input = parac_input_file(path);
    return gemm_matrix_read_input(&input, PARAC_GEMM_MAX_FILE_VALUES, matrix, error);
}

parac_status gemm_matrix_read_input(const parac_input *input, uint64_t max_values, parac_gemm_matrix *matrix,
                                    parac_error *error)
{
    const char *path = input->name;
    parac_status status;
    memset(matrix, 0, sizeof *matrix);
    if (parac_path_has_extension(path, ".mtx")) status = read_mtx(input, max_values, matrix, error);
    else if (parac_path_has_extension(path, ".npy")) status = read_npy(input, matrix, error);
    else status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, path, 0, "unknown matrix format (expected .npy or .mtx)");
    if (status != PARAC_OK) parac_gemm_matrix_free(matrix);
    return status;
}

static float value_at(const parac_gemm_matrix *m, int64_t r, int64_t c)
{
    return m->layout == PARAC_GEMM_ROW_MAJOR ? m->values[r * m->cols + c] : m->values[c * m->rows + r];
}

static parac_status write_mtx(const char *path, const parac_gemm_matrix *m, parac_error *error)
{
    FILE *file = fopen(path, "w");
    if (!file) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot open for writing");
    fprintf(file, "%%%%MatrixMarket matrix array real general\n%lld %lld\n", (long long)m->rows, (long long)m->cols);
    for (int64_t c = 0; c < m->cols; c++)
        for (int64_t r = 0; r < m->rows; r++) fprintf(file, "%.9g\n", value_at(m, r, c));
    if (fclose(file) != 0) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed");
    return PARAC_OK;
}

parac_status parac_gemm_matrix_write(const char *path, const parac_gemm_matrix *m, parac_error *error)
{
    uint64_t shape[2] = {(uint64_t)m->rows, (uint64_t)m->cols};
    float *row_major;
    parac_status status;
    if (parac_path_has_extension(path, ".mtx")) return write_mtx(path, m, error);
    if (m->layout == PARAC_GEMM_ROW_MAJOR) return parac_npy_write(path, PARAC_DTYPE_F32, 2, shape, m->values, error);
    row_major = malloc((size_t)(m->rows * m->cols) * sizeof(float));
    if (!row_major) return parac_fail_no_memory(error, "matrix", (unsigned long long)(m->rows * m->cols) * 4);
    for (int64_t r = 0; r < m->rows; r++)
        for (int64_t c = 0; c < m->cols; c++) row_major[r * m->cols + c] = value_at(m, r, c);
    status = parac_npy_write(path, PARAC_DTYPE_F32, 2, shape, row_major, error);
    free(row_major);
    return status;
}

void parac_gemm_matrix_free(parac_gemm_matrix *matrix)
{
    if (!matrix) return;
    free(matrix->values);
    matrix->values = NULL;
}
