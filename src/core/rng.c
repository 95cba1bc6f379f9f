/* core/rng.c — xoshiro256** (Blackman & Vigna) with splitmix64 seeding. */
#include "core/rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void parac_rng_seed(parac_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) rng->state[i] = splitmix64(&x);
}

void parac_rng_split(parac_rng *rng, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ 0x5851f42d4c957f2dULL;
    uint64_t mixed = splitmix64(&x) ^ (stream * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
    parac_rng_seed(rng, mixed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t parac_rng_next(parac_rng *rng)
{
    uint64_t *s = rng->state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double parac_rng_uniform(parac_rng *rng)
{
    return (double)(parac_rng_next(rng) >> 11) * 0x1.0p-53;
}

uint64_t parac_rng_below(parac_rng *rng, uint64_t bound)
{
    /* Rejection on the low zone keeps every residue equally likely. */
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t r = parac_rng_next(rng);
        if (r >= threshold) return r % bound;
    }
}

double parac_rng_normal(parac_rng *rng)
{
    /* Box-Muller; one value per call keeps the stream simple to reproduce. */
    double u1 = parac_rng_uniform(rng), u2 = parac_rng_uniform(rng);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
