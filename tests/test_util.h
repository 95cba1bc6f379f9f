/* tests/test_util.h — the few assertions parac's C tests need.
 *
 * CHECK(cond, ...) records a failure with file, line and a message and goes
 * on; test_finish() prints "N passed, N failed" and returns the exit code.
 * A GPU test calls test_require_gpu() first: without a device it returns 77,
 * which ctest reports as "skipped".
 */
#ifndef PARAC_TEST_UTIL_H
#define PARAC_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

extern int test_checks_passed;
extern int test_checks_failed;

void test_record(int ok, const char *file, int line, const char *expression, const char *format, ...);

#define CHECK(cond, ...) test_record((cond) ? 1 : 0, __FILE__, __LINE__, #cond, "" __VA_ARGS__)
#define CHECK_EQ_INT(a, b) \
    test_record((long long)(a) == (long long)(b), __FILE__, __LINE__, #a " == " #b, "%lld != %lld", (long long)(a), (long long)(b))
#define CHECK_OK(status_expr, error_ptr)                                                          \
    do {                                                                                          \
        int status_value_ = (int)(status_expr);                                                   \
        test_record(status_value_ == 0, __FILE__, __LINE__, #status_expr, "status %d: %s", status_value_, \
                    (error_ptr)->message);                                                         \
    } while (0)

/* Exit code for main(): 0 when nothing failed (and at least one check ran). */
int test_finish(const char *suite);

/* 77 when no CUDA device is usable (after saying why), 0 otherwise; stdout is line-buffered from here on. */
int test_require_gpu(void);

/* 1 when PARAC_TEST_QUICK=1: the GPU tests then run fewer and smaller cases with the same checks, so
 * that compute-sanitizer (10-100x slower) gets through them (scripts/gpu-check GPU_CHECK_SANITIZE sets
 * it; docs/GPU.md "Quick mode" lists what each test shrinks). Every kernel, variant and code path a
 * test reaches in a full run it still reaches in quick mode. */
int test_quick(void);

/* 1 when PARAC_TEST_QUICK=2 (quick mode too): the tests that did not finish under racecheck or memcheck
 * within a device call even in quick mode (ac.algorithms_gpu, fca.fcbo_gpu, fca.cli_gpu) keep only their
 * smallest cases that still launch every kernel (docs/GPU.md "Tiny mode"); the others run as in quick mode. */
int test_tiny(void);

/* full normally, quick under PARAC_TEST_QUICK=1: a size, count or round number of a gpu test. */
size_t test_full_or_quick(size_t full, size_t quick);

/* The wall time a timing bound allows: `seconds` in an optimised build, five times it in an
 * AddressSanitizer build (the CI's ASan pass: a Debug build at -O0 with every access checked runs 3-10x
 * slower, with the whole suite on every core at once). The bounds stand against hangs and quadratic
 * work, which exceed either by far; an instrumented run near the plain bound is no such failure. */
double test_time_limit(double seconds);

/* A scratch file path unique to this process: /tmp/parac-test-<pid>-<name>. */
const char *test_temp_path(char *buffer, size_t size, const char *name);

/* The test data directory: $PARAC_DATA (CMake sets it to PARAC_SHARED_DATA, default tests/data),
 * else the tests/data of the source tree this file was compiled from. */
const char *test_data_dir(void);

#endif
