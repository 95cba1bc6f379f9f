/* tests/dbscan/test_extremes.c — coordinates near +-1e308, eps huge, tiny or
 * subnormal, and grid cells far from the origin (issue 15): every method and
 * thread count gives the answer of exact arithmetic, known by construction. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/dbscan.h>

#include "dbscan/dbscan_grid.h"
#include "test_util.h"

static const parac_dbscan_method METHODS[] = {PARAC_DBSCAN_REFERENCE, PARAC_DBSCAN_GRID, PARAC_DBSCAN_BRUTE_FORCE,
                                              PARAC_DBSCAN_AUTO};

/* Every method and 1 or 3 threads must give `expected` (float64, and float32 when asked). */
static void check_labels(const char *name, const double *xs, size_t n, size_t d, double eps, size_t min_samples,
                         const int32_t *expected)
{
    int32_t *labels = malloc(n * sizeof(int32_t));
    for (size_t m = 0; m < sizeof METHODS / sizeof METHODS[0]; m++)
        for (int threads = 1; threads <= 3; threads += 2) {
            parac_dbscan_options options;
            parac_error error;
            memset(&options, 0, sizeof options);
            options.eps = eps;
            options.min_samples = min_samples;
            options.method = METHODS[m];
            options.exec.device = PARAC_DEVICE_CPU;
            options.exec.threads = threads;
            memset(labels, 0x55, n * sizeof(int32_t));
            CHECK_OK(parac_dbscan_run(&options, xs, n, d, labels, NULL, NULL, &error), &error);
            CHECK(memcmp(labels, expected, n * sizeof(int32_t)) == 0, "%s: method %s, %d threads: labels %d %d %d ...",
                  name, parac_dbscan_method_name(METHODS[m]), threads, (int)labels[0], (int)labels[1],
                  (int)labels[n - 1]);
        }
    free(labels);
}

/* Six points in three pairs at the corners of the double range: squared
 * differences overflow, and the grid's span (2e308) is not a double. */
static void test_coordinates_near_max(void)
{
    const double xs[] = {1.0e308, 1.0e308,  0.99e308,  1.0e308,  -1.0e308, -1.0e308,
                         -0.99e308, -1.0e308, 1.0e308, -1.0e308, 0.99e308, -1.0e308};
    const int32_t three_pairs[] = {0, 0, 1, 1, 2, 2}, all_noise[] = {-1, -1, -1, -1, -1, -1};
    const int32_t duplicates[] = {0, 0, 1, 1, 2, 2};
    double twins[12];
    check_labels("near DBL_MAX, eps 2e306", xs, 6, 2, 2e306, 2, three_pairs);
    check_labels("near DBL_MAX, eps 5e305", xs, 6, 2, 5e305, 2, all_noise);
    check_labels("near DBL_MAX, eps 1e308", xs, 6, 2, 1e308, 2, three_pairs);
    check_labels("near DBL_MAX, eps DBL_MAX", xs, 6, 2, DBL_MAX, 2, three_pairs);
    /* Exact duplicates at the corners with eps = 1: the grid must not send them to garbage cells. */
    for (int i = 0; i < 6; i++) twins[2 * i] = xs[4 * (i / 2)], twins[2 * i + 1] = xs[4 * (i / 2) + 1];
    check_labels("duplicates near DBL_MAX, eps 1", twins, 6, 2, 1.0, 2, duplicates);
    check_labels("3-D near DBL_MAX", (const double[]){1e308, -1e308, 5e307, 1e308, -1e308, 5e307, -1e308, 1e308, 0,
                                                      -1e308, 1e308, 1e-300},
                 4, 3, 1.0, 2, (const int32_t[]){0, 0, 1, 1});
}

/* eps^2 overflows (eps 1e300) or underflows (eps 1e-170, subnormal 1e-320). */
static void test_extreme_eps(void)
{
    const double huge[] = {0, 0.5e300, 5e300, 5.5e300, -1e308};
    const double tiny[] = {0, 0.6e-170, 1.2e-170, 10e-170, 10.5e-170, 50e-170};
    const double subnormal[] = {0, 5e-321, 1e-319, 1.02e-319, 3e-319};
    check_labels("eps 1e300", huge, 5, 1, 1e300, 2, (const int32_t[]){0, 0, 1, 1, -1});
    check_labels("eps 1e-170", tiny, 6, 1, 1e-170, 2, (const int32_t[]){0, 0, 0, 1, 1, -1});
    check_labels("eps 1e-320", subnormal, 5, 1, 1e-320, 2, (const int32_t[]){0, 0, 1, 1, -1});
    /* The same in 2-D (one grid coordinate each) and at 9-D (brute force by AUTO). */
    {
        double tiny9[6 * 9];
        memset(tiny9, 0, sizeof tiny9);
        for (int i = 0; i < 6; i++) tiny9[i * 9 + 8] = tiny[i];
        check_labels("eps 1e-170, 9-D", tiny9, 6, 9, 1e-170, 2, (const int32_t[]){0, 0, 0, 1, 1, -1});
    }
}

/* One point 2^60 below two others 0.6 apart: the old grid (2^61 cells on one
 * axis) rounded x - origin to multiples of 256 and put the pair 443 cells apart. */
static void test_far_from_origin(void)
{
    const double xs[] = {-1152921504606846976.0 /* -2^60 */, 127.9, 128.5};
    check_labels("far from the origin", xs, 3, 1, 1.0, 2, (const int32_t[]){-1, 0, 0});
}

/* Cell coordinates are clamped before the conversion: +inf, NaN and values
 * past the grid land in its first or last cell. */
static void test_grid_cell_clamps(void)
{
    dbscan_grid_plan plan;
    parac_error error;
    const double low[1] = {-DBL_MAX}, high[1] = {DBL_MAX};
    CHECK_OK(dbscan_grid_plan_build(&plan, 1, low, high, 1e-300, &error), &error);
    CHECK(plan.extent[0] >= 1 && plan.extent[0] <= ((uint64_t)1 << 32) + 1, "extent %llu",
          (unsigned long long)plan.extent[0]);
    CHECK(dbscan_grid_cell(&plan, 0, DBL_MAX) == plan.extent[0] - 1, "DBL_MAX goes to the last cell");
    CHECK(dbscan_grid_cell(&plan, 0, INFINITY) == plan.extent[0] - 1, "+inf goes to the last cell");
    CHECK(dbscan_grid_cell(&plan, 0, NAN) == 0, "NaN goes to cell 0");
    CHECK(dbscan_grid_cell(&plan, 0, -DBL_MAX) == 0, "-DBL_MAX goes to cell 0");
    CHECK(dbscan_grid_cell(&plan, 0, -0.5 * DBL_MAX) > 0 && dbscan_grid_cell(&plan, 0, -0.5 * DBL_MAX) < plan.extent[0] - 1,
          "-DBL_MAX / 2 lies inside the grid");
}

/* The GPU's coarse plan (side eps * 1.001) with eps near DBL_MAX: the side is
 * +inf, every point lies in cell 0, and the stencil stays finite. */
static void test_coarse_plan_huge_eps(void)
{
    dbscan_grid_plan plan;
    parac_error error;
    const double low[3] = {-DBL_MAX, -1, 0}, high[3] = {DBL_MAX, 1, 1e-300};
    for (int dims = 1; dims <= 3; dims++) {
        CHECK_OK(dbscan_grid_plan_build_coarse(&plan, dims, low, high, DBL_MAX, &error), &error);
        CHECK(plan.row_count >= 1 && plan.row_count <= DBSCAN_GRID_MAX_ROWS, "rows %d", plan.row_count);
        for (int k = 0; k < dims; k++) {
            CHECK(plan.extent[k] >= 1, "extent %d", k);
            CHECK(dbscan_grid_cell(&plan, k, high[k]) < plan.extent[k], "cell of the high corner");
        }
        CHECK_OK(dbscan_grid_plan_build(&plan, dims, low, high, 1e-320, &error), &error);
        CHECK(plan.extent[0] <= ((uint64_t)1 << 32) + 1 && plan.row_count >= 1, "subnormal eps: extent %llu",
              (unsigned long long)plan.extent[0]);
    }
}

int main(void)
{
    test_coordinates_near_max();
    test_extreme_eps();
    test_far_from_origin();
    test_grid_cell_clamps();
    test_coarse_plan_huge_eps();
    return test_finish("dbscan extremes");
}
