/* core/npy.c — the .npy format: magic "\x93NUMPY", version, header length,
 * an ASCII Python dict {'descr', 'fortran_order', 'shape'}, then raw data. */
#include "core/npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "core/error.h"

static const char NPY_MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

size_t parac_dtype_size(parac_dtype dtype)
{
    return (dtype == PARAC_DTYPE_F32 || dtype == PARAC_DTYPE_I32) ? 4 : 8;
}

const char *parac_dtype_name(parac_dtype dtype)
{
    switch (dtype) {
    case PARAC_DTYPE_F32: return "float32";
    case PARAC_DTYPE_F64: return "float64";
    case PARAC_DTYPE_I32: return "int32";
    case PARAC_DTYPE_I64: return "int64";
    }
    return "?";
}

static const char *dtype_descr(parac_dtype dtype)
{
    switch (dtype) {
    case PARAC_DTYPE_F32: return "<f4";
    case PARAC_DTYPE_F64: return "<f8";
    case PARAC_DTYPE_I32: return "<i4";
    case PARAC_DTYPE_I64: return "<i8";
    }
    return "?";
}

/* The header is a Python dict literal with exactly the keys 'descr' (a string),
 * 'fortran_order' (True/False) and 'shape' (a tuple of non-negative integers),
 * as numpy writes and requires. It is parsed strictly, token by token: a
 * header that numpy itself would refuse is refused here too. */
typedef struct header_cursor {
    const char *at;
    const char *path;
    parac_error *error;
} header_cursor;

static void skip_blanks(header_cursor *cursor)
{
    while (*cursor->at == ' ' || *cursor->at == '\t' || *cursor->at == '\n' || *cursor->at == '\r') cursor->at++;
}

static parac_status malformed(header_cursor *cursor, const char *what)
{
    return parac_fail_at(cursor->error, PARAC_ERR_PARSE, cursor->path, 0, "npy header is malformed: %s near '%.20s'",
                         what, cursor->at);
}

/* A quoted string ('...' or "...") into text[size]. */
static parac_status parse_string(header_cursor *cursor, char *text, size_t size)
{
    char quote = *cursor->at;
    size_t length = 0;
    if (quote != '\'' && quote != '"') return malformed(cursor, "expected a quoted string");
    cursor->at++;
    while (*cursor->at && *cursor->at != quote) {
        if (length + 1 >= size) return malformed(cursor, "string too long");
        text[length++] = *cursor->at++;
    }
    if (*cursor->at != quote) return malformed(cursor, "unterminated string");
    cursor->at++;
    text[length] = '\0';
    return PARAC_OK;
}

static parac_status parse_descr(header_cursor *cursor, parac_dtype *dtype)
{
    char descr[32];
    parac_status status = parse_string(cursor, descr, sizeof descr);
    if (status != PARAC_OK) return status;
    if (!strcmp(descr, "<f4")) *dtype = PARAC_DTYPE_F32;
    else if (!strcmp(descr, "<f8")) *dtype = PARAC_DTYPE_F64;
    else if (!strcmp(descr, "<i4")) *dtype = PARAC_DTYPE_I32;
    else if (!strcmp(descr, "<i8")) *dtype = PARAC_DTYPE_I64;
    else
        return parac_fail_at(cursor->error, PARAC_ERR_UNSUPPORTED, cursor->path, 0,
                             "npy dtype '%s' is not supported (use little-endian float32, float64, int32 or int64)", descr);
    return PARAC_OK;
}

static parac_status parse_fortran_order(header_cursor *cursor)
{
    if (strncmp(cursor->at, "False", 5) == 0) {
        cursor->at += 5;
        return PARAC_OK;
    }
    if (strncmp(cursor->at, "True", 4) == 0)
        return parac_fail_at(cursor->error, PARAC_ERR_UNSUPPORTED, cursor->path, 0,
                             "npy array is in Fortran order; save it in C order (numpy.ascontiguousarray)");
    return malformed(cursor, "'fortran_order' must be True or False");
}

/* One dimension: digits (and Python 2's 'L' suffix), at most PARAC_NPY_MAX_DIM. */
static parac_status parse_dimension(header_cursor *cursor, uint64_t *dim)
{
    uint64_t value = 0;
    if (!isdigit((unsigned char)*cursor->at)) return malformed(cursor, "a shape entry is not a non-negative integer");
    while (isdigit((unsigned char)*cursor->at)) {
        value = value * 10 + (uint64_t)(*cursor->at++ - '0');
        if (value > PARAC_NPY_MAX_DIM)
            return parac_fail_at(cursor->error, PARAC_ERR_PARSE, cursor->path, 0,
                                 "npy shape has a dimension above the limit of %llu",
                                 (unsigned long long)PARAC_NPY_MAX_DIM);
    }
    if (*cursor->at == 'L') cursor->at++;
    *dim = value;
    return PARAC_OK;
}

/* A tuple: "()", "(n,)", "(n, m)", "(n, m,)" ... */
static parac_status parse_shape(header_cursor *cursor, parac_npy_reader *reader)
{
    parac_status status;
    if (*cursor->at != '(') return malformed(cursor, "'shape' must be a tuple");
    cursor->at++;
    reader->ndim = 0;
    skip_blanks(cursor);
    while (*cursor->at != ')') {
        if (reader->ndim == PARAC_NPY_MAX_DIMS)
            return parac_fail_at(cursor->error, PARAC_ERR_PARSE, cursor->path, 0,
                                 "npy array has more than %d dimensions", PARAC_NPY_MAX_DIMS);
        status = parse_dimension(cursor, &reader->shape[reader->ndim++]);
        if (status != PARAC_OK) return status;
        skip_blanks(cursor);
        if (*cursor->at == ',') {
            cursor->at++;
            skip_blanks(cursor);
        } else if (*cursor->at != ')' || reader->ndim == 1) {
            return malformed(cursor, "bad 'shape' tuple");
        }
    }
    cursor->at++;
    return PARAC_OK;
}

/* Every product of the shape, times the value size, must fit in 64 bits (and in size_t). */
static parac_status check_shape_size(parac_npy_reader *reader, parac_error *error)
{
    uint64_t values = 1, bytes;
    reader->row_count = reader->ndim ? reader->shape[0] : 1;
    reader->row_values = 1;
    /* A zero dimension makes the whole product 0 while the others may be huge:
     * the row width is checked on its own too. */
    for (int d = 0; d < reader->ndim; d++)
        if (__builtin_mul_overflow(values, reader->shape[d], &values) ||
            (d > 0 && __builtin_mul_overflow(reader->row_values, reader->shape[d], &reader->row_values)))
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy shape overflows: too many values");
    if (__builtin_mul_overflow(reader->row_values, (uint64_t)parac_dtype_size(reader->dtype), &bytes) ||
        __builtin_mul_overflow(values, (uint64_t)parac_dtype_size(reader->dtype), &bytes) || bytes > (uint64_t)SIZE_MAX / 2)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy shape overflows: too many bytes");
    reader->data_bytes = bytes;
    return PARAC_OK;
}

static parac_status parse_header(const char *text, parac_npy_reader *reader, parac_error *error)
{
    header_cursor cursor = {text, reader->path, error};
    int seen_descr = 0, seen_order = 0, seen_shape = 0;
    parac_status status = PARAC_OK;
    skip_blanks(&cursor);
    if (*cursor.at != '{') return malformed(&cursor, "expected a '{' dict");
    cursor.at++;
    for (;;) {
        char key[32];
        skip_blanks(&cursor);
        if (*cursor.at == '}') break;
        if ((status = parse_string(&cursor, key, sizeof key)) != PARAC_OK) return status;
        skip_blanks(&cursor);
        if (*cursor.at != ':') return malformed(&cursor, "expected ':'");
        cursor.at++;
        skip_blanks(&cursor);
        if (!strcmp(key, "descr") && !seen_descr++) status = parse_descr(&cursor, &reader->dtype);
        else if (!strcmp(key, "fortran_order") && !seen_order++) status = parse_fortran_order(&cursor);
        else if (!strcmp(key, "shape") && !seen_shape++) status = parse_shape(&cursor, reader);
        else
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy header has an unexpected or repeated key '%s' (expected "
                                 "'descr', 'fortran_order' and 'shape' once each)", key);
        if (status != PARAC_OK) return status;
        skip_blanks(&cursor);
        if (*cursor.at == ',') cursor.at++;
        else if (*cursor.at != '}') return malformed(&cursor, "expected ',' or '}'");
    }
    cursor.at++;
    skip_blanks(&cursor);
    if (*cursor.at) return malformed(&cursor, "text after the dict");
    if (!seen_descr) return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy header has no 'descr' string");
    if (!seen_order) return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy header has no 'fortran_order'");
    if (!seen_shape) return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy header has no 'shape' tuple");
    return check_shape_size(reader, error);
}

/* For a regular file, the data the shape promises must be there: refusing a
 * 136-byte file that claims 2^60 values here keeps every caller from sizing
 * buffers by it. Other inputs (pipes) are checked as they are read. */
static parac_status check_file_size(parac_npy_reader *reader, parac_error *error)
{
    struct stat info;
    uint64_t available;
    if (reader->in_memory) {
        available = reader->memory_size - reader->memory_at;
    } else {
        long offset = ftell(reader->file);
        if (fstat(fileno(reader->file), &info) != 0 || !S_ISREG(info.st_mode) || offset < 0) return PARAC_OK;
        available = (uint64_t)info.st_size > (uint64_t)offset ? (uint64_t)info.st_size - (uint64_t)offset : 0;
    }
    if (available < reader->data_bytes)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0,
                             "npy file is truncated: its shape needs %llu bytes of data, the file has %llu",
                             (unsigned long long)reader->data_bytes, (unsigned long long)available);
    reader->size_checked = 1;
    return PARAC_OK;
}

/* Up to count items of item_bytes each into dst, from the file or the buffer: how many were read whole. */
static size_t read_items(parac_npy_reader *reader, void *dst, size_t item_bytes, size_t count)
{
    size_t available;
    if (!reader->in_memory) return fread(dst, item_bytes, count, reader->file);
    available = (reader->memory_size - reader->memory_at) / item_bytes;
    if (count > available) count = available;
    if (count) memcpy(dst, reader->memory + reader->memory_at, count * item_bytes);
    reader->memory_at += count * item_bytes;
    return count;
}

/* The preamble, the header and its checks, from a source already set in reader. */
static parac_status read_header(parac_npy_reader *reader, parac_error *error)
{
    const char *path = reader->path;
    unsigned char preamble[10];
    uint64_t header_length;
    char *header;
    parac_status status;
    if (read_items(reader, preamble, 1, 8) != 8 || memcmp(preamble, NPY_MAGIC, 6) != 0) {
        parac_npy_reader_close(reader);
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "not a .npy file (bad magic)");
    }
    if (preamble[6] == 1) {
        if (read_items(reader, preamble + 8, 1, 2) != 2) goto truncated;
        header_length = preamble[8] | (uint64_t)preamble[9] << 8;
    } else if (preamble[6] == 2 || preamble[6] == 3) {
        unsigned char length_bytes[4];
        if (read_items(reader, length_bytes, 1, 4) != 4) goto truncated;
        header_length = length_bytes[0] | (uint64_t)length_bytes[1] << 8 | (uint64_t)length_bytes[2] << 16 |
                        (uint64_t)length_bytes[3] << 24;
    } else {
        parac_npy_reader_close(reader);
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, path, 0, "npy format version %d is not supported", preamble[6]);
    }
    if (header_length > (1u << 20)) {
        parac_npy_reader_close(reader);
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "npy header length %llu is absurd", (unsigned long long)header_length);
    }
    header = malloc(header_length + 1);
    if (!header) {
        parac_npy_reader_close(reader);
        return parac_fail_no_memory(error, "an npy header", header_length);
    }
    if (read_items(reader, header, 1, header_length) != header_length) {
        free(header);
        goto truncated;
    }
    header[header_length] = '\0';
    if (memchr(header, '\0', header_length)) status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "npy header contains a NUL byte");
    else status = parse_header(header, reader, error);
    free(header);
    if (status == PARAC_OK) status = check_file_size(reader, error);
    if (status != PARAC_OK) parac_npy_reader_close(reader);
    return status;
truncated:
    parac_npy_reader_close(reader);
    return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "npy file is truncated inside its header");
}

parac_status parac_npy_reader_open_input(parac_npy_reader *reader, const parac_input *input, parac_error *error)
{
    memset(reader, 0, sizeof *reader);
    reader->path = input->name;
    if (input->in_memory) {
        reader->in_memory = 1;
        reader->memory = input->data;
        reader->memory_size = input->data ? input->size : 0;
        return read_header(reader, error);
    }
    reader->file = strcmp(input->name, "-") == 0 ? stdin : fopen(input->name, "rb");
    if (!reader->file) return parac_fail_at(error, PARAC_ERR_IO, input->name, 0, "cannot open: %s", strerror(errno));
    return read_header(reader, error);
}

parac_status parac_npy_reader_open(parac_npy_reader *reader, const char *path, parac_error *error)
{
    parac_input input = parac_input_file(path);
    return parac_npy_reader_open_input(reader, &input, error);
}

parac_status parac_npy_reader_read_rows(parac_npy_reader *reader, void *dst, uint64_t max_rows,
                                        uint64_t *rows_got, parac_error *error)
{
    uint64_t left = reader->row_count - reader->rows_read;
    uint64_t rows = max_rows < left ? max_rows : left;
    size_t row_bytes = (size_t)reader->row_values * parac_dtype_size(reader->dtype);
    *rows_got = 0;
    if (!rows) return PARAC_OK;
    if (row_bytes && read_items(reader, dst, row_bytes, (size_t)rows) != rows)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0,
                             "npy file is truncated: expected %llu rows, data ends near row %llu",
                             (unsigned long long)reader->row_count, (unsigned long long)reader->rows_read);
    reader->rows_read += rows;
    *rows_got = rows;
    return PARAC_OK;
}

void parac_npy_reader_close(parac_npy_reader *reader)
{
    if (reader->file && reader->file != stdin) fclose(reader->file);
    reader->file = NULL;
    reader->memory = NULL;
}

/* A pipe's header is unverified: the buffer grows with what really arrives
 * (doubling from 1 MiB), so a short stream claiming terabytes fails as truncated. */
static parac_status read_unverified(parac_npy_reader *reader, parac_npy_array *array, parac_error *error)
{
    size_t row_bytes = (size_t)reader->row_values * parac_dtype_size(reader->dtype);
    size_t capacity_rows = row_bytes ? ((size_t)1 << 20) / row_bytes + 1 : (size_t)reader->row_count;
    uint64_t done = 0, got;
    parac_status status = PARAC_OK;
    while (status == PARAC_OK && done < reader->row_count) {
        if (capacity_rows > reader->row_count) capacity_rows = (size_t)reader->row_count;
        {
            void *bigger = realloc(array->data, capacity_rows * row_bytes + 1);
            if (!bigger) return parac_fail_no_memory(error, reader->path, capacity_rows * row_bytes);
            array->data = bigger;
        }
        status = parac_npy_reader_read_rows(reader, (char *)array->data + done * row_bytes, capacity_rows - done,
                                            &got, error);
        done += got;
        capacity_rows *= 2;
    }
    return status;
}

/* Maps a checked regular file privately; data points past the header. 0 when
 * the file cannot be mapped or its data is not aligned for the dtype. */
static int map_data(parac_npy_reader *reader, parac_npy_array *array)
{
    long offset;
    size_t length;
    void *base;
    if (reader->in_memory) return 0;
    offset = ftell(reader->file);
    if (!reader->size_checked || reader->data_bytes == 0 || offset <= 0 ||
        (size_t)offset % parac_dtype_size(reader->dtype) != 0)
        return 0;
    length = (size_t)offset + (size_t)reader->data_bytes;
    base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fileno(reader->file), 0);
    if (base == MAP_FAILED) return 0;
    array->mapping = base;
    array->mapping_bytes = length;
    array->data = (char *)base + offset;
    return 1;
}

static parac_status read_array(const parac_input *input, int allow_map, parac_npy_array *array, parac_error *error)
{
    parac_npy_reader reader;
    uint64_t got;
    parac_status status = parac_npy_reader_open_input(&reader, input, error);
    memset(array, 0, sizeof *array);
    if (status != PARAC_OK) return status;
    array->dtype = reader.dtype;
    array->ndim = reader.ndim;
    memcpy(array->shape, reader.shape, sizeof array->shape);
    array->count = reader.data_bytes / parac_dtype_size(reader.dtype);
    if (allow_map && map_data(&reader, array)) {
        status = PARAC_OK;
    } else if (reader.size_checked) {
        array->data = malloc(reader.data_bytes ? (size_t)reader.data_bytes : 1);
        if (!array->data) {
            parac_npy_reader_close(&reader);
            return parac_fail_no_memory(error, input->name, reader.data_bytes);
        }
        status = parac_npy_reader_read_rows(&reader, array->data, reader.row_count, &got, error);
    } else {
        status = read_unverified(&reader, array, error);
    }
    parac_npy_reader_close(&reader);
    if (status != PARAC_OK) parac_npy_array_free(array);
    return status;
}

parac_status parac_npy_read(const char *path, parac_npy_array *array, parac_error *error)
{
    parac_input input = parac_input_file(path);
    return read_array(&input, 1, array, error);
}

parac_status parac_npy_read_copy(const char *path, parac_npy_array *array, parac_error *error)
{
    parac_input input = parac_input_file(path);
    return read_array(&input, 0, array, error);
}

parac_status parac_npy_read_input(const parac_input *input, parac_npy_array *array, parac_error *error)
{
    return read_array(input, 1, array, error);
}

void parac_npy_array_free(parac_npy_array *array)
{
    if (array->mapping) munmap(array->mapping, array->mapping_bytes);
    else free(array->data);
    array->data = NULL;
    array->mapping = NULL;
    array->mapping_bytes = 0;
}

size_t parac_npy_header(parac_dtype dtype, int ndim, const uint64_t *shape, unsigned char *out)
{
    char header[512];
    int length;
    size_t total;
    char shape_text[256] = "";
    for (int d = 0; d < ndim; d++) {
        char part[32];
        snprintf(part, sizeof part, "%llu%s", (unsigned long long)shape[d], (ndim == 1 || d + 1 < ndim) ? ", " : "");
        strncat(shape_text, part, sizeof shape_text - strlen(shape_text) - 1);
    }
    if (ndim == 1) shape_text[strlen(shape_text) - 1] = '\0'; /* "(5,)" */
    length = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                      dtype_descr(dtype), shape_text);
    /* Pad with spaces so magic + 4 + header (ending in '\n') is a multiple of 64. */
    total = 10 + (size_t)length + 1;
    while (total % 64) {
        header[length++] = ' ';
        total++;
    }
    header[length++] = '\n';
    {
        unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(length & 0xff),
                                      (unsigned char)(length >> 8)};
        memcpy(out, preamble, 10);
        memcpy(out + 10, header, (size_t)length);
    }
    return 10 + (size_t)length;
}

parac_status parac_npy_write(const char *path, parac_dtype dtype, int ndim, const uint64_t *shape,
                             const void *data, parac_error *error)
{
    unsigned char header[PARAC_NPY_HEADER_MAX];
    size_t length = parac_npy_header(dtype, ndim, shape, header), count = 1;
    FILE *file;
    for (int d = 0; d < ndim; d++) count *= shape[d];
    file = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!file) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot create: %s", strerror(errno));
    {
        int ok = fwrite(header, 1, length, file) == length &&
                 (count == 0 || fwrite(data, parac_dtype_size(dtype), count, file) == count);
        if (file != stdout) ok = (fclose(file) == 0) && ok;
        else ok = (fflush(file) == 0) && ok;
        if (!ok) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    }
    return PARAC_OK;
}
