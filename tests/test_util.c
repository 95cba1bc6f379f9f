/* tests/test_util.c */
#include "test_util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <parac/devices.h>

#ifndef PARAC_TEST_DATA_DEFAULT /* set by tests/CMakeLists.txt */
#define PARAC_TEST_DATA_DEFAULT "tests/data"
#endif

int test_checks_passed = 0;
int test_checks_failed = 0;

void test_record(int ok, const char *file, int line, const char *expression, const char *format, ...)
{
    va_list args;
    if (ok) {
        test_checks_passed++;
        return;
    }
    test_checks_failed++;
    if (test_checks_failed > 50) return; /* enough to diagnose */
    fprintf(stderr, "FAIL %s:%d: %s", file, line, expression);
    if (format && *format) {
        fprintf(stderr, ": ");
        va_start(args, format);
        vfprintf(stderr, format, args);
        va_end(args);
    }
    fputc('\n', stderr);
}

int test_finish(const char *suite)
{
    printf("%s: %d checks passed, %d failed\n", suite, test_checks_passed, test_checks_failed);
    if (test_checks_passed == 0 && test_checks_failed == 0) {
        fprintf(stderr, "%s: no checks ran\n", suite);
        return 1;
    }
    return test_checks_failed ? 1 : 0;
}

int test_require_gpu(void)
{
    char why[256] = "";
    /* Line by line even into a file: a gpu test that compute-sanitizer's time limit stops (scripts/gpu-check
     * GPU_CHECK_SANITIZE) then shows in its log how far it got, where a full buffer showed nothing. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (parac_cuda_device_count(why, sizeof why) > 0) return 0;
    printf("skipped: no usable GPU (%s)\n", why);
    return 77;
}

int test_quick(void)
{
    const char *quick = getenv("PARAC_TEST_QUICK");
    return quick && (strcmp(quick, "1") == 0 || strcmp(quick, "2") == 0);
}

int test_tiny(void)
{
    const char *quick = getenv("PARAC_TEST_QUICK");
    return quick && strcmp(quick, "2") == 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define TEST_INSTRUMENTED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_INSTRUMENTED 1
#endif
#endif

double test_time_limit(double seconds)
{
#ifdef TEST_INSTRUMENTED
    return 5.0 * seconds;
#else
    return seconds;
#endif
}

size_t test_full_or_quick(size_t full, size_t quick)
{
    return test_quick() ? quick : full;
}

const char *test_temp_path(char *buffer, size_t size, const char *name)
{
    snprintf(buffer, size, "/tmp/parac-test-%ld-%s", (long)getpid(), name);
    return buffer;
}

const char *test_data_dir(void)
{
    const char *dir = getenv("PARAC_DATA");
    return dir && *dir ? dir : PARAC_TEST_DATA_DEFAULT;
}
