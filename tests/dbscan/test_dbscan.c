/* tests/dbscan/test_dbscan.c — every CPU method against the O(n^2) reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/dbscan.h>

#include "core/rng.h"
#include "core/timer.h"
#include "dbscan/dbscan_grid.h"
#include "test_util.h"

typedef struct run_result {
    int32_t *labels;
    uint8_t *core;
    parac_dbscan_info info;
    int status;
} run_result;

static run_result run(const double *xs, size_t n, size_t d, double eps, size_t min_samples,
                      parac_dbscan_method method, int threads)
{
    run_result result;
    parac_dbscan_options options;
    parac_error error;
    memset(&options, 0, sizeof options);
    options.eps = eps;
    options.min_samples = min_samples;
    options.method = method;
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    result.labels = malloc((n + 1) * sizeof(int32_t));
    result.core = malloc(n + 1);
    result.status = parac_dbscan_run(&options, xs, n, d, result.labels, result.core, &result.info, &error);
    if (result.status) printf("  dbscan failed: %s\n", error.message);
    return result;
}

static void free_result(run_result *result)
{
    free(result->labels);
    free(result->core);
}

static int same_answer(const run_result *a, const run_result *b, size_t n)
{
    return a->status == 0 && b->status == 0 && memcmp(a->labels, b->labels, n * sizeof(int32_t)) == 0 &&
           memcmp(a->core, b->core, n) == 0 && a->info.clusters == b->info.clusters;
}

/* Every method and thread count gives the reference's bytes. */
static void check_all_methods(const char *name, const double *xs, size_t n, size_t d, double eps, size_t min_samples)
{
    run_result reference = run(xs, n, d, eps, min_samples, PARAC_DBSCAN_REFERENCE, 1);
    const parac_dbscan_method methods[] = {PARAC_DBSCAN_GRID, PARAC_DBSCAN_BRUTE_FORCE, PARAC_DBSCAN_AUTO};
    const int threads[] = {1, 2, 3};
    for (size_t m = 0; m < 3; m++)
        for (size_t t = 0; t < 3; t++) {
            run_result other = run(xs, n, d, eps, min_samples, methods[m], threads[t]);
            CHECK(same_answer(&reference, &other, n), "%s: n=%zu d=%zu eps=%g min=%zu method=%s threads=%d", name, n,
                  d, eps, min_samples, parac_dbscan_method_name(methods[m]), threads[t]);
            free_result(&other);
        }
    free_result(&reference);
}

/* Coordinates on a lattice of step 1/4 give many pairs at exactly eps. */
static double *lattice_points(uint64_t seed, size_t n, size_t d, double span)
{
    parac_rng rng;
    double *xs = malloc(n * d * sizeof(double));
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < n * d; i++) xs[i] = (double)parac_rng_below(&rng, (uint64_t)(span * 4)) / 4.0;
    return xs;
}

static double *clustered_points(uint64_t seed, size_t n, size_t d)
{
    parac_rng rng;
    double *xs = malloc(n * d * sizeof(double));
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        double center = (double)(i % 4) * 3.0;
        for (size_t k = 0; k < d; k++) xs[i * d + k] = center + 0.6 * parac_rng_normal(&rng);
    }
    return xs;
}

static void test_random_shapes(void)
{
    for (size_t d = 1; d <= 16; d++) {
        size_t n = d <= 3 ? 400 : 200;
        double *lattice = lattice_points(d, n, d, d <= 2 ? 6.0 : 3.0);
        double *blobs = clustered_points(100 + d, n, d);
        double eps_lattice[] = {0.25, 0.5, 1.0};
        for (int e = 0; e < 3; e++) {
            check_all_methods("lattice", lattice, n, d, eps_lattice[e] * sqrt((double)d), 3);
            check_all_methods("lattice-ties", lattice, n, d, eps_lattice[e], 2 + (size_t)e * 3);
        }
        check_all_methods("blobs", blobs, n, d, 0.5 * sqrt((double)d), 5);
        check_all_methods("blobs-min1", blobs, n, d, 0.3 * sqrt((double)d), 1);
        free(lattice);
        free(blobs);
    }
}

/* Past 16 coordinates the CPU decides "within eps" from partial sums (dbscan_within_eps): the
 * lattice's pairs at exactly eps in many dimensions must still be neighbours, as in the reference's
 * full sums. */
static void test_many_dimensions(void)
{
    const size_t dims[] = {17, 40, 64};
    for (size_t i = 0; i < 3; i++) {
        size_t d = dims[i], n = 160;
        double *lattice = lattice_points(500 + d, n, d, 3.0);
        double *blobs = clustered_points(600 + d, n, d);
        check_all_methods("lattice-many-d", lattice, n, d, 0.5 * sqrt((double)d), 3);
        check_all_methods("lattice-many-d-ties", lattice, n, d, 1.0 * sqrt((double)d), 4);
        check_all_methods("lattice-many-d-ties-exact", lattice, n, d, 5.0, 2);
        check_all_methods("blobs-many-d", blobs, n, d, 0.5 * sqrt((double)d), 5);
        free(lattice);
        free(blobs);
    }
}

/* AUTO takes the grid on the CPU at any d (it was brute force above 8 dimensions: 200,000 points
 * in 12-D took over 100 s there, 7.7 s with the grid). */
static void test_auto_takes_the_grid_on_cpu(void)
{
    double *blobs = clustered_points(7, 300, 12);
    run_result result = run(blobs, 300, 12, 1.5, 5, PARAC_DBSCAN_AUTO, 2);
    CHECK(result.status == 0 && result.info.method == PARAC_DBSCAN_GRID, "12-D auto on the CPU: method %s",
          parac_dbscan_method_name(result.info.method));
    free_result(&result);
    free(blobs);
}

/* 1-D points 0,1,2,3,10 with eps exactly 1: 1 and 2 have 3 neighbours. */
static void test_ties_at_eps(void)
{
    const double xs[] = {0, 1, 2, 3, 10};
    const int32_t expected[] = {0, 0, 0, 0, -1};
    const uint8_t expected_core[] = {0, 1, 1, 0, 0};
    run_result result = run(xs, 5, 1, 1.0, 3, PARAC_DBSCAN_AUTO, 2);
    CHECK(memcmp(result.labels, expected, sizeof expected) == 0, "distance == eps must be a neighbour");
    CHECK(memcmp(result.core, expected_core, sizeof expected_core) == 0, "core points at eps ties");
    free_result(&result);
    /* Just above eps is not a neighbour: nothing is core. */
    result = run(xs, 5, 1, nextafter(1.0, 0.0), 3, PARAC_DBSCAN_AUTO, 2);
    CHECK_EQ_INT(result.info.core, 0);
    CHECK_EQ_INT(result.info.noise, 5);
    free_result(&result);
}

/* Two clusters share a border point at 1.0: it goes to the cluster of its
 * lowest-index core neighbour (index 6, in cluster 1), not to cluster 0. */
static void test_border_rule(void)
{
    const double xs[] = {0.0, 0.1, 0.2, 2.0, 1.9, 1.8, 1.7, 0.3, 1.0};
    const int32_t expected[] = {0, 0, 0, 1, 1, 1, 1, 0, 1};
    run_result result = run(xs, 9, 1, 0.75, 4, PARAC_DBSCAN_GRID, 2);
    CHECK(memcmp(result.labels, expected, sizeof expected) == 0, "border rule: label of point 8 is %d",
          (int)result.labels[8]);
    CHECK_EQ_INT(result.info.border, 1);
    free_result(&result);
    check_all_methods("border", xs, 9, 1, 0.75, 4);
}

static void test_special_inputs(void)
{
    double duplicates[300];
    double spread[200];
    run_result result;
    for (int i = 0; i < 300; i++) duplicates[i] = i < 150 ? 1.5 : -2.0;
    check_all_methods("duplicates", duplicates, 150, 2, 1e-9, 150);
    check_all_methods("duplicates-2", duplicates, 300, 1, 0.1, 151);
    for (int i = 0; i < 200; i++) spread[i] = (double)i * 10.0;
    result = run(spread, 100, 2, 1.0, 2, PARAC_DBSCAN_AUTO, 2);
    CHECK_EQ_INT(result.info.noise, 100);
    CHECK_EQ_INT(result.info.clusters, 0);
    free_result(&result);
    result = run(spread, 100, 2, 1e6, 2, PARAC_DBSCAN_AUTO, 2);
    CHECK_EQ_INT(result.info.clusters, 1);
    CHECK_EQ_INT(result.info.core, 100);
    free_result(&result);
    result = run(spread, 0, 3, 1.0, 2, PARAC_DBSCAN_AUTO, 2);
    CHECK_EQ_INT(result.status, 0);
    CHECK_EQ_INT(result.info.clusters, 0);
    free_result(&result);
    /* Huge coordinate range with a tiny eps: keys must still fit (coarser cells). */
    spread[0] = -1e300, spread[1] = 0, spread[2] = 1e300, spread[3] = 0, spread[4] = 1e300, spread[5] = 1e-300;
    check_all_methods("huge-range", spread, 3, 2, 1e-299, 2);
}

static void test_bad_arguments(void)
{
    double xs[4] = {0, 1, 2, NAN};
    parac_dbscan_options options;
    parac_error error;
    int32_t labels[4];
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.eps = 1.0;
    options.min_samples = 2;
    CHECK_EQ_INT(parac_dbscan_run(&options, xs, 4, 1, labels, NULL, NULL, &error), PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "point 3") != NULL, "NaN message names the point: %s", error.message);
    CHECK_EQ_INT(parac_dbscan_run(&options, xs, 3, 0, labels, NULL, NULL, &error), PARAC_ERR_INVALID_ARGUMENT);
    options.eps = 0;
    CHECK_EQ_INT(parac_dbscan_run(&options, xs, 3, 1, labels, NULL, NULL, &error), PARAC_ERR_INVALID_ARGUMENT);
    options.eps = 1;
    options.min_samples = 0;
    CHECK_EQ_INT(parac_dbscan_run(&options, xs, 3, 1, labels, NULL, NULL, &error), PARAC_ERR_INVALID_ARGUMENT);
    /* coarse-listed moved to dev/dbscan/: its number and name are refused, saying where it went */
    options.min_samples = 2;
    options.gpu_variant = PARAC_DBSCAN_GPU_REMOVED_COARSE_LISTED;
    CHECK_EQ_INT(parac_dbscan_run(&options, xs, 3, 1, labels, NULL, NULL, &error), PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "dev/dbscan/01_coarse_listed.c") != NULL, "removed variant: %s", error.message);
    CHECK_EQ_INT(parac_dbscan_gpu_variant_parse("coarse-listed", &options.gpu_variant, &error),
                 PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "dev/dbscan/") != NULL, "removed variant name: %s", error.message);
}

static void test_float32_matches_widened(void)
{
    size_t n = 500, d = 3;
    double *xs = clustered_points(7, n, d);
    float *narrow = malloc(n * d * sizeof(float));
    parac_dbscan_options options;
    parac_error error;
    int32_t *a = malloc(n * sizeof(int32_t)), *b = malloc(n * sizeof(int32_t));
    for (size_t i = 0; i < n * d; i++) narrow[i] = (float)xs[i], xs[i] = (double)narrow[i];
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.eps = 0.7;
    options.min_samples = 6;
    CHECK_OK(parac_dbscan_run(&options, xs, n, d, a, NULL, NULL, &error), &error);
    CHECK_OK(parac_dbscan_run_f32(&options, narrow, n, d, b, NULL, NULL, &error), &error);
    CHECK(memcmp(a, b, n * sizeof(int32_t)) == 0, "float32 input equals its widened float64 copy");
    free(xs), free(narrow), free(a), free(b);
}

/* Tight blobs: many dense cells, joined across cells by the shortcut path. */
static void test_dense_cells(void)
{
    for (size_t d = 2; d <= 3; d++) {
        parac_rng rng;
        size_t n = 3000;
        double *xs = malloc(n * d * sizeof(double));
        parac_rng_seed(&rng, 42 + d);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < d; k++) xs[i * d + k] = (double)(i % 3) * 2.0 + 0.3 * parac_rng_normal(&rng);
        check_all_methods("dense", xs, n, d, 0.05, 10);
        check_all_methods("dense-wide", xs, n, d, 0.2, 20);
        free(xs);
    }
}

/* Cells whose points are all within eps of each other but too few for the dense shortcut ("within"
 * cells: dbscan_cpu.c counts them whole and joins their cores before the union): stacks of
 * duplicates, some jittered, on a lattice finer than eps, so that cores come from neighbouring
 * cells, cells hold cores and non-cores, and some cells no core. */
static void test_within_cells(void)
{
    for (size_t d = 1; d <= 4; d++) {
        parac_rng rng;
        size_t n = 0, capacity = 2400;
        double *xs = malloc(capacity * d * sizeof(double));
        const size_t min_samples[] = {4, 12, 30, 90, 400};
        parac_rng_seed(&rng, 900 + d);
        while (n < capacity) {
            size_t copies = 1 + parac_rng_below(&rng, 24);
            double site[4], jitter = parac_rng_below(&rng, 3) == 0 ? 0.02 : 0.0;
            for (size_t k = 0; k < d; k++) site[k] = 0.3 * (double)parac_rng_below(&rng, d <= 2 ? 24 : 8);
            for (size_t c = 0; c < copies && n < capacity; c++, n++)
                for (size_t k = 0; k < d; k++) xs[n * d + k] = site[k] + jitter * parac_rng_uniform(&rng);
        }
        for (size_t m = 0; m < sizeof min_samples / sizeof min_samples[0]; m++)
            check_all_methods("within cells", xs, n, d, 1.0, min_samples[m]);
        free(xs);
    }
}

/* 200,000 identical points and min_samples above their count: all noise, and no pair compared
 * (every point compared with every other, twice, took 14 s for 100,000 points on 2 threads). */
static void test_identical_points_below_min_samples(void)
{
    size_t n = 200000;
    double *xs = calloc(n * 2, sizeof(double)), start = parac_now_seconds(), seconds;
    run_result result = run(xs, n, 2, 1.0, n + 1, PARAC_DBSCAN_GRID, 2);
    size_t noise = 0;
    seconds = parac_now_seconds() - start;
    for (size_t i = 0; i < n && result.status == 0; i++) noise += result.labels[i] == -1 && !result.core[i];
    CHECK(result.status == 0 && noise == n, "%zu of %zu identical points noise", noise, n);
    CHECK(seconds < test_time_limit(5.0), "%zu identical points with min_samples %zu took %.1f s", n, n + 1,
          seconds);
    free_result(&result);
    free(xs);
}

/* min_samples near or above n with an eps that spans the data: a point's count stops once the
 * candidates left cannot reach min_samples. The same bytes as the reference where it can run, and
 * 300,000 uniform points at min_samples 10^12 (every pair compared before: over 60 s at 1 M points)
 * in seconds. */
static void test_min_samples_out_of_reach(void)
{
    size_t n = 900, big = 300000;
    parac_rng rng;
    double *xs = malloc(big * 2 * sizeof(double)), start, seconds;
    const size_t min_samples[] = {n - 200, n - 3, n, n + 1, (size_t)1000000000000ull};
    run_result result;
    size_t noise = 0;
    parac_rng_seed(&rng, 77);
    for (size_t i = 0; i < big * 2; i++) xs[i] = parac_rng_uniform(&rng);
    for (size_t m = 0; m < sizeof min_samples / sizeof min_samples[0]; m++) {
        check_all_methods("out of reach, wide eps", xs, n, 2, 0.9, min_samples[m]);
        check_all_methods("out of reach, eps 0.5", xs, n, 2, 0.5, min_samples[m] > 400 ? min_samples[m] - 400 : 1);
    }
    start = parac_now_seconds();
    result = run(xs, big, 2, 0.5, (size_t)1000000000000ull, PARAC_DBSCAN_GRID, 2);
    seconds = parac_now_seconds() - start;
    for (size_t i = 0; i < big && result.status == 0; i++) noise += result.labels[i] == -1 && !result.core[i];
    CHECK(result.status == 0 && noise == big, "%zu of %zu points noise at min_samples 10^12", noise, big);
    CHECK(seconds < test_time_limit(10.0), "%zu points at min_samples 10^12 took %.1f s", big, seconds);
    free_result(&result);
    free(xs);
}

/* Cells of DBSCAN_TREE_MIN_POINTS or more are read by their kd-trees (src/dbscan/dbscan_cell_tree.c):
 * counts near min_samples, border points choosing among core points of tree cells, pairs at exactly
 * eps on a lattice (a node's far corner at eps counts whole), 3-D and 4-D points (on the 4-D grid no
 * cell is within, so a point's own cell is read by its tree too) — the reference's bytes. And where a
 * point's count needs most of the data (eps spanning it, min_samples 60 % of n: every point compared
 * with ~120,000 others, about 2 minutes before the trees), seconds. */
static void test_cell_trees(void)
{
    size_t n = 3000, big = 200000;
    parac_rng rng;
    double *xs = malloc(big * 4 * sizeof(double)), *lattice = lattice_points(5, n, 2, 4.0), start, seconds;
    const double fractions[] = {0.1, 0.4, 0.6, 0.9};
    run_result result;
    size_t core = 0;
    parac_rng_seed(&rng, 91);
    for (size_t i = 0; i < big * 4; i++) xs[i] = parac_rng_uniform(&rng);
    /* eps such that the grid has a few cells of 256 points or more */
    for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++) {
        size_t min_samples = (size_t)(fractions[f] * (double)n);
        check_all_methods("cell trees, 2-D", xs, n, 2, 0.55, min_samples);
        check_all_methods("cell trees, lattice", lattice, n, 2, 2.0, min_samples);
    }
    check_all_methods("cell trees, 3-D", xs, n, 3, 0.9, n / 3);
    check_all_methods("cell trees, 4-D", xs, n, 4, 0.9, n / 5);
    start = parac_now_seconds();
    result = run(xs, big, 2, 0.5, big * 3 / 5, PARAC_DBSCAN_GRID, 2);
    seconds = parac_now_seconds() - start;
    for (size_t i = 0; i < big && result.status == 0; i++) core += result.core[i];
    CHECK(result.status == 0 && core > big / 10 && core < big / 2, "%zu of %zu points core at min_samples 60 %%", core,
          big);
    CHECK(seconds < test_time_limit(10.0), "%zu points at eps 0.5 and min_samples %zu took %.1f s", big,
          big * 3 / 5, seconds);
    free_result(&result);
    /* two piles of 100,000 identical points in neighbouring cells, within eps of each other: the tree of
     * a pile splits points whose coordinates are all equal (a two-way quickselect took 6.4 s here) */
    for (size_t i = 0; i < big; i++) xs[2 * i] = i < big / 2 ? 0.0 : 0.4, xs[2 * i + 1] = 0.0;
    start = parac_now_seconds();
    result = run(xs, big, 2, 0.5, big * 3 / 4, PARAC_DBSCAN_GRID, 2);
    seconds = parac_now_seconds() - start;
    core = 0;
    for (size_t i = 0; i < big && result.status == 0; i++) core += result.core[i] && result.labels[i] == 0;
    CHECK(result.status == 0 && core == big, "two piles: %zu of %zu points core in cluster 0", core, big);
    CHECK(seconds < test_time_limit(2.0), "two piles of %zu identical points took %.1f s", big / 2, seconds);
    free_result(&result);
    free(xs);
    free(lattice);
}

/* 1 when the cell of q lies in one of the stencil rows around the cell of p. */
static int stencil_covers(const dbscan_grid_plan *plan, const double *p, const double *q)
{
    uint64_t cell_p[DBSCAN_GRID_MAX_DIMS], cell_q[DBSCAN_GRID_MAX_DIMS], key_q = 0;
    for (int k = 0; k < plan->dims; k++) {
        cell_p[k] = dbscan_grid_cell(plan, k, p[k]);
        cell_q[k] = dbscan_grid_cell(plan, k, q[k]);
        key_q = key_q * plan->extent[k] + cell_q[k];
    }
    for (int row = 0; row < plan->row_count; row++) {
        uint64_t first, last;
        if (dbscan_grid_row_keys(plan, cell_p, row, &first, &last) && first <= key_q && key_q <= last) return 1;
    }
    return 0;
}

/* The fine (eps/sqrt(g)) and coarse (~eps, used by the GPU's coarse variant)
 * plans: every pair within eps, ties at exactly eps included, falls in the
 * stencil; the coarse stencil is 3^g cells. */
static void test_grid_stencils(void)
{
    parac_rng rng;
    parac_error error;
    parac_rng_seed(&rng, 77);
    for (int dims = 1; dims <= 3; dims++) {
        const double eps = 0.25, low[3] = {0, 0, 0}, high[3] = {20, 20, 20};
        dbscan_grid_plan fine, coarse;
        int missed = 0, pairs = 0;
        CHECK_OK(dbscan_grid_plan_build(&fine, dims, low, high, eps, &error), &error);
        CHECK_OK(dbscan_grid_plan_build_coarse(&coarse, dims, low, high, eps, &error), &error);
        CHECK(coarse.row_count == (dims == 1 ? 1 : dims == 2 ? 3 : 9), "coarse stencil rows %d", coarse.row_count);
        for (int r = 0; r < coarse.row_count; r++) CHECK(coarse.row_half_width[r] == 1, "coarse half width");
        for (int trial = 0; trial < 200000; trial++) {
            double p[3], q[3], sum = 0.0;
            int lattice = trial % 2; /* quarter-eps lattice: many pairs at exactly eps */
            for (int k = 0; k < dims; k++) {
                p[k] = lattice ? (double)parac_rng_below(&rng, 80) / 16.0 : 20.0 * parac_rng_uniform(&rng);
                q[k] = lattice ? p[k] + ((double)parac_rng_below(&rng, 9) - 4.0) / 16.0
                               : p[k] + (2.0 * parac_rng_uniform(&rng) - 1.0) * eps;
                if (q[k] < 0) q[k] = 0;
                sum += (p[k] - q[k]) * (p[k] - q[k]);
            }
            if (sum > eps * eps) continue;
            pairs++;
            missed += !stencil_covers(&fine, p, q) + !stencil_covers(&coarse, p, q);
        }
        CHECK(pairs > 1000 && missed == 0, "dims %d: %d of %d pairs within eps outside a stencil", dims, missed, pairs);
    }
}

int main(void)
{
    test_grid_stencils();
    test_dense_cells();
    test_within_cells();
    test_identical_points_below_min_samples();
    test_min_samples_out_of_reach();
    test_cell_trees();
    test_ties_at_eps();
    test_border_rule();
    test_special_inputs();
    test_bad_arguments();
    test_float32_matches_widened();
    test_random_shapes();
    test_many_dimensions();
    test_auto_takes_the_grid_on_cpu();
    return test_finish("dbscan");
}
