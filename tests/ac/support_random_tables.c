/* tests/ac/support_random_tables.c — see support_random_tables.h. */
#include "support_random_tables.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/rng.h"

static uint32_t between(parac_rng *rng, uint32_t low, uint32_t high)
{
    return low + (uint32_t)parac_rng_below(rng, (uint64_t)(high - low) + 1);
}

static int add_binary(parac_csp_network *network, double tightness, parac_rng *rng)
{
    parac_error error;
    uint32_t x = (uint32_t)parac_rng_below(rng, network->variable_count), y;
    do y = (uint32_t)parac_rng_below(rng, network->variable_count); while (y == x);
    size_t row_words = parac_bitset_words(network->domain_size[y]);
    parac_word *matrix = calloc((size_t)network->domain_size[x] * row_words + 1, sizeof *matrix);
    int failed;
    for (uint32_t a = 0; a < network->domain_size[x]; a++)
        for (uint32_t b = 0; b < network->domain_size[y]; b++)
            if (parac_rng_uniform(rng) >= tightness) parac_bitset_set(matrix + a * row_words, b);
    failed = parac_csp_add_binary(network, x, y, matrix, &error) != PARAC_OK;
    if (failed) fprintf(stderr, "add_binary: %s\n", error.message);
    free(matrix);
    return failed;
}

/* A scope of distinct variables in random order (the builder sorts it and permutes the columns). */
static void draw_scope(parac_rng *rng, uint32_t variables, uint32_t arity, uint32_t *scope)
{
    for (uint32_t i = 0; i < arity; i++) {
        uint32_t v, j;
        do {
            v = (uint32_t)parac_rng_below(rng, variables);
            for (j = 0; j < i && scope[j] != v; j++) continue;
        } while (j < i);
        scope[i] = v;
    }
}

static int add_table(parac_csp_network *network, const random_tables_shape *shape, parac_rng *rng)
{
    parac_error error;
    uint32_t scope[8];
    uint32_t arity = between(rng, shape->min_arity, shape->max_arity);
    uint32_t count = between(rng, shape->min_tuples, shape->max_tuples);
    uint32_t *tuples;
    int failed;
    if (arity > network->variable_count) arity = (uint32_t)network->variable_count;
    draw_scope(rng, (uint32_t)network->variable_count, arity, scope);
    tuples = malloc(((size_t)count + 1) * arity * sizeof *tuples);
    if (!tuples) return 1;
    for (size_t j = 0; j < count; j++)
        for (uint32_t i = 0; i < arity; i++)
            tuples[j * arity + i] = (uint32_t)parac_rng_below(rng, network->domain_size[scope[i]]);
    failed = parac_csp_add_table(network, arity, scope, tuples, count, &error) != PARAC_OK;
    if (failed) fprintf(stderr, "add_table: %s\n", error.message);
    free(tuples);
    return failed;
}

int random_tables_network(const random_tables_shape *shape, uint64_t seed, parac_csp_network *network)
{
    parac_error error;
    parac_rng rng;
    int64_t values[1024];
    parac_rng_seed(&rng, seed);
    if (shape->max_domain > 1024 || shape->max_arity > 8 || shape->min_arity < 2) return 1;
    if (parac_csp_network_init(network, &error) != PARAC_OK) return 1;
    for (uint32_t v = 0; v < shape->variables; v++) {
        uint32_t size = v == 0 ? shape->max_domain : between(&rng, 1, shape->max_domain);
        char name[32];
        for (uint32_t s = 0; s < size; s++) values[s] = (int64_t)s * 2 - 3;
        snprintf(name, sizeof name, "x[%u]", v);
        if (parac_csp_add_variable(network, name, values, size, NULL, &error) != PARAC_OK) return 1;
    }
    if (parac_csp_finish_variables(network, &error) != PARAC_OK) return 1;
    for (uint32_t v = 0; v < shape->variables; v++)
        for (uint32_t s = 0; s < network->domain_size[v]; s++)
            if (parac_rng_uniform(&rng) < shape->unary_removal_rate) parac_csp_remove_initial_value(network, v, s);
    for (uint32_t c = 0; c < shape->binary; c++)
        if (add_binary(network, shape->tightness, &rng)) return 1;
    for (uint32_t t = 0; t < shape->tables; t++)
        if (add_table(network, shape, &rng)) return 1;
    return 0;
}
