/* parac/metrics.h — clustering quality: ARI, NMI, silhouette, Davies-Bouldin.
 *
 * The definitions are scikit-learn's (adjusted_rand_score,
 * normalized_mutual_info_score with the arithmetic mean, silhouette_score,
 * davies_bouldin_score) and so are the special cases. Every label value,
 * -1 (noise) included, is just a cluster name, as in scikit-learn.
 * All arrays are caller-owned; nothing is kept between calls.
 *
 * Errors: PARAC_ERR_INVALID_ARGUMENT for zero points, d = 0, a non-finite
 * coordinate, or (silhouette, Davies-Bouldin) fewer than 2 or more than n - 1
 * distinct labels.
 */
#ifndef PARAC_METRICS_H
#define PARAC_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adjusted Rand index of two labellings of the same count points (1 = identical partitions). */
parac_status parac_metrics_adjusted_rand(const int32_t *labels, const int32_t *truth, size_t count, double *score,
                                         parac_error *error);

/* Normalized mutual information, arithmetic-mean normalisation (sklearn's default). */
parac_status parac_metrics_normalized_mutual_info(const int32_t *labels, const int32_t *truth, size_t count,
                                                  double *score, parac_error *error);

typedef struct parac_silhouette_options {
    size_t sample;   /* 0: all points; else a random subset of this size (like sklearn's sample_size) */
    uint64_t seed;   /* for the subset */
    parac_exec exec; /* device CUDA: the tiled GPU kernel (PARAC_ERR_NO_DEVICE without a GPU); CPU: the CPU
                        with exec.threads; AUTO: the GPU when one is usable and there are at least
                        20,000 points, else the CPU. Every choice gives the same bytes. */
} parac_silhouette_options;

/* The defaults: every point (no sample), seed 0, parac_exec_init's device and threads. */
void parac_silhouette_options_init(parac_silhouette_options *options);

/* Mean silhouette coefficient over points[count * dim] (Euclidean), exact,
 * O(n^2 d) without a sample. A point alone in its cluster scores 0.
 * On the GPU each point's value is bit for bit the CPU's (same summation
 * order, no FMA); when the device is too small the CPU computes it. */
parac_status parac_metrics_silhouette(const parac_silhouette_options *options, const double *points, size_t count,
                                      size_t dim, const int32_t *labels, double *score, parac_error *error);

/* Davies-Bouldin index (lower is better). */
parac_status parac_metrics_davies_bouldin(const double *points, size_t count, size_t dim, const int32_t *labels,
                                          int threads, double *score, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
