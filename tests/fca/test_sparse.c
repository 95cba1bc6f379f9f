/* tests/fca/test_sparse.c — the sparse search (PARAC_FCA_CPU_SPARSE) against the dense serial
 * search: the same concepts in the same order (so byte-identical output) and the same counts, on
 * random contexts from 0.1 % to 30 % dense and up to 20,000 objects and 3,000 attributes, with
 * min_support 0 and above, on 1 and several threads; the edge contexts (no objects, no attributes,
 * empty and full rows and columns, min_support above the object count); and what AUTO picks. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

static parac_fca_options options_with(parac_fca_cpu_strategy strategy, int threads, uint64_t min_support)
{
    parac_fca_options options;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    options.cpu_strategy = strategy;
    options.min_support = min_support;
    return options;
}

static parac_fca_concepts *compute_with(const parac_fca_context *context, parac_fca_cpu_strategy strategy, int threads,
                                        uint64_t min_support)
{
    parac_fca_options options = options_with(strategy, threads, min_support);
    parac_fca_concepts *concepts = NULL;
    parac_error error = {0};
    CHECK_OK(parac_fca_compute(context, &options, &concepts, &error), &error);
    return concepts;
}

static uint64_t count_with(const parac_fca_context *context, parac_fca_cpu_strategy strategy, int threads,
                           uint64_t min_support)
{
    parac_fca_options options = options_with(strategy, threads, min_support);
    parac_error error = {0};
    uint64_t count = 0;
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    return count;
}

/* Dense serial (ON_DEMAND on one thread is fcbo_serial) against sparse on 1 and 3 threads. */
static void compare_on(const parac_fca_context *context, uint64_t min_support, const char *what)
{
    parac_fca_concepts *dense = compute_with(context, PARAC_FCA_CPU_ON_DEMAND, 1, min_support);
    size_t expected = parac_fca_concepts_size(dense);
    for (int threads = 1; threads <= 3; threads += 2) {
        parac_fca_concepts *sparse = compute_with(context, PARAC_FCA_CPU_SPARSE, threads, min_support);
        uint64_t count = count_with(context, PARAC_FCA_CPU_SPARSE, threads, min_support);
        CHECK(dense && sparse && fca_test_same_concepts(dense, sparse),
              "%s min_support %llu, %d threads: sparse concepts differ (%zu vs %zu)", what,
              (unsigned long long)min_support, threads, sparse ? parac_fca_concepts_size(sparse) : 0, expected);
        CHECK(count == expected, "%s min_support %llu, %d threads: sparse count %llu, dense %zu", what,
              (unsigned long long)min_support, threads, (unsigned long long)count, expected);
        parac_fca_concepts_destroy(sparse);
    }
    parac_fca_concepts_destroy(dense);
}

static void test_random_contexts(void)
{
    /* objects, attributes, density: kept to at most a few 10^5 concepts for the dense reference */
    static const struct { size_t objects, attributes; double density; } shapes[] = {
        {3000, 2000, 0.001}, {2000, 3000, 0.002}, {4000, 1000, 0.005}, {3000, 1500, 0.01}, {1500, 800, 0.02},
        {800, 400, 0.05},    {300, 120, 0.1},     {200, 70, 0.2},      {90, 40, 0.3},      {1, 1, 0.3},
        {5, 3, 0.3},         {70, 65, 0.1},       {130, 129, 0.03},
        /* root children with ~600 objects x ~6 attributes: databases over sparse_parallel.c's 2,048-cell
         * spawn threshold, so 3 threads copy nodes into tasks */
        {20000, 200, 0.03},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (uint64_t seed = 1; seed <= 2; seed++) {
            parac_fca_context *context =
                fca_test_random_context(shapes[s].objects, shapes[s].attributes, shapes[s].density, 40 * s + seed);
            char what[96];
            if (!context) return;
            snprintf(what, sizeof what, "%zux%zu at %.1f %% (seed %llu)", shapes[s].objects, shapes[s].attributes,
                     shapes[s].density * 100, (unsigned long long)seed);
            compare_on(context, 0, what);
            compare_on(context, seed == 1 ? 2 : 5, what);
            parac_fca_context_destroy(context);
        }
    }
}

/* parac_fca_context_random makes no empty rows or duplicates: plain random FIMI-like contexts too. */
static void test_plain_random(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        parac_fca_context *context = NULL;
        parac_error error;
        char what[64];
        size_t objects = 500 * seed, attributes = 2500 / seed;
        CHECK_OK(parac_fca_context_random(objects, attributes, 0.004 * (double)seed, seed, &context, &error), &error);
        snprintf(what, sizeof what, "plain %zux%zu", objects, attributes);
        compare_on(context, seed % 2, what);
        parac_fca_context_destroy(context);
    }
}

static void test_edge_contexts(void)
{
    static const uint8_t full[6] = {1, 1, 1, 1, 1, 1}, empty[6] = {0};
    static const uint8_t one_full_row[6] = {1, 1, 1, 0, 1, 0};
    parac_fca_context *context = NULL;
    parac_error error;
    CHECK_OK(parac_fca_context_create(0, 4, NULL, &context, &error), &error);
    compare_on(context, 0, "no objects");
    compare_on(context, 1, "no objects");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(3, 0, NULL, &context, &error), &error);
    compare_on(context, 0, "no attributes");
    compare_on(context, 4, "no attributes");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(2, 3, full, &context, &error), &error);
    compare_on(context, 0, "full");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(2, 3, empty, &context, &error), &error);
    compare_on(context, 0, "empty");
    compare_on(context, 1, "empty");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(2, 3, one_full_row, &context, &error), &error);
    compare_on(context, 0, "one full row");
    compare_on(context, 3, "one full row, min_support above the objects");
    parac_fca_context_destroy(context);
}

/* AUTO on one thread: the sparse path on a sparse context, the dense one on a dense context;
 * either way the dense answer. */
static void test_auto(void)
{
    parac_fca_context *sparse = NULL, *dense = NULL;
    parac_error error;
    CHECK_OK(parac_fca_context_random(2000, 1000, 0.01, 11, &sparse, &error), &error);
    CHECK_OK(parac_fca_context_random(200, 40, 0.3, 12, &dense, &error), &error);
    compare_on(sparse, 0, "auto sparse");
    CHECK(count_with(sparse, PARAC_FCA_CPU_AUTO, 1, 0) == count_with(sparse, PARAC_FCA_CPU_ON_DEMAND, 1, 0),
          "auto on a sparse context");
    CHECK(count_with(dense, PARAC_FCA_CPU_AUTO, 2, 1) == count_with(dense, PARAC_FCA_CPU_SPARSE, 2, 1),
          "auto on a dense context");
    parac_fca_context_destroy(sparse);
    parac_fca_context_destroy(dense);
}

int main(void)
{
    test_edge_contexts();
    test_plain_random();
    test_random_contexts();
    test_auto();
    return test_finish("fca.sparse");
}
