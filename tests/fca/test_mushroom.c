/* tests/fca/test_mushroom.c — the largest known count (238,710 concepts, the
 * bottom concept included), on all cores; kept apart because it is the slowest. */
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

int main(void)
{
    parac_fca_context *context = NULL;
    parac_fca_options options;
    parac_error error;
    uint64_t count = 0;
    context = fca_test_read_shared("mushroom.dat");
    if (context) {
        CHECK_EQ_INT(parac_fca_context_objects(context), 8124);
        CHECK_EQ_INT(parac_fca_context_attributes(context), 120); /* ids 1..119 kept as written */
        memset(&options, 0, sizeof options);
        options.exec.device = PARAC_DEVICE_CPU;
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK_EQ_INT(count, 238710);
        options.cpu_strategy = PARAC_FCA_CPU_WORK_STEALING; /* deep, lopsided tree: many steals */
        options.exec.threads = 3;
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK_EQ_INT(count, 238710);
        options.cpu_strategy = PARAC_FCA_CPU_ON_DEMAND; /* copies only while a thread is idle */
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK_EQ_INT(count, 238710);
        options.cpu_strategy = PARAC_FCA_CPU_WORK_STEALING;
        options.min_support = 812; /* 10% */
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK(count > 0 && count < 238710, "iceberg count %llu", (unsigned long long)count);
    }
    parac_fca_context_destroy(context);
    return test_finish("fca.mushroom");
}
