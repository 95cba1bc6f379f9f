/* mpi/gemm_npy_pieces.c — .npy matrices read and written piece by piece over MPI-IO (gemm_npy_pieces.h). */
#define _FILE_OFFSET_BITS 64
#include "mpi/gemm_npy_pieces.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/error.h"

parac_status mpi_npy_matrix_open(const char *path, mpi_npy_matrix *matrix, parac_error *error)
{
    parac_npy_reader reader;
    off_t data_start;
    parac_status status = parac_npy_reader_open(&reader, path, error);
    memset(matrix, 0, sizeof *matrix);
    matrix->path = path;
    if (status != PARAC_OK) return status;
    /* parac gemm's words (gemm/io_mtx.c, read_npy) */
    if (reader.ndim != 2 || reader.shape[0] < 1 || reader.shape[1] < 1)
        status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0, "expected a non-empty 2-D array, got %d dimensions",
                               reader.ndim);
    else if ((data_start = ftello(reader.file)) < 0)
        status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot tell where its data starts");
    else {
        matrix->rows = (int64_t)reader.shape[0];
        matrix->cols = (int64_t)reader.shape[1];
        matrix->dtype = reader.dtype;
        matrix->data_offset = (int64_t)data_start;
    }
    parac_npy_reader_close(&reader);
    return status;
}

static MPI_Datatype mpi_type_of(parac_dtype dtype)
{
    switch (dtype) {
    case PARAC_DTYPE_F32: return MPI_FLOAT;
    case PARAC_DTYPE_F64: return MPI_DOUBLE;
    case PARAC_DTYPE_I32: return MPI_INT32_T;
    default: return MPI_INT64_T;
    }
}

/* values[i] = (float) of the file's i-th value, in place (a float never overtakes the wider value it
 * replaces), through double as parac gemm converts; returns the first local index whose float is not
 * finite, or count. */
static int64_t convert_in_place(void *raw, parac_dtype dtype, int64_t count)
{
    float *out = raw;
    int64_t bad = count;
    for (int64_t i = 0; i < count; i++) {
        double v = dtype == PARAC_DTYPE_F32   ? ((const float *)raw)[i]
                   : dtype == PARAC_DTYPE_F64 ? ((const double *)raw)[i]
                   : dtype == PARAC_DTYPE_I32 ? ((const int32_t *)raw)[i]
                                              : (double)((const int64_t *)raw)[i];
        out[i] = (float)v;
        if (bad == count && !isfinite(out[i])) bad = i;
    }
    return bad;
}

/* The collective reads or writes of `count` values through the file's view, 2^30 at a time; every rank
 * takes part in as many calls as the rank with the most. 0 when all of this rank's calls succeeded. */
static int transfer_all(MPI_Comm comm, MPI_File file, void *values, int64_t count, MPI_Datatype etype, int write)
{
    int size, failed = 0;
    int64_t calls = (count + MPI_MESSAGE_VALUES - 1) / MPI_MESSAGE_VALUES, most = 0;
    MPI_Type_size(etype, &size);
    MPI_Allreduce(&calls, &most, 1, MPI_INT64_T, MPI_MAX, comm);
    for (int64_t call = 0; call < most; call++) {
        int64_t done = call * MPI_MESSAGE_VALUES, part = count - done;
        char *at = (char *)values + (done < count ? done : 0) * size;
        part = part < 0 ? 0 : part > MPI_MESSAGE_VALUES ? MPI_MESSAGE_VALUES : part;
        if (write) failed |= MPI_File_write_all(file, at, (int)part, etype, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        else failed |= MPI_File_read_all(file, at, (int)part, etype, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    }
    return failed;
}

/* Every rank must go on to the collective step only if every rank can: 1 when all are ready. */
static int all_ready(MPI_Comm comm, int ready)
{
    int all = 0;
    MPI_Allreduce(&ready, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

parac_status mpi_npy_matrix_read_piece(MPI_Comm comm, const mpi_grid *grid, const mpi_npy_matrix *matrix,
                                       int64_t block, float **piece, double *bytes_read, parac_error *error)
{
    int64_t rows = cyclic_local_count(matrix->rows, block, grid->rows, grid->row);
    int64_t cols = cyclic_local_count(matrix->cols, block, grid->cols, grid->col), count = rows * cols;
    int64_t bad, first_bad_mine = INT64_MAX, first_bad = INT64_MAX;
    size_t value_size = parac_dtype_size(matrix->dtype);
    MPI_Datatype etype = mpi_type_of(matrix->dtype), view;
    MPI_File file;
    void *raw = malloc((size_t)count * value_size + 1);
    parac_status status = PARAC_OK;
    int opened, failed;
    *piece = NULL;
    *bytes_read = 0.0;
    if (!raw) status = parac_fail_no_memory(error, "matrix piece", (unsigned long long)count * value_size);
    if (!all_ready(comm, raw != NULL)) {
        free(raw);
        return status;
    }
    block_cyclic_file_type(grid, matrix->rows, matrix->cols, block, etype, &view);
    opened = MPI_File_open(comm, matrix->path, MPI_MODE_RDONLY, MPI_INFO_NULL, &file) == MPI_SUCCESS;
    if (!all_ready(comm, opened)) {
        if (opened) MPI_File_close(&file);
        MPI_Type_free(&view);
        free(raw);
        return opened ? PARAC_OK : parac_fail_at(error, PARAC_ERR_IO, matrix->path, 0, "MPI cannot open it for reading");
    }
    failed = MPI_File_set_view(file, (MPI_Offset)matrix->data_offset, etype, view, "native", MPI_INFO_NULL) !=
             MPI_SUCCESS;
    failed |= transfer_all(comm, file, raw, count, etype, 0);
    MPI_File_close(&file);
    MPI_Type_free(&view);
    if (failed) status = parac_fail_at(error, PARAC_ERR_IO, matrix->path, 0, "MPI read failed");
    /* the file's first non-finite value, in parac gemm's row-major order over the whole matrix */
    if (!failed && (bad = convert_in_place(raw, matrix->dtype, count)) < count)
        first_bad_mine = cyclic_global_index(bad / cols, block, grid->rows, grid->row) * matrix->cols +
                         cyclic_global_index(bad % cols, block, grid->cols, grid->col);
    MPI_Allreduce(&first_bad_mine, &first_bad, 1, MPI_INT64_T, MPI_MIN, comm);
    if (first_bad != INT64_MAX && first_bad == first_bad_mine)
        status = parac_fail_at(error, PARAC_ERR_PARSE, matrix->path, 0, "non-finite value at row %llu, column %llu",
                               (unsigned long long)(first_bad / matrix->cols),
                               (unsigned long long)(first_bad % matrix->cols));
    if (!all_ready(comm, status == PARAC_OK)) {
        free(raw);
        return status;
    }
    *piece = value_size > sizeof(float) ? realloc(raw, (size_t)count * sizeof(float) + 1) : raw;
    if (!*piece) *piece = raw; /* shrinking failed: keep the larger buffer */
    *bytes_read = (double)count * (double)value_size;
    return PARAC_OK;
}

parac_status mpi_npy_matrix_write_pieces(MPI_Comm comm, const mpi_grid *grid, const char *path, int64_t rows,
                                         int64_t cols, int64_t block, const float *piece, parac_error *error)
{
    unsigned char header[PARAC_NPY_HEADER_MAX];
    uint64_t shape[2] = {(uint64_t)rows, (uint64_t)cols};
    size_t header_length = parac_npy_header(PARAC_DTYPE_F32, 2, shape, header);
    int64_t count = cyclic_local_count(rows, block, grid->rows, grid->row) *
                    cyclic_local_count(cols, block, grid->cols, grid->col);
    MPI_Datatype view;
    MPI_File file;
    int rank, failed = 0, opened;
    MPI_Comm_rank(comm, &rank);
    opened = MPI_File_open(comm, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &file) == MPI_SUCCESS;
    if (!all_ready(comm, opened)) {
        if (opened) MPI_File_close(&file);
        return opened ? PARAC_OK : parac_fail_at(error, PARAC_ERR_IO, path, 0, "MPI cannot open it for writing");
    }
    if (rank == 0)
        failed = MPI_File_write_at(file, 0, header, (int)header_length, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    block_cyclic_file_type(grid, rows, cols, block, MPI_FLOAT, &view);
    failed |= MPI_File_set_view(file, (MPI_Offset)header_length, MPI_FLOAT, view, "native", MPI_INFO_NULL) != MPI_SUCCESS;
    failed |= transfer_all(comm, file, (void *)piece, count, MPI_FLOAT, 1);
    failed |= MPI_File_close(&file) != MPI_SUCCESS;
    MPI_Type_free(&view);
    return failed ? parac_fail_at(error, PARAC_ERR_IO, path, 0, "MPI write failed") : PARAC_OK;
}
