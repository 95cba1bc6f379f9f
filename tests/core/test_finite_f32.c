/* tests/core/test_finite_f32.c — parac_first_non_finite_f32 (dbscan's float32 input check): the first
 * infinity or NaN on one thread and on several, at block edges, none among huge and subnormal floats;
 * and dbscan naming the point and coordinate of the first bad float. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/dbscan.h>

#include "core/finite.h"
#include "test_util.h"

static void check_threads(const float *values, size_t n, size_t expected, const char *what)
{
    for (int threads = 1; threads <= 4; threads += 3)
        CHECK(parac_first_non_finite_f32(values, n, threads) == expected, "%s, %d threads: %zu, expected %zu", what,
              threads, parac_first_non_finite_f32(values, n, threads), expected);
}

int main(void)
{
    size_t n = 300001;
    float *values = malloc(n * sizeof *values);
    int32_t *labels = malloc((n / 3 + 1) * sizeof *labels);
    parac_dbscan_options options;
    parac_error error = {0};
    for (size_t i = 0; i < n; i++) values[i] = i % 3 == 0 ? FLT_MAX : i % 3 == 1 ? -FLT_MIN / 8 : (float)i;
    check_threads(values, n, n, "all finite (huge and subnormal values)");
    check_threads(values, 0, 0, "empty");
    values[n - 1] = NAN;
    check_threads(values, n, n - 1, "NaN last");
    values[4096 * 33] = -INFINITY;
    values[4096 * 33 + 1] = INFINITY;
    check_threads(values, n, 4096 * 33, "-inf at a block start");
    values[4095] = INFINITY;
    check_threads(values, n, 4095, "inf at the end of the first block");

    /* dbscan on 100,000 3-D float points: the first bad value is point 1365, coordinate 0 (4095 = 3 x 1365). */
    memset(&options, 0, sizeof options);
    options.eps = 0.5;
    options.min_samples = 3;
    options.exec.device = PARAC_DEVICE_CPU;
    CHECK(parac_dbscan_run_f32(&options, values, n / 3, 3, labels, NULL, NULL, &error) == PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "point 1365, coordinate 0 is not a finite number") != NULL, "%s", error.message);
    free(values);
    free(labels);
    return test_finish("core.finite_f32");
}
