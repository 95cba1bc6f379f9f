/* tests/fca/test_mushroom.c — the largest known count (238,710 concepts, the
 * bottom concept included), on all cores; kept apart because it is the slowest. */
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

/* 238,710 stored concepts: the parallel sort (chunks, then merge levels) on 1, 3 and 4 threads gives one
 * order, ascending by fca_intent_compare's rule (checked through the public intent lists). */
static void check_sorted_alike(const parac_fca_context *context)
{
    parac_fca_concepts *one = fca_test_compute(context, PARAC_DEVICE_CPU, 1, 0);
    uint32_t previous[128], current[128];
    size_t previous_size = 0;
    for (int threads = 3; threads <= 4 && one; threads++) {
        parac_fca_concepts *many = fca_test_compute(context, PARAC_DEVICE_CPU, threads, 0);
        CHECK(many && fca_test_same_concepts(one, many), "%d threads: concepts or order differ from 1 thread", threads);
        parac_fca_concepts_destroy(many);
    }
    for (size_t i = 0; one && i < parac_fca_concepts_size(one); i++) {
        size_t size = parac_fca_concept_intent(one, i, current, 128), k = 0;
        while (k < size && k < previous_size && current[k] == previous[k]) k++;
        /* ascending id lists: a prefix first, else the smaller id at the first difference */
        CHECK(i == 0 || (k == previous_size && size > previous_size) ||
                  (k < size && k < previous_size && current[k] > previous[k]),
              "concept %zu is not after concept %zu in canonical order", i, i - 1);
        if (test_checks_failed > 0) break;
        memcpy(previous, current, size * sizeof *current);
        previous_size = size;
    }
    parac_fca_concepts_destroy(one);
}

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
        options.cpu_strategy = PARAC_FCA_CPU_ON_DEMAND; /* deep, lopsided tree: many steals */
        options.exec.threads = 3;
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK_EQ_INT(count, 238710);
        options.min_support = 812; /* 10% */
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK(count > 0 && count < 238710, "iceberg count %llu", (unsigned long long)count);
        check_sorted_alike(context);
    }
    parac_fca_context_destroy(context);
    return test_finish("fca.mushroom");
}
