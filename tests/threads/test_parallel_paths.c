/* tests/threads/test_parallel_paths.c — every CPU parallel path once, at sizes small enough for
 * ThreadSanitizer (the CI's TSan pass runs this with the tests labelled "tsan"), each checked
 * byte for byte against its one-thread run:
 *   dbscan's radix sort (per-thread digit counts, one prefix, scatter) and range offsets;
 *   dbscan's grid path (parallel bounds, keys, lock-free union-find, border pass), its cell trees
 *   (built on first use by one thread while the others wait, then read by all) and brute force;
 *   fca's four CPU strategies (locked scratch pool, per-thread workers, work-stealing deques,
 *   on-demand copies; the sparse search's shared root) and the FIMI reader's pieces;
 *   birch's speculative-parallel batches (parallel speculation, the commit parallel over the root's
 *   subtrees with reroutes) against the serial insertion.
 * The sizes are chosen so that each path really runs parallel (above the thresholds under which
 * the code falls back to one thread: birch's PHASE_MIN_POINTS / PARALLEL_PHASE_MIN, fca's task
 * spawning), and THREADS (default 4) threads are asked for even on a 2-core machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/birch.h>
#include <parac/dbscan.h>
#include <parac/fca.h>

#include "core/input.h"
#include "core/rng.h"
#include "dbscan/radix_sort.h"
#include "fca/fca_internal.h"
#include "test_util.h"

static int test_threads(void)
{
    const char *text = getenv("PARAC_TEST_THREADS");
    int threads = text ? atoi(text) : 4;
    return threads >= 2 ? threads : 4;
}

/* n points in 2-D around `centers` random centres in [0, 20)^2, deviation std (malloc'ed). */
static double *blobs(size_t n, size_t centers, double std, uint64_t seed)
{
    parac_rng rng;
    double *points = malloc(n * 2 * sizeof *points), *middles = malloc(centers * 2 * sizeof *middles);
    parac_rng_seed(&rng, seed);
    for (size_t c = 0; middles && c < centers * 2; c++) middles[c] = 20.0 * parac_rng_uniform(&rng);
    for (size_t i = 0; points && middles && i < n; i++) {
        size_t c = (size_t)parac_rng_below(&rng, centers);
        points[2 * i] = middles[2 * c] + std * parac_rng_normal(&rng);
        points[2 * i + 1] = middles[2 * c + 1] + std * parac_rng_normal(&rng);
    }
    free(middles);
    return points;
}

static void check_radix_sort(int threads)
{
    const size_t n = 60000;
    uint64_t *keys[2];
    uint32_t *values[2];
    parac_rng rng;
    parac_error error;
    parac_rng_seed(&rng, 3);
    for (int k = 0; k < 2; k++) {
        keys[k] = malloc(n * sizeof(uint64_t));
        values[k] = malloc(n * sizeof(uint32_t));
    }
    if (!keys[0] || !keys[1] || !values[0] || !values[1]) {
        CHECK(0, "radix sort: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        keys[0][i] = keys[1][i] = parac_rng_next(&rng) & ((1ull << 20) - 1); /* many equal keys: stability matters */
        values[0][i] = values[1][i] = (uint32_t)i;
    }
    CHECK_OK(dbscan_radix_sort_pairs(keys[0], values[0], n, 20, 1, &error), &error);
    CHECK_OK(dbscan_radix_sort_pairs(keys[1], values[1], n, 20, threads, &error), &error);
    CHECK(memcmp(keys[0], keys[1], n * sizeof(uint64_t)) == 0, "radix sort: keys differ at %d threads", threads);
    CHECK(memcmp(values[0], values[1], n * sizeof(uint32_t)) == 0, "radix sort: order differs at %d threads", threads);
    for (size_t i = 1; i < n; i++)
        if (keys[0][i - 1] > keys[0][i] || (keys[0][i - 1] == keys[0][i] && values[0][i - 1] > values[0][i])) {
            CHECK(0, "radix sort: not sorted and stable at %zu", i);
            break;
        }
done:
    for (int k = 0; k < 2; k++) free(keys[k]), free(values[k]);
}

static void run_dbscan(const double *points, size_t n, size_t dim, double eps, size_t min_samples,
                       parac_dbscan_method method, int threads, int32_t *labels, uint8_t *core)
{
    parac_dbscan_options options;
    parac_error error;
    memset(&options, 0, sizeof options);
    options.eps = eps;
    options.min_samples = min_samples;
    options.method = method;
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    CHECK_OK(parac_dbscan_run(&options, points, n, dim, labels, core, NULL, &error), &error);
}

static void check_dbscan(const char *name, const double *points, size_t n, size_t dim, double eps, size_t min_samples,
                         parac_dbscan_method method, int threads)
{
    int32_t *labels[2] = {malloc(n * sizeof(int32_t)), malloc(n * sizeof(int32_t))};
    uint8_t *core[2] = {malloc(n), malloc(n)};
    if (labels[0] && labels[1] && core[0] && core[1]) {
        run_dbscan(points, n, dim, eps, min_samples, method, 1, labels[0], core[0]);
        run_dbscan(points, n, dim, eps, min_samples, method, threads, labels[1], core[1]);
        CHECK(memcmp(labels[0], labels[1], n * sizeof(int32_t)) == 0, "dbscan %s: labels differ at %d threads", name,
              threads);
        CHECK(memcmp(core[0], core[1], n) == 0, "dbscan %s: core points differ at %d threads", name, threads);
    } else {
        CHECK(0, "dbscan %s: out of memory", name);
    }
    free(labels[0]), free(labels[1]), free(core[0]), free(core[1]);
}

static parac_fca_concepts *compute_concepts(const parac_fca_context *context, parac_fca_cpu_strategy strategy,
                                            int threads)
{
    parac_fca_options options;
    parac_fca_concepts *concepts = NULL;
    parac_error error;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    options.cpu_strategy = strategy;
    CHECK_OK(parac_fca_compute(context, &options, &concepts, &error), &error);
    return concepts;
}

static int same_intents(const parac_fca_concepts *a, const parac_fca_concepts *b, size_t attributes)
{
    uint32_t *ids_a = malloc(attributes * sizeof *ids_a), *ids_b = malloc(attributes * sizeof *ids_b);
    int same = ids_a && ids_b && parac_fca_concepts_size(a) == parac_fca_concepts_size(b);
    for (size_t c = 0; same && c < parac_fca_concepts_size(a); c++) {
        size_t size_a = parac_fca_concept_intent(a, c, ids_a, attributes);
        same = size_a == parac_fca_concept_intent(b, c, ids_b, attributes) &&
               memcmp(ids_a, ids_b, size_a * sizeof *ids_a) == 0;
    }
    free(ids_a), free(ids_b);
    return same;
}

static void check_fca(int threads)
{
    static const parac_fca_cpu_strategy STRATEGIES[] = {PARAC_FCA_CPU_ON_DEMAND, PARAC_FCA_CPU_SPARSE};
    const size_t attributes = 40;
    parac_fca_context *context = NULL;
    parac_fca_concepts *serial;
    parac_error error;
    CHECK_OK(parac_fca_context_random(120, attributes, 0.3, 11, &context, &error), &error);
    if (!context) return;
    serial = compute_concepts(context, PARAC_FCA_CPU_AUTO, 1);
    CHECK(serial && parac_fca_concepts_size(serial) > 1000, "fca: too few concepts to spread over threads");
    for (size_t s = 0; serial && s < sizeof STRATEGIES / sizeof STRATEGIES[0]; s++) {
        parac_fca_concepts *parallel = compute_concepts(context, STRATEGIES[s], threads);
        CHECK(parallel && same_intents(serial, parallel, attributes), "fca strategy %d: concepts differ at %d threads",
              (int)STRATEGIES[s], threads);
        parac_fca_concepts_destroy(parallel);
    }
    parac_fca_concepts_destroy(serial);
    parac_fca_context_destroy(context);
}

/* The FIMI reader on threads (pieces of >= 1 MiB of text) against its one-thread reading. */
static void check_fca_read(int threads)
{
    size_t capacity = (size_t)3 << 20, used = 0;
    char *text = malloc(capacity);
    parac_fca_context *contexts[2] = {NULL, NULL};
    parac_input input;
    parac_error error;
    parac_rng rng;
    if (!text) return;
    parac_rng_seed(&rng, 5);
    while (used < ((size_t)5 << 18)) { /* 1.25 MiB of lines of 1-6 ids */
        int ids = 1 + (int)(parac_rng_uniform(&rng) * 6);
        for (int i = 0; i < ids; i++)
            used += (size_t)snprintf(text + used, capacity - used, "%s%d", i ? " " : "",
                                     (int)(parac_rng_uniform(&rng) * 5000));
        text[used++] = '\n';
    }
    input = parac_input_memory(text, used, "threads.dat");
    CHECK_OK(fca_read_fimi_threads(&input, PARAC_FCA_MAX_ATTRIBUTE_ID, 1, &contexts[0], &error), &error);
    CHECK_OK(fca_read_fimi_threads(&input, PARAC_FCA_MAX_ATTRIBUTE_ID, threads, &contexts[1], &error), &error);
    CHECK(contexts[0] && contexts[1] && contexts[0]->objects == contexts[1]->objects &&
              fca_context_cells(contexts[0]) == fca_context_cells(contexts[1]) &&
              memcmp(contexts[0]->cell_offsets, contexts[1]->cell_offsets,
                     (contexts[0]->objects + 1) * sizeof(size_t)) == 0 &&
              memcmp(contexts[0]->cell_attributes, contexts[1]->cell_attributes,
                     fca_context_cells(contexts[0]) * sizeof(uint32_t)) == 0,
          "fca: the FIMI text read on %d threads differs from one thread's reading", threads);
    parac_fca_context_destroy(contexts[0]);
    parac_fca_context_destroy(contexts[1]);
    free(text);
}

/* Subcluster centres and counts, and the labels of the points, of one birch fit. */
static int fit_birch(const double *points, size_t n, size_t batch, int threads, double **centers, int64_t **counts,
                     size_t *m, int32_t *labels, parac_birch_insert_stats *stats)
{
    parac_birch_options options;
    parac_birch *model = NULL;
    parac_error error;
    int ok;
    parac_birch_options_init(&options);
    options.threshold = 0.25;
    options.branching_factor = 12; /* a deeper tree: phases need a root with several entries */
    options.n_clusters = 8;
    options.batch_size = batch;
    options.variant = PARAC_BIRCH_SPECULATIVE_PARALLEL;
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    CHECK_OK(parac_birch_create(&options, 2, &model, &error), &error);
    if (!model) return 0;
    ok = parac_birch_partial_fit(model, points, n, &error) == PARAC_OK &&
         parac_birch_global_step(model, &error) == PARAC_OK;
    CHECK(ok, "birch fit: %s", error.message);
    *m = parac_birch_subcluster_count(model);
    *centers = malloc(*m * 2 * sizeof **centers);
    *counts = malloc(*m * sizeof **counts);
    ok = ok && *centers && *counts && parac_birch_subclusters(model, *centers, *counts, NULL, &error) == PARAC_OK &&
         parac_birch_predict(model, points, n, labels, NULL, &error) == PARAC_OK;
    CHECK(ok, "birch results: %s", error.message);
    parac_birch_get_insert_stats(model, stats);
    parac_birch_destroy(model);
    return ok;
}

static void check_birch(int threads)
{
    const size_t n = 40000;
    double *points = blobs(n, 8, 0.6, 5), *centers[2] = {NULL, NULL};
    int64_t *counts[2] = {NULL, NULL};
    int32_t *labels[2] = {malloc(n * sizeof(int32_t)), malloc(n * sizeof(int32_t))};
    size_t m[2] = {0, 0};
    parac_birch_insert_stats stats[2];
    if (points && labels[0] && labels[1] && fit_birch(points, n, 0, 1, &centers[0], &counts[0], &m[0], labels[0], &stats[0]) &&
        fit_birch(points, n, PARAC_BIRCH_DEFAULT_BATCH, threads, &centers[1], &counts[1], &m[1], labels[1], &stats[1])) {
        CHECK(m[0] == m[1], "birch: %zu subclusters serially, %zu at %d threads", m[0], m[1], threads);
        CHECK(m[0] != m[1] || memcmp(centers[0], centers[1], m[0] * 2 * sizeof(double)) == 0,
              "birch: centres differ at %d threads", threads);
        CHECK(m[0] != m[1] || memcmp(counts[0], counts[1], m[0] * sizeof(int64_t)) == 0,
              "birch: counts differ at %d threads", threads);
        CHECK(memcmp(labels[0], labels[1], n * sizeof(int32_t)) == 0, "birch: labels differ at %d threads", threads);
        CHECK(stats[1].phases > 0, "birch: no parallel commit phase ran (the test no longer covers it)");
        printf("birch: %zu subclusters, %zu windows, %zu phases, %zu stop points, %zu rerouted\n", m[1],
               stats[1].windows, stats[1].phases, stats[1].stop_points, stats[1].rerouted);
    }
    free(points), free(labels[0]), free(labels[1]);
    for (int k = 0; k < 2; k++) free(centers[k]), free(counts[k]);
}

int main(void)
{
    int threads = test_threads();
    double *grid_points = blobs(20000, 12, 0.4, 1), *wide_points = malloc(1500 * 10 * sizeof(double));
    parac_rng rng;
    parac_rng_seed(&rng, 2);
    check_radix_sort(threads);
    if (grid_points) check_dbscan("grid", grid_points, 20000, 2, 0.15, 8, PARAC_DBSCAN_GRID, threads);
    /* eps 4: cells of a blob's 500 points, below min_samples, so counts and borders read the trees */
    if (grid_points) check_dbscan("cell trees", grid_points, 6000, 2, 4.0, 700, PARAC_DBSCAN_GRID, threads);
    if (wide_points) {
        for (size_t i = 0; i < 1500 * 10; i++) wide_points[i] = (double)(i / 10 % 5) + 0.3 * parac_rng_normal(&rng);
        check_dbscan("brute force", wide_points, 1500, 10, 1.0, 5, PARAC_DBSCAN_BRUTE_FORCE, threads);
    }
    free(grid_points), free(wide_points);
    check_fca(threads);
    check_fca_read(threads);
    check_birch(threads);
    return test_finish("threads.parallel_paths");
}
