/* tests/core/test_finite.c — core/finite: the first infinity or NaN of an
 * array, on one thread and on several (block boundaries, several bad values,
 * the last value, none at all, subnormals and huge finite values), the
 * float32 twin, and the magnitude limit birch uses. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/finite.h"
#include "test_util.h"

static void check_threads(const double *values, size_t n, size_t expected, const char *what)
{
    for (int threads = 1; threads <= 4; threads += 3)
        CHECK(parac_first_non_finite(values, n, threads) == expected, "%s, %d threads: %zu, expected %zu", what,
              threads, parac_first_non_finite(values, n, threads), expected);
}

static void check_f32(void)
{
    size_t n = 70001;
    float *values = malloc(n * sizeof *values);
    for (size_t i = 0; i < n; i++) values[i] = i % 2 ? FLT_MAX : -FLT_MIN / 8;
    for (int threads = 1; threads <= 4; threads += 3) {
        CHECK(parac_first_non_finite_f32(values, n, threads) == n, "f32 all finite");
        values[n - 1] = NAN;
        CHECK(parac_first_non_finite_f32(values, n, threads) == n - 1, "f32 NaN last");
        values[4096 * 3 + 1] = -INFINITY;
        CHECK(parac_first_non_finite_f32(values, n, threads) == 4096 * 3 + 1, "f32 -inf");
        values[n - 1] = 0, values[4096 * 3 + 1] = 0;
    }
    free(values);
}

/* |v| <= limit passes (the limit itself too), anything larger, inf or NaN does not. */
static void check_beyond(void)
{
    size_t n = 50000;
    double *values = malloc(n * sizeof *values);
    for (size_t i = 0; i < n; i++) values[i] = i % 2 ? 1e100 : -1e100;
    for (int threads = 1; threads <= 4; threads += 3) {
        CHECK(parac_first_beyond(values, n, 1e100, threads) == n, "values at the limit pass");
        values[40000] = -nextafter(1e100, INFINITY);
        CHECK(parac_first_beyond(values, n, 1e100, threads) == 40000, "just past the limit");
        values[30000] = NAN;
        CHECK(parac_first_beyond(values, n, 1e100, threads) == 30000, "NaN is beyond any limit");
        values[7] = -INFINITY;
        CHECK(parac_first_beyond(values, n, DBL_MAX, threads) == 7, "-inf is beyond DBL_MAX");
        CHECK(parac_first_beyond(values, 7, 0.0, threads) == 0, "1e100 is beyond 0");
        values[40000] = values[30000] = values[7] = 1e100;
    }
    free(values);
}

int main(void)
{
    check_f32();
    check_beyond();
    size_t n = 200003;
    double *values = malloc(n * sizeof *values);
    for (size_t i = 0; i < n; i++) values[i] = i % 3 == 0 ? DBL_MAX : i % 3 == 1 ? -DBL_MIN / 4 : (double)i;
    check_threads(values, n, n, "all finite (huge and subnormal values)");
    check_threads(values, 0, 0, "empty");
    values[n - 1] = NAN;
    check_threads(values, n, n - 1, "NaN last");
    values[4096 * 17] = -INFINITY; /* the first value of a block */
    values[4096 * 17 + 5] = INFINITY;
    check_threads(values, n, 4096 * 17, "-inf at a block start, inf after it");
    values[4095] = INFINITY; /* the last value of the first block */
    check_threads(values, n, 4095, "inf at the end of the first block");
    check_threads(values + 4096, n - 4096, 4096 * 16, "the same array from its second block");
    free(values);
    return test_finish("core.finite");
}
