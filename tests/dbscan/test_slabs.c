/* tests/dbscan/test_slabs.c — the slab merge (dbscan_slabs.c) gives the
 * whole-input bytes. The GPU runs each slab on the device; here each slab is
 * clustered by the CPU path, so the halo and merge logic are checked without a
 * GPU: 2, 3 and 7 slabs (and more) on random shapes, ties at exactly eps,
 * duplicates, one giant cluster, d = 1..5, float32 and float64. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/dbscan.h>

#include "core/rng.h"
#include "dbscan/dbscan_slabs.h"
#include "test_util.h"

typedef struct cpu_solver {
    double eps;
    size_t min_samples;
} cpu_solver;

/* One slab on the CPU: representative = lowest core point of the point's label. */
static parac_status solve_on_cpu(void *context, const dbscan_points *slab, uint32_t *root, uint8_t *core,
                                 parac_error *error)
{
    const cpu_solver *solver = context;
    int32_t *labels = malloc(slab->count * sizeof(int32_t));
    uint32_t *first_core = malloc(slab->count * sizeof(uint32_t));
    parac_dbscan_info info;
    parac_exec exec = {.device = PARAC_DEVICE_CPU, .threads = 2};
    parac_status status = dbscan_cpu(slab, solver->eps, solver->min_samples, 1, &exec, labels, core, &info, error);
    for (size_t i = 0; i < slab->count; i++) first_core[i] = DBSCAN_NO_ROOT;
    for (size_t i = 0; status == PARAC_OK && i < slab->count; i++)
        if (core[i] && first_core[labels[i]] == DBSCAN_NO_ROOT) first_core[labels[i]] = (uint32_t)i;
    for (size_t i = 0; status == PARAC_OK && i < slab->count; i++)
        root[i] = labels[i] < 0 ? DBSCAN_NO_ROOT : first_core[labels[i]];
    free(labels);
    free(first_core);
    return status;
}

/* Distinct buckets the points fall in. */
static size_t occupied_buckets(const dbscan_slabs *slabs, size_t n)
{
    size_t top = 0, occupied = 0;
    for (size_t i = 0; i < n; i++) top = slabs->bucket[i] > top ? slabs->bucket[i] : top;
    char *seen = calloc(top + 1, 1);
    for (size_t i = 0; i < n; i++)
        if (!seen[slabs->bucket[i]]) {
            seen[slabs->bucket[i]] = 1;
            occupied++;
        }
    free(seen);
    return occupied;
}

static int every_slab_owns_points(const dbscan_slabs *slabs, size_t n)
{
    size_t empty = 0;
    for (size_t s = 0; s < slabs->slabs; s++) {
        size_t owned = 0;
        for (size_t i = 0; i < n; i++)
            owned += slabs->bucket[i] >= slabs->first_bucket[s] && slabs->bucket[i] < slabs->first_bucket[s + 1];
        empty += owned == 0;
    }
    return empty == 0;
}

static void check_slabs(const char *name, const double *xs, const float *narrow, size_t n, size_t d, double eps,
                        size_t min_samples, size_t wanted)
{
    dbscan_points points = {narrow ? NULL : xs, narrow, n, d};
    cpu_solver solver = {eps, min_samples};
    parac_dbscan_options options;
    parac_dbscan_info whole, sliced;
    parac_error error;
    dbscan_slabs slabs;
    int32_t *expected = malloc((n + 1) * sizeof(int32_t)), *labels = malloc((n + 1) * sizeof(int32_t));
    uint8_t *expected_core = malloc(n + 1), *core = malloc(n + 1);
    int ok;
    memset(&options, 0, sizeof options);
    memset(&sliced, 0, sizeof sliced);
    options.eps = eps;
    options.min_samples = min_samples;
    options.exec.device = PARAC_DEVICE_CPU;
    ok = (narrow ? parac_dbscan_run_f32(&options, narrow, n, d, expected, expected_core, &whole, &error)
                 : parac_dbscan_run(&options, xs, n, d, expected, expected_core, &whole, &error)) == PARAC_OK;
    ok = ok && dbscan_slabs_plan(&points, eps, wanted, &slabs, &error) == PARAC_OK;
    /* as many slabs as wanted, or one per occupied eps-wide bucket when fewer (eps = 3 leaves 4 buckets) */
    if (ok) {
        size_t occupied = occupied_buckets(&slabs, n), planned = wanted < occupied ? wanted : occupied;
        CHECK(slabs.slabs == planned, "%s: %zu slabs planned for %zu wanted (%zu occupied buckets)", name, slabs.slabs,
              wanted, occupied);
        CHECK(every_slab_owns_points(&slabs, n), "%s: a planned slab owns no point", name);
    }
    ok = ok && dbscan_slabs_cluster(&points, &slabs, solve_on_cpu, &solver, labels, core, &sliced, &error) == PARAC_OK;
    CHECK(ok && memcmp(labels, expected, n * sizeof(int32_t)) == 0 && memcmp(core, expected_core, n) == 0,
          "%s: n=%zu d=%zu eps=%g min=%zu %zu slabs: labels/core differ from one pass", name, n, d, eps, min_samples,
          slabs.slabs);
    CHECK(sliced.clusters == whole.clusters && sliced.core == whole.core && sliced.noise == whole.noise &&
              sliced.border == whole.border,
          "%s: counts differ (%zu slabs)", name, slabs.slabs);
    dbscan_slabs_free(&slabs);
    free(expected);
    free(labels);
    free(expected_core);
    free(core);
}

/* Points on a lattice of step 1/4 (ties at exactly eps), some duplicated, plus blobs. */
static double *mixed_points(uint64_t seed, size_t n, size_t d)
{
    parac_rng rng;
    double *xs = malloc(n * d * sizeof(double));
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < d; k++) {
            if (i % 3 == 0) xs[i * d + k] = (double)parac_rng_below(&rng, 40) / 4.0;
            else if (i % 3 == 1) xs[i * d + k] = (double)(i % 5) * 2.0 + 0.4 * parac_rng_normal(&rng);
            else xs[i * d + k] = xs[(i - 2) * d + k]; /* duplicate */
        }
    return xs;
}

/* 20,000 uniform 3-D points cut in 7 (the GPU test's quick size, where the old cut gave 6). */
static void check_uniform_seven(void)
{
    size_t n = 20000, d = 3;
    parac_rng rng;
    double *xs = malloc(n * d * sizeof(double));
    parac_rng_seed(&rng, 99);
    for (size_t i = 0; i < n * d; i++) xs[i] = parac_rng_uniform(&rng);
    for (size_t wanted = 2; wanted <= 9; wanted++) check_slabs("uniform", xs, NULL, n, d, 0.07, 5, wanted);
    free(xs);
}

int main(void)
{
    check_uniform_seven();
    const size_t wanted[] = {2, 3, 7, 16};
    for (size_t d = 1; d <= 5; d++) {
        size_t n = 1500;
        double *xs = mixed_points(7 + d, n, d);
        float *narrow = malloc(n * d * sizeof(float));
        for (size_t i = 0; i < n * d; i++) narrow[i] = (float)xs[i];
        for (size_t w = 0; w < 4; w++) {
            check_slabs("ties", xs, NULL, n, d, 0.25 * sqrt((double)d), 3, wanted[w]);
            check_slabs("ties-exact", xs, NULL, n, d, 0.25, 2 + w, wanted[w]);
            check_slabs("blobs-f32", NULL, narrow, n, d, 0.3 * sqrt((double)d), 5, wanted[w]);
            check_slabs("giant", xs, NULL, n, d, 3.0, 4, wanted[w]);
            check_slabs("min1", xs, NULL, n, d, 0.1, 1, wanted[w]);
        }
        free(xs);
        free(narrow);
    }
    return test_finish("dbscan");
}
