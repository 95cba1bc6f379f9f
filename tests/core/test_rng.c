/* tests/core/test_rng.c — reproducibility and statistical sanity of core/rng.
 *
 * The literal values below come from an independent Python reimplementation
 * of splitmix64 seeding + xoshiro256** (Blackman & Vigna's reference code);
 * seed 0 also matches the value published for that construction.
 */
#include <math.h>
#include <string.h>

#include "core/rng.h"
#include "test_util.h"

static void check_reference_values(void)
{
    static const struct {
        uint64_t seed;
        uint64_t first[5];
    } reference[] = {
        {0, {0x99ec5f36cb75f2b4ULL, 0xbf6e1f784956452aULL, 0x1a5f849d4933e6e0ULL, 0x6aa594f1262d2d2cULL,
             0xbba5ad4a1f842e59ULL}},
        {42, {0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL, 0xecb8ad4703b360a1ULL,
              0xfde6dc7fe2ec5e64ULL}},
        {0xdeadbeefcafef00dULL, {0x9e32cfb5bb93eebbULL, 0x16006bd9d4ac0014ULL, 0x8ada5d6d34b6538eULL,
                                 0x7c327ca32346a238ULL, 0xc43a6d6a3492ced2ULL}},
    };
    for (size_t r = 0; r < sizeof reference / sizeof reference[0]; r++) {
        parac_rng rng;
        parac_rng_seed(&rng, reference[r].seed);
        for (int i = 0; i < 5; i++) {
            uint64_t value = parac_rng_next(&rng);
            CHECK(value == reference[r].first[i], "seed %llu value %d: got 0x%016llx", (unsigned long long)reference[r].seed,
                  i, (unsigned long long)value);
        }
    }
    {
        parac_rng rng;
        parac_rng_seed(&rng, 42);
        /* (first >> 11) * 2^-53, computed in Python. */
        CHECK(parac_rng_uniform(&rng) == 0.08386297105988216);
    }
}

static void check_reproducible_and_split(void)
{
    parac_rng a, b, c;
    int same = 0, collisions = 0;
    parac_rng_seed(&a, 7);
    parac_rng_seed(&b, 7);
    for (int i = 0; i < 1000; i++) same += parac_rng_next(&a) == parac_rng_next(&b);
    CHECK_EQ_INT(same, 1000);
    parac_rng_seed(&a, 7);
    parac_rng_seed(&b, 8);
    same = 0;
    for (int i = 0; i < 1000; i++) same += parac_rng_next(&a) == parac_rng_next(&b);
    CHECK(same == 0, "seeds 7 and 8 share %d values", same);

    /* split: reproducible per (seed, stream), different across streams and from the plain seed. */
    parac_rng_split(&a, 99, 3);
    parac_rng_split(&b, 99, 3);
    same = 0;
    for (int i = 0; i < 100; i++) same += parac_rng_next(&a) == parac_rng_next(&b);
    CHECK_EQ_INT(same, 100);
    for (uint64_t s = 0; s < 64; s++) {
        parac_rng_split(&a, 99, s);
        for (uint64_t t = s + 1; t < 64; t++) {
            parac_rng_split(&b, 99, t);
            if (!memcmp(a.state, b.state, sizeof a.state)) collisions++;
            if (parac_rng_next(&b) == parac_rng_next(&a)) collisions++;
            parac_rng_split(&a, 99, s);
        }
    }
    CHECK(collisions == 0, "%d split streams coincide", collisions);
    parac_rng_split(&a, 99, 0);
    parac_rng_seed(&c, 99);
    CHECK(parac_rng_next(&a) != parac_rng_next(&c), "stream 0 equals the plain seed's stream");
    parac_rng_split(&a, 99, 5);
    parac_rng_split(&b, 100, 5);
    CHECK(parac_rng_next(&a) != parac_rng_next(&b), "split ignores the seed");
}

static void check_uniform(void)
{
    parac_rng rng;
    double sum = 0, low = 1, high = 0;
    const int n = 200000;
    parac_rng_seed(&rng, 1);
    for (int i = 0; i < n; i++) {
        double u = parac_rng_uniform(&rng);
        CHECK(u >= 0.0 && u < 1.0, "uniform out of [0,1): %g", u);
        if (u < low) low = u;
        if (u > high) high = u;
        sum += u;
    }
    CHECK(fabs(sum / n - 0.5) < 0.005, "uniform mean %g", sum / n);
    CHECK(low < 1e-4 && high > 1 - 1e-4);
}

/* Chi-square of parac_rng_below(bound) over `bound` bins. The bound of mean + 6 sd
 * (sd = sqrt(2 * dof)) is failed by a fair generator with probability < 1e-8. */
static void check_below_chi_square(uint64_t bound, int draws_per_bin, uint64_t seed)
{
    static unsigned counts[1000];
    parac_rng rng;
    double chi = 0, expected = draws_per_bin, dof = (double)bound - 1;
    memset(counts, 0, sizeof counts);
    parac_rng_seed(&rng, seed);
    for (uint64_t i = 0; i < bound * (uint64_t)draws_per_bin; i++) {
        uint64_t value = parac_rng_below(&rng, bound);
        if (value >= bound) {
            CHECK(0, "below(%llu) returned %llu", (unsigned long long)bound, (unsigned long long)value);
            return;
        }
        counts[value]++;
    }
    for (uint64_t b = 0; b < bound; b++) chi += (counts[b] - expected) * (counts[b] - expected) / expected;
    CHECK(chi < dof + 6 * sqrt(2 * dof) + 6, "below(%llu): chi-square %g for %g degrees of freedom",
          (unsigned long long)bound, chi, dof);
}

static void check_below_edges(void)
{
    parac_rng rng;
    int high_half = 0;
    const uint64_t huge = (UINT64_MAX / 3) * 2; /* rejection zone is a third of the range */
    parac_rng_seed(&rng, 3);
    for (int i = 0; i < 1000; i++) CHECK_EQ_INT(parac_rng_below(&rng, 1), 0);
    for (int i = 0; i < 20000; i++) {
        uint64_t value = parac_rng_below(&rng, huge);
        CHECK(value < huge);
        high_half += value >= huge / 2;
    }
    /* Modulo reduction without rejection would put 2/3 of values in the low half. */
    CHECK(high_half > 9400 && high_half < 10600, "below(huge): %d of 20000 in the high half", high_half);
}

static void check_normal(void)
{
    parac_rng rng;
    const int n = 200000;
    double sum = 0, sum_sq = 0, sum_4 = 0;
    int beyond_3 = 0;
    parac_rng_seed(&rng, 11);
    for (int i = 0; i < n; i++) {
        double x = parac_rng_normal(&rng);
        CHECK(isfinite(x));
        sum += x;
        sum_sq += x * x;
        sum_4 += x * x * x * x;
        beyond_3 += fabs(x) > 3;
    }
    {
        double mean = sum / n, variance = sum_sq / n - mean * mean;
        CHECK(fabs(mean) < 0.015, "normal mean %g", mean);
        CHECK(fabs(variance - 1) < 0.02, "normal variance %g", variance);
        CHECK(fabs(sum_4 / n - 3) < 0.15, "normal fourth moment %g (3 expected)", sum_4 / n);
        /* P(|x| > 3) = 0.0027: 540 expected, sd ~ 23. */
        CHECK(beyond_3 > 400 && beyond_3 < 680, "%d values beyond 3 sd", beyond_3);
    }
}

int main(void)
{
    check_reference_values();
    check_reproducible_and_split();
    check_uniform();
    check_below_chi_square(2, 20000, 1);
    check_below_chi_square(7, 5000, 2);
    check_below_chi_square(10, 5000, 3);
    check_below_chi_square(1000, 200, 4);
    check_below_edges();
    check_normal();
    return test_finish("core.rng");
}
