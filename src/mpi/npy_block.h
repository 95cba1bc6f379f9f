/* mpi/npy_block.h — each rank reads its own byte range of a .npy points file.
 *
 * The header is parsed by core/npy.c (every rank opens the file and parses it:
 * a few hundred bytes); the rows are then split into R contiguous blocks of
 * floor(n/R) or ceil(n/R) rows, rank r taking block r, and each rank seeks to
 * its block and reads only those bytes. Block r starts at row
 * mpi_block_first(n, R, r); mpi_block_owner inverts it.
 */
#ifndef PARAC_MPI_NPY_BLOCK_H
#define PARAC_MPI_NPY_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

/* One rank's block of an n x d point set, float32 or float64 as the file holds it. */
typedef struct mpi_points {
    void *values;   /* count * dim values, malloc'ed (f64 ? double : float) */
    int f64;
    size_t count;   /* rows of this block */
    size_t dim;
    uint64_t first; /* global index of the block's first row */
    uint64_t total; /* rows of the whole file */
} mpi_points;

uint64_t mpi_block_first(uint64_t total, int ranks, int rank);
int mpi_block_owner(uint64_t total, int ranks, uint64_t index);

/* Reads block `rank` of `ranks` from path: a float32 or float64 .npy array of
 * 1 or 2 dimensions (1-D is n x 1). Refuses other dtypes, more dimensions, n x 0
 * arrays, and non-finite coordinates (naming the global row and column from 1, in the
 * words of parac's matrix reader), with the file name in the message. Not collective: each rank calls it on its own. */
parac_status mpi_points_read_block(const char *path, int ranks, int rank, mpi_points *points, parac_error *error);
void mpi_points_free(mpi_points *points);

#endif
