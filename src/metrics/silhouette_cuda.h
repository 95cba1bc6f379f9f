/* metrics/silhouette_cuda.h — the exact silhouette on one GPU (silhouette_cuda.cu). */
#ifndef PARAC_METRICS_SILHOUETTE_CUDA_H
#define PARAC_METRICS_SILHOUETTE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* values[i] = silhouette of point i of xs[n * d] (row-major), cluster[i] in
 * [0, clusters), sizes[c] = points in cluster c. Bit for bit the CPU's values:
 * each point sums its distances to each cluster in point order, without FMA.
 * PARAC_ERR_NO_MEMORY when the device is too small (the caller uses the CPU). */
parac_status metrics_silhouette_cuda(const double *xs, size_t n, size_t d, const uint32_t *cluster, size_t clusters,
                                     const double *sizes, int ordinal, double *values, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
