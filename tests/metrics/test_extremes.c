/* tests/metrics/test_extremes.c — issue 15: silhouette and Davies-Bouldin on
 * points whose squared differences overflow or underflow (a NaN was reported
 * as "out of host memory", exit 3), identical points (0/0), and progress /
 * cancellation of the O(n^2) silhouette loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/metrics.h>

#include "core/rng.h"
#include "test_util.h"

static double silhouette(const double *xs, size_t n, size_t d, const int32_t *labels, parac_status *status)
{
    parac_silhouette_options options;
    parac_error error;
    double score = -2.0;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 2;
    *status = parac_metrics_silhouette(&options, xs, n, d, labels, &score, &error);
    if (*status) printf("  silhouette: %s\n", error.message);
    return score;
}

static double davies_bouldin(const double *xs, size_t n, size_t d, const int32_t *labels, parac_status *status)
{
    parac_error error;
    double score = -2.0;
    *status = parac_metrics_davies_bouldin(xs, n, d, labels, 2, &score, &error);
    if (*status) printf("  davies-bouldin: %s\n", error.message);
    return score;
}

/* Blobs scaled by 2^700 (about 5e210), 2^-700 and 2^1000: the scores are
 * scale-free, so every one must equal the unscaled score bit for bit. */
static void test_scaled_points(void)
{
    const size_t n = 600, d = 3;
    const int exponents[] = {700, -700, 1000, -1000};
    double *xs = malloc(n * d * sizeof(double)), *scaled = malloc(n * d * sizeof(double));
    int32_t *labels = malloc(n * sizeof(int32_t));
    parac_rng rng;
    parac_status status;
    double base_silhouette, base_db;
    parac_rng_seed(&rng, 5);
    for (size_t i = 0; i < n; i++) {
        labels[i] = (int32_t)(i % 3);
        for (size_t k = 0; k < d; k++) xs[i * d + k] = 4.0 * (double)labels[i] + parac_rng_normal(&rng);
    }
    base_silhouette = silhouette(xs, n, d, labels, &status);
    CHECK_OK(status, &(parac_error){0});
    base_db = davies_bouldin(xs, n, d, labels, &status);
    CHECK(status == PARAC_OK && base_silhouette > 0.3 && base_db > 0, "base scores %g %g", base_silhouette, base_db);
    for (int e = 0; e < 4; e++) {
        double s, db;
        for (size_t i = 0; i < n * d; i++) scaled[i] = ldexp(xs[i], exponents[e]);
        s = silhouette(scaled, n, d, labels, &status);
        CHECK(status == PARAC_OK && s == base_silhouette, "2^%d: silhouette %.17g, expected %.17g (status %d)",
              exponents[e], s, base_silhouette, (int)status);
        db = davies_bouldin(scaled, n, d, labels, &status);
        CHECK(status == PARAC_OK && db == base_db, "2^%d: Davies-Bouldin %.17g, expected %.17g", exponents[e], db,
              base_db);
    }
    free(xs), free(scaled), free(labels);
}

/* The reported shape: four points near +-1e200 in two pairs, and the same
 * near +-1e308 (differences overflow even after squaring is avoided). */
static void test_huge_pairs(void)
{
    const double pairs[] = {1e200, 0, 1.1e200, 0, -1e200, 0, -1.1e200, 0};
    const double corners[] = {1e308, -1e308, 0.9e308, -1e308, -1e308, 1e308, -0.9e308, 1e308};
    const int32_t labels[] = {0, 0, 1, 1};
    parac_status status;
    /* in units of 1e200: a = 0.1 for all four; b = 2.05 for the inner points, 2.15 for the outer ones */
    double expected = 0.5 * ((1.0 - 0.1 / 2.05) + (1.0 - 0.1 / 2.15)), s = silhouette(pairs, 4, 2, labels, &status);
    CHECK(status == PARAC_OK && fabs(s - expected) < 1e-12, "1e200 pairs: silhouette %.17g (status %d)", s, (int)status);
    s = silhouette(corners, 4, 2, labels, &status);
    CHECK(status == PARAC_OK && s > 0.9 && s < 1.0, "1e308 corners: silhouette %.17g (status %d)", s, (int)status);
    s = davies_bouldin(corners, 4, 2, labels, &status);
    CHECK(status == PARAC_OK && s > 0 && s < 0.1, "1e308 corners: Davies-Bouldin %.17g (status %d)", s, (int)status);
}

/* Every point at one spot: a = b = 0 for each, 0/0 scored 0 as sklearn (nan_to_num). */
static void test_identical_points(void)
{
    const double xs[] = {1, 1, 1, 1, 1, 1, 1, 1};
    const int32_t labels[] = {0, 0, 1, 1};
    parac_status status;
    double s = silhouette(xs, 4, 2, labels, &status);
    CHECK(status == PARAC_OK && s == 0.0, "identical points: silhouette %g, status %d (was out of memory)", s,
          (int)status);
}

typedef struct counter {
    int calls, stop_at;
} counter;

static int stop_on_call(void *user_data, uint64_t done, uint64_t total)
{
    counter *c = user_data;
    (void)done, (void)total;
    return ++c->calls >= c->stop_at;
}

static void test_cancel(void)
{
    const size_t n = 3000, d = 2;
    double *xs = malloc(n * d * sizeof(double));
    int32_t *labels = malloc(n * sizeof(int32_t));
    parac_silhouette_options options;
    parac_error error;
    counter c = {0, 1};
    double score = -2.0;
    for (size_t i = 0; i < n * d; i++) xs[i] = (double)(i % 97);
    for (size_t i = 0; i < n; i++) labels[i] = (int32_t)(i % 4);
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 2;
    options.exec.progress = stop_on_call;
    options.exec.progress_user_data = &c;
    parac_status status = parac_metrics_silhouette(&options, xs, n, d, labels, &score, &error);
    CHECK_EQ_INT(status, PARAC_ERR_CANCELLED);
    CHECK(c.calls == 1 && score == -2.0, "%d calls, score %g", c.calls, score);
    c.calls = 0, c.stop_at = 1 << 30; /* never: the same score as without a callback */
    CHECK_OK(parac_metrics_silhouette(&options, xs, n, d, labels, &score, &error), &error);
    CHECK(c.calls >= 1, "no progress report");
    free(xs), free(labels);
}

int main(void)
{
    test_scaled_points();
    test_huge_pairs();
    test_identical_points();
    test_cancel();
    return test_finish("metrics extremes");
}
