/* core/npy.h — NumPy .npy files: float32/64 and int32/64, C order, version 1-3.
 *
 * Anything else (Fortran order, big-endian, other dtypes, object arrays) is
 * refused with a message that says what was found. Reading can be whole-file
 * or row by row (for inputs larger than memory).
 */
#ifndef PARAC_CORE_NPY_H
#define PARAC_CORE_NPY_H

#include <stdint.h>
#include <stdio.h>

#include <parac/status.h>

typedef enum parac_dtype {
    PARAC_DTYPE_F32 = 0,
    PARAC_DTYPE_F64,
    PARAC_DTYPE_I32,
    PARAC_DTYPE_I64
} parac_dtype;

#define PARAC_NPY_MAX_DIMS 8

size_t parac_dtype_size(parac_dtype dtype);
const char *parac_dtype_name(parac_dtype dtype); /* "float32", ... */

typedef struct parac_npy_reader {
    FILE *file;
    const char *path;
    parac_dtype dtype;
    int ndim;
    uint64_t shape[PARAC_NPY_MAX_DIMS];
    uint64_t row_count;   /* shape[0] (1 for a 0-d array) */
    uint64_t row_values;  /* values per row: product of shape[1..] */
    uint64_t rows_read;
} parac_npy_reader;

/* Opens and parses the header; the data is read with read_rows. */
parac_status parac_npy_reader_open(parac_npy_reader *reader, const char *path, parac_error *error);
/* Reads up to max_rows rows into dst (row_values * dtype size bytes each).
 * *rows_got is 0 at the end. A file shorter than its header says is a parse error. */
parac_status parac_npy_reader_read_rows(parac_npy_reader *reader, void *dst, uint64_t max_rows,
                                        uint64_t *rows_got, parac_error *error);
void parac_npy_reader_close(parac_npy_reader *reader);

typedef struct parac_npy_array {
    parac_dtype dtype;
    int ndim;
    uint64_t shape[PARAC_NPY_MAX_DIMS];
    uint64_t count; /* number of values */
    void *data;     /* malloc'ed; release with parac_npy_array_free */
} parac_npy_array;

parac_status parac_npy_read(const char *path, parac_npy_array *array, parac_error *error);
void parac_npy_array_free(parac_npy_array *array);

/* Writes a C-order array (version 1.0 header). */
parac_status parac_npy_write(const char *path, parac_dtype dtype, int ndim, const uint64_t *shape,
                             const void *data, parac_error *error);

#endif
