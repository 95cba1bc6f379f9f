/* tests/ac/test_tables_gpu.c — table constraints on the GPU (gpu-bitset's compact-table kernels,
 * src/ac/table_gpu.cu) against CPU AC4 and AC3bit+rm, and against the CPU twin of its rounds
 * (ac_run_table_rounds) round for round, on fresh random networks of tables of arity 2..6 with 1
 * to 10^6 tuples (support rows of one word up to 15,625), binary matrices beside them, multi-word
 * domains, initial removals and wipe-outs; then what the dispatcher does with tables: AUTO on
 * CUDA picks gpu-bitset, ac4-gpu-plus and GPU SAC refuse tables, global constraints refuse the
 * GPU and AUTO takes the CPU for them. */
#include <stdlib.h>
#include <string.h>

#include <parac/csp.h>

#include "ac/table_model.h"
#include "csp/csp_handle.h"
#include "support_random_tables.h"
#include "test_util.h"

static int wipeouts, reduced;

static uint64_t twin_rounds(const parac_csp_network *network, int *wipeout)
{
    ac_model model;
    ac_domains domains = {0};
    parac_ac_stats stats = {0};
    parac_error error = {0};
    CHECK_OK(ac_model_build(network, 1, &model, &error), &error);
    CHECK_OK(ac_domains_init(&model, &domains, &error), &error);
    /* A domain empty from the start is a wipe-out before any round, on every device (ac_dispatch.c's
     * run_on_device): the GPU then reports 0 rounds, and so must the twin's count. */
    for (size_t v = 0; v < network->variable_count; v++)
        if (domains.size[v] == 0) stats.wipeout = 1;
    if (!stats.wipeout) CHECK_OK(ac_run_table_rounds(&model, &domains, &stats, &error), &error);
    ac_domains_free(&domains);
    ac_model_free(&model);
    *wipeout = stats.wipeout;
    return stats.iterations;
}

static void compare_on(const parac_csp_network *network, const char *label)
{
    static const parac_ac_algorithm references[] = {PARAC_AC_AC4, PARAC_AC_AC3BIT};
    size_t words = parac_ac_domain_words(network->value_count) + 1;
    uint64_t *expected = calloc(words, 8), *got = calloc(words, 8);
    parac_ac_options gpu = {{PARAC_DEVICE_CUDA, 0, 0, NULL, NULL, NULL}, PARAC_AC_GPU_BITSET, 0, PARAC_AC_VARIANT_AUTO};
    parac_ac_stats reference, stats;
    parac_error error = {0};
    int twin_wipeout = 0;
    uint64_t rounds = twin_rounds(network, &twin_wipeout);
    memset(got, 0x5a, words * 8);
    CHECK_OK(ac_enforce_network(network, &gpu, got, &stats, &error), &error);
    CHECK(stats.device == PARAC_DEVICE_CUDA, "%s: ran on the CPU", label);
    CHECK(stats.table_count == ac_network_table_count(network), "%s: %llu tables reported", label,
          (unsigned long long)stats.table_count);
    for (size_t r = 0; r < sizeof references / sizeof references[0]; r++) {
        parac_ac_options cpu = {{PARAC_DEVICE_CPU, 1, 0, NULL, NULL, NULL}, references[r], 0, PARAC_AC_VARIANT_AUTO};
        memset(expected, 0xa5, words * 8);
        CHECK_OK(ac_enforce_network(network, &cpu, expected, &reference, &error), &error);
        CHECK(stats.wipeout == reference.wipeout, "%s: GPU wipeout %d, %s %d", label, stats.wipeout,
              parac_ac_algorithm_name(references[r]), reference.wipeout);
        CHECK(memcmp(got, expected, (words - 1) * 8) == 0, "%s: GPU domains differ from %s", label,
              parac_ac_algorithm_name(references[r]));
        CHECK(stats.values_after == reference.values_after, "%s: GPU keeps %llu values, %s %llu", label,
              (unsigned long long)stats.values_after, parac_ac_algorithm_name(references[r]),
              (unsigned long long)reference.values_after);
    }
    CHECK(stats.iterations == rounds && stats.wipeout == twin_wipeout, "%s: GPU %llu rounds, CPU twin %llu", label,
          (unsigned long long)stats.iterations, (unsigned long long)rounds);
    if (stats.wipeout) wipeouts++;
    else if (stats.removed > 0) reduced++;
    free(expected);
    free(got);
}

/* The bench's table networks (bench/bench_ac.c, seed 42): 7800 ternary tables x 450 tuples wipe out in
 * round 1 (tables merged over one scope leave no tuple), where the kernels stop at the first emptied
 * domain; 6000 x 600 reduce over 5 rounds. Same wipe-out, domains and round count as the CPU. */
static void check_bench_networks(void)
{
    static const uint64_t tables[] = {7800, 6000}, tuples[] = {450, 600};
    int wipeouts_before = wipeouts;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        parac_csp_generate_options options;
        parac_csp *csp = NULL;
        parac_error error = {0};
        char label[64];
        parac_csp_generate_options_default(&options);
        options.variables = 200;
        options.domain = 20;
        options.arity = 3;
        options.constraints = tables[i];
        options.tuples = tuples[i];
        options.seed = 42;
        snprintf(label, sizeof label, "tables-3-200-20-%llu-%llu", (unsigned long long)tables[i],
                 (unsigned long long)tuples[i]);
        CHECK_OK(parac_csp_generate(&options, &csp, &error), &error);
        if (!csp) continue;
        compare_on(parac_csp_network_of(csp), label);
        parac_csp_destroy(csp);
    }
    CHECK(wipeouts == wipeouts_before + 1, "of the bench networks only tables-3-200-20-7800-450 wipes out (%d did)",
          wipeouts - wipeouts_before);
}

static void add_all_different(parac_csp_network *network)
{
    parac_csp_global global;
    ac_term terms[3];
    parac_error error = {0};
    memset(&global, 0, sizeof global);
    memset(terms, 0, sizeof terms);
    global.kind = AC_GLOBAL_ALL_DIFFERENT;
    for (int i = 0; i < 3; i++) terms[i].var = i;
    global.list_count = 1;
    global.lists[0] = terms;
    global.list_length[0] = 3;
    CHECK_OK(parac_csp_add_global(network, &global, &error), &error);
}

static void check_dispatch(void)
{
    random_tables_shape shape = {10, 5, 4, 0.3, 4, 3, 4, 20, 60, 0.0};
    parac_csp_network network;
    parac_ac_options options = {{PARAC_DEVICE_CUDA, 0, 0, NULL, NULL, NULL}, PARAC_AC_AUTO, 0, PARAC_AC_VARIANT_AUTO};
    parac_ac_stats stats;
    parac_error error = {0};
    uint64_t *bits;
    CHECK(random_tables_network(&shape, 4242, &network) == 0);
    bits = calloc(parac_ac_domain_words(network.value_count) + 1, 8);
    CHECK_OK(ac_enforce_network(&network, &options, bits, &stats, &error), &error);
    CHECK(stats.device == PARAC_DEVICE_CUDA && stats.algorithm == PARAC_AC_GPU_BITSET,
          "auto on CUDA with tables must run gpu-bitset on the GPU (ran %s)", parac_ac_algorithm_name(stats.algorithm));
    options.exec.device = PARAC_DEVICE_AUTO;
    CHECK_OK(ac_enforce_network(&network, &options, bits, &stats, &error), &error);
    CHECK(stats.device == PARAC_DEVICE_CPU, "auto: a tiny table network must stay on the CPU (cost model)");
    options.exec.device = PARAC_DEVICE_CUDA;
    options.algorithm = PARAC_AC_AC4_GPU_PLUS;
    CHECK(ac_enforce_network(&network, &options, bits, &stats, &error) == PARAC_ERR_UNSUPPORTED,
          "ac4-gpu-plus must refuse tables");
    options.algorithm = PARAC_AC_AUTO;
    options.singleton = 1;
    CHECK(ac_enforce_network(&network, &options, bits, &stats, &error) == PARAC_OK && stats.device == PARAC_DEVICE_CPU,
          "auto SAC with tables must fall back to the CPU");
    options.singleton = 0;
    add_all_different(&network);
    options.algorithm = PARAC_AC_GPU_BITSET;
    CHECK(ac_enforce_network(&network, &options, bits, &stats, &error) == PARAC_ERR_UNSUPPORTED,
          "gpu-bitset must refuse global constraints");
    options.algorithm = PARAC_AC_AUTO;
    options.exec.device = PARAC_DEVICE_AUTO;
    CHECK_OK(ac_enforce_network(&network, &options, bits, &stats, &error), &error);
    CHECK(stats.device == PARAC_DEVICE_CPU, "auto with global constraints must run on the CPU");
    free(bits);
    parac_csp_network_free(&network);
}

int main(void)
{
    /* vars, max dom, binary, tightness, tables, arity min..max, tuples min..max, unary removals */
    static const random_tables_shape shapes[] = {
        {5, 3, 2, 0.3, 2, 3, 3, 1, 12, 0.0},            {8, 4, 4, 0.4, 5, 2, 4, 3, 40, 0.05},
        {20, 6, 10, 0.3, 15, 2, 6, 5, 600, 0.02},       {12, 9, 0, 0.0, 10, 3, 6, 20, 3000, 0.0},
        {12, 100, 10, 0.6, 6, 3, 3, 200, 8000, 0.0},    {30, 5, 25, 0.25, 30, 3, 5, 30, 200, 0.1},
        {200, 20, 0, 0.0, 3000, 3, 3, 300, 700, 0.0},   {15, 12, 8, 0.2, 3, 4, 6, 100000, 200000, 0.0},
        {12, 40, 6, 0.5, 2, 5, 6, 1000000, 1000000, 0.0},
    };
    uint64_t seeds = test_quick() ? 1 : 8, large_seeds = test_quick() ? 1 : 2;
    if (test_require_gpu()) return 77;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (uint64_t seed = 1; seed <= (shapes[k].max_tuples >= 100000 ? large_seeds : seeds); seed++) {
            parac_csp_network network;
            char label[64];
            snprintf(label, sizeof label, "shape %zu seed %llu", k, (unsigned long long)seed);
            if (random_tables_network(&shapes[k], seed * 104729 + k, &network)) {
                CHECK(0, "%s: build failed", label);
                continue;
            }
            compare_on(&network, label);
            parac_csp_network_free(&network);
        }
    CHECK(wipeouts > 0 && reduced > 0, "the shapes must include wipe-outs (%d) and reductions (%d)", wipeouts, reduced);
    if (!test_quick()) check_bench_networks();
    check_dispatch();
    return test_finish("ac.tables_gpu");
}
