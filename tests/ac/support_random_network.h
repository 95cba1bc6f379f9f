/* tests/ac/support_random_network.h — random networks built through ac/network.h
 * and brute-force AC / SAC, for the ac tests. */
#ifndef PARAC_TEST_AC_SUPPORT_H
#define PARAC_TEST_AC_SUPPORT_H

#include <stdint.h>

#include "ac/network.h"

typedef struct random_network_shape {
    uint32_t variables;
    uint32_t max_domain;       /* domain sizes 1..max_domain */
    uint32_t constraints;      /* binary constraints drawn (pairs may repeat: merged) */
    double tightness;          /* fraction of forbidden pairs */
    uint32_t tables;           /* arity-3 table constraints */
    double empty_relation_rate;/* chance that a binary relation allows nothing */
    double unary_removal_rate; /* chance that a value starts removed */
} random_network_shape;

/* Builds a network; returns 0 on success. */
int random_network(const random_network_shape *shape, uint64_t seed, parac_csp_network *network);

/* The AC closure by naive fixpoint, as a value-id bitset (all 0 on wipe-out); returns wipeout. */
int brute_force_ac(const parac_csp_network *network, uint64_t *value_bits);
/* The SAC closure by naive fixpoint; returns wipeout. */
int brute_force_sac(const parac_csp_network *network, uint64_t *value_bits);

/* AC4-GPU's rounds done plainly on the CPU (binary networks): every round counts the supports of
 * every value against the domains at the round's start and deletes the unsupported ones, until a
 * round deletes nothing or a domain empties. Sets *rounds; returns wipeout (bits all 0 then). */
int ne_rounds_reference(const parac_csp_network *network, uint64_t *value_bits, uint64_t *rounds);

#endif
