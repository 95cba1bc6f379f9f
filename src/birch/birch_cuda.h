/* birch/birch_cuda.h — the CUDA path of birch (birch_cuda.cu), called by birch.c.
 *
 * The host keeps the CF tree (splits are rare and sequential); each batch the
 * GPU gets a copy of the tree's arrays, runs the descent and the per-entry
 * absorption, and hands back a birch_batch_result identical to the CPU's.
 * The Ward step (distance matrix + nearest-neighbour chain) and the labelling
 * (one kernel) also run here.
 */
#ifndef PARAC_BIRCH_CUDA_H
#define PARAC_BIRCH_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "birch/batch.h"
#include "birch/cf_tree.h"
#include "birch/ward.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct birch_cuda birch_cuda;

parac_status birch_cuda_create(int ordinal, birch_cuda **gpu, parac_error *error);
void birch_cuda_destroy(birch_cuda *gpu);

/* Inserts count points (row-major) batch by batch; the tree stays on the host. */
parac_status birch_cuda_insert_batched(birch_cuda *gpu, birch_tree *tree, const double *points, size_t count,
                                       size_t batch_size, parac_error *error);

/* The speculative descent (speculative.h) of n row-major points on the GPU:
 * leaf_slot[i] and margins[level * n + i] for the tree's height levels. */
parac_status birch_cuda_speculate(birch_cuda *gpu, const birch_tree *tree, const double *points, size_t n,
                                  size_t height, int32_t *leaf_slot, double *margins, parac_error *error);

/* The Ward merges of m centroids (as birch_ward_cpu); NO_MEMORY when the matrix does not fit. */
parac_status birch_cuda_ward(birch_cuda *gpu, const double *centers, size_t m, size_t dims, birch_merge *merges,
                             parac_error *error);

/* nearest[i] = index of the closest centroid (ties: the smallest), in chunks that fit. */
parac_status birch_cuda_nearest(birch_cuda *gpu, const double *centers, size_t m, size_t dims, const double *points,
                                size_t count, int32_t *nearest, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
