/* tests/birch/test_extremes.c — issue 15: coordinates whose squares overflow
 * (1e200 aborted with heap corruption in the Ward step), NaN/inf distances in
 * the argmin loops (Ward chain, nearest centroid), the supported range at its
 * edge (scaling by a power of two changes no label), progress/cancel, and points of millions of
 * dimensions (memory follows the entries, not the nodes' slots). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <parac/birch.h>

#include "birch/nearest.h"
#include "birch/ward.h"
#include "support_birch.h"
#include "test_util.h"

static parac_birch_options options_for(size_t batch, parac_birch_variant variant, double threshold, int clusters)
{
    parac_birch_options options;
    parac_birch_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 2;
    options.batch_size = batch;
    options.variant = variant;
    options.threshold = threshold;
    options.n_clusters = clusters;
    return options;
}

/* The reported file: four points near 1e200 are refused before anything is inserted. */
static void test_refuses_out_of_range(void)
{
    const double points[] = {1e200, 1e200, 1.1e200, 1e200, -1e200, 5e199, -1.2e200, -1e200};
    parac_birch_options options = options_for(0, PARAC_BIRCH_SPECULATIVE, 0.5, 2);
    parac_birch *model = NULL;
    parac_error error;
    int32_t labels[1];
    CHECK_OK(parac_birch_create(&options, 2, &model, &error), &error);
    CHECK_EQ_INT(parac_birch_partial_fit(model, points, 4, &error), PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "point 0, coordinate 0") && strstr(error.message, "supported range"), "message: %s",
          error.message);
    CHECK_EQ_INT(parac_birch_points_seen(model), 0);
    CHECK_EQ_INT(parac_birch_subcluster_count(model), 0);
    /* predict checks its points too (a NaN or 1e200 point used to index centroid -1) */
    CHECK_OK(parac_birch_partial_fit(model, (const double[]){0, 0, 1, 1, 5, 5}, 3, &error), &error);
    CHECK_OK(parac_birch_global_step(model, &error), &error);
    CHECK_EQ_INT(parac_birch_predict(model, (const double[]){0, NAN}, 1, labels, NULL, &error),
                 PARAC_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(parac_birch_predict(model, (const double[]){0, -1e101}, 1, labels, NULL, &error),
                 PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "predicted point 0, coordinate 1") != NULL, "message: %s", error.message);
    parac_birch_destroy(model);
    /* a threshold whose square underflows */
    options.threshold = 1e-200;
    CHECK_EQ_INT(parac_birch_create(&options, 2, &model, &error), PARAC_ERR_INVALID_ARGUMENT);
    CHECK(model == NULL);
}

/* Inside the range, birch works exactly: blobs scaled by 2^320 (about 2e96)
 * with the threshold scaled alike give the same labels, for every variant. */
static void test_scaled_data_same_labels(void)
{
    const size_t n = 3000, dims = 3;
    const double scale = ldexp(1.0, 320);
    const parac_birch_variant variants[] = {PARAC_BIRCH_SPECULATIVE, PARAC_BIRCH_SPECULATIVE_PARALLEL,
                                            PARAC_BIRCH_SEGMENTED};
    double *points = support_blobs(n, dims, 4, 0.8, 11), *scaled = malloc(n * dims * sizeof(double));
    int32_t *plain = malloc(n * sizeof(int32_t)), *big = malloc(n * sizeof(int32_t));
    for (size_t i = 0; i < n * dims; i++) scaled[i] = points[i] * scale;
    for (int v = -1; v < 3; v++) {
        parac_birch_options options = options_for(v < 0 ? 0 : 500, v < 0 ? PARAC_BIRCH_SPECULATIVE : variants[v], 0.7, 4);
        parac_birch *a = support_fit(&options, points, n, dims, 0, plain), *b;
        options.threshold *= scale;
        b = support_fit(&options, scaled, n, dims, 0, big);
        CHECK(a && b, "fits");
        CHECK(a && b && memcmp(plain, big, n * sizeof(int32_t)) == 0, "variant %d: scaled labels differ", v);
        CHECK(a && b && parac_birch_subcluster_count(a) == parac_birch_subcluster_count(b), "subclusters");
        parac_birch_destroy(a), parac_birch_destroy(b);
    }
    free(points), free(scaled), free(plain), free(big);
}

/* Ward on centroids whose distances are +inf or NaN: the chain closes, every
 * merge names two distinct clusters in range (the old scan left y at a dead
 * cluster and wrote the chain past its array). */
static void test_ward_non_finite_distances(void)
{
    const double infinite[] = {-1e308, 1e308, 0, 1e308, -1e308, 1, 1e308, -1e308};
    const double with_nan[] = {0, 0, NAN, 1, 2, 2, NAN, NAN, 5, 5};
    const double *sets[] = {infinite, with_nan};
    const size_t sizes[] = {4, 5};
    for (int run = 0; run < 4; run++) { /* each set in both Ward spaces: the matrix, the centroids */
        int s = run % 2, matrix = run < 2;
        size_t m = sizes[s];
        birch_merge merges[8];
        int32_t labels[8];
        parac_error error;
        int valid = 1;
        CHECK_OK(birch_ward_cpu_in(matrix, sets[s], m, 2, 1, NULL, merges, &error), &error);
        for (size_t k = 0; k + 1 < m; k++)
            valid &= merges[k].a >= 0 && merges[k].a < merges[k].b && (size_t)merges[k].b < m;
        CHECK(valid, "set %d: a merge names a cluster out of range", s);
        CHECK_OK(birch_ward_cut(merges, m, 2, labels, &error), &error);
        for (size_t i = 0; i < m; i++) CHECK(labels[i] == 0 || labels[i] == 1, "set %d: label %d", s, (int)labels[i]);
    }
}

/* The nearest centroid of a point at NaN distance from every centroid is one of them. */
static void test_nearest_nan(void)
{
    const double centers[] = {0, 0, 1, 1, 2, 2};
    birch_kdtree tree;
    parac_error error;
    memset(&tree, 0, sizeof tree);
    CHECK_OK(birch_kdtree_build(&tree, centers, 3, 2, &error), &error);
    CHECK_EQ_INT(birch_kdtree_nearest(&tree, (const double[]){NAN, 0}), 0);
    CHECK_EQ_INT(birch_kdtree_nearest(&tree, (const double[]){INFINITY, -INFINITY}), 0);
    CHECK_EQ_INT(birch_kdtree_nearest(&tree, (const double[]){1.9, 2.2}), 2);
    birch_kdtree_free(&tree);
}

typedef struct counter {
    int calls, stop_at;
    uint64_t last_done, total;
} counter;

/* Sleeps past the 0.1 s report interval so that the next checkpoint reports: the test does not depend on speed. */
static int slow_counter(void *user_data, uint64_t done, uint64_t total)
{
    counter *c = user_data;
    struct timespec pause = {0, 120 * 1000 * 1000};
    c->calls++;
    if (c->calls > c->stop_at) return 0; /* asked once; a resumed fit goes on */
    c->last_done = done, c->total = total;
    if (c->calls == c->stop_at) return 1;
    nanosleep(&pause, NULL);
    return 0;
}

static void test_cancel(void)
{
    const size_t n = 100000, dims = 2;
    double *points = support_blobs(n, dims, 5, 1.0, 3);
    const size_t batches[] = {0, 1000};
    for (int b = 0; b < 2; b++)
        for (int stop_at = 1; stop_at <= 2; stop_at++) { /* slices of 2^13 points (serial), 8 batches of 1000 */
            parac_birch_options options = options_for(batches[b], PARAC_BIRCH_SPECULATIVE_PARALLEL, 0.5, 3);
            counter c = {0, stop_at, 0, 0};
            parac_birch *model = NULL;
            parac_error error;
            size_t seen;
            parac_status status;
            options.exec.progress = slow_counter;
            options.exec.progress_user_data = &c;
            CHECK_OK(parac_birch_create(&options, dims, &model, &error), &error);
            status = parac_birch_partial_fit(model, points, n, &error);
            CHECK_EQ_INT(status, PARAC_ERR_CANCELLED);
            seen = parac_birch_points_seen(model);
            CHECK(c.calls == stop_at && c.total == n, "batch %zu: %d calls, total %llu", batches[b], c.calls,
                  (unsigned long long)c.total);
            CHECK(stop_at == 1 ? seen == 0 : seen > 0 && seen < n && seen == c.last_done,
                  "batch %zu, stop at %d: %zu points kept, last report %llu", batches[b], stop_at, seen,
                  (unsigned long long)c.last_done);
            /* checkpoints at most 2^13 points apart: a cancel waits for one slice (2^20 points took a minute
             * on a large tree) */
            CHECK(stop_at == 1 || seen <= 8192, "batch %zu: the first checkpoint after %zu points", batches[b], seen);
            /* The model keeps a prefix: the rest of the points go in afterwards and give
             * the tree of one uninterrupted call (any chunking does). */
            if (stop_at == 2) {
                parac_birch *whole = NULL;
                size_t m = 0, m_whole = 0;
                double *mine, *theirs;
                options.exec.progress = NULL;
                CHECK_OK(parac_birch_partial_fit(model, points + seen * dims, n - seen, &error), &error);
                CHECK_EQ_INT(parac_birch_points_seen(model), n);
                CHECK_OK(parac_birch_create(&options, dims, &whole, &error), &error);
                CHECK_OK(parac_birch_partial_fit(whole, points, n, &error), &error);
                mine = support_subclusters(model, &m);
                theirs = support_subclusters(whole, &m_whole);
                CHECK(m == m_whole && memcmp(mine, theirs, m * dims * sizeof(double)) == 0,
                      "batch %zu: resumed tree differs (%zu vs %zu subclusters)", batches[b], m, m_whole);
                free(mine), free(theirs);
                parac_birch_destroy(whole);
            }
            parac_birch_destroy(model);
        }
    free(points);
}

/* Global-step reports (total = merges) only: the first sleeps past the report interval, the second
 * asks to stop. partial_fit's reports (total = its points) are answered 0 at once. */
typedef struct ward_counter {
    size_t points;
    int calls, stop;
    uint64_t last_done;
} ward_counter;

static int stop_ward_at_second_report(void *user_data, uint64_t done, uint64_t total)
{
    ward_counter *c = user_data;
    struct timespec pause = {0, 120 * 1000 * 1000};
    if (total == c->points || !c->stop) return 0;
    c->calls++, c->last_done = done;
    if (c->calls >= 2) return 1;
    nanosleep(&pause, NULL);
    return 0;
}

/* The CPU Ward chain stops at its next merge when asked (PARAC_ERR_CANCELLED, no global state);
 * the tree is kept, and the next global step gives the clusters of an uninterrupted one. */
static void test_global_step_cancel(void)
{
    const size_t n = 20000, dims = 2;
    double *points = support_blobs(n, dims, 5, 1.0, 4);
    parac_birch_options options = options_for(0, PARAC_BIRCH_SPECULATIVE_PARALLEL, 0.3, 3);
    ward_counter c = {n, 0, 1, 0};
    parac_birch *model = NULL, *whole = NULL;
    parac_error error;
    size_t m;
    int32_t *mine, *theirs;
    parac_status status;
    options.exec.device = PARAC_DEVICE_CPU;
    CHECK_OK(parac_birch_create(&options, dims, &whole, &error), &error);
    CHECK_OK(parac_birch_partial_fit(whole, points, n, &error), &error);
    CHECK_OK(parac_birch_global_step(whole, &error), &error);
    options.exec.progress = stop_ward_at_second_report;
    options.exec.progress_user_data = &c;
    CHECK_OK(parac_birch_create(&options, dims, &model, &error), &error);
    CHECK_OK(parac_birch_partial_fit(model, points, n, &error), &error);
    m = parac_birch_subcluster_count(model);
    CHECK(m >= 3, "%zu subclusters: too few for a Ward step", m);
    status = parac_birch_global_step(model, &error); /* (CHECK_EQ_INT evaluates its arguments twice) */
    CHECK_EQ_INT(status, PARAC_ERR_CANCELLED);
    CHECK(c.calls == 2 && c.last_done == 0, "%d reports, the last at %llu merges", c.calls,
          (unsigned long long)c.last_done);
    c.stop = 0;
    CHECK_OK(parac_birch_global_step(model, &error), &error);
    mine = malloc(m * sizeof(int32_t)), theirs = malloc(m * sizeof(int32_t));
    CHECK_OK(parac_birch_subclusters(model, NULL, NULL, mine, &error), &error);
    CHECK_OK(parac_birch_subclusters(whole, NULL, NULL, theirs, &error), &error);
    CHECK(parac_birch_subcluster_count(whole) == m && memcmp(mine, theirs, m * sizeof(int32_t)) == 0,
          "the clusters after a cancelled global step differ");
    free(mine), free(theirs), free(points);
    parac_birch_destroy(model), parac_birch_destroy(whole);
}

static long peak_rss_kb(void)
{
    struct rusage usage;
    return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : 0;
}

/* Three points of 2,000,000 dimensions (48 MB): the speculative window's snapshot copied every slot of
 * every node, 51 x 2 M doubles for the root alone (816 MB; 3 points of 3 M took 1.3 GB resident). Now
 * the fit's peak stays within 600 MB above what the process had (input, tree and snapshot entries:
 * about 150 MB; the bound leaves room for AddressSanitizer's quarantine and shadow). */
static void test_wide_points_memory(void)
{
    const size_t n = 3, dims = 2000000;
    double *points = malloc(n * dims * sizeof(double));
    int32_t labels[3];
    long before;
    parac_birch_options options;
    parac_birch *model;
    parac_birch_options_init(&options); /* the CLI's defaults */
    options.exec.device = PARAC_DEVICE_CPU;
    for (size_t i = 0; i < n * dims; i++) points[i] = (double)(i % 7) + (double)(i / dims);
    before = peak_rss_kb();
    model = support_fit(&options, points, n, dims, 0, labels);
    CHECK(model && parac_birch_subcluster_count(model) == 3, "3 wide points: 3 subclusters");
    CHECK(peak_rss_kb() - before < 600 * 1024, "3 points of 2 M dimensions: peak grew by %ld MB",
          (peak_rss_kb() - before) / 1024);
    parac_birch_destroy(model);
    free(points);
}

int main(void)
{
    test_refuses_out_of_range();
    test_scaled_data_same_labels();
    test_ward_non_finite_distances();
    test_nearest_nan();
    test_cancel();
    test_global_step_cancel();
    test_wide_points_memory();
    return test_finish("birch extremes");
}
