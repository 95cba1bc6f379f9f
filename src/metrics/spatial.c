/* metrics/spatial.c — silhouette and Davies-Bouldin from the points (OpenMP).
 *
 * Silhouette is exact and O(n^2 d): each thread takes whole points and sums
 * the distances to every other point into per-cluster totals, so each
 * point's value does not depend on the thread count, and the final mean is
 * summed in point order. With exec.device = CUDA the values come from the
 * tiled GPU kernel (silhouette_cuda.cu), bit for bit the same.
 */
#include <parac/metrics.h>

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/device_choice.h"
#include "core/error.h"
#include "core/finite.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/threads.h"
#include "metrics/label_table.h"
#include <parac/devices.h>

#include "metrics/silhouette_cuda.h"

static parac_status check_points(const double *points, size_t count, size_t dim, parac_error *error)
{
    if (count == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "metrics: no points");
    if (dim == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "metrics: points have dimension 0");
    size_t bad = parac_first_non_finite(points, count * dim, 1);
    if (bad < count * dim)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "metrics: point %zu has a non-finite coordinate",
                          bad / dim);
    return PARAC_OK;
}

static parac_status check_cluster_count(size_t clusters, size_t count, parac_error *error)
{
    if (clusters < 2 || clusters > count - 1)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "metrics: %zu distinct labels for %zu points; need 2 to n-1", clusters, count);
    return PARAC_OK;
}

static double distance(const double *a, const double *b, size_t dim)
{
    double sum = 0.0;
    for (size_t k = 0; k < dim; k++) sum += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrt(sum);
}

/* Why the points may be scaled: squared differences of coordinates beyond
 * ~1e154 overflow (inf - inf then made the score NaN) and those of
 * coordinates below ~1e-154 underflow (every distance 0). Silhouette and
 * Davies-Bouldin are ratios of distances, so scaling all points by a power
 * of two (exact) changes neither; points whose largest |coordinate| lies
 * within 2^+-METRICS_SAFE_EXPONENT are used as they are, bit for bit. */
#define METRICS_SAFE_EXPONENT 400
#define METRICS_MAX_SCALE_EXPONENT 1000

static double magnitude_scale(const double *points, size_t values)
{
    double largest = 0.0;
    int exponent;
    for (size_t i = 0; i < values; i++) largest = fabs(points[i]) > largest ? fabs(points[i]) : largest;
    if (largest == 0.0) return 1.0;
    exponent = ilogb(largest);
    if (exponent >= -METRICS_SAFE_EXPONENT && exponent <= METRICS_SAFE_EXPONENT) return 1.0;
    if (exponent < -METRICS_MAX_SCALE_EXPONENT) exponent = -METRICS_MAX_SCALE_EXPONENT; /* subnormal */
    return ldexp(1.0, -exponent);
}

/* The points to measure: *scaled_copy (to free) when they needed scaling, else the points themselves. */
static parac_status measurable_points(const double *points, size_t values, const double **use, double **scaled_copy,
                                      parac_error *error)
{
    double scale = magnitude_scale(points, values);
    *use = points;
    *scaled_copy = NULL;
    if (scale == 1.0) return PARAC_OK;
    if (!(*scaled_copy = malloc(values * sizeof(double))))
        return parac_fail_no_memory(error, "scaled points", (unsigned long long)values * sizeof(double));
    for (size_t i = 0; i < values; i++) (*scaled_copy)[i] = points[i] * scale;
    *use = *scaled_copy;
    return PARAC_OK;
}

/* (b - a) / max(a, b); 0 when both are 0 (every point of the two nearest
 * clusters at one spot), as sklearn's nan_to_num makes it. */
static double silhouette_value(double own, double nearest)
{
    double larger = own > nearest ? own : nearest;
    return larger > 0 ? (nearest - own) / larger : 0.0;
}

static double point_silhouette(const double *xs, size_t n, size_t d, const uint32_t *cluster, const double *sizes,
                               size_t clusters, size_t i, double *totals)
{
    double own, nearest = INFINITY;
    memset(totals, 0, clusters * sizeof(double));
    for (size_t j = 0; j < n; j++) totals[cluster[j]] += distance(xs + i * d, xs + j * d, d);
    if (sizes[cluster[i]] <= 1) return 0.0;
    own = totals[cluster[i]] / (sizes[cluster[i]] - 1);
    for (size_t c = 0; c < clusters; c++)
        if (c != cluster[i] && totals[c] / sizes[c] < nearest) nearest = totals[c] / sizes[c];
    return silhouette_value(own, nearest);
}

/* values[i] for every point on the GPU; PARAC_ERR_NO_MEMORY there means "use the CPU". */
static parac_status gpu_values(const double *xs, size_t n, size_t d, const uint32_t *cluster, size_t clusters,
                               const double *sizes, const parac_exec *exec, double *values, parac_error *error)
{
#ifdef PARAC_HAVE_CUDA
    parac_status status = metrics_silhouette_cuda(xs, n, d, cluster, clusters, sizes, exec->cuda_device, values, error);
    if (status == PARAC_ERR_NO_MEMORY) parac_error_clear(error);
    return status;
#else
    (void)xs, (void)n, (void)d, (void)cluster, (void)clusters, (void)sizes, (void)exec, (void)values;
    return parac_fail(error, PARAC_ERR_NO_DEVICE, "silhouette: this build has no CUDA support");
#endif
}

/* The O(n^2 d) loop on the CPU: per-thread totals taken before the region
 * (sized from the resolved thread count), every thread counting its points on
 * the progress gate and skipping its remaining points once the callback asked
 * to stop. */
static parac_status cpu_values(const double *xs, size_t n, size_t d, const uint32_t *cluster, size_t clusters,
                               const double *sizes, const parac_exec *exec, double *values, parac_error *error)
{
    int threads = parac_threads_resolve(exec->threads);
    double *totals;
    parac_progress_gate progress;
    parac_progress_gate_init(&progress, exec, n);
    if (parac_progress_gate_report_now(&progress)) return parac_fail(error, PARAC_ERR_CANCELLED, "silhouette: cancelled");
    totals = malloc((size_t)threads * clusters * sizeof(double));
    if (!totals)
        return parac_fail_no_memory(error, "silhouette cluster totals",
                                    (unsigned long long)threads * clusters * sizeof(double));
#pragma omp parallel num_threads(threads)
    {
        double *own_totals = totals + (size_t)omp_get_thread_num() * clusters;
#pragma omp for schedule(dynamic, 8)
        for (size_t i = 0; i < n; i++) {
            if (parac_progress_gate_cancelled(&progress)) continue;
            values[i] = point_silhouette(xs, n, d, cluster, sizes, clusters, i, own_totals);
            parac_progress_gate_add(&progress, 1);
        }
    }
    free(totals);
    if (parac_progress_gate_finish(&progress)) return parac_fail(error, PARAC_ERR_CANCELLED, "silhouette: cancelled");
    return PARAC_OK;
}

/* AUTO takes the GPU when the n^2 pair loop is worth a CUDA start-up: the cost model
 * (core/device_choice.c; measured on the H200: 32x the 16-core CPU at n = 50,000; identical
 * bits either way). */
static parac_status silhouette_device(const parac_exec *exec, size_t n, size_t d, parac_device *device,
                                      parac_error *error)
{
    parac_workload work = {PARAC_WORKLOAD_SILHOUETTE, (double)n * (double)n * (double)d, (double)n * (double)d * 8.0};
    return parac_choose_device(exec, &work, device, error);
}

/* The mean of the values, in point order. Every value is finite by
 * construction (finite scaled points, a 0/0 case handled); a NaN would be a
 * bug, reported as one rather than as a memory failure. */
static parac_status mean_value(const double *values, size_t n, double *score, parac_error *error)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(values[i]))
            return parac_fail(error, PARAC_ERR_INTERNAL, "silhouette: the value of point %zu is NaN", i);
        sum += values[i];
    }
    *score = sum / (double)n;
    return PARAC_OK;
}

static parac_status silhouette_of(const double *points, size_t n, size_t d, const int32_t *labels,
                                  const parac_exec *exec, double *score, parac_error *error)
{
    uint32_t *cluster = malloc((n + 1) * sizeof(uint32_t));
    double *values = malloc((n + 1) * sizeof(double)), *sizes = NULL, *scaled = NULL;
    const double *xs = points;
    size_t clusters = 0;
    parac_device device = PARAC_DEVICE_CPU;
    parac_status status;
    if (!cluster || !values) {
        status = parac_fail_no_memory(error, "silhouette", (unsigned long long)n * 12);
        goto done;
    }
    if ((status = metrics_dense_labels(labels, n, cluster, &clusters, error)) != PARAC_OK) goto done;
    if ((status = check_cluster_count(clusters, n, error)) != PARAC_OK) goto done;
    if (!(sizes = calloc(clusters, sizeof(double)))) {
        status = parac_fail_no_memory(error, "silhouette cluster sizes", clusters * sizeof(double));
        goto done;
    }
    for (size_t i = 0; i < n; i++) sizes[cluster[i]] += 1;
    if ((status = measurable_points(points, n * d, &xs, &scaled, error)) != PARAC_OK) goto done;
    if ((status = silhouette_device(exec, n, d, &device, error)) != PARAC_OK) goto done;
    status = device == PARAC_DEVICE_CUDA ? gpu_values(xs, n, d, cluster, clusters, sizes, exec, values, error)
                                         : PARAC_ERR_NO_MEMORY;
    if (status == PARAC_ERR_NO_MEMORY) /* CPU asked for, or the GPU too small: the same values */
        status = cpu_values(xs, n, d, cluster, clusters, sizes, exec, values, error);
    if (status == PARAC_OK) status = mean_value(values, n, score, error);
done:
    free(cluster);
    free(values);
    free(sizes);
    free(scaled);
    return status;
}

parac_status parac_metrics_silhouette(const parac_silhouette_options *options, const double *points, size_t count,
                                      size_t dim, const int32_t *labels, double *score, parac_error *error)
{
    size_t sample = options->sample;
    parac_status status = check_points(points, count, dim, error);
    double *xs;
    int32_t *picked_labels;
    size_t *pick;
    parac_rng rng;
    if (status != PARAC_OK) return status;
    if (sample == 0 || sample >= count) return silhouette_of(points, count, dim, labels, &options->exec, score, error);
    /* A random subset without replacement (partial Fisher-Yates), in index order. */
    pick = malloc(count * sizeof(size_t));
    xs = malloc(sample * dim * sizeof(double));
    picked_labels = malloc(sample * sizeof(int32_t));
    if (pick && xs && picked_labels) {
        parac_rng_seed(&rng, options->seed);
        for (size_t i = 0; i < count; i++) pick[i] = i;
        for (size_t i = 0; i < sample; i++) {
            size_t j = i + (size_t)parac_rng_below(&rng, count - i), kept = pick[j];
            pick[j] = pick[i];
            pick[i] = kept;
        }
        for (size_t i = 0; i < sample; i++) {
            memcpy(xs + i * dim, points + pick[i] * dim, dim * sizeof(double));
            picked_labels[i] = labels[pick[i]];
        }
        status = silhouette_of(xs, sample, dim, picked_labels, &options->exec, score, error);
    } else {
        status = parac_fail_no_memory(error, "silhouette sample", count * 8);
    }
    free(pick);
    free(xs);
    free(picked_labels);
    return status;
}

static parac_status centroids_and_scatter(const double *points, size_t n, size_t d, const uint32_t *cluster,
                                          size_t clusters, double *centroids, double *scatter, parac_error *error)
{
    double *sizes = calloc(clusters, sizeof(double));
    if (!sizes) return parac_fail_no_memory(error, "Davies-Bouldin cluster sizes", clusters * sizeof(double));
    memset(centroids, 0, clusters * d * sizeof(double));
    memset(scatter, 0, clusters * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        sizes[cluster[i]] += 1;
        for (size_t k = 0; k < d; k++) centroids[cluster[i] * d + k] += points[i * d + k];
    }
    for (size_t c = 0; c < clusters; c++)
        for (size_t k = 0; k < d; k++) centroids[c * d + k] /= sizes[c];
    for (size_t i = 0; i < n; i++) scatter[cluster[i]] += distance(points + i * d, centroids + cluster[i] * d, d);
    for (size_t c = 0; c < clusters; c++) scatter[c] /= sizes[c];
    free(sizes);
    return PARAC_OK;
}

parac_status parac_metrics_davies_bouldin(const double *points, size_t count, size_t dim, const int32_t *labels,
                                          int threads, double *score, parac_error *error)
{
    uint32_t *cluster = NULL;
    double *centroids = NULL, *scatter = NULL, *scaled = NULL, total = 0.0;
    const double *xs = points;
    size_t clusters = 0;
    parac_status status = check_points(points, count, dim, error);
    (void)threads;
    if (status != PARAC_OK) return status;
    if (!(cluster = malloc((count + 1) * sizeof(uint32_t)))) {
        status = parac_fail_no_memory(error, "Davies-Bouldin labels", (unsigned long long)count * 4);
        goto done;
    }
    status = metrics_dense_labels(labels, count, cluster, &clusters, error);
    if (status == PARAC_OK) status = check_cluster_count(clusters, count, error);
    if (status == PARAC_OK) status = measurable_points(points, count * dim, &xs, &scaled, error);
    if (status != PARAC_OK) goto done;
    centroids = malloc(clusters * dim * sizeof(double));
    scatter = malloc(clusters * sizeof(double));
    if (!centroids || !scatter) {
        status = parac_fail_no_memory(error, "Davies-Bouldin", clusters * dim * 8);
        goto done;
    }
    if ((status = centroids_and_scatter(xs, count, dim, cluster, clusters, centroids, scatter, error)) != PARAC_OK)
        goto done;
    /* As sklearn: a zero centroid distance counts as infinite (ratio 0). */
    for (size_t i = 0; i < clusters; i++) {
        double worst = 0.0;
        for (size_t j = 0; j < clusters; j++) {
            double separation = distance(centroids + i * dim, centroids + j * dim, dim);
            if (j == i || separation == 0) continue;
            if ((scatter[i] + scatter[j]) / separation > worst) worst = (scatter[i] + scatter[j]) / separation;
        }
        total += worst;
    }
    *score = total / (double)clusters;
done:
    free(cluster);
    free(centroids);
    free(scatter);
    free(scaled);
    return status;
}
