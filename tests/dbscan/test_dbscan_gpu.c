/* tests/dbscan/test_dbscan_gpu.c — the CUDA path gives the CPU path's bytes.
 *
 * Fresh random inputs every run (the seed is printed; PARAC_TEST_SEED=S
 * replays one): blobs 2-D/3-D up to 2 M points, uniform 1-D..8-D, lattice
 * ties at exactly eps, duplicates, all noise, one giant cluster, d = 12
 * (brute force), n = 0 and 1, float32 input, slabs (2, 3, 7 forced, and a
 * small max_device_bytes). Labels, core mask and counts
 * must be identical, and the run must really have used the GPU. Every GPU
 * variant (auto, classic, table, coarse, table-fused, coarse-fused, sparse) is
 * checked against the one CPU run; sparse also on every slab shape and min_samples 1, 3, 5, 4, 10.
 * Quick mode (PARAC_TEST_QUICK=1, docs/GPU.md): the same cases and variants on 1/10-1/100 of the
 * points, eps scaled so that each case keeps its mix of core, border and noise points.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parac/dbscan.h>
#include <parac/points.h>

#include "core/rng.h"
#include "test_util.h"

static uint64_t base_seed;

typedef struct outcome {
    int32_t *labels;
    uint8_t *core;
    parac_dbscan_info info;
    int status;
} outcome;

static outcome run(const double *xs, const float *narrow, size_t n, size_t d, double eps, size_t min_samples,
                   parac_dbscan_method method, parac_device device, parac_dbscan_gpu_variant variant)
{
    outcome result;
    parac_dbscan_options options;
    parac_error error;
    memset(&options, 0, sizeof options);
    memset(&result.info, 0, sizeof result.info);
    options.eps = eps;
    options.min_samples = min_samples;
    options.method = method;
    options.exec.device = device;
    options.gpu_variant = variant;
    result.labels = malloc((n + 1) * sizeof(int32_t));
    result.core = malloc(n + 1);
    result.status = narrow ? parac_dbscan_run_f32(&options, narrow, n, d, result.labels, result.core, &result.info,
                                                  &error)
                           : parac_dbscan_run(&options, xs, n, d, result.labels, result.core, &result.info, &error);
    if (result.status) printf("  dbscan (%s) failed: %s\n", parac_device_name(device), error.message);
    return result;
}

static void release(outcome *result)
{
    free(result->labels);
    free(result->core);
}

/* One GPU variant against the CPU's outcome: labels, core mask and counts byte for byte. */
static void compare_variant(const char *name, const outcome *cpu, const double *xs, const float *narrow, size_t n,
                            size_t d, double eps, size_t min_samples, parac_dbscan_method method,
                            parac_dbscan_gpu_variant variant)
{
    const char *asked = parac_dbscan_gpu_variant_name(variant);
    outcome gpu = run(xs, narrow, n, d, eps, min_samples, method, PARAC_DEVICE_CUDA, variant);
    int same = cpu->status == 0 && gpu.status == 0 && memcmp(cpu->labels, gpu.labels, n * sizeof(int32_t)) == 0 &&
               memcmp(cpu->core, gpu.core, n) == 0;
    CHECK(same, "%s [%s]: n=%zu d=%zu eps=%g min=%zu %s: GPU labels/core differ from the CPU's", name, asked, n, d,
          eps, min_samples, narrow ? "float32" : "float64");
    CHECK(cpu->info.clusters == gpu.info.clusters && cpu->info.core == gpu.info.core &&
              cpu->info.noise == gpu.info.noise && cpu->info.border == gpu.info.border,
          "%s [%s]: counts differ: clusters %zu/%zu core %zu/%zu noise %zu/%zu", name, asked, cpu->info.clusters,
          gpu.info.clusters, cpu->info.core, gpu.info.core, cpu->info.noise, gpu.info.noise);
    CHECK(gpu.info.device == PARAC_DEVICE_CUDA && !gpu.info.gpu_fallback, "%s [%s]: ran on %s (fallback %d)", name,
          asked, parac_device_name(gpu.info.device), gpu.info.gpu_fallback);
    if (n > 0) {
        CHECK(gpu.info.device_bytes > 0, "%s [%s]: device bytes reported", name, asked);
        int honoured = variant == PARAC_DBSCAN_GPU_AUTO || gpu.info.gpu_variant == variant ||
                       gpu.info.method != PARAC_DBSCAN_GRID;
        CHECK(honoured, "%s: asked for %s, ran %s", name, asked, parac_dbscan_gpu_variant_name(gpu.info.gpu_variant));
    }
    printf("  %-12s n=%-8zu d=%-2zu eps=%-8g min=%-3zu clusters=%-6zu core=%-8zu noise=%-8zu gpu[%s->%s%s] %.4f s "
           "(%.1f B/point) cpu %.4f s\n",
           name, n, d, eps, min_samples, gpu.info.clusters, gpu.info.core, gpu.info.noise, asked,
           parac_dbscan_gpu_variant_name(gpu.info.gpu_variant), gpu.info.gpu_key_table ? ",table" : "",
           gpu.info.seconds_total, n ? (double)gpu.info.device_bytes / (double)n : 0.0, cpu->info.seconds_total);
    release(&gpu);
}

/* GPU (every variant) and CPU on the same points (float32 when narrow != NULL) must agree byte for byte. */
static void compare(const char *name, const double *xs, const float *narrow, size_t n, size_t d, double eps,
                    size_t min_samples, parac_dbscan_method method)
{
    outcome cpu = run(xs, narrow, n, d, eps, min_samples, method, PARAC_DEVICE_CPU, PARAC_DBSCAN_GPU_AUTO);
    for (int v = PARAC_DBSCAN_GPU_AUTO; v <= PARAC_DBSCAN_GPU_VARIANT_LAST; v++)
        if (v != PARAC_DBSCAN_GPU_REMOVED_COARSE_LISTED) /* moved to dev/dbscan/ */
            compare_variant(name, &cpu, xs, narrow, n, d, eps, min_samples, method, (parac_dbscan_gpu_variant)v);
    release(&cpu);
}

static double *generate(parac_points_kind kind, size_t n, size_t d, size_t centers, double std, uint64_t seed)
{
    parac_points_options options;
    parac_error error;
    double *xs = malloc((n * d + 1) * sizeof(double));
    memset(&options, 0, sizeof options);
    options.kind = kind;
    options.count = n;
    options.dim = d;
    options.seed = base_seed + seed;
    options.centers = centers;
    options.std = std;
    CHECK_OK(parac_points_generate(&options, xs, NULL, &error), &error);
    return xs;
}

static float *narrowed(const double *xs, size_t count)
{
    float *narrow = malloc((count + 1) * sizeof(float));
    for (size_t i = 0; i < count; i++) narrow[i] = (float)xs[i];
    return narrow;
}

static void test_blobs(void)
{
    const size_t sizes[] = {1000, test_full_or_quick(100000, 4000), test_full_or_quick(2000000, 20000)};
    for (size_t d = 2; d <= 3; d++)
        for (int s = 0; s < 3; s++) {
            double *xs = generate(PARAC_POINTS_BLOBS, sizes[s], d, 20, 0.5, 10 * d + (uint64_t)s);
            compare("blobs", xs, NULL, sizes[s], d, s == 2 ? 0.05 : 0.3, 10, PARAC_DBSCAN_AUTO);
            if (s == 1) {
                float *narrow = narrowed(xs, sizes[s] * d);
                compare("blobs-f32", NULL, narrow, sizes[s], d, 0.2, 5, PARAC_DBSCAN_AUTO);
                free(narrow);
            }
            free(xs);
        }
}

static void test_uniform(void)
{
    for (size_t d = 1; d <= 8; d++) {
        size_t n = test_full_or_quick(50000, 2000);
        double *xs = generate(PARAC_POINTS_UNIFORM, n, d, 0, 0, 100 + d);
        /* eps near the typical nearest-neighbour distance: a mix of core, border and noise. */
        double eps = 1.2 * pow(1.0 / (double)n, 1.0 / (double)d) * sqrt((double)d) / 2.0;
        compare("uniform", xs, NULL, n, d, eps, 4, PARAC_DBSCAN_AUTO);
        compare("uniform-min1", xs, NULL, n, d, eps, 1, PARAC_DBSCAN_GRID);
        free(xs);
    }
    {
        size_t n = test_full_or_quick(3000000, 30000);
        double *xs = generate(PARAC_POINTS_UNIFORM, n, 3, 0, 0, 7);
        float *narrow = narrowed(xs, n * 3);
        /* eps 0.01 at 3 M points; the same expected neighbour count at fewer */
        compare("uniform-f32", NULL, narrow, n, 3, 0.01 * cbrt(3000000.0 / (double)n), 5, PARAC_DBSCAN_AUTO);
        free(narrow);
        free(xs);
    }
}

/* Coordinates on a 1/4 lattice: many pairs at exactly eps. */
static void test_lattice_ties(void)
{
    parac_rng rng;
    parac_rng_seed(&rng, base_seed + 300);
    for (size_t d = 2; d <= 3; d++) {
        size_t n = test_full_or_quick(40000, 2000);
        /* lattice steps per axis: quick mode keeps the points per lattice cell about the same */
        uint64_t steps = d == 2 ? test_full_or_quick(400, 90) : test_full_or_quick(80, 30);
        double *xs = malloc(n * d * sizeof(double));
        for (size_t i = 0; i < n * d; i++) xs[i] = (double)parac_rng_below(&rng, steps) / 4.0;
        compare("lattice", xs, NULL, n, d, 0.25, 3, PARAC_DBSCAN_GRID);
        compare("lattice", xs, NULL, n, d, 0.5, 6, PARAC_DBSCAN_GRID);
        compare("lattice", xs, NULL, n, d, sqrt(0.125), 4, PARAC_DBSCAN_GRID);
        free(xs);
    }
}

static void test_special_inputs(void)
{
    size_t n = test_full_or_quick(20000, 2000), d = 2;
    double *xs = malloc(n * 12 * sizeof(double));
    parac_rng rng;
    parac_rng_seed(&rng, base_seed + 400);
    for (size_t i = 0; i < n * d; i++) xs[i] = (double)(i / d % 7); /* 7 distinct points, many copies */
    compare("duplicates", xs, NULL, n, d, 1e-9, 100, PARAC_DBSCAN_AUTO);
    compare("duplicates", xs, NULL, n, d, 1.0, 5000, PARAC_DBSCAN_AUTO);
    for (size_t i = 0; i < n * d; i++) xs[i] = (double)i * 10.0;
    compare("all-noise", xs, NULL, n, d, 1.0, 2, PARAC_DBSCAN_AUTO);
    for (size_t i = 0; i < n * d; i++) xs[i] = parac_rng_uniform(&rng);
    compare("giant", xs, NULL, n, d, 10.0, 5, PARAC_DBSCAN_AUTO);
    compare("giant-cells", xs, NULL, n, d, 0.3, 5, PARAC_DBSCAN_AUTO);
    compare("n=1", xs, NULL, 1, d, 0.3, 1, PARAC_DBSCAN_AUTO);
    compare("n=1", xs, NULL, 1, d, 0.3, 2, PARAC_DBSCAN_AUTO);
    compare("n=0", xs, NULL, 0, d, 0.3, 2, PARAC_DBSCAN_AUTO);
    free(xs);
}

/* d = 12: the brute-force path (one cell), and the grid forced on the same points. */
static void test_high_dimension(void)
{
    const size_t sizes[] = {test_full_or_quick(3000, 500), test_full_or_quick(30000, 1500)};
    for (int s = 0; s < 2; s++) {
        size_t n = sizes[s], d = 12;
        double *xs = generate(PARAC_POINTS_BLOBS, n, d, 8, 1.0, 500 + (uint64_t)s);
        compare("d12-brute", xs, NULL, n, d, 3.5, 8, PARAC_DBSCAN_AUTO);
        compare("d12-grid", xs, NULL, n, d, 3.5, 8, PARAC_DBSCAN_GRID);
        free(xs);
    }
}

/* Slabs: forced counts (2, 3, 7) and a small max_device_bytes give the CPU's bytes. */
static void compare_slabs(const char *name, const double *xs, const float *narrow, size_t n, size_t d, double eps,
                          size_t min_samples, size_t slabs, size_t max_bytes, parac_dbscan_gpu_variant variant)
{
    outcome cpu = run(xs, narrow, n, d, eps, min_samples, PARAC_DBSCAN_AUTO, PARAC_DEVICE_CPU, PARAC_DBSCAN_GPU_AUTO);
    parac_dbscan_options options;
    parac_dbscan_info info;
    parac_error error;
    int32_t *labels = malloc((n + 1) * sizeof(int32_t));
    uint8_t *core = malloc(n + 1);
    int status;
    memset(&options, 0, sizeof options);
    memset(&info, 0, sizeof info);
    options.eps = eps;
    options.min_samples = min_samples;
    options.exec.device = PARAC_DEVICE_CUDA;
    options.gpu_variant = variant;
    options.min_gpu_slabs = slabs;
    options.max_device_bytes = max_bytes;
    status = narrow ? parac_dbscan_run_f32(&options, narrow, n, d, labels, core, &info, &error)
                    : parac_dbscan_run(&options, xs, n, d, labels, core, &info, &error);
    if (status) printf("  dbscan slabs failed: %s\n", error.message);
    CHECK(status == 0 && cpu.status == 0 && memcmp(labels, cpu.labels, n * sizeof(int32_t)) == 0 &&
              memcmp(core, cpu.core, n) == 0 && info.clusters == cpu.info.clusters && info.core == cpu.info.core &&
              info.noise == cpu.info.noise,
          "%s [%s] n=%zu d=%zu: %zu slabs (asked %zu, max bytes %zu): GPU labels/core differ from the CPU's", name,
          parac_dbscan_gpu_variant_name(variant), n, d, info.gpu_slabs, slabs, max_bytes);
    CHECK(info.device == PARAC_DEVICE_CUDA && !info.gpu_fallback && info.gpu_slabs >= (slabs > 1 ? slabs : 2),
          "%s: ran on %s, %zu slabs (asked %zu, max bytes %zu)", name, parac_device_name(info.device), info.gpu_slabs,
          slabs, max_bytes);
    printf("  %-12s n=%-8zu d=%zu slabs %zu (asked %zu, max %zu B) %.4f s, %.1f device B/point\n", name, n, d,
           info.gpu_slabs, slabs, max_bytes, info.seconds_total, (double)info.device_bytes / (double)n);
    free(labels);
    free(core);
    release(&cpu);
}

static void test_slabs(void)
{
    const size_t forced[] = {2, 3, 7};
    for (size_t d = 1; d <= 3; d++) {
        size_t n = test_full_or_quick(200000, 20000);
        double *uniform = generate(PARAC_POINTS_UNIFORM, n, d, 1, 1.0, 700 + d);
        double *blobs = generate(PARAC_POINTS_BLOBS, n, d, 20, 0.5, 710 + d);
        float *narrow = narrowed(blobs, n * d);
        /* the eps of 200,000 points, widened at fewer so that the expected neighbour count stays */
        double eps = (d == 1 ? 1e-5 : d == 2 ? 0.003 : 0.02) * pow(200000.0 / (double)n, 1.0 / (double)d);
        for (int f = 0; f < 3; f++) {
            compare_slabs("slab-uniform", uniform, NULL, n, d, eps, 5, forced[f], 0, PARAC_DBSCAN_GPU_AUTO);
            compare_slabs("slab-blobs", blobs, NULL, n, d, 0.1, 10, forced[f], 0,
                          (parac_dbscan_gpu_variant)(PARAC_DBSCAN_GPU_CLASSIC + f));
            compare_slabs("slab-f32", NULL, narrow, n, d, 0.1, 4, forced[f], 0, PARAC_DBSCAN_GPU_COARSE_FUSED);
            compare_slabs("slab-fused", uniform, NULL, n, d, eps, 3, forced[f], 0,
                          f == 1 ? PARAC_DBSCAN_GPU_COARSE_FUSED : PARAC_DBSCAN_GPU_TABLE_FUSED);
        compare_slabs("slab-sparse", uniform, NULL, n, d, eps, 1 + 2 * (size_t)f, forced[f], 0,
                      PARAC_DBSCAN_GPU_SPARSE);
        compare_slabs("slab-sparse", blobs, NULL, n, d, 0.1, 10, forced[f], 0, PARAC_DBSCAN_GPU_SPARSE);
        compare_slabs("slab-sparse", NULL, narrow, n, d, 0.1, 4, forced[f], 0, PARAC_DBSCAN_GPU_SPARSE);
        }
        /* no forced count: a budget of ~1/4 of the need must slice by itself */
        compare_slabs("slab-budget", uniform, NULL, n, d, eps, 5, 0, n * 40, PARAC_DBSCAN_GPU_AUTO);
        compare_slabs("slab-budget", uniform, NULL, n, d, eps, 5, 0, n * 40, PARAC_DBSCAN_GPU_SPARSE);
        free(uniform);
        free(blobs);
        free(narrow);
    }
}

int main(void)
{
    const char *fixed = getenv("PARAC_TEST_SEED");
    if (test_require_gpu()) return 77;
    base_seed = fixed ? strtoull(fixed, NULL, 10) : (uint64_t)time(NULL);
    printf("seed %llu (replay with PARAC_TEST_SEED)\n", (unsigned long long)base_seed);
    test_special_inputs();
    test_lattice_ties();
    test_high_dimension();
    test_uniform();
    test_blobs();
    test_slabs();
    return test_finish("dbscan_gpu");
}
