/* tests/ac/test_algorithms_gpu.c — AC4-GPU, AC4-GPU+ (edge and rows layouts)
 * and gpu-bitset against CPU AC4 on fresh random binary networks of several
 * shapes (wipe-outs, empty relations, multi-word domains), the edge layout also
 * with edges forced into small chunks; gpu-bitset's rounds equal its CPU twin's; GPU SAC
 * against SAC1; table networks refused by GPU algorithms. */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_algorithms.h"
#include "support_random_network.h"
#include "test_util.h"

/* Every GPU run checked: the N-E algorithms in each layout (edges also forced into 1,000-edge chunks,
 * so keys split across chunks; auto = rows), and gpu-bitset. */
typedef struct gpu_run {
    parac_ac_algorithm algorithm;
    parac_ac_variant variant;
    uint64_t edge_limit;
} gpu_run;

static const gpu_run GPU_RUNS[] = {
    {PARAC_AC_AC4_GPU, PARAC_AC_VARIANT_EDGES, 0},       {PARAC_AC_AC4_GPU, PARAC_AC_VARIANT_EDGES, 1000},
    {PARAC_AC_AC4_GPU, PARAC_AC_VARIANT_ROWS, 0},        {PARAC_AC_AC4_GPU_PLUS, PARAC_AC_VARIANT_EDGES, 0},
    {PARAC_AC_AC4_GPU_PLUS, PARAC_AC_VARIANT_EDGES, 1000}, {PARAC_AC_AC4_GPU_PLUS, PARAC_AC_VARIANT_ROWS, 0},
    {PARAC_AC_AC4_GPU_PLUS, PARAC_AC_VARIANT_AUTO, 0},   {PARAC_AC_GPU_BITSET, PARAC_AC_VARIANT_AUTO, 0},
};

static void compare_on(const parac_csp_network *network, const char *label)
{
    size_t words = parac_ac_domain_words(network->value_count) + 1;
    uint64_t *expected = calloc(words, 8), *got = calloc(words, 8);
    parac_ac_options cpu = {{PARAC_DEVICE_CPU, 2, 0, NULL, NULL, NULL}, PARAC_AC_AC4, 0, PARAC_AC_VARIANT_AUTO};
    parac_ac_stats reference, twin, stats;
    parac_error error = {0};
    CHECK_OK(ac_enforce_network(network, &cpu, expected, &reference, &error), &error);
    cpu.algorithm = PARAC_AC_GPU_BITSET;
    CHECK_OK(ac_enforce_network(network, &cpu, got, &twin, &error), &error);
    for (size_t i = 0; i < sizeof GPU_RUNS / sizeof GPU_RUNS[0]; i++) {
        const gpu_run *run = &GPU_RUNS[i];
        parac_ac_options gpu = {{PARAC_DEVICE_CUDA, 0, 0, NULL, NULL, NULL}, run->algorithm, 0, run->variant};
        char name[96];
        snprintf(name, sizeof name, "%s/%s%s", parac_ac_algorithm_name(run->algorithm),
                 parac_ac_variant_name(run->variant), run->edge_limit ? " chunked" : "");
        memset(got, 0x5a, words * 8);
        CHECK_OK(ac_enforce_network_limited(network, &gpu, run->edge_limit, got, &stats, &error), &error);
        CHECK(stats.wipeout == reference.wipeout, "%s %s: wipeout %d, AC4 %d", label, name, stats.wipeout,
              reference.wipeout);
        CHECK(memcmp(got, expected, (words - 1) * 8) == 0, "%s %s: domains differ from AC4", label, name);
        CHECK(stats.values_after == reference.values_after, "%s %s: values_after %llu vs %llu", label, name,
              (unsigned long long)stats.values_after, (unsigned long long)reference.values_after);
        CHECK(stats.device == PARAC_DEVICE_CUDA, "%s %s: ran on the CPU", label, name);
        /* AC4-GPU, AC4-GPU+ (both layouts) and gpu-bitset all run Jacobi rounds (see ne_rounds_reference,
         * checked against the CPU twin in ac.algorithms): the same number of rounds. */
        CHECK(stats.iterations == twin.iterations, "%s %s: %llu rounds, CPU twin %llu", label, name,
              (unsigned long long)stats.iterations, (unsigned long long)twin.iterations);
    }
    free(expected);
    free(got);
}

static void compare_sac_on(const parac_csp_network *network, const char *label)
{
    size_t words = parac_ac_domain_words(network->value_count) + 1;
    uint64_t *expected = calloc(words, 8), *got = calloc(words, 8);
    parac_ac_options cpu = {{PARAC_DEVICE_CPU, 1, 0, NULL, NULL, NULL}, PARAC_AC_AUTO, 1, PARAC_AC_VARIANT_AUTO};
    parac_ac_options gpu = {{PARAC_DEVICE_CUDA, 0, 0, NULL, NULL, NULL}, PARAC_AC_AUTO, 1, PARAC_AC_VARIANT_AUTO};
    parac_ac_stats reference, stats;
    parac_error error = {0};
    CHECK_OK(ac_enforce_network(network, &cpu, expected, &reference, &error), &error);
    CHECK_OK(ac_enforce_network(network, &gpu, got, &stats, &error), &error);
    CHECK(stats.wipeout == reference.wipeout, "%s SAC: wipeout %d, SAC1 %d", label, stats.wipeout, reference.wipeout);
    CHECK(memcmp(got, expected, (words - 1) * 8) == 0, "%s SAC: domains differ from SAC1", label);
    free(expected);
    free(got);
}

static void check_tables_refused(void)
{
    random_network_shape shape = {8, 4, 6, 0.3, 3, 0.0, 0.0};
    parac_csp_network network;
    parac_ac_options gpu = {{PARAC_DEVICE_CUDA, 0, 0, NULL, NULL, NULL}, PARAC_AC_AC4_GPU_PLUS, 0, PARAC_AC_VARIANT_ROWS};
    parac_ac_stats stats;
    parac_error error = {0};
    uint64_t *bits;
    CHECK(random_network(&shape, 99, &network) == 0);
    bits = calloc(parac_ac_domain_words(network.value_count) + 1, 8);
    CHECK(ac_enforce_network(&network, &gpu, bits, &stats, &error) == PARAC_ERR_UNSUPPORTED,
          "a GPU algorithm on a table network must be refused");
    gpu.exec.device = PARAC_DEVICE_AUTO;
    gpu.algorithm = PARAC_AC_AUTO;
    CHECK_OK(ac_enforce_network(&network, &gpu, bits, &stats, &error), &error);
    CHECK(stats.device == PARAC_DEVICE_CPU, "auto with tables must fall back to the CPU");
    free(bits);
    parac_csp_network_free(&network);
}

int main(void)
{
    static const random_network_shape shapes[] = {
        {2, 3, 1, 0.5, 0, 0.0, 0.0},        {12, 10, 30, 0.5, 0, 0.0, 0.05},  {20, 8, 60, 0.3, 0, 0.02, 0.0},
        {10, 70, 25, 0.9, 0, 0.0, 0.0},     {30, 130, 40, 0.97, 0, 0.0, 0.01}, {200, 40, 1500, 0.55, 0, 0.0, 0.0},
        {500, 30, 5000, 0.5, 0, 0.0, 0.0},  {100, 200, 800, 0.85, 0, 0.0, 0.0},
    };
    /* Quick mode (PARAC_TEST_QUICK=1, docs/GPU.md): one seed, and the large shapes with fewer variables
     * and constraints but the same domain sizes (multi-word domains) and still over 1,000 edges, so
     * that the chunked edge layout splits keys across chunks. */
    static const random_network_shape quick_shapes[] = {
        {2, 3, 1, 0.5, 0, 0.0, 0.0},        {12, 10, 30, 0.5, 0, 0.0, 0.05}, {20, 8, 60, 0.3, 0, 0.02, 0.0},
        {10, 70, 25, 0.9, 0, 0.0, 0.0},     {12, 130, 12, 0.97, 0, 0.0, 0.01}, {40, 40, 120, 0.55, 0, 0.0, 0.0},
        {60, 30, 250, 0.5, 0, 0.0, 0.0},    {16, 200, 24, 0.85, 0, 0.0, 0.0},
    };
    static const random_network_shape sac_shapes[] = {
        {6, 4, 9, 0.35, 0, 0.0, 0.05}, {10, 3, 20, 0.25, 0, 0.05, 0.0}, {40, 10, 150, 0.35, 0, 0.0, 0.0},
        {80, 20, 400, 0.4, 0, 0.0, 0.0},
    };
    _Static_assert(sizeof quick_shapes == sizeof shapes, "one quick shape per shape");
    const random_network_shape *chosen = test_quick() ? quick_shapes : shapes;
    size_t sac_shape_count = test_tiny() ? 1 : test_full_or_quick(sizeof sac_shapes / sizeof sac_shapes[0], 3);
    uint64_t seeds = test_full_or_quick(6, 1), sac_seeds = test_full_or_quick(8, 1);
    if (test_require_gpu()) return 77;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (uint64_t seed = 1; seed <= seeds; seed++) {
            /* tiny mode: the smallest network, multi-word domains (70 values) and the chunked layout
               (250 constraints, > 1,000 edges): every GPU algorithm and layout still runs */
            if (test_tiny() && k != 0 && k != 3 && k != 6) continue;
            parac_csp_network network;
            char label[64];
            snprintf(label, sizeof label, "shape %zu seed %llu", k, (unsigned long long)seed);
            if (random_network(&chosen[k], seed * 31337 + k, &network)) {
                CHECK(0, "%s: build failed", label);
                continue;
            }
            compare_on(&network, label);
            parac_csp_network_free(&network);
        }
    for (size_t k = 0; k < sac_shape_count; k++)
        for (uint64_t seed = 1; seed <= sac_seeds; seed++) {
            parac_csp_network network;
            char label[64];
            snprintf(label, sizeof label, "sac shape %zu seed %llu", k, (unsigned long long)seed);
            if (random_network(&sac_shapes[k], seed * 7777 + k, &network)) {
                CHECK(0, "%s: build failed", label);
                continue;
            }
            compare_sac_on(&network, label);
            parac_csp_network_free(&network);
        }
    check_tables_refused();
    return test_finish("ac.algorithms_gpu");
}
