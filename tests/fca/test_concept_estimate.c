/* tests/fca/test_concept_estimate.c — the concept-count estimate that --device auto weighs
 * (fca/concept_estimate.c): exact on a chain and on trees whose walks all see the same degrees,
 * within a small factor of the true count on random contexts (the device choice needs the
 * order of magnitude), reproducible, and honest about min_support. */
#include <math.h>
#include <string.h>

#include <parac/fca.h>

#include "fca/concept_estimate.h"
#include "fca/fca_internal.h"
#include "test_util.h"

static double estimate_with(const parac_fca_context *context, uint64_t min_support, int walks, int threads)
{
    fca_search search;
    parac_error error = {0};
    double estimate;
    CHECK_OK(fca_search_create(context, min_support, &search, &error), &error);
    estimate = fca_estimate_concepts(&search, walks, 10.0, threads);
    fca_search_destroy(&search);
    return estimate;
}

static double estimate_of(const parac_fca_context *context, uint64_t min_support, int walks)
{
    double one = estimate_with(context, min_support, walks, 1);
    /* the walks are seeded by their index and summed in order: any thread count gives the same bits */
    CHECK(one == estimate_with(context, min_support, walks, 3), "3 threads changed the estimate of %d walks", walks);
    return one;
}

static uint64_t true_count(const parac_fca_context *context, uint64_t min_support)
{
    parac_fca_options options;
    parac_error error = {0};
    uint64_t count = 0;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 1;
    options.min_support = min_support;
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    return count;
}

int main(void)
{
    parac_error error = {0};
    parac_fca_context *context = NULL;
    /* The identity context on 6 objects x 6 attributes: 2^6 concepts (the power set); every walk
     * sees the same product of degrees per depth only on average, so test the mean with many walks. */
    {
        uint8_t cells[36];
        for (int i = 0; i < 36; i++) cells[i] = (uint8_t)(i / 6 != i % 6); /* complement of identity */
        CHECK_OK(parac_fca_context_create(6, 6, cells, &context, &error), &error);
        {
            double estimate = estimate_of(context, 0, 4000);
            uint64_t exact = true_count(context, 0);
            CHECK(exact == 64, "exact %llu", (unsigned long long)exact);
            CHECK(estimate > 0.7 * exact && estimate < 1.4 * exact, "estimate %g vs %llu", estimate,
                  (unsigned long long)exact);
            CHECK(estimate == estimate_of(context, 0, 4000), "not reproducible");
        }
        parac_fca_context_destroy(context);
    }
    /* Random contexts of a few densities: within 3x of the true count. */
    for (int round = 0; round < 3; round++) {
        double density = 0.2 + 0.15 * round;
        CHECK_OK(parac_fca_context_random(120, 40, density, 11 + (uint64_t)round, &context, &error), &error);
        {
            double estimate = estimate_of(context, 0, 512);
            uint64_t exact = true_count(context, 0);
            CHECK(estimate > exact / 3.0 && estimate < exact * 3.0, "density %.2f: estimate %g vs %llu", density,
                  estimate, (unsigned long long)exact);
            /* min_support prunes the tree the estimate walks, like the search. */
            double supported = estimate_of(context, 30, 512);
            uint64_t exact_supported = true_count(context, 30);
            CHECK(exact_supported < exact, "min_support 30 kept every concept");
            CHECK(supported > exact_supported / 3.0 && supported < exact_supported * 3.0,
                  "density %.2f, min_support 30: estimate %g vs %llu", density, supported,
                  (unsigned long long)exact_supported);
        }
        parac_fca_context_destroy(context);
    }
    return test_finish("fca.concept_estimate");
}
