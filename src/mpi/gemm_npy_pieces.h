/* mpi/gemm_npy_pieces.h — parac-mpi gemm's .npy operands read, and C written, piece by piece on every rank
 * (gemm_npy_pieces.c), so that rank 0 never holds a whole matrix.
 *
 * Every rank parses the header with core/npy.c's reader (a few hundred bytes: the same checks and messages
 * as parac gemm's, including a file shorter than its shape), then all ranks read their block-cyclic pieces
 * (block_cyclic.h) with one collective MPI-IO read through a darray file view (block_cyclic_file_type):
 * each rank receives only its own values, in its piece's order. Values are converted to float as parac
 * gemm converts them (float64, int32 and int64 through double) and checked to be finite: the file's first
 * non-finite value (row-major order, as the single process finds it) is found by an MPI_MIN over the ranks,
 * and only the rank that holds it returns parac gemm's message for it.
 *
 * C (.npy) is written the same way: rank 0 writes parac_npy_write's header (parac_npy_header), every rank
 * its piece through the same view at the header's offset; the caller reserves the file (cli_output_begin
 * on rank 0) and renames it after a collective success. */
#ifndef PARAC_MPI_GEMM_NPY_PIECES_H
#define PARAC_MPI_GEMM_NPY_PIECES_H

#include <mpi.h>
#include <stdint.h>

#include <parac/status.h>

#include "core/npy.h"
#include "mpi/block_cyclic.h"

/* What a .npy matrix's header says. */
typedef struct mpi_npy_matrix {
    const char *path;
    int64_t rows, cols;
    parac_dtype dtype;
    int64_t data_offset; /* bytes before the data */
} mpi_npy_matrix;

/* Not collective (each rank on its own; the caller agrees): the header of path, refused as parac gemm's
 * reader refuses it (not .npy, Fortran order, other dtypes, truncated data, not a non-empty 2-D array). */
parac_status mpi_npy_matrix_open(const char *path, mpi_npy_matrix *matrix, parac_error *error);

/* Collective. This rank's piece of the matrix in the block-cyclic layout with blocks of `block`:
 * *piece (malloc'ed, cyclic_local_count rows x columns, row-major floats) and *bytes_read (file bytes
 * this rank read). A failure on one rank (memory, MPI-IO, the file's first non-finite value) is returned
 * by that rank only and leaves *piece NULL on every rank: call mpi_cli_agree next. The dimensions and
 * block must fit an int (block_cyclic_file_type). */
parac_status mpi_npy_matrix_read_piece(MPI_Comm comm, const mpi_grid *grid, const mpi_npy_matrix *matrix,
                                       int64_t block, float **piece, double *bytes_read, parac_error *error);

/* Collective. Writes the rows x cols float32 .npy file `path` (existing, reserved by rank 0) from every
 * rank's piece: the bytes parac_npy_write writes for the whole matrix. Errors as above (call
 * mpi_cli_agree next). */
parac_status mpi_npy_matrix_write_pieces(MPI_Comm comm, const mpi_grid *grid, const char *path, int64_t rows,
                                         int64_t cols, int64_t block, const float *piece, parac_error *error);

#endif
