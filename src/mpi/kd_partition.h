/* mpi/kd_partition.h — a kd-style split of space into one box per rank, balanced by a sample.
 *
 * Every rank contributes an evenly spaced sample of its block (at most
 * MPI_KD_SAMPLE_PER_RANK points); the samples are all-gathered, so every rank
 * builds the same tree from the same numbers. The ranks [lo, hi) of a node are
 * cut at mid = lo + (hi - lo) / 2: the node's sample is split along its widest
 * coordinate at the value below which a share (mid - lo) / (hi - lo) of it lies.
 * A point with x[axis] < value goes left, otherwise right, so every point has
 * exactly one owner rank. Boundary mid (1 <= mid < R) is cut by exactly one
 * node, so the tree is two arrays indexed by mid.
 *
 * The halo of a rank is every point within `reach` of its box, coordinate by
 * coordinate (an L-infinity box around the owner box, a superset of the
 * Euclidean halo); mpi_kd_destinations lists the ranks that need a point.
 */
#ifndef PARAC_MPI_KD_PARTITION_H
#define PARAC_MPI_KD_PARTITION_H

#include <mpi.h>
#include <stddef.h>

#include <parac/status.h>

#include "mpi/npy_block.h"

#define MPI_KD_SAMPLE_PER_RANK 4096

typedef struct mpi_kd_partition {
    int ranks;
    size_t dim;
    int *axis;     /* [mid] for 1 <= mid < ranks */
    double *value; /* [mid] */
} mpi_kd_partition;

/* Collective over comm: samples, all-gathers and builds the same tree on every rank. */
parac_status mpi_kd_partition_build(MPI_Comm comm, const mpi_points *points, mpi_kd_partition *partition,
                                    parac_error *error);
void mpi_kd_partition_free(mpi_kd_partition *partition);

/* Writes the ranks whose boxes lie within `reach` of x (owner included), in
 * increasing order, to ranks[] (room for partition->ranks); returns how many.
 * *owner gets the rank whose box holds x. reach = +inf sends x everywhere. */
int mpi_kd_destinations(const mpi_kd_partition *partition, const double *x, double reach, int *owner, int *ranks);

#endif
