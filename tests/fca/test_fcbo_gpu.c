/* tests/fca/test_fcbo_gpu.c — the CUDA path against the CPU path on fresh
 * random contexts of many shapes (sizes off multiples of 32/64, densities
 * 0.05-0.6, empty rows and columns, duplicate rows, min support), and the
 * known counts of the shared data sets. Exits 77 without a GPU.
 * Quick mode (PARAC_TEST_QUICK=1, docs/GPU.md): one seed of six small shapes (1 to 3 attribute words),
 * the tiny-pool spill case as is, one device-cap case of ~45k concepts, no shared data sets. */
#include <string.h>
#include <time.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

/* Every GPU strategy the library has; the removed ones (dev/fca/04-06) are refused (test_fcbo.c,
 * test_removed_gpu_strategies, and check_removed_on_gpu below). */
static const parac_fca_gpu_strategy strategies[] = {PARAC_FCA_GPU_AUTO, PARAC_FCA_GPU_ROUNDS, PARAC_FCA_GPU_LOCAL_ROWS};
#define STRATEGY_COUNT (sizeof strategies / sizeof strategies[0])

/* GPU concepts with one strategy (through engine when not NULL); NULL on failure. */
static parac_fca_concepts *gpu_compute(const parac_fca_context *context, parac_fca_gpu_strategy strategy,
                                       parac_fca_engine *engine, uint64_t min_support)
{
    parac_fca_concepts *concepts = NULL;
    parac_fca_options options;
    parac_error error;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CUDA;
    options.gpu_strategy = strategy;
    options.engine = engine;
    options.min_support = min_support;
    CHECK_OK(parac_fca_compute(context, &options, &concepts, &error), &error);
    return concepts;
}

static void compare_on_random(uint64_t seed, parac_fca_engine *engine)
{
    static const size_t full_shapes[][2] = {{1, 1}, {5, 3}, {31, 33}, {65, 64}, {97, 65}, {200, 100}, {300, 90}, {1000, 40}, {70, 129}};
    static const size_t quick_shapes[][2] = {{1, 1}, {5, 3}, {31, 33}, {65, 64}, {97, 65}, {70, 129}};
    static const double densities[] = {0.05, 0.2, 0.35, 0.6};
    const size_t(*shapes)[2] = test_quick() ? quick_shapes : full_shapes;
    size_t shape_count = test_quick() ? sizeof quick_shapes / sizeof quick_shapes[0] : sizeof full_shapes / sizeof full_shapes[0];
    /* tiny mode: 1 x 1, 5 x 3, 65 x 64 (two object words) and 70 x 129 (three attribute words), two densities */
    for (size_t s = 0; s < shape_count; s++) {
        for (size_t d = 0; d < 4; d++) {
            double density = densities[d];
            if (test_tiny() && (s == 2 || s == 4 || d % 2 == 1)) continue;
            uint64_t min_support = (s + d) % 3 == 0 ? 2 : 0;
            parac_fca_context *context;
            parac_fca_concepts *cpu, *gpu;
            parac_fca_options options;
            uint64_t count = 0;
            parac_error error;
            if (shapes[s][1] >= 40 && density > 0.2) density = 0.2; /* keep concept counts test-sized (<10^6) */
            context = fca_test_random_context(shapes[s][0], shapes[s][1], density, seed + s * 31 + d);
            cpu = fca_test_compute(context, PARAC_DEVICE_CPU, 0, min_support);
            for (size_t v = 0; v < STRATEGY_COUNT; v++) {
                gpu = gpu_compute(context, strategies[v], (v + s) % 2 ? engine : NULL, min_support);
                CHECK(fca_test_same_concepts(cpu, gpu),
                      "seed %llu shape %zux%zu density %.2f support %llu strategy %d: GPU != CPU (%zu vs %zu)",
                      (unsigned long long)seed, shapes[s][0], shapes[s][1], density, (unsigned long long)min_support,
                      (int)strategies[v], parac_fca_concepts_size(cpu), parac_fca_concepts_size(gpu));
                memset(&options, 0, sizeof options);
                options.exec.device = PARAC_DEVICE_CUDA;
                options.min_support = min_support;
                options.gpu_strategy = strategies[v];
                options.engine = (v + s) % 2 ? NULL : engine; /* every strategy runs both ways across shapes */
                CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
                CHECK(count == parac_fca_concepts_size(cpu), "strategy %d: GPU count %llu vs CPU %zu",
                      (int)strategies[v], (unsigned long long)count, parac_fca_concepts_size(cpu));
                parac_fca_concepts_destroy(gpu);
            }
            parac_fca_concepts_destroy(cpu);
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
    options.exec.device = PARAC_DEVICE_CUDA;
    for (size_t v = 0; v < STRATEGY_COUNT; v++) {
        options.gpu_strategy = strategies[v];
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK(count == expected, "%s on the GPU, strategy %d: %llu concepts, expected %llu", name,
              (int)strategies[v], (unsigned long long)count, (unsigned long long)expected);
    }
    parac_fca_context_destroy(context);
}

/* Mushroom stored (not only counted) by every strategy: deep trees, many rounds, the output buffer. */
static void check_mushroom_concepts(void)
{
    parac_fca_context *context = fca_test_read_shared("mushroom.dat");
    parac_fca_concepts *cpu, *gpu;
    if (!context) return;
    cpu = fca_test_compute(context, PARAC_DEVICE_CPU, 0, 0);
    for (size_t v = 0; v < STRATEGY_COUNT; v++) {
        gpu = gpu_compute(context, strategies[v], NULL, 0);
        CHECK(fca_test_same_concepts(cpu, gpu), "mushroom strategy %d: GPU != CPU", (int)strategies[v]);
        parac_fca_concepts_destroy(gpu);
    }
    parac_fca_concepts_destroy(cpu);
    parac_fca_context_destroy(context);
}

/* A pool capped at its smallest workable size must spill tasks to host memory and
 * still find every concept, for every strategy, counted and stored. */
static void check_tiny_pool_spills(uint64_t seed)
{
    parac_fca_context *context = fca_test_random_context(120, 60, 0.3, seed);
    parac_fca_concepts *cpu = fca_test_compute(context, PARAC_DEVICE_CPU, 0, 0);
    for (size_t v = 0; v < STRATEGY_COUNT; v++) {
        parac_fca_concepts *gpu = NULL;
        parac_fca_options options;
        uint64_t count = 0;
        parac_error error;
        memset(&options, 0, sizeof options);
        options.exec.device = PARAC_DEVICE_CUDA;
        options.gpu_strategy = strategies[v];
        options.gpu_pool_bytes = 1; /* rounded up to the smallest workable pool */
        CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
        CHECK(count == parac_fca_concepts_size(cpu), "tiny pool, strategy %d: GPU count %llu vs CPU %zu",
              (int)strategies[v], (unsigned long long)count, parac_fca_concepts_size(cpu));
        CHECK_OK(parac_fca_compute(context, &options, &gpu, &error), &error);
        CHECK(fca_test_same_concepts(cpu, gpu), "tiny pool, strategy %d: GPU concepts != CPU", (int)strategies[v]);
        parac_fca_concepts_destroy(gpu);
    }
    printf("tiny pool: %zu concepts on every strategy\n", parac_fca_concepts_size(cpu));
    parac_fca_concepts_destroy(cpu);
    parac_fca_context_destroy(context);
}

/* max_device_bytes: stored output several times the cap (and the pool, stacks, grid shrunk to fit
 * it) still gives the CPU's concepts on every strategy, with and without an engine (the search
 * itself fails with PARAC_ERR_INTERNAL if its allocations ever exceeded the cap); a cap below
 * the context's minimum is PARAC_ERR_NO_MEMORY naming the option, not a crash. */
static void check_device_cap(uint64_t seed, parac_fca_engine *engine)
{
    typedef struct cap_case { size_t objects, attributes; double density; uint64_t cap; } cap_case;
    static const cap_case full_cases[] = {
        {150, 40, 0.50, 512 << 10}, /* 270k-290k concepts x 8 B (seeds 11-13): output ~4x the cap */
        {200, 70, 0.35, 1 << 20}};  /* 290k-310k concepts x 16 B: output ~4.5x the cap */
    /* 43k-49k concepts x 8 B (seeds 11-13): output 3.5-4x a cap 3.4x this context's least (~28 KB) */
    static const cap_case quick_cases[] = {{200, 20, 0.60, 96 << 10}};
    const cap_case *cases = test_quick() ? quick_cases : full_cases;
    size_t case_count = test_full_or_quick(sizeof full_cases / sizeof full_cases[0], 1);
    for (size_t c = 0; c < case_count; c++) {
        parac_fca_context *context = fca_test_random_context(cases[c].objects, cases[c].attributes, cases[c].density,
                                                             seed + 7 * c);
        parac_fca_concepts *cpu = fca_test_compute(context, PARAC_DEVICE_CPU, 0, 0);
        size_t output_bytes = parac_fca_concepts_size(cpu) * ((cases[c].attributes + 63) / 64) * 8;
        for (size_t v = 0; v < STRATEGY_COUNT; v++) {
            parac_fca_concepts *gpu = NULL;
            parac_fca_options options;
            uint64_t count = 0;
            parac_error error;
            /* ROUNDS expands a handful of nodes per round under such a cap: the small case covers it */
            if (c > 0 && strategies[v] == PARAC_FCA_GPU_ROUNDS) continue;
            memset(&options, 0, sizeof options);
            options.exec.device = PARAC_DEVICE_CUDA;
            options.gpu_strategy = strategies[v];
            options.max_device_bytes = cases[c].cap;
            options.engine = (v + c) % 2 ? engine : NULL;
            CHECK_OK(parac_fca_compute(context, &options, &gpu, &error), &error);
            CHECK(fca_test_same_concepts(cpu, gpu), "cap %llu, %zux%zu, strategy %d: GPU concepts != CPU",
                  (unsigned long long)cases[c].cap, cases[c].objects, cases[c].attributes, (int)strategies[v]);
            parac_fca_concepts_destroy(gpu);
            CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
            CHECK(count == parac_fca_concepts_size(cpu), "cap, strategy %d: GPU count %llu vs CPU %zu",
                  (int)strategies[v], (unsigned long long)count, parac_fca_concepts_size(cpu));
            options.max_device_bytes = 1000; /* below any context's minimum */
            CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_NO_MEMORY &&
                      strstr(error.message, "max_device_bytes") != NULL,
                  "cap 1000 bytes, strategy %d: expected a no-memory error naming max_device_bytes", (int)strategies[v]);
        }
        CHECK(output_bytes > 3 * cases[c].cap, "case %zu: output %zu bytes is not several times the cap", c, output_bytes);
        printf("device cap %llu bytes: %zu concepts (%zu bytes of intents) on every strategy\n",
               (unsigned long long)cases[c].cap, parac_fca_concepts_size(cpu), output_bytes);
        parac_fca_concepts_destroy(cpu);
        parac_fca_context_destroy(context);
    }
}

/* The removed strategies are refused on a GPU run too, through an engine or not, before any search. */
static void check_removed_on_gpu(parac_fca_engine *engine)
{
    static const parac_fca_gpu_strategy removed[] = {PARAC_FCA_GPU_REMOVED_LOCAL, PARAC_FCA_GPU_REMOVED_LOCAL_STREAM,
                                                     PARAC_FCA_GPU_REMOVED_LOCAL_STAGED};
    parac_fca_context *context = fca_test_random_context(60, 30, 0.3, 3);
    for (size_t r = 0; r < sizeof removed / sizeof removed[0]; r++) {
        parac_fca_options options;
        parac_error error;
        uint64_t count = 5;
        memset(&options, 0, sizeof options);
        options.exec.device = PARAC_DEVICE_CUDA;
        options.gpu_strategy = removed[r];
        options.engine = r % 2 ? engine : NULL;
        CHECK(parac_fca_count(context, &options, &count, &error) == PARAC_ERR_INVALID_ARGUMENT &&
                  strstr(error.message, "dev/fca/0") != NULL && count == 5,
              "removed GPU strategy %d ran on the GPU (%s)", (int)removed[r], error.message);
    }
    parac_fca_context_destroy(context);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL);
    parac_fca_engine *engine = NULL;
    parac_exec exec;
    parac_error error;
    if (test_require_gpu()) return 77;
    memset(&exec, 0, sizeof exec);
    exec.device = PARAC_DEVICE_CUDA;
    CHECK_OK(parac_fca_engine_create(&exec, &engine, &error), &error);
    printf("seed %llu\n", (unsigned long long)seed);
    compare_on_random(seed, engine);
    if (!test_quick()) compare_on_random(12345, engine);
    if (!test_quick()) check_mushroom_concepts();
    check_tiny_pool_spills(seed);
    check_device_cap(seed, engine);
    check_removed_on_gpu(engine);
    parac_fca_engine_destroy(engine);
    if (!test_quick()) check_known_count("mushroom.dat", 238710);
    if (!test_quick()) check_known_count("vote.dat", 227033);
    if (!test_quick()) check_known_count("primary-tumor.dat", 87232);
    return test_finish("fca.fcbo_gpu");
}
