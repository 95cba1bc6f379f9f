/* tests/fca/test_fcbo.c — FCbO against brute force, serial against parallel,
 * and the known concept counts of vote and primary-tumor. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

/* Every closed attribute set of a context with at most 12 attributes, as
 * bit masks, by closing every subset; returns how many (with min support). */
static size_t brute_force_intents(const parac_fca_context *context, uint64_t min_support, uint32_t *closed)
{
    size_t objects = parac_fca_context_objects(context), attributes = parac_fca_context_attributes(context);
    uint32_t all = (uint32_t)((1u << attributes) - 1);
    char *seen = calloc((size_t)1 << attributes, 1);
    size_t count = 0;
    for (uint32_t subset = 0; subset <= all; subset++) {
        uint32_t closure = all;
        size_t support = 0;
        for (size_t o = 0; o < objects; o++) {
            uint32_t row = 0;
            for (size_t a = 0; a < attributes; a++) row |= (uint32_t)parac_fca_context_has(context, o, a) << a;
            if ((row & subset) == subset) closure &= row, support++;
        }
        if (support >= min_support && !seen[closure]) seen[closure] = 1, closed[count++] = closure;
        if (subset == all) break;
    }
    free(seen);
    return count;
}

static int contains(const uint32_t *set, size_t count, uint32_t value)
{
    for (size_t i = 0; i < count; i++)
        if (set[i] == value) return 1;
    return 0;
}

static void test_brute_force(void)
{
    uint32_t *closed = malloc(sizeof(uint32_t) << 12);
    int mismatches = 0;
    for (uint64_t seed = 1; seed <= 120; seed++) {
        size_t objects = seed % 13, attributes = seed % 11 + (seed % 3 == 0);
        double density = 0.1 + 0.08 * (double)(seed % 7);
        uint64_t min_support = seed % 5 == 0 ? 2 : 0;
        parac_fca_context *context = fca_test_random_context(objects, attributes, density, seed);
        parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, min_support);
        size_t expected = brute_force_intents(context, min_support, closed);
        uint32_t ids[32];
        parac_error error;
        if (!concepts) break;
        if (parac_fca_concepts_size(concepts) != expected) mismatches++;
        for (size_t c = 0; c < parac_fca_concepts_size(concepts); c++) {
            uint32_t mask = 0;
            size_t size = parac_fca_concept_intent(concepts, c, ids, 32);
            for (size_t i = 0; i < size; i++) mask |= 1u << ids[i];
            if (!contains(closed, expected, mask)) mismatches++;
        }
        CHECK_OK(parac_fca_verify(context, concepts, min_support, &error), &error);
        parac_fca_concepts_destroy(concepts);
        parac_fca_context_destroy(context);
    }
    CHECK(mismatches == 0, "%d brute-force mismatches", mismatches);
    free(closed);
}

/* Every CPU strategy the library has (the others moved to dev/fca/, test_removed_strategies). */
static const parac_fca_cpu_strategy CPU_STRATEGIES[] = {PARAC_FCA_CPU_AUTO, PARAC_FCA_CPU_ON_DEMAND,
                                                       PARAC_FCA_CPU_SPARSE};

static void test_serial_vs_parallel(void)
{
    static const size_t shapes[][2] = {{1, 1}, {7, 5}, {63, 17}, {65, 33}, {130, 40}, {200, 63}, {257, 65}, {90, 90}, {3, 70}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int d = 0; d < 3; d++) {
            double density = shapes[s][1] > 60 ? 0.05 + 0.1 * d : 0.05 + 0.25 * d;
            parac_fca_context *context = fca_test_random_context(shapes[s][0], shapes[s][1], density, 100 + s * 7 + (uint64_t)d);
            uint64_t min_support = d == 2 ? 3 : 0;
            parac_fca_concepts *serial = fca_test_compute(context, PARAC_DEVICE_CPU, 1, min_support);
            parac_fca_concepts *parallel = fca_test_compute(context, PARAC_DEVICE_CPU, 3, min_support);
            parac_fca_options options;
            uint64_t count = 0;
            parac_error error;
            memset(&options, 0, sizeof options);
            options.exec.device = PARAC_DEVICE_CPU;
            options.exec.threads = 2;
            options.min_support = min_support;
            CHECK(fca_test_same_concepts(serial, parallel), "shape %zux%zu density %.2f: serial != parallel",
                  shapes[s][0], shapes[s][1], density);
            for (size_t k = 0; k < sizeof CPU_STRATEGIES / sizeof CPU_STRATEGIES[0]; k++) {
                parac_fca_concepts *other = NULL;
                int strategy = CPU_STRATEGIES[k];
                options.cpu_strategy = CPU_STRATEGIES[k];
                CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
                CHECK(count == parac_fca_concepts_size(serial), "strategy %d: count %llu vs %zu", strategy,
                      (unsigned long long)count, parac_fca_concepts_size(serial));
                CHECK_OK(parac_fca_compute(context, &options, &other, &error), &error);
                CHECK(fca_test_same_concepts(serial, other), "shape %zux%zu strategy %d: serial != parallel",
                      shapes[s][0], shapes[s][1], strategy);
                parac_fca_concepts_destroy(other);
            }
            CHECK_OK(parac_fca_verify(context, parallel, min_support, &error), &error);
            parac_fca_concepts_destroy(serial);
            parac_fca_concepts_destroy(parallel);
            parac_fca_context_destroy(context);
        }
    }
}

static void check_known_count(const char *name, uint64_t expected)
{
    parac_fca_context *context = NULL;
    parac_fca_options options;
    parac_error error;
    uint64_t count = 0;
    context = fca_test_read_shared(name);
    if (!context) return;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    CHECK_OK(parac_fca_engine_create(&options.exec, &options.engine, &error), &error); /* holds nothing on the CPU */
    for (int threads = 1; threads <= 3; threads++) {
        options.exec.threads = threads;
        for (size_t k = 0; k < sizeof CPU_STRATEGIES / sizeof CPU_STRATEGIES[0]; k++) {
            int strategy = CPU_STRATEGIES[k];
            options.cpu_strategy = CPU_STRATEGIES[k];
            CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
            CHECK(count == expected, "%s with %d threads, strategy %d: %llu concepts, expected %llu", name, threads,
                  strategy, (unsigned long long)count, (unsigned long long)expected);
        }
    }
    parac_fca_engine_destroy(options.engine);
    parac_fca_context_destroy(context);
}

/* shared_pool, per_thread and work_stealing moved to dev/fca/ (issue 20): their numbers stay reserved
 * and are refused, naming the lab file; values outside the enum are refused too. */
static void test_removed_strategies(void)
{
    static const struct { parac_fca_cpu_strategy strategy; const char *file; } removed[] = {
        {PARAC_FCA_CPU_REMOVED_SHARED_POOL, "dev/fca/01_shared_pool.c"},
        {PARAC_FCA_CPU_REMOVED_PER_THREAD, "dev/fca/02_per_thread.c"},
        {PARAC_FCA_CPU_REMOVED_WORK_STEALING, "dev/fca/03_work_stealing.c"},
    };
    parac_fca_context *context = fca_test_random_context(40, 12, 0.3, 5);
    parac_fca_options options;
    parac_error error;
    uint64_t count = 7;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    for (size_t r = 0; r < sizeof removed / sizeof removed[0]; r++)
        for (int threads = 1; threads <= 2; threads++) {
            parac_fca_concepts *concepts = NULL;
            options.cpu_strategy = removed[r].strategy;
            options.exec.threads = threads;
            CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_INVALID_ARGUMENT,
                  "removed strategy %d counted", (int)removed[r].strategy);
            CHECK(strstr(error.message, removed[r].file) != NULL, "removed strategy: %s", error.message);
            CHECK(parac_fca_compute(context, &options, &concepts, &error) == PARAC_ERR_INVALID_ARGUMENT &&
                      concepts == NULL,
                  "removed strategy %d computed", (int)removed[r].strategy);
        }
    CHECK(count == 7, "a refused run wrote its count (%llu)", (unsigned long long)count);
    options.cpu_strategy = (parac_fca_cpu_strategy)(PARAC_FCA_CPU_SPARSE + 1);
    CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_INVALID_ARGUMENT, "unknown strategy counted");
    options.cpu_strategy = (parac_fca_cpu_strategy)-1;
    CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_INVALID_ARGUMENT, "strategy -1 counted");
    parac_fca_context_destroy(context);
}

/* local, local_stream and local_staged moved to dev/fca/04-06 (issue 20): their numbers stay reserved
 * and are refused on every device (checked before the device is chosen, so on a build without CUDA
 * too), naming the lab file; values outside the enum are refused too. */
static void test_removed_gpu_strategies(void)
{
    static const struct { parac_fca_gpu_strategy strategy; const char *file; } removed[] = {
        {PARAC_FCA_GPU_REMOVED_LOCAL, "dev/fca/04_gpu_local.cu"},
        {PARAC_FCA_GPU_REMOVED_LOCAL_STREAM, "dev/fca/05_gpu_local_stream.cu"},
        {PARAC_FCA_GPU_REMOVED_LOCAL_STAGED, "dev/fca/06_gpu_local_staged.cu"},
    };
    static const parac_device devices[] = {PARAC_DEVICE_CPU, PARAC_DEVICE_AUTO, PARAC_DEVICE_CUDA};
    parac_fca_context *context = fca_test_random_context(40, 12, 0.3, 5);
    parac_fca_options options;
    parac_error error;
    uint64_t count = 7;
    memset(&options, 0, sizeof options);
    for (size_t r = 0; r < sizeof removed / sizeof removed[0]; r++)
        for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
            parac_fca_concepts *concepts = NULL;
            options.gpu_strategy = removed[r].strategy;
            options.exec.device = devices[d];
            CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_INVALID_ARGUMENT,
                  "removed GPU strategy %d counted on device %d", (int)removed[r].strategy, (int)devices[d]);
            CHECK(strstr(error.message, removed[r].file) != NULL, "removed GPU strategy: %s", error.message);
            CHECK(parac_fca_compute(context, &options, &concepts, &error) == PARAC_ERR_INVALID_ARGUMENT &&
                      concepts == NULL,
                  "removed GPU strategy %d computed on device %d", (int)removed[r].strategy, (int)devices[d]);
        }
    CHECK(count == 7, "a refused run wrote its count (%llu)", (unsigned long long)count);
    options.exec.device = PARAC_DEVICE_CPU;
    options.gpu_strategy = (parac_fca_gpu_strategy)(PARAC_FCA_GPU_REMOVED_LOCAL_STAGED + 1);
    CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_INVALID_ARGUMENT,
          "unknown GPU strategy counted");
    options.gpu_strategy = (parac_fca_gpu_strategy)-1;
    CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_INVALID_ARGUMENT, "GPU strategy -1 counted");
    /* the kept ones still run (on the CPU here: the strategy only matters on a GPU run) */
    options.gpu_strategy = PARAC_FCA_GPU_ROUNDS;
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    options.gpu_strategy = PARAC_FCA_GPU_LOCAL_ROWS;
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    parac_fca_context_destroy(context);
}

static void test_canonical_order(void)
{
    /* rows {0,1}, {0,2}, {1}: intents {}, {0}, {0,1}, {0,1,2}, {0,2}, {1} in that order */
    const uint8_t cells[] = {1, 1, 0, 1, 0, 1, 0, 1, 0};
    parac_fca_context *context = NULL;
    parac_fca_concepts *concepts;
    parac_error error;
    uint32_t ids[4];
    CHECK_OK(parac_fca_context_create(3, 3, cells, &context, &error), &error);
    concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, 0);
    if (!concepts) return;
    CHECK_EQ_INT(parac_fca_concepts_size(concepts), 6);
    CHECK_EQ_INT(parac_fca_concept_intent(concepts, 0, ids, 4), 0);
    CHECK(parac_fca_concept_intent(concepts, 1, ids, 4) == 1 && ids[0] == 0);
    CHECK(parac_fca_concept_intent(concepts, 2, ids, 4) == 2 && ids[1] == 1);
    CHECK(parac_fca_concept_intent(concepts, 3, ids, 4) == 3 && ids[2] == 2);
    CHECK(parac_fca_concept_intent(concepts, 5, ids, 4) == 1 && ids[0] == 1);
    CHECK_EQ_INT(parac_fca_concept_extent(context, concepts, 1, ids, 4), 2);
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
}

int main(void)
{
    test_canonical_order();
    test_brute_force();
    test_serial_vs_parallel();
    test_removed_strategies();
    test_removed_gpu_strategies();
    check_known_count("vote.dat", 227033);
    check_known_count("primary-tumor.dat", 87232);
    return test_finish("fca.fcbo");
}
