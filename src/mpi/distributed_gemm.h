/* mpi/distributed_gemm.h — C = alpha*A*B + beta*C over the ranks of an MPI communicator, SUMMA-style.
 *
 * Collective. A (m x k), B (k x n) and C (m x n) are laid out 2-D block-cyclically over a P x Q grid
 * (mpi/block_cyclic.h) with square blocks of `block`: each rank holds its pieces (read from the files by
 * every rank, gemm_npy_pieces.h, or scattered from rank 0, mpi_gemm_scatter). For each k panel l (columns l*block.. of A, the same rows of B) the process column
 * l mod Q broadcasts its A panel along its process row and the process row l mod P its B panel along its
 * process column, so every rank ends with the A rows and B columns of its C piece over all of k. Each rank
 * then runs the KDA plan (parac_gemm_execute, CPU or GPU by options->exec) once on its piece; C stays in
 * the pieces (written by every rank, or gathered to rank 0: mpi_gemm_gather).
 *
 * Why one multiply after the panels, and not one per panel: parac gemm's exactness contract makes every
 * C element one chain of fused multiply-adds over ascending k, started from 0, cut only at the plan's
 * split-k segments; a multiply per panel (beta = 1) would round and restart that chain at every panel.
 * With the whole of k in one call, the local plan (given the global plan's tile_k, split_k and tile shape)
 * computes every element by the same chain as the single process, so the bits are the same (fp32, and
 * tf32 on the CPU; docs/DISTRIBUTED.md). The price is memory: (m/P + n/Q) x k operands per rank.
 *
 * Errors are returned, never printed. A failure (memory, device) leaves the other ranks inside a
 * collective: the caller must MPI_Abort.
 */
#ifndef PARAC_MPI_DISTRIBUTED_GEMM_H
#define PARAC_MPI_DISTRIBUTED_GEMM_H

#include <mpi.h>
#include <stdint.h>

#include <parac/gemm.h>

#include "mpi/block_cyclic.h"

/* What the global plan decided (rank 0 builds it on the whole matrices; every rank gets the same). */
typedef struct mpi_gemm_shape {
    int64_t m, n, k;
    int tile_m, tile_n, tile_k, split_k;
    int sparse_a, sparse_b; /* scan the local operands for zero tiles, as the global plan scanned */
    int64_t block;          /* the block-cyclic block edge */
} mpi_gemm_shape;

/* What this rank did. */
typedef struct mpi_gemm_info {
    int64_t local_m, local_n;          /* this rank's C piece */
    double seconds_scatter, seconds_broadcast, seconds_multiply; /* scatter: the caller's */
    double seconds_compute;            /* parac_gemm_last_compute_seconds of the local multiply */
    double cpu_seconds_multiply;       /* process CPU time of the local multiply (all threads) */
    double bytes_broadcast;            /* A and B panel bytes this rank received or sent in the broadcasts */
    parac_device device;               /* where this rank's multiply ran (CPU when it holds no C) */
} mpi_gemm_info;

/* This rank's block-cyclic pieces of A (m x k), B (k x n) and C (m x n), row-major, malloc'ed. */
typedef struct mpi_gemm_pieces {
    float *a, *b, *c;
} mpi_gemm_pieces;

/* C's piece, and with_ab A's and B's (one extra float each: empty pieces are normal). */
parac_status mpi_gemm_pieces_alloc(const mpi_grid *grid, const mpi_gemm_shape *shape, int with_ab,
                                   mpi_gemm_pieces *pieces, parac_error *error);
void mpi_gemm_pieces_free(mpi_gemm_pieces *pieces);

/* Collective: rank 0's whole row-major rows x cols matrix (ignored elsewhere) into every rank's piece,
 * point-to-point in rank order; rank 0 aborts the job if it cannot hold its staging buffer. */
void mpi_gemm_scatter(MPI_Comm comm, const mpi_grid *grid, const mpi_gemm_shape *shape, const float *whole,
                      int64_t rows, int64_t cols, float *piece);
/* Collective: every rank's C piece into rank 0's whole m x n C. */
void mpi_gemm_gather(MPI_Comm comm, const mpi_grid *grid, const mpi_gemm_shape *shape, const float *piece,
                     float *whole);

/* Collective. local_options: exec, dtype, schedule, variant, stages and pack for every rank's plan (shape,
 * layouts, tiles, split and scans are set from `shape`). pieces: this rank's A and B pieces and its C
 * piece (read when beta != 0; receives the result). */
parac_status mpi_gemm_run(MPI_Comm comm, const mpi_grid *grid, const mpi_gemm_shape *shape,
                          const parac_gemm_options *local_options, float alpha, float beta, mpi_gemm_pieces *pieces,
                          mpi_gemm_info *info, parac_error *error);

#endif
