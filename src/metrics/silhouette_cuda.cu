/* metrics/silhouette_cuda.cu — exact silhouette, tiled, on one GPU.
 *
 * The host orders the points by cluster (a stable counting sort, so each
 * cluster keeps increasing point order). A block takes THREADS consecutive
 * points; for each cluster in turn it stages that cluster's points in shared
 * memory a tile at a time and every thread adds its distances to them in
 * order. That is the CPU's summation order for each (point, cluster) total,
 * with the same no-FMA arithmetic, so every value matches spatial.c bit for
 * bit and the host's mean (in point order) is the CPU's score. O(n^2 d) work,
 * O(n d) device memory, no per-thread cluster arrays (any cluster count).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cuda/context.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
#include "metrics/silhouette_cuda.h"

#define THREADS 256
#define SHARED_BYTES (40u << 10) /* within the default 48 KiB: no opt-in */

/* sorted_xs is d x n (structure of arrays, cluster order); offsets[c] is the first sorted point of cluster c. */
__global__ static void silhouette_values(const double *sorted_xs, size_t n, size_t d, const uint32_t *sorted_cluster,
                                         const uint32_t *offsets, const double *sizes, size_t clusters,
                                         uint32_t tile, double *sorted_values)
{
    extern __shared__ double staged[]; /* d x tile */
    size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    int active = p < n;
    uint32_t own_cluster = active ? sorted_cluster[p] : 0;
    double own_total = 0.0, nearest = (double)INFINITY;
    for (size_t c = 0; c < clusters; c++) {
        double total = 0.0;
        for (uint32_t base = offsets[c]; base < offsets[c + 1]; base += tile) {
            uint32_t count = offsets[c + 1] - base < tile ? offsets[c + 1] - base : tile;
            for (uint32_t i = threadIdx.x; i < count * d; i += blockDim.x)
                staged[(i / count) * tile + i % count] = sorted_xs[(i / count) * n + base + i % count];
            __syncthreads();
            for (uint32_t j = 0; active && j < count; j++) {
                double sum = 0.0;
                for (size_t k = 0; k < d; k++) {
                    double difference = __dsub_rn(sorted_xs[k * n + p], staged[k * tile + j]);
                    sum = __dadd_rn(sum, __dmul_rn(difference, difference));
                }
                total = __dadd_rn(total, __dsqrt_rn(sum));
            }
            __syncthreads();
        }
        if (c == own_cluster) own_total = total;
        else if (__ddiv_rn(total, sizes[c]) < nearest) nearest = __ddiv_rn(total, sizes[c]);
    }
    if (!active) return;
    if (sizes[own_cluster] <= 1) {
        sorted_values[p] = 0.0;
    } else {
        double own = __ddiv_rn(own_total, __dsub_rn(sizes[own_cluster], 1.0));
        double larger = own > nearest ? own : nearest; /* 0: both 0, the value is 0 (spatial.c: silhouette_value) */
        sorted_values[p] = larger > 0 ? __ddiv_rn(__dsub_rn(nearest, own), larger) : 0.0;
    }
}

/* Host-side layout: stable order by cluster, cluster offsets, points d x n in that order. */
typedef struct sorted_input {
    uint32_t *order, *offsets, *sorted_cluster;
    double *sorted_xs;
} sorted_input;

static int sort_by_cluster(const double *xs, size_t n, size_t d, const uint32_t *cluster, size_t clusters,
                           sorted_input *in)
{
    in->order = (uint32_t *)malloc((n + 1) * sizeof(uint32_t));
    in->offsets = (uint32_t *)calloc(clusters + 1, sizeof(uint32_t));
    in->sorted_cluster = (uint32_t *)malloc((n + 1) * sizeof(uint32_t));
    in->sorted_xs = (double *)malloc((n * d + 1) * sizeof(double));
    if (!in->order || !in->offsets || !in->sorted_cluster || !in->sorted_xs) return 0;
    for (size_t i = 0; i < n; i++) in->offsets[cluster[i] + 1]++;
    for (size_t c = 0; c < clusters; c++) in->offsets[c + 1] += in->offsets[c];
    {
        uint32_t *next = (uint32_t *)malloc((clusters + 1) * sizeof(uint32_t));
        if (!next) return 0;
        memcpy(next, in->offsets, (clusters + 1) * sizeof(uint32_t));
        for (size_t i = 0; i < n; i++) in->order[next[cluster[i]]++] = (uint32_t)i;
        free(next);
    }
    for (size_t s = 0; s < n; s++) {
        in->sorted_cluster[s] = cluster[in->order[s]];
        for (size_t k = 0; k < d; k++) in->sorted_xs[k * n + s] = xs[(size_t)in->order[s] * d + k];
    }
    return 1;
}

static void free_sorted(sorted_input *in)
{
    free(in->order);
    free(in->offsets);
    free(in->sorted_cluster);
    free(in->sorted_xs);
}

/* Device copies, the kernel, the values back in point order. */
static parac_status run_on_device(parac_cuda_context *context, const sorted_input *in, size_t n, size_t d,
                                  size_t clusters, const double *sizes, uint32_t tile, double *values,
                                  parac_error *error)
{
    parac_status status = PARAC_OK;
    double *device_xs = NULL, *device_sizes = NULL, *device_values = NULL, *sorted_values = NULL;
    uint32_t *device_cluster = NULL, *device_offsets = NULL;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&device_xs, n * d * sizeof(double), error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&device_cluster, n * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&device_offsets, (clusters + 1) * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&device_sizes, clusters * sizeof(double), error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&device_values, n * sizeof(double), error));
    PARAC_TRY(parac_cuda_upload(context, device_xs, in->sorted_xs, n * d * sizeof(double), error));
    PARAC_TRY(parac_cuda_upload(context, device_cluster, in->sorted_cluster, n * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_upload(context, device_offsets, in->offsets, (clusters + 1) * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_upload(context, device_sizes, sizes, clusters * sizeof(double), error));
    PARAC_TRY(parac_cuda_launch_items_shared(silhouette_values, n, THREADS, tile * d * sizeof(double),
                                             (cudaStream_t)context->stream, error, device_xs, n, d, device_cluster,
                                             device_offsets, device_sizes, clusters, tile, device_values));
    sorted_values = (double *)malloc(n * sizeof(double));
    if (!sorted_values) {
        status = parac_fail_no_memory(error, "silhouette values", n * sizeof(double));
        goto fail;
    }
    PARAC_TRY(parac_cuda_download(context, sorted_values, device_values, n * sizeof(double), error));
    for (size_t s = 0; s < n; s++) values[in->order[s]] = sorted_values[s];
fail:
    free(sorted_values);
    parac_cuda_free(context, device_xs);
    parac_cuda_free(context, device_cluster);
    parac_cuda_free(context, device_offsets);
    parac_cuda_free(context, device_sizes);
    parac_cuda_free(context, device_values);
    return status;
}

extern "C" parac_status metrics_silhouette_cuda(const double *xs, size_t n, size_t d, const uint32_t *cluster,
                                                size_t clusters, const double *sizes, int ordinal, double *values,
                                                parac_error *error)
{
    parac_cuda_context context;
    sorted_input in;
    parac_status status;
    size_t tile = SHARED_BYTES / (d * sizeof(double));
    if (tile > THREADS) tile = THREADS;
    if (tile == 0 || n >= UINT32_MAX)
        return parac_fail(error, PARAC_ERR_NO_MEMORY, "silhouette: d = %zu or n = %zu too large for the GPU tiles", d,
                          n);
    memset(&in, 0, sizeof in);
    if (!sort_by_cluster(xs, n, d, cluster, clusters, &in)) {
        free_sorted(&in);
        return parac_fail_no_memory(error, "silhouette GPU input", n * d * sizeof(double));
    }
    status = parac_cuda_context_create(ordinal, &context, error);
    if (status == PARAC_OK) {
        status = run_on_device(&context, &in, n, d, clusters, sizes, (uint32_t)tile, values, error);
        parac_cuda_context_destroy(&context);
    }
    free_sorted(&in);
    return status;
}
