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

#include "core/input.h"

typedef enum parac_dtype {
    PARAC_DTYPE_F32 = 0,
    PARAC_DTYPE_F64,
    PARAC_DTYPE_I32,
    PARAC_DTYPE_I64
} parac_dtype;

#define PARAC_NPY_MAX_DIMS 8
/* Limits on what a header may claim (refused as PARAC_ERR_PARSE, naming the file):
 * at most PARAC_NPY_MAX_DIMS dimensions, each at most PARAC_NPY_MAX_DIM (2^40;
 * a 4 TiB float32 vector), and every product of the shape times the value size
 * within 64 bits and half of size_t. A regular file must hold at least the data
 * its shape needs (checked when it is opened, before anything is sized by it);
 * a pipe is read in chunks, so a short one fails without a huge allocation. */
#define PARAC_NPY_MAX_DIM ((uint64_t)1 << 40)

size_t parac_dtype_size(parac_dtype dtype);
const char *parac_dtype_name(parac_dtype dtype); /* "float32", ... */

typedef struct parac_npy_reader {
    FILE *file;           /* NULL when reading from memory */
    int in_memory;
    const unsigned char *memory; /* the buffer, when in_memory */
    size_t memory_size, memory_at;
    const char *path;
    parac_dtype dtype;
    int ndim;
    uint64_t shape[PARAC_NPY_MAX_DIMS];
    uint64_t row_count;   /* shape[0] (1 for a 0-d array) */
    uint64_t row_values;  /* values per row: product of shape[1..] */
    uint64_t rows_read;
    uint64_t data_bytes;  /* what the shape needs: row_count * row_values * value size */
    int size_checked;     /* 1 when the file was seen to hold data_bytes (a regular file) */
} parac_npy_reader;

/* Opens and parses the header; the data is read with read_rows. */
parac_status parac_npy_reader_open(parac_npy_reader *reader, const char *path, parac_error *error);
/* The same over a file or a buffer (core/input.h); a buffer is checked to hold its data as a regular file is. */
parac_status parac_npy_reader_open_input(parac_npy_reader *reader, const parac_input *input, parac_error *error);
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
    void *data;     /* malloc'ed or mapped; release with parac_npy_array_free */
    void *mapping;  /* the file's private mapping when data points into it, else NULL */
    size_t mapping_bytes;
} parac_npy_array;

/* Reads the whole array. A regular file whose data is aligned for its dtype
 * (numpy pads headers to 64 bytes) is memory-mapped privately rather than
 * copied through read(): a 100 M-point float32 file costs no second copy.
 * The data is writable either way (copy-on-write pages). A mapped file cut
 * short by another process while in use would fault: read inputs that other
 * programs rewrite with parac_npy_read_copy. Pipes and odd headers are read. */
parac_status parac_npy_read(const char *path, parac_npy_array *array, parac_error *error);
/* The same, always copying into a malloc'ed buffer. */
parac_status parac_npy_read_copy(const char *path, parac_npy_array *array, parac_error *error);
/* parac_npy_read over a file or a buffer (a buffer's data is copied, never referenced). */
parac_status parac_npy_read_input(const parac_input *input, parac_npy_array *array, parac_error *error);
void parac_npy_array_free(parac_npy_array *array);

/* The version 1.0 header parac_npy_write puts before the data (magic, length, the dict padded so the
 * data starts at a multiple of 64): writes it into out (PARAC_NPY_HEADER_MAX bytes) and returns its
 * length. For writers that place the data themselves (parac-mpi gemm's ranks, MPI-IO). */
#define PARAC_NPY_HEADER_MAX 576
size_t parac_npy_header(parac_dtype dtype, int ndim, const uint64_t *shape, unsigned char *out);
/* Writes a C-order array (version 1.0 header). */
parac_status parac_npy_write(const char *path, parac_dtype dtype, int ndim, const uint64_t *shape,
                             const void *data, parac_error *error);

#endif
