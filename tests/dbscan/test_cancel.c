/* tests/dbscan/test_cancel.c — progress reports and cancellation of the CPU
 * paths (grid, brute force, reference): a callback that returns 1 on its
 * N-th call stops the run with PARAC_ERR_CANCELLED (ASan in CI checks that
 * nothing leaks); one that always returns 0 sees done <= total, never going
 * back, and changes no label. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parac/dbscan.h>

#include "core/rng.h"
#include "test_util.h"

typedef struct counter {
    int calls;
    int stop_at;        /* return 1 on this call (0: never) */
    int went_back;      /* done decreased or exceeded total */
    uint64_t last_done;
} counter;

/* Before a stop it sleeps past the 0.1 s report interval, so the next
 * checkpoint reports whatever the machine's speed. */
static int count_calls(void *user_data, uint64_t done, uint64_t total)
{
    counter *c = user_data;
    struct timespec pause = {0, 110 * 1000 * 1000};
    c->calls++;
    if (done > total || done < c->last_done) c->went_back = 1;
    c->last_done = done;
    if (c->stop_at > 0 && c->calls >= c->stop_at) return 1;
    if (c->stop_at > 0) nanosleep(&pause, NULL);
    return 0;
}

static double *random_points(size_t n, size_t d, uint64_t seed)
{
    parac_rng rng;
    double *xs = malloc(n * d * sizeof(double));
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < n * d; i++) xs[i] = parac_rng_uniform(&rng);
    return xs;
}

static parac_status run(const double *xs, size_t n, size_t d, double eps, parac_dbscan_method method, counter *c,
                        int32_t *labels, parac_error *error)
{
    parac_dbscan_options options;
    memset(&options, 0, sizeof options);
    options.eps = eps;
    options.min_samples = 5;
    options.method = method;
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 2;
    options.exec.progress = c ? count_calls : NULL;
    options.exec.progress_user_data = c;
    return parac_dbscan_run(&options, xs, n, d, labels, NULL, NULL, error);
}

/* Stopping at the first report: every method, whatever its speed. */
static void test_stop_at_first_report(void)
{
    const parac_dbscan_method methods[] = {PARAC_DBSCAN_GRID, PARAC_DBSCAN_BRUTE_FORCE, PARAC_DBSCAN_REFERENCE};
    size_t n = 3000, d = 3;
    double *xs = random_points(n, d, 1);
    int32_t *labels = malloc(n * sizeof(int32_t));
    for (int m = 0; m < 3; m++) {
        counter c = {0, 1, 0, 0};
        parac_error error;
        parac_status status = run(xs, n, d, 0.05, methods[m], &c, labels, &error);
        CHECK(status == PARAC_ERR_CANCELLED, "%s: status %d (%s)", parac_dbscan_method_name(methods[m]), (int)status,
              error.message);
        CHECK(c.calls == 1, "%s: %d calls after the stop", parac_dbscan_method_name(methods[m]), c.calls);
    }
    free(xs), free(labels);
}

/* The brute-force method (the GPU's choice above 8 dimensions; the CPU's auto takes the grid
 * there) reports while it runs and stops on the third report. */
static void test_brute_force_reports_and_stops(void)
{
    size_t n = 6000, d = 12;
    double *xs = random_points(n, d, 2);
    int32_t *labels = malloc(n * sizeof(int32_t));
    counter c = {0, 3, 0, 0};
    parac_error error;
    parac_status status = run(xs, n, d, 0.01, PARAC_DBSCAN_BRUTE_FORCE, &c, labels, &error);
    CHECK(status == PARAC_ERR_CANCELLED, "12-D brute force: status %d (%s)", (int)status, error.message);
    CHECK(c.calls == 3, "%d calls", c.calls);
    CHECK(!c.went_back, "done went back or past total");
    free(xs), free(labels);
}

/* A callback that never stops changes nothing. */
static void test_reports_change_nothing(void)
{
    size_t n = 4000, d = 10;
    double *xs = random_points(n, d, 3);
    int32_t *with = malloc(n * sizeof(int32_t)), *without = malloc(n * sizeof(int32_t));
    counter c = {0, 0, 0, 0};
    parac_error error;
    CHECK_OK(run(xs, n, d, 0.6, PARAC_DBSCAN_AUTO, &c, with, &error), &error);
    CHECK_OK(run(xs, n, d, 0.6, PARAC_DBSCAN_AUTO, NULL, without, &error), &error);
    CHECK(memcmp(with, without, n * sizeof(int32_t)) == 0, "labels changed by the progress callback");
    CHECK(c.calls >= 1 && !c.went_back, "%d calls, went back %d", c.calls, c.went_back);
    free(xs), free(with), free(without);
}

int main(void)
{
    test_stop_at_first_report();
    test_brute_force_reports_and_stops();
    test_reports_change_nothing();
    return test_finish("dbscan cancel");
}
