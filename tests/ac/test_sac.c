/* tests/ac/test_sac.c — SAC1 against brute-force SAC on tiny random networks,
 * and SAC never keeps more than AC. */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_algorithms.h"
#include "support_random_network.h"
#include "test_util.h"

int main(void)
{
    static const random_network_shape shapes[] = {
        {4, 3, 4, 0.4, 0, 0.0, 0.0}, {6, 4, 9, 0.35, 0, 0.0, 0.05}, {8, 5, 14, 0.3, 0, 0.0, 0.0},
        {7, 4, 8, 0.3, 2, 0.0, 0.0}, {10, 3, 20, 0.25, 0, 0.05, 0.0},
    };
    int sac_stronger = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (uint64_t seed = 1; seed <= 25; seed++) {
            parac_csp_network network;
            parac_ac_options options = {{PARAC_DEVICE_CPU, 1, 0, NULL, NULL, NULL}, PARAC_AC_AUTO, 1,
                                        PARAC_AC_VARIANT_AUTO};
            parac_ac_stats stats, ac_stats;
            parac_error error = {0};
            size_t words;
            uint64_t *expected, *got, *ac_only;
            int expected_wipeout;
            if (random_network(&shapes[k], seed * 104729 + k, &network)) {
                CHECK(0, "build failed");
                continue;
            }
            words = parac_ac_domain_words(network.value_count) + 1;
            expected = calloc(words, 8), got = calloc(words, 8), ac_only = calloc(words, 8);
            expected_wipeout = brute_force_sac(&network, expected);
            CHECK_OK(ac_enforce_network(&network, &options, got, &stats, &error), &error);
            CHECK(stats.wipeout == expected_wipeout, "shape %zu seed %llu: SAC wipeout %d expected %d", k,
                  (unsigned long long)seed, stats.wipeout, expected_wipeout);
            CHECK(memcmp(got, expected, (words - 1) * 8) == 0, "shape %zu seed %llu: SAC domains differ", k,
                  (unsigned long long)seed);
            options.singleton = 0;
            CHECK_OK(ac_enforce_network(&network, &options, ac_only, &ac_stats, &error), &error);
            CHECK(stats.values_after <= ac_stats.values_after, "SAC kept more than AC");
            sac_stronger += stats.values_after < ac_stats.values_after;
            free(expected), free(got), free(ac_only);
            parac_csp_network_free(&network);
        }
    CHECK(sac_stronger > 3, "SAC removed more than AC only %d times: shapes too easy", sac_stronger);
    printf("SAC stronger than AC on %d networks\n", sac_stronger);
    return test_finish("ac.sac");
}
