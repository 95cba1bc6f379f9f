/* tests/fca/test_sparse_shared.c — the sparse search on T10I4D100K (100,000 x 1,000, 1 % dense):
 * 2,347,376 concepts (LCM's closed itemsets with support >= 1, plus the bottom concept) on one and
 * two threads, and what AUTO picks; with min_support 50 against the dense search. The file (4 MB) is
 * not in tests/data: it is read from $PARAC_DATA/fca (CMake's PARAC_SHARED_DATA, e.g. ../shared/data)
 * and the test is skipped (exit 77) without it. */
#include <stdio.h>
#include <string.h>

#include <parac/fca.h>

#include "test_util.h"

static uint64_t count_with(const parac_fca_context *context, parac_fca_cpu_strategy strategy, int threads,
                           uint64_t min_support)
{
    parac_fca_options options;
    parac_error error = {0};
    uint64_t count = 0;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    options.cpu_strategy = strategy;
    options.min_support = min_support;
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    return count;
}

int main(void)
{
    char path[1024];
    parac_fca_context *context = NULL;
    parac_error error;
    FILE *file;
    uint64_t count;
    snprintf(path, sizeof path, "%s/fca/T10I4D100K.dat", test_data_dir());
    if (!(file = fopen(path, "rb"))) {
        printf("skipped: %s is absent (configure with -DPARAC_SHARED_DATA=/path/to/shared/data)\n", path);
        return 77;
    }
    fclose(file);
    CHECK_OK(parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, &error), &error);
    if (!context) return test_finish("fca.sparse_shared");
    for (int threads = 1; threads <= 2; threads++) {
        count = count_with(context, PARAC_FCA_CPU_SPARSE, threads, 0);
        CHECK(count == 2347376, "sparse, %d threads: %llu concepts, expected 2347376", threads, (unsigned long long)count);
    }
    count = count_with(context, PARAC_FCA_CPU_AUTO, 2, 0);
    CHECK(count == 2347376, "auto: %llu concepts, expected 2347376", (unsigned long long)count);
    /* the dense search takes minutes at min_support 0; at 50 both finish in seconds */
    count = count_with(context, PARAC_FCA_CPU_SPARSE, 2, 50);
    CHECK(count == count_with(context, PARAC_FCA_CPU_ON_DEMAND, 2, 50), "min_support 50: sparse %llu concepts",
          (unsigned long long)count);
    parac_fca_context_destroy(context);
    return test_finish("fca.sparse_shared");
}
