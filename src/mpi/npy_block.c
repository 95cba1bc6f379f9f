/* mpi/npy_block.c — a rank's contiguous block of rows of a .npy file (npy_block.h). */
#define _FILE_OFFSET_BITS 64
#include "mpi/npy_block.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/finite.h"
#include "core/npy.h"

uint64_t mpi_block_first(uint64_t total, int ranks, int rank)
{
    uint64_t base = total / (uint64_t)ranks, extra = total % (uint64_t)ranks, r = (uint64_t)rank;
    return r * base + (r < extra ? r : extra);
}

int mpi_block_owner(uint64_t total, int ranks, uint64_t index)
{
    uint64_t base = total / (uint64_t)ranks, extra = total % (uint64_t)ranks;
    if (index < extra * (base + 1)) return (int)(index / (base + 1));
    return (int)(extra + (index - extra * (base + 1)) / base);
}

static parac_status check_shape(const parac_npy_reader *reader, const char *path, size_t *rows, size_t *cols,
                                parac_error *error)
{
    if (reader->dtype != PARAC_DTYPE_F32 && reader->dtype != PARAC_DTYPE_F64)
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "expected float32 or float64 points, found %s",
                             parac_dtype_name(reader->dtype));
    if (reader->ndim > 2)
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "expected a 1-D or 2-D array, found %d-D", reader->ndim);
    *rows = (size_t)reader->row_count;
    *cols = reader->ndim == 2 ? (size_t)reader->shape[1] : 1;
    if (*cols == 0 && *rows > 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "the array has %zu rows but no columns", *rows);
    return PARAC_OK;
}

/* Moves the reader to row `row` of the data (its header has just been read). */
static parac_status seek_to_row(parac_npy_reader *reader, const char *path, uint64_t row, size_t row_bytes,
                                parac_error *error)
{
    off_t data_start = ftello(reader->file);
    if (data_start < 0 || fseeko(reader->file, data_start + (off_t)(row * row_bytes), SEEK_SET) != 0)
        return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot seek to row %llu: %s", (unsigned long long)row,
                             strerror(errno));
    reader->rows_read = row;
    return PARAC_OK;
}

static parac_status check_finite(const mpi_points *points, const char *path, parac_error *error)
{
    size_t values = points->count * points->dim;
    size_t bad = points->f64 ? parac_first_non_finite(points->values, values, 1)
                             : parac_first_non_finite_f32(points->values, values, 1);
    if (bad == values) return PARAC_OK;
    /* parac's matrix reader's words (rows and columns from 1), so both programs say the same */
    return parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "row %llu, column %zu: non-finite value",
                         (unsigned long long)(points->first + bad / points->dim + 1), bad % points->dim + 1);
}

parac_status mpi_points_read_block(const char *path, int ranks, int rank, mpi_points *points, parac_error *error)
{
    parac_npy_reader reader;
    size_t rows = 0, cols = 0, row_bytes;
    uint64_t got = 0;
    parac_status status;
    memset(points, 0, sizeof *points);
    if ((status = parac_npy_reader_open(&reader, path, error)) != PARAC_OK) return status;
    if ((status = check_shape(&reader, path, &rows, &cols, error)) != PARAC_OK) goto done;
    points->f64 = reader.dtype == PARAC_DTYPE_F64;
    points->dim = cols;
    points->total = rows;
    points->first = mpi_block_first(rows, ranks, rank);
    points->count = (size_t)(mpi_block_first(rows, ranks, rank + 1) - points->first);
    row_bytes = cols * parac_dtype_size(reader.dtype); /* the header check bounds n * d * size */
    points->values = malloc(points->count * row_bytes + 1);
    if (!points->values) {
        status = parac_fail_no_memory(error, "points block", points->count * row_bytes);
        goto done;
    }
    if (points->count && (status = seek_to_row(&reader, path, points->first, row_bytes, error)) == PARAC_OK)
        status = parac_npy_reader_read_rows(&reader, points->values, points->count, &got, error);
    if (status == PARAC_OK && got != points->count)
        status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "npy file is truncated near row %llu",
                               (unsigned long long)(points->first + got));
    if (status == PARAC_OK) status = check_finite(points, path, error);
done:
    parac_npy_reader_close(&reader);
    if (status != PARAC_OK) mpi_points_free(points);
    return status;
}

void mpi_points_free(mpi_points *points)
{
    free(points->values);
    memset(points, 0, sizeof *points);
}
