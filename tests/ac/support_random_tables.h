/* tests/ac/support_random_tables.h — random networks of table constraints (arity 2..6, from a
 * few tuples to 10^5 and more) plus random binary matrices, for the tests of the table rounds
 * and their GPU twin. Tuples are drawn uniformly with repetition (the builder keeps them
 * distinct); arity-2 tables become binary matrices in the builder, as an XCSP reader's would. */
#ifndef PARAC_TEST_AC_RANDOM_TABLES_H
#define PARAC_TEST_AC_RANDOM_TABLES_H

#include <stdint.h>

#include "ac/network.h"

typedef struct random_tables_shape {
    uint32_t variables;
    uint32_t max_domain;      /* domain sizes 1..max_domain (the first variable gets max_domain) */
    uint32_t binary;          /* binary constraints (random matrices) */
    double tightness;         /* their fraction of forbidden pairs */
    uint32_t tables;
    uint32_t min_arity, max_arity;
    uint32_t min_tuples, max_tuples; /* tuples drawn per table (before duplicates are dropped) */
    double unary_removal_rate;       /* chance that a value starts removed */
} random_tables_shape;

/* Builds a network; returns 0 on success. The same shape and seed give the same network. */
int random_tables_network(const random_tables_shape *shape, uint64_t seed, parac_csp_network *network);

#endif
