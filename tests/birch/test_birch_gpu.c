/* tests/birch/test_birch_gpu.c — the CUDA path gives the same bytes as the CPU's
 * batched path (subclusters, cluster of each subcluster, labels) on fresh random
 * inputs of several shapes, for every variant, including one with enough
 * subclusters for the GPU Ward step; the speculative variants on the GPU (with
 * the in-order and the parallel commit) equal the serial CPU path; quality against the serial path stays within bounds. */
#include <stdlib.h>
#include <string.h>

#include <parac/birch.h>

#include "core/rng.h"
#include "support_birch.h"
#include "test_util.h"

static parac_birch_options make_options(double threshold, int branching, int clusters, size_t batch, parac_device device)
{
    parac_birch_options options;
    parac_birch_options_init(&options);
    options.threshold = threshold, options.branching_factor = branching, options.n_clusters = clusters;
    options.batch_size = batch, options.exec.device = device;
    return options;
}

static void compare_one(const char *name, const double *points, size_t n, size_t dims, double threshold,
                        int branching, int clusters, size_t batch, size_t chunk, parac_birch_variant variant,
                        size_t cpu_batch)
{
    parac_birch_options cpu = make_options(threshold, branching, clusters, cpu_batch, PARAC_DEVICE_CPU);
    parac_birch_options gpu = make_options(threshold, branching, clusters, batch, PARAC_DEVICE_CUDA);
    cpu.variant = gpu.variant = variant;
    int32_t *cpu_labels = malloc(n * sizeof(int32_t)), *gpu_labels = malloc(n * sizeof(int32_t));
    parac_birch *a = support_fit(&cpu, points, n, dims, chunk, cpu_labels);
    parac_birch *b = support_fit(&gpu, points, n, dims, chunk, gpu_labels);
    if (a && b) {
        size_t ma, mb;
        double *ca = support_subclusters(a, &ma), *cb = support_subclusters(b, &mb);
        int32_t *sa = malloc((ma + 1) * sizeof(int32_t)), *sb = malloc((mb + 1) * sizeof(int32_t));
        parac_error error;
        CHECK(parac_birch_device_used(b) == PARAC_DEVICE_CUDA, "%s: GPU model not on the GPU", name);
        CHECK(ma == mb, "%s: %zu subclusters on the CPU, %zu on the GPU", name, ma, mb);
        if (ma == mb) {
            CHECK(memcmp(ca, cb, ma * dims * sizeof(double)) == 0, "%s: subcluster centroids differ", name);
            CHECK_OK(parac_birch_subclusters(a, NULL, NULL, sa, &error), &error);
            CHECK_OK(parac_birch_subclusters(b, NULL, NULL, sb, &error), &error);
            CHECK(memcmp(sa, sb, ma * sizeof(int32_t)) == 0, "%s: Ward clusters of the subclusters differ", name);
        }
        CHECK(memcmp(cpu_labels, gpu_labels, n * sizeof(int32_t)) == 0, "%s: labels differ", name);
        printf("%s [%s, CPU batch %zu]: n=%zu d=%zu batch %zu: %zu subclusters, CPU and GPU %s\n", name,
               parac_birch_variant_name(variant), cpu_batch, n, dims, batch, ma,
               test_checks_failed ? "checked" : "identical");
        free(ca), free(cb), free(sa), free(sb);
    }
    parac_birch_destroy(a), parac_birch_destroy(b);
    free(cpu_labels), free(gpu_labels);
}

/* Every variant against the CPU with the same batch; the speculative GPU runs
 * (original and parallel commit) also against the serial CPU run (batch 0):
 * they must be the serial tree. */
static void compare_devices(const char *name, const double *points, size_t n, size_t dims, double threshold,
                            int branching, int clusters, size_t batch, size_t chunk)
{
    compare_one(name, points, n, dims, threshold, branching, clusters, batch, chunk, PARAC_BIRCH_SPECULATIVE, batch);
    compare_one(name, points, n, dims, threshold, branching, clusters, batch, chunk, PARAC_BIRCH_SPECULATIVE, 0);
    compare_one(name, points, n, dims, threshold, branching, clusters, batch, chunk, PARAC_BIRCH_SPECULATIVE_PARALLEL, 0);
    compare_one(name, points, n, dims, threshold, branching, clusters, batch, chunk, PARAC_BIRCH_SEGMENTED, batch);
}

static double *uniform_points(size_t n, size_t dims, uint64_t seed)
{
    parac_rng rng;
    double *points = malloc(n * dims * sizeof(double));
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < n * dims; i++) points[i] = parac_rng_uniform(&rng);
    return points;
}

static void check_quality(const char *name, const double *points, size_t n)
{
    parac_birch_options serial = make_options(0.3, 50, 20, 0, PARAC_DEVICE_CPU);
    parac_birch_options gpu = make_options(0.3, 50, 20, PARAC_BIRCH_DEFAULT_BATCH, PARAC_DEVICE_CUDA);
    int32_t *a_labels = malloc(n * sizeof(int32_t)), *b_labels = malloc(n * sizeof(int32_t));
    parac_birch *a = support_fit(&serial, points, n, 2, 0, a_labels), *b = support_fit(&gpu, points, n, 2, 0, b_labels);
    if (a && b) {
        double ratio = support_sse(points, n, 2, b_labels) / support_sse(points, n, 2, a_labels);
        double ari = support_ari(a_labels, b_labels, n);
        printf("GPU (default variant) vs serial on %s: SSE ratio %.4f, ARI %.4f\n", name, ratio, ari);
        CHECK(ratio <= 1.02 && ratio >= 0.98 && ari >= 0.95, "%s: GPU quality: SSE ratio %g, ARI %g", name, ratio, ari);
    }
    parac_birch_destroy(a), parac_birch_destroy(b);
    free(a_labels), free(b_labels);
}

int main(void)
{
    /* Quick mode (PARAC_TEST_QUICK=1, docs/GPU.md): a tenth of the points or fewer; the streamed fit still
     * takes several chunks, and the uniform case still leaves 2,425 subclusters (fixed seed), above
     * BIRCH_GPU_WARD_MIN (2,048), so the GPU Ward kernels run. */
    size_t blobs = test_full_or_quick(200000, 20000), chunk = test_full_or_quick(40960, 6000);
    size_t wide = test_full_or_quick(30000, 4000), uniform = test_full_or_quick(120000, 4000);
    size_t separated = test_full_or_quick(200000, 20000), overlapping = test_full_or_quick(300000, 30000);
    double *points;
    if (test_require_gpu()) return 77;
    points = support_blobs(blobs, 2, 20, 0.5, 101);
    compare_devices("blobs 2-D", points, blobs, 2, 0.3, 50, 20, 8192, 0);
    compare_devices("blobs 2-D streamed", points, blobs, 2, 0.3, 50, 20, 4096, chunk);
    free(points);
    points = support_blobs(wide, 7, 5, 1.0, 102);
    compare_devices("blobs 7-D, B=10", points, wide, 7, 1.2, 10, 5, 1000, 0);
    free(points);
    points = support_blobs(2500, 3, 3, 1.0, 103);
    compare_devices("small, one partial batch", points, 2500, 3, 0.5, 50, 3, 8192, 0);
    free(points);
    points = uniform_points(uniform, 2, 104);
    compare_devices("uniform, many subclusters (GPU Ward)", points, uniform, 2, test_quick() ? 0.006 : 0.008, 50, 12,
                    8192, 0);
    free(points);
    points = support_grid_blobs(separated, 2, 20, 0.5, 8.0, 105);
    check_quality("separated blobs", points, separated);
    free(points);
    points = support_blobs(overlapping, 2, 20, 0.5, 106);
    check_quality("overlapping blobs", points, overlapping);
    free(points);
    return test_finish("birch gpu");
}
