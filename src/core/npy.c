/* core/npy.c — the .npy format: magic "\x93NUMPY", version, header length,
 * an ASCII Python dict {'descr', 'fortran_order', 'shape'}, then raw data. */
#include "core/npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* The value text after 'key': in the header dict, or NULL. */
static const char *dict_value(const char *header, const char *key)
{
    char quoted[32];
    const char *at;
    snprintf(quoted, sizeof quoted, "'%s'", key);
    at = strstr(header, quoted);
    if (!at) {
        snprintf(quoted, sizeof quoted, "\"%s\"", key);
        at = strstr(header, quoted);
    }
    if (!at) return NULL;
    at += strlen(quoted);
    while (*at == ' ') at++;
    if (*at != ':') return NULL;
    at++;
    while (*at == ' ') at++;
    return at;
}

static parac_status parse_descr(const char *header, const char *path, parac_dtype *dtype, parac_error *error)
{
    const char *value = dict_value(header, "descr");
    char descr[16] = {0};
    size_t i = 0;
    if (!value || (*value != '\'' && *value != '"'))
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "npy header has no 'descr' string");
    value++;
    while (*value && *value != '\'' && *value != '"' && i + 1 < sizeof descr) descr[i++] = *value++;
    if (!strcmp(descr, "<f4")) *dtype = PARAC_DTYPE_F32;
    else if (!strcmp(descr, "<f8")) *dtype = PARAC_DTYPE_F64;
    else if (!strcmp(descr, "<i4")) *dtype = PARAC_DTYPE_I32;
    else if (!strcmp(descr, "<i8")) *dtype = PARAC_DTYPE_I64;
    else
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, path, 0,
                             "npy dtype '%s' is not supported (use little-endian float32, float64, int32 or int64)", descr);
    return PARAC_OK;
}

static parac_status parse_shape(const char *header, parac_npy_reader *reader, parac_error *error)
{
    const char *value = dict_value(header, "shape");
    const char *fortran = dict_value(header, "fortran_order");
    if (!fortran) return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy header has no 'fortran_order'");
    if (strncmp(fortran, "False", 5) != 0)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, reader->path, 0,
                             "npy array is in Fortran order; save it in C order (numpy.ascontiguousarray)");
    if (!value || *value != '(') return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy header has no 'shape' tuple");
    value++;
    reader->ndim = 0;
    for (;;) {
        char *end;
        unsigned long long dim;
        while (*value == ' ' || *value == ',') value++;
        if (*value == ')') break;
        if (!isdigit((unsigned char)*value))
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy shape is malformed");
        errno = 0;
        dim = strtoull(value, &end, 10);
        if (errno || reader->ndim == PARAC_NPY_MAX_DIMS)
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy shape is too large");
        reader->shape[reader->ndim++] = dim;
        value = end;
        if (*value == 'L') value++;
    }
    reader->row_count = reader->ndim ? reader->shape[0] : 1;
    reader->row_values = 1;
    for (int d = 1; d < reader->ndim; d++) {
        if (reader->shape[d] && reader->row_values > UINT64_MAX / reader->shape[d])
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, 0, "npy shape overflows");
        reader->row_values *= reader->shape[d];
    }
    return PARAC_OK;
}

parac_status parac_npy_reader_open(parac_npy_reader *reader, const char *path, parac_error *error)
{
    unsigned char preamble[10];
    uint64_t header_length;
    char *header;
    parac_status status;
    memset(reader, 0, sizeof *reader);
    reader->path = path;
    reader->file = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!reader->file) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    if (fread(preamble, 1, 8, reader->file) != 8 || memcmp(preamble, NPY_MAGIC, 6) != 0) {
        parac_npy_reader_close(reader);
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "not a .npy file (bad magic)");
    }
    if (preamble[6] == 1) {
        if (fread(preamble + 8, 1, 2, reader->file) != 2) goto truncated;
        header_length = preamble[8] | (uint64_t)preamble[9] << 8;
    } else if (preamble[6] == 2 || preamble[6] == 3) {
        unsigned char length_bytes[4];
        if (fread(length_bytes, 1, 4, reader->file) != 4) goto truncated;
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
    if (fread(header, 1, header_length, reader->file) != header_length) {
        free(header);
        goto truncated;
    }
    header[header_length] = '\0';
    status = parse_descr(header, path, &reader->dtype, error);
    if (status == PARAC_OK) status = parse_shape(header, reader, error);
    free(header);
    if (status != PARAC_OK) parac_npy_reader_close(reader);
    return status;
truncated:
    parac_npy_reader_close(reader);
    return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "npy file is truncated inside its header");
}

parac_status parac_npy_reader_read_rows(parac_npy_reader *reader, void *dst, uint64_t max_rows,
                                        uint64_t *rows_got, parac_error *error)
{
    uint64_t left = reader->row_count - reader->rows_read;
    uint64_t rows = max_rows < left ? max_rows : left;
    size_t row_bytes = (size_t)reader->row_values * parac_dtype_size(reader->dtype);
    *rows_got = 0;
    if (!rows) return PARAC_OK;
    if (row_bytes && fread(dst, row_bytes, rows, reader->file) != rows)
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
}

parac_status parac_npy_read(const char *path, parac_npy_array *array, parac_error *error)
{
    parac_npy_reader reader;
    uint64_t got, bytes;
    parac_status status = parac_npy_reader_open(&reader, path, error);
    memset(array, 0, sizeof *array);
    if (status != PARAC_OK) return status;
    array->dtype = reader.dtype;
    array->ndim = reader.ndim;
    memcpy(array->shape, reader.shape, sizeof array->shape);
    if (reader.row_values && reader.row_count > UINT64_MAX / 8 / reader.row_values) {
        parac_npy_reader_close(&reader);
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "npy shape is too large");
    }
    array->count = reader.row_count * reader.row_values;
    bytes = array->count * parac_dtype_size(reader.dtype);
    array->data = malloc(bytes ? bytes : 1);
    if (!array->data) {
        parac_npy_reader_close(&reader);
        return parac_fail_no_memory(error, path, bytes);
    }
    status = parac_npy_reader_read_rows(&reader, array->data, reader.row_count, &got, error);
    parac_npy_reader_close(&reader);
    if (status != PARAC_OK) parac_npy_array_free(array);
    return status;
}

void parac_npy_array_free(parac_npy_array *array)
{
    free(array->data);
    array->data = NULL;
}

parac_status parac_npy_write(const char *path, parac_dtype dtype, int ndim, const uint64_t *shape,
                             const void *data, parac_error *error)
{
    char header[512];
    int length;
    size_t total, count = 1;
    FILE *file;
    char shape_text[256] = "";
    for (int d = 0; d < ndim; d++) {
        char part[32];
        snprintf(part, sizeof part, "%llu%s", (unsigned long long)shape[d], (ndim == 1 || d + 1 < ndim) ? ", " : "");
        strncat(shape_text, part, sizeof shape_text - strlen(shape_text) - 1);
        count *= shape[d];
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
    file = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!file) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot create: %s", strerror(errno));
    {
        unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(length & 0xff),
                                      (unsigned char)(length >> 8)};
        int ok = fwrite(preamble, 1, 10, file) == 10 && fwrite(header, 1, (size_t)length, file) == (size_t)length &&
                 (count == 0 || fwrite(data, parac_dtype_size(dtype), count, file) == count);
        if (file != stdout) ok = (fclose(file) == 0) && ok;
        else ok = (fflush(file) == 0) && ok;
        if (!ok) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    }
    return PARAC_OK;
}
