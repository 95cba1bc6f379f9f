/* dev/dbscan/01_coarse_listed.c — the GPU grid run on coarse cells (side ~eps, 3^g stencil) whose core pass also keeps each non-core point's first neighbours, so the border pass reads lists instead of walking the stencil. Superseded: 100 M uniform 3-D f32 (eps 0.002, min 5) 0.1110 s against sparse (auto) 0.0844 s and coarse 0.1178 s (docs/PERFORMANCE.md, run E, H200); auto never ran it once sparse came; removed from src/ (issue 20).
 *
 * It is a recipe, not a kernel: the same library phases (dbscan_cuda*.cu) combined differently,
 * {cells COARSE, lists kept, no fused union, no union pairs}: the fused variants' lists feed
 * coarse's border pass. SPARSE (round 5) keeps lists on the same cells and also reads the union's
 * pairs from them, which is what made this one redundant (docs/dbscan.md, rounds 4 and 5).
 *
 * Check, byte for byte (exit 1 on any difference): labels and core mask against the library's
 * CPU path (parac_dbscan_run_f32 on the CPU). Then the table: GPU seconds (index + core + union
 * + border + relabel; upload and download apart) of this recipe beside the library's auto, sparse and coarse on the
 * same points. Input: uniform 3-D float32 points in the unit cube, eps chosen so that every point
 * has the neighbours it has in run E's 100 M set (eps 0.002 x (100 M / n)^(1/3)), min_samples 5.
 * Arguments: --quick (1 M points; default 10 M). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include <parac/dbscan.h>

#include "core/progress.h"
#include "dbscan/dbscan_internal.h"

static const dbscan_gpu_recipe COARSE_LISTED = {PARAC_DBSCAN_GPU_COARSE, 0, 1, 0};

static void check(parac_status status, const parac_error *error, const char *what)
{
    if (status == PARAC_OK) return;
    fprintf(stderr, "%s: %s\n", what, error->message);
    exit(2);
}

static float *uniform_points(size_t n)
{
    float *points = malloc(n * 3 * sizeof(float));
    uint64_t state = 20261201;
    for (size_t i = 0; i < n * 3; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        points[i] = (float)((double)(state >> 40) / (double)(1ull << 24));
    }
    return points;
}

static void init_options(parac_dbscan_options *options, double eps, parac_device device,
                         parac_dbscan_gpu_variant variant)
{
    parac_dbscan_options_init(options);
    options->eps = eps;
    options->min_samples = 5;
    options->method = PARAC_DBSCAN_GRID;
    options->exec.device = device;
    options->gpu_variant = variant;
}

/* The recipe through the library's internal entry, as dbscan.c runs a variant. */
static parac_dbscan_info run_recipe(const float *points, size_t n, double eps, int32_t *labels, uint8_t *core)
{
    parac_dbscan_options options;
    parac_dbscan_info info;
    parac_progress_gate progress;
    parac_error error;
    dbscan_points input = {NULL, points, n, 3};
    memset(&info, 0, sizeof info);
    init_options(&options, eps, PARAC_DEVICE_CUDA, PARAC_DBSCAN_GPU_AUTO);
    parac_progress_gate_init(&progress, &options.exec, 1);
    check(dbscan_cuda_recipe(&input, &options, &COARSE_LISTED, 1, &progress, labels, core, &info, &error), &error,
          "coarse-listed recipe");
    return info;
}

static parac_dbscan_info run_library(const float *points, size_t n, double eps, parac_device device,
                                     parac_dbscan_gpu_variant variant, int32_t *labels, uint8_t *core)
{
    parac_dbscan_options options;
    parac_dbscan_info info;
    parac_error error;
    init_options(&options, eps, device, variant);
    check(parac_dbscan_run_f32(&options, points, n, 3, labels, core, &info, &error), &error, "library run");
    return info;
}

static int same(const int32_t *labels, const uint8_t *core, const int32_t *reference_labels,
                const uint8_t *reference_core, size_t n)
{
    return memcmp(labels, reference_labels, n * sizeof(int32_t)) == 0 && memcmp(core, reference_core, n) == 0;
}

static void row(const char *name, const parac_dbscan_info *info, int matches)
{
    double compute = info->seconds_index + info->seconds_core + info->seconds_union + info->seconds_border +
                     info->seconds_relabel; /* upload and download apart, as docs/dbscan.md reports */
    printf("| %-28s | %8.4f | %6.4f | %6.4f | %6.4f | %6.4f | %10zu | %s |\n", name, compute, info->seconds_index, info->seconds_core, info->seconds_union, info->seconds_border, info->clusters,
           matches ? "same bytes as the CPU path" : "MISMATCH against the CPU path");
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 1000000 : 10000000;
    double eps = 0.002 * cbrt(1e8 / (double)n);
    int devices = 0, failures = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("01_coarse_listed: skipped, no CUDA device\n");
        return 77;
    }
    float *points = uniform_points(n);
    int32_t *reference_labels = malloc(n * sizeof(int32_t)), *labels = malloc(n * sizeof(int32_t));
    uint8_t *reference_core = malloc(n), *core = malloc(n);
    static const struct {
        const char *name;
        parac_dbscan_gpu_variant variant;
    } LIBRARY[] = {{"library auto", PARAC_DBSCAN_GPU_AUTO},
                   {"library sparse", PARAC_DBSCAN_GPU_SPARSE},
                   {"library coarse", PARAC_DBSCAN_GPU_COARSE}};
    parac_dbscan_info info = run_library(points, n, eps, PARAC_DEVICE_CPU, PARAC_DBSCAN_GPU_AUTO, reference_labels,
                                         reference_core);
    printf("%zu uniform 3-D f32 points, eps %.5f, min_samples 5: %zu clusters, %zu core (CPU path, %.2f s)\n", n, eps,
           info.clusters, info.core, info.seconds_total);
    printf("| GPU run | compute s | index | core | union | border | clusters | check |\n|---|---|---|---|---|---|---|---|\n");
    for (int repeat = 0; repeat < 3; repeat++) { /* the first run of each pays its warm-up: print the third */
        info = run_recipe(points, n, eps, labels, core);
        if (repeat == 2) {
            int matches = same(labels, core, reference_labels, reference_core, n);
            failures += !matches;
            row("01_coarse_listed (recipe)", &info, matches);
        }
    }
    for (size_t v = 0; v < sizeof LIBRARY / sizeof LIBRARY[0]; v++)
        for (int repeat = 0; repeat < 3; repeat++) {
            info = run_library(points, n, eps, PARAC_DEVICE_CUDA, LIBRARY[v].variant, labels, core);
            if (repeat == 2) {
                int matches = same(labels, core, reference_labels, reference_core, n);
                failures += !matches;
                row(LIBRARY[v].name, &info, matches);
            }
        }
    free(points), free(reference_labels), free(labels), free(reference_core), free(core);
    printf("01_coarse_listed: %s\n", failures ? "FAILED (labels or core mask differ from the CPU path)"
                                             : "every run gave the CPU path's bytes");
    return failures ? 1 : 0;
}
