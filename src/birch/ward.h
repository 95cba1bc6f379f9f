/* birch/ward.h — Ward agglomerative clustering of subcluster centroids, as scipy/sklearn.
 *
 * scipy's nearest-neighbour chain on the condensed Euclidean distance matrix (or, for many
 * subclusters, on their centroids: BIRCH_WARD_MATRIX_MAX)
 * with the Lance–Williams update for Ward linkage (sklearn's
 * AgglomerativeClustering(linkage="ward") calls scipy.cluster.hierarchy.ward),
 * then sklearn's cut: the first m - K merges in order of height (stable).
 */
#ifndef PARAC_BIRCH_WARD_H
#define PARAC_BIRCH_WARD_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct birch_merge {
    int32_t a, b;  /* representatives (smallest, largest original index) as scipy's nn_chain records them */
    double height;
} birch_merge;

/* Bytes of the condensed distance matrix for m points. */
size_t birch_ward_matrix_bytes(size_t m);

/* Up to this many subclusters the chain runs on scipy's distance matrix (Lance–Williams, scipy's
 * values bit for bit; the GPU's chain does the same); beyond it on the centroids (O(m dims)
 * memory, Ward distances computed from them: ward.c). 8,192: a 256 MiB condensed matrix. */
#define BIRCH_WARD_MATRIX_MAX 8192
int birch_ward_uses_matrix(size_t m);

/* scipy's condensed index of the pair (i, j), i < j. */
static inline size_t birch_condensed_index(size_t m, size_t i, size_t j)
{
    return m * i - (i * (i + 1)) / 2 + (j - i - 1);
}

struct parac_progress_gate; /* core/progress.h */

/* The m - 1 merges of the nearest-neighbour chain, in chain order (CPU). progress (NULL: none)
 * counts the merges done; PARAC_ERR_CANCELLED once its callback asked to stop. */
parac_status birch_ward_cpu(const double *centers, size_t m, size_t dims, int threads,
                            struct parac_progress_gate *progress, birch_merge *merges, parac_error *error);
/* The same in the space asked for (matrix 1: scipy's matrix, 0: the centroids), whatever m: the
 * tests compare the two. */
parac_status birch_ward_cpu_in(int matrix, const double *centers, size_t m, size_t dims, int threads,
                               struct parac_progress_gate *progress, birch_merge *merges, parac_error *error);

/* Cluster of each of the m points after the first m - clusters merges in
 * height order, numbered by first appearance (0, 1, ... along index order). */
parac_status birch_ward_cut(const birch_merge *merges, size_t m, size_t clusters, int32_t *labels,
                            parac_error *error);

#ifdef __cplusplus
}
#endif

#endif
