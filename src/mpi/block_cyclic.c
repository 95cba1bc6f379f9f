/* mpi/block_cyclic.c — process grid, block-cyclic index arithmetic, scatter and gather (block_cyclic.h). */
#include "mpi/block_cyclic.h"

#include <limits.h>
#include <string.h>

#define MESSAGE_FLOATS MPI_MESSAGE_VALUES /* below INT_MAX: MPI counts are int */

void mpi_grid_choose(int ranks, int *rows, int *cols)
{
    int best = 1;
    for (int p = 1; (int64_t)p * p <= ranks; p++)
        if (ranks % p == 0) best = p;
    *rows = best;
    *cols = ranks / best;
}

void mpi_grid_create(MPI_Comm comm, int rows, int cols, mpi_grid *grid)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    grid->rows = rows;
    grid->cols = cols;
    grid->row = rank / cols;
    grid->col = rank % cols;
    MPI_Comm_split(comm, grid->row, grid->col, &grid->row_comm);
    MPI_Comm_split(comm, grid->col, grid->row, &grid->col_comm);
}

void mpi_grid_destroy(mpi_grid *grid)
{
    MPI_Comm_free(&grid->row_comm);
    MPI_Comm_free(&grid->col_comm);
}

int64_t cyclic_local_count(int64_t extent, int64_t block, int parts, int part)
{
    int64_t blocks = (extent + block - 1) / block, mine, count;
    if (blocks <= part) return 0;
    mine = (blocks - 1 - part) / parts + 1; /* blocks part, part + parts, ... below blocks */
    count = mine * block;
    if ((blocks - 1) % parts == part) count -= blocks * block - extent; /* the last, partial block is ours */
    return count;
}

int64_t cyclic_global_index(int64_t local, int64_t block, int parts, int part)
{
    return (local / block * parts + part) * block + local % block;
}

/* Copies between a whole row-major matrix and one grid position's piece, a block-row segment at a time.
 * to_piece: whole -> piece; else piece -> whole. */
static void copy_piece(int64_t rows, int64_t cols, int64_t block, const mpi_grid *grid, int row, int col,
                       float *whole, float *piece, int to_piece)
{
    int64_t local_rows = cyclic_local_count(rows, block, grid->rows, row);
    int64_t local_cols = cyclic_local_count(cols, block, grid->cols, col);
    for (int64_t lr = 0; lr < local_rows; lr++) {
        float *whole_row = whole + cyclic_global_index(lr, block, grid->rows, row) * cols;
        float *piece_row = piece + lr * local_cols;
        for (int64_t lc = 0; lc < local_cols; lc += block) {
            int64_t width = local_cols - lc < block ? local_cols - lc : block;
            float *whole_at = whole_row + cyclic_global_index(lc, block, grid->cols, col);
            if (to_piece) memcpy(piece_row + lc, whole_at, (size_t)width * sizeof(float));
            else memcpy(whole_at, piece_row + lc, (size_t)width * sizeof(float));
        }
    }
}

static int64_t piece_count(int64_t rows, int64_t cols, int64_t block, const mpi_grid *grid, int row, int col)
{
    return cyclic_local_count(rows, block, grid->rows, row) * cyclic_local_count(cols, block, grid->cols, col);
}

/* Rank 0 sends the pieces in rank order from one staging buffer as large as the largest piece (the
 * first piece's: block-cyclic pieces shrink with the grid position). */
void block_cyclic_scatter(MPI_Comm comm, const mpi_grid *grid, int64_t rows, int64_t cols, int64_t block,
                          const float *whole, float *piece, float *staging)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0) {
        mpi_recv_floats(piece, piece_count(rows, cols, block, grid, grid->row, grid->col), 0, comm);
        return;
    }
    for (int r = 1; r < grid->rows * grid->cols; r++) {
        int row = r / grid->cols, col = r % grid->cols;
        copy_piece(rows, cols, block, grid, row, col, (float *)whole, staging, 1);
        mpi_send_floats(staging, piece_count(rows, cols, block, grid, row, col), r, comm);
    }
    copy_piece(rows, cols, block, grid, 0, 0, (float *)whole, piece, 1);
}

void block_cyclic_gather(MPI_Comm comm, const mpi_grid *grid, int64_t rows, int64_t cols, int64_t block,
                         const float *piece, float *whole, float *staging)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0) {
        mpi_send_floats(piece, piece_count(rows, cols, block, grid, grid->row, grid->col), 0, comm);
        return;
    }
    copy_piece(rows, cols, block, grid, 0, 0, whole, (float *)piece, 0);
    for (int r = 1; r < grid->rows * grid->cols; r++) {
        int row = r / grid->cols, col = r % grid->cols;
        mpi_recv_floats(staging, piece_count(rows, cols, block, grid, row, col), r, comm);
        copy_piece(rows, cols, block, grid, row, col, whole, staging, 0);
    }
}

int block_cyclic_file_type(const mpi_grid *grid, int64_t rows, int64_t cols, int64_t block, MPI_Datatype etype,
                           MPI_Datatype *type)
{
    int sizes[2] = {(int)rows, (int)cols}, distributions[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC};
    int blocks[2] = {(int)block, (int)block}, grid_sizes[2] = {grid->rows, grid->cols};
    if (rows > INT_MAX || cols > INT_MAX || block > INT_MAX) return 0;
    MPI_Type_create_darray(grid->rows * grid->cols, grid->row * grid->cols + grid->col, 2, sizes, distributions,
                           blocks, grid_sizes, MPI_ORDER_C, etype, type);
    MPI_Type_commit(type);
    return 1;
}

void mpi_bcast_floats(float *values, int64_t count, int root, MPI_Comm comm)
{
    for (int64_t done = 0; done < count; done += MESSAGE_FLOATS) {
        int64_t part = count - done < MESSAGE_FLOATS ? count - done : MESSAGE_FLOATS;
        MPI_Bcast(values + done, (int)part, MPI_FLOAT, root, comm);
    }
}

void mpi_send_floats(const float *values, int64_t count, int to, MPI_Comm comm)
{
    for (int64_t done = 0; done < count; done += MESSAGE_FLOATS) {
        int64_t part = count - done < MESSAGE_FLOATS ? count - done : MESSAGE_FLOATS;
        MPI_Send(values + done, (int)part, MPI_FLOAT, to, 0, comm);
    }
}

void mpi_recv_floats(float *values, int64_t count, int from, MPI_Comm comm)
{
    for (int64_t done = 0; done < count; done += MESSAGE_FLOATS) {
        int64_t part = count - done < MESSAGE_FLOATS ? count - done : MESSAGE_FLOATS;
        MPI_Recv(values + done, (int)part, MPI_FLOAT, from, 0, comm, MPI_STATUS_IGNORE);
    }
}
