/* tests/ac/test_algorithms.c — every CPU AC algorithm against brute force and
 * against each other on random networks: many sizes and tightnesses (wipe-outs
 * included), empty relations, shared and permuted scopes, arity-3 tables,
 * multi-word domains; gpu-bitset's CPU rounds at 1 and 3 threads. */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_algorithms.h"
#include "support_random_network.h"
#include "test_util.h"

static const parac_ac_algorithm CPU_ALGORITHMS[] = {PARAC_AC_AC3, PARAC_AC_AC3RM, PARAC_AC_AC3BIT,
                                                    PARAC_AC_AC2001, PARAC_AC_AC4, PARAC_AC_GPU_BITSET,
                                                    PARAC_AC_AUTO};
#define CPU_ALGORITHM_COUNT (sizeof CPU_ALGORITHMS / sizeof CPU_ALGORITHMS[0])

static int wipeouts_seen, survivors_seen, partial_seen; /* partial: some values removed, no wipe-out */

static int has_tables(const parac_csp_network *network)
{
    for (size_t c = 0; c < network->constraint_count; c++)
        if (network->constraints[c].arity >= 3) return 1;
    return 0;
}

static void check_against_brute_force(const parac_csp_network *network, const char *label)
{
    size_t words = parac_ac_domain_words(network->value_count) + 1;
    uint64_t *expected = calloc(words, sizeof *expected), *got = calloc(words, sizeof *got);
    int expected_wipeout = brute_force_ac(network, expected);
    uint64_t expected_after = parac_bitset_popcount(expected, words);
    uint64_t bitset_rounds = 0, reference_rounds = 0;
    expected_wipeout ? wipeouts_seen++ : survivors_seen++;
    if (!has_tables(network)) { /* the rounds of AC4-GPU's plain CPU twin: gpu-bitset must take as many */
        CHECK(ne_rounds_reference(network, got, &reference_rounds) == expected_wipeout, "%s: N-E reference", label);
        CHECK(memcmp(got, expected, (words - 1) * sizeof *got) == 0, "%s: N-E reference domains differ", label);
    }
    for (size_t i = 0; i < CPU_ALGORITHM_COUNT; i++)
        for (int threads = 1; threads <= (CPU_ALGORITHMS[i] == PARAC_AC_GPU_BITSET ? 3 : 1); threads += 2) {
            parac_ac_options options = {{PARAC_DEVICE_CPU, threads, 0, NULL, NULL, NULL}, CPU_ALGORITHMS[i], 0,
                                        PARAC_AC_VARIANT_AUTO};
            parac_ac_stats stats;
            parac_error error = {0};
            memset(got, 0xab, words * sizeof *got);
            CHECK_OK(ac_enforce_network(network, &options, got, &stats, &error), &error);
            CHECK(stats.wipeout == expected_wipeout, "%s %s t%d: wipeout %d, expected %d", label,
                  parac_ac_algorithm_name(CPU_ALGORITHMS[i]), threads, stats.wipeout, expected_wipeout);
            CHECK(memcmp(got, expected, (words - 1) * sizeof *got) == 0, "%s %s t%d: domains differ", label,
                  parac_ac_algorithm_name(CPU_ALGORITHMS[i]), threads);
            CHECK(stats.values_after == expected_after, "%s %s: values_after %llu, expected %llu", label,
                  parac_ac_algorithm_name(CPU_ALGORITHMS[i]), (unsigned long long)stats.values_after,
                  (unsigned long long)expected_after);
            CHECK(stats.removed == stats.values_before - stats.values_after, "%s: removed", label);
            if (i == 0 && !expected_wipeout && stats.removed > 0) partial_seen++;
            if (CPU_ALGORITHMS[i] == PARAC_AC_GPU_BITSET) {
                if (threads == 1) bitset_rounds = stats.iterations;
                if (reference_rounds)
                    CHECK(stats.iterations == reference_rounds, "%s: gpu-bitset %llu rounds, N-E reference %llu",
                          label, (unsigned long long)stats.iterations, (unsigned long long)reference_rounds);
                CHECK(stats.iterations == bitset_rounds, "%s: rounds depend on threads (%llu vs %llu)", label,
                      (unsigned long long)stats.iterations, (unsigned long long)bitset_rounds);
            }
        }
    free(expected);
    free(got);
}

static void run_shapes(void)
{
    static const random_network_shape shapes[] = {
        {2, 3, 1, 0.5, 0, 0.0, 0.0},      {5, 4, 6, 0.3, 0, 0.0, 0.0},     {8, 6, 20, 0.35, 0, 0.05, 0.02},
        {12, 10, 30, 0.5, 0, 0.0, 0.05},  {20, 8, 60, 0.3, 0, 0.01, 0.0},  {10, 70, 25, 0.9, 0, 0.0, 0.0},
        {30, 130, 40, 0.97, 0, 0.0, 0.01}, {6, 5, 8, 0.3, 3, 0.0, 0.02},   {9, 4, 10, 0.25, 5, 0.0, 0.0},
        {40, 12, 200, 0.4, 0, 0.0, 0.0},  {15, 66, 50, 0.8, 0, 0.0, 0.0},  {7, 6, 0, 0.5, 4, 0.0, 0.05},
        {200, 40, 1500, 0.55, 0, 0.0, 0.0}, {60, 20, 400, 0.62, 2, 0.0, 0.0},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (uint64_t seed = 1; seed <= 20; seed++) {
            parac_csp_network network;
            char label[64];
            snprintf(label, sizeof label, "shape %zu seed %llu", k, (unsigned long long)seed);
            if (random_network(&shapes[k], seed * 7919 + k, &network)) {
                CHECK(0, "%s: could not build", label);
                continue;
            }
            check_against_brute_force(&network, label);
            parac_csp_network_free(&network);
        }
}

static void check_gpu_only_refused_on_cpu(void)
{
    random_network_shape shape = {4, 3, 3, 0.3, 0, 0.0, 0.0};
    parac_csp_network network;
    parac_ac_options options = {{PARAC_DEVICE_CPU, 1, 0, NULL, NULL, NULL}, PARAC_AC_AC4_GPU_PLUS, 0,
                                PARAC_AC_VARIANT_AUTO};
    parac_error error = {0};
    uint64_t bits[4];
    CHECK(random_network(&shape, 5, &network) == 0);
    CHECK(ac_enforce_network(&network, &options, bits, NULL, &error) == PARAC_ERR_INVALID_ARGUMENT,
          "ac4-gpu-plus on --device cpu must be refused");
    parac_csp_network_free(&network);
}

static void check_names(void)
{
    parac_ac_algorithm algorithm;
    parac_error error;
    for (int i = 0; i <= PARAC_AC_GPU_BITSET; i++) {
        CHECK_OK(parac_ac_algorithm_parse(parac_ac_algorithm_name((parac_ac_algorithm)i), &algorithm, &error), &error);
        CHECK_EQ_INT(algorithm, i);
    }
    CHECK(parac_ac_algorithm_parse("ac5", &algorithm, &error) == PARAC_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    run_shapes();
    check_gpu_only_refused_on_cpu();
    check_names();
    CHECK(wipeouts_seen > 5, "only %d wipe-outs: shapes too loose", wipeouts_seen);
    CHECK(survivors_seen > 20, "only %d non-empty closures: shapes too tight", survivors_seen);
    CHECK(partial_seen > 10, "only %d closures that removed values without wiping out", partial_seen);
    printf("%d wipe-outs, %d non-empty closures (%d with removals)\n", wipeouts_seen, survivors_seen, partial_seen);
    return test_finish("ac.algorithms");
}
