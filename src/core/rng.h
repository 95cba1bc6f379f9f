/* core/rng.h — a seeded, reproducible random number generator.
 *
 * xoshiro256** seeded through splitmix64: the same seed gives the same stream
 * on every machine and compiler. Use parac_rng_split to give each thread or
 * each item its own independent stream (streams do not depend on thread count).
 */
#ifndef PARAC_CORE_RNG_H
#define PARAC_CORE_RNG_H

#include <stdint.h>

typedef struct parac_rng {
    uint64_t state[4];
} parac_rng;

void parac_rng_seed(parac_rng *rng, uint64_t seed);
/* A generator for sub-stream `stream` of `seed`, independent of the others. */
void parac_rng_split(parac_rng *rng, uint64_t seed, uint64_t stream);
uint64_t parac_rng_next(parac_rng *rng);
/* Uniform in [0, 1) with 53 random bits. */
double parac_rng_uniform(parac_rng *rng);
/* Uniform integer in [0, bound), bound > 0, without modulo bias. */
uint64_t parac_rng_below(parac_rng *rng, uint64_t bound);
/* Standard normal (mean 0, deviation 1). */
double parac_rng_normal(parac_rng *rng);

#endif
