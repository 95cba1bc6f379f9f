/* mpi/block_cyclic.h — a P x Q process grid and the 2-D block-cyclic layout of a matrix over it
 * (block_cyclic.c), as ScaLAPACK uses it: rows are cut into blocks of `block` rows, block i belongs
 * to process row i mod P; columns likewise over the Q process columns. Rank r sits at row r / Q,
 * column r mod Q. A rank's local piece keeps its blocks in global order, row-major. */
#ifndef PARAC_MPI_BLOCK_CYCLIC_H
#define PARAC_MPI_BLOCK_CYCLIC_H

#include <mpi.h>
#include <stdint.h>

#include <parac/status.h>

typedef struct mpi_grid {
    int rows, cols;              /* P x Q, P * Q = the communicator's size */
    int row, col;                /* this rank's place */
    MPI_Comm row_comm, col_comm; /* this process row (ranked by column), this process column (by row) */
} mpi_grid;

/* The most square grid for `ranks`: P the largest divisor with P <= Q (3 ranks: 1 x 3). */
void mpi_grid_choose(int ranks, int *rows, int *cols);
/* Collective: splits comm into the grid's row and column communicators. rows * cols must be its size. */
void mpi_grid_create(MPI_Comm comm, int rows, int cols, mpi_grid *grid);
void mpi_grid_destroy(mpi_grid *grid);

/* How many of `extent` indices, cut into blocks of `block`, part `part` of `parts` holds. */
int64_t cyclic_local_count(int64_t extent, int64_t block, int parts, int part);
/* The global index of part `part`'s local index `local`. */
int64_t cyclic_global_index(int64_t local, int64_t block, int parts, int part);

/* Collective. Rank 0 holds the whole row-major rows x cols matrix `whole` (ignored elsewhere); every
 * rank receives its piece, cyclic_local_count(rows, block, P, row) x cyclic_local_count(cols, block,
 * Q, col), row-major, in `piece`. */
void block_cyclic_scatter(MPI_Comm comm, const mpi_grid *grid, int64_t rows, int64_t cols, int64_t block,
                          const float *whole, float *piece, float *staging);
/* The reverse: rank 0 assembles `whole` from every rank's piece. */
void block_cyclic_gather(MPI_Comm comm, const mpi_grid *grid, int64_t rows, int64_t cols, int64_t block,
                         const float *piece, float *whole, float *staging);

/* The file view of this rank's piece of a row-major rows x cols matrix of `etype` (MPI_Type_create_darray,
 * cyclic with blocks of `block` both ways over the grid: MPI's process grid is row-major, as ours), its
 * elements in the piece's order. Committed; the caller frees it. 0 when rows, cols or block exceed an
 * int (MPI's darray takes int sizes): no type then. */
int block_cyclic_file_type(const mpi_grid *grid, int64_t rows, int64_t cols, int64_t block, MPI_Datatype etype,
                           MPI_Datatype *type);
/* The largest count of one MPI call here (int counts: 2^30 values at a time). */
#define MPI_MESSAGE_VALUES ((int64_t)1 << 30)

/* MPI_Bcast / MPI_Send / MPI_Recv of any number of floats (int-sized messages, 2^30 at a time). */
void mpi_bcast_floats(float *values, int64_t count, int root, MPI_Comm comm);
void mpi_send_floats(const float *values, int64_t count, int to, MPI_Comm comm);
void mpi_recv_floats(float *values, int64_t count, int from, MPI_Comm comm);

#endif
