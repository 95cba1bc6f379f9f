/* tests/metrics/test_metrics_gpu.c — the GPU silhouette gives the CPU's bytes.
 *
 * Fresh random inputs every run (the seed is printed; PARAC_TEST_SEED=S
 * replays one): blobs of several shapes (n up to 20000, d = 1..40, 2..300
 * clusters, some singleton clusters), labels from the truth or scrambled,
 * plus a sampled run. The GPU score must equal the CPU's bit for bit (each
 * point sums in the same order without FMA) and so within 1e-9 relative.
 * Quick mode (PARAC_TEST_QUICK=1, docs/GPU.md): about 1/40 of the O(n^2 d) work; the d = 16 case
 * keeps clusters larger than one shared-memory tile (320 points at d = 16), so clusters still
 * stage in several tiles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parac/metrics.h>
#include <parac/points.h>

#include "core/rng.h"
#include "test_util.h"

static double silhouette_on(parac_device device, const double *xs, size_t n, size_t d, const int32_t *labels,
                            size_t sample, uint64_t seed, int *ok)
{
    parac_silhouette_options options;
    parac_error error;
    double score = NAN;
    memset(&options, 0, sizeof options);
    options.exec.device = device;
    options.sample = sample;
    options.seed = seed;
    *ok = parac_metrics_silhouette(&options, xs, n, d, labels, &score, &error) == PARAC_OK;
    if (!*ok) printf("  silhouette (%s) failed: %s\n", parac_device_name(device), error.message);
    return score;
}

/* One shape: blobs with `centers` centres; labels = truth, or random when scramble (any cluster count). */
static void compare(size_t n, size_t d, size_t centers, int scramble, size_t sample, uint64_t seed)
{
    parac_points_options options;
    parac_error error;
    parac_rng rng;
    double *xs = malloc(n * d * sizeof(double)), cpu, gpu;
    int32_t *labels = malloc(n * sizeof(int32_t));
    int cpu_ok = 0, gpu_ok = 0;
    memset(&options, 0, sizeof options);
    options.kind = PARAC_POINTS_BLOBS;
    options.count = n;
    options.dim = d;
    options.seed = seed;
    options.centers = centers;
    options.std = 1.5;
    CHECK_OK(parac_points_generate(&options, xs, labels, &error), &error);
    parac_rng_seed(&rng, seed ^ 0x5eedu);
    if (scramble)
        for (size_t i = 0; i < n; i++) labels[i] = (int32_t)parac_rng_below(&rng, centers) - 1; /* -1 is a name too */
    labels[0] = (int32_t)centers + 7; /* a singleton cluster scores 0 */
    cpu = silhouette_on(PARAC_DEVICE_CPU, xs, n, d, labels, sample, seed, &cpu_ok);
    gpu = silhouette_on(PARAC_DEVICE_CUDA, xs, n, d, labels, sample, seed, &gpu_ok);
    CHECK(cpu_ok && gpu_ok, "n=%zu d=%zu centers=%zu: both devices ran", n, d, centers);
    CHECK(fabs(gpu - cpu) <= 1e-9 * fabs(cpu), "n=%zu d=%zu centers=%zu scramble=%d: GPU %.17g CPU %.17g", n, d,
          centers, scramble, gpu, cpu);
    CHECK(memcmp(&gpu, &cpu, sizeof gpu) == 0, "n=%zu d=%zu centers=%zu scramble=%d: not bit-identical (%.17g/%.17g)",
          n, d, centers, scramble, gpu, cpu);
    printf("  n=%zu d=%zu centers=%zu scramble=%d sample=%zu: %.12g\n", n, d, centers, scramble, sample, gpu);
    free(xs);
    free(labels);
}

int main(void)
{
    const char *replay = getenv("PARAC_TEST_SEED");
    uint64_t seed = replay ? strtoull(replay, NULL, 10) : (uint64_t)time(NULL);
    if (test_require_gpu()) return 77;
    printf("seed %llu\n", (unsigned long long)seed);
    compare(5, 1, 2, 0, 0, seed + 1);
    compare(1000, 2, 5, 0, 0, seed + 2);
    compare(test_full_or_quick(4099, 1030), 3, 20, 1, 0, seed + 3);
    compare(test_full_or_quick(3000, 800), 16, test_full_or_quick(8, 2), 0, 0, seed + 4);
    compare(test_full_or_quick(2000, 600), 40, test_full_or_quick(300, 100), 1, 0, seed + 5);
    if (!test_quick()) compare(20000, 2, 20, 0, 0, seed + 6);
    compare(test_full_or_quick(20000, 1500), 5, 12, 0, test_full_or_quick(2500, 900), seed + 7);
    return test_finish("metrics_gpu");
}
