/* tests/ac/support_random_network.c — see support_random_network.h. */
#include "support_random_network.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

static int add_random_binary(parac_csp_network *network, const random_network_shape *shape, parac_rng *rng)
{
    parac_error error;
    uint32_t x = (uint32_t)parac_rng_below(rng, network->variable_count), y;
    do y = (uint32_t)parac_rng_below(rng, network->variable_count); while (y == x);
    uint32_t rows = network->domain_size[x], columns = network->domain_size[y];
    size_t row_words = parac_bitset_words(columns);
    parac_word *matrix = calloc((size_t)rows * row_words + 1, sizeof *matrix);
    int empty = parac_rng_uniform(rng) < shape->empty_relation_rate;
    for (uint32_t a = 0; a < rows; a++)
        for (uint32_t b = 0; b < columns; b++)
            if (!empty && parac_rng_uniform(rng) >= shape->tightness) parac_bitset_set(matrix + a * row_words, b);
    /* x > y on purpose half the time: the builder transposes (permuted scopes). */
    int failed = parac_csp_add_binary(network, x, y, matrix, &error) != PARAC_OK;
    if (failed) fprintf(stderr, "add_binary: %s\n", error.message);
    free(matrix);
    return failed;
}

static int add_random_table(parac_csp_network *network, const random_network_shape *shape, parac_rng *rng)
{
    parac_error error;
    uint32_t scope[3];
    size_t count = 0, total;
    uint32_t *tuples;
    if (network->variable_count < 3) return 0;
    scope[0] = (uint32_t)parac_rng_below(rng, network->variable_count);
    do scope[1] = (uint32_t)parac_rng_below(rng, network->variable_count); while (scope[1] == scope[0]);
    do scope[2] = (uint32_t)parac_rng_below(rng, network->variable_count);
    while (scope[2] == scope[0] || scope[2] == scope[1]);
    total = (size_t)network->domain_size[scope[0]] * network->domain_size[scope[1]] * network->domain_size[scope[2]];
    tuples = malloc((total + 1) * 3 * sizeof *tuples);
    for (uint32_t a = 0; a < network->domain_size[scope[0]]; a++)
        for (uint32_t b = 0; b < network->domain_size[scope[1]]; b++)
            for (uint32_t c = 0; c < network->domain_size[scope[2]]; c++)
                if (parac_rng_uniform(rng) >= shape->tightness) {
                    tuples[3 * count] = a, tuples[3 * count + 1] = b, tuples[3 * count + 2] = c;
                    count++;
                }
    int failed = parac_csp_add_table(network, 3, scope, tuples, count, &error) != PARAC_OK;
    if (failed) fprintf(stderr, "add_table: %s\n", error.message);
    free(tuples);
    return failed;
}

int random_network(const random_network_shape *shape, uint64_t seed, parac_csp_network *network)
{
    parac_error error;
    parac_rng rng;
    int64_t values[4096];
    parac_rng_seed(&rng, seed);
    if (parac_csp_network_init(network, &error) != PARAC_OK) return 1;
    for (uint32_t v = 0; v < shape->variables; v++) {
        uint32_t size = 1 + (uint32_t)parac_rng_below(&rng, shape->max_domain), index;
        char name[32];
        for (uint32_t s = 0; s < size; s++) values[s] = (int64_t)s * 3 - 5;
        snprintf(name, sizeof name, "x[%u]", v);
        if (parac_csp_add_variable(network, name, values, size, &index, &error) != PARAC_OK) return 1;
    }
    if (parac_csp_finish_variables(network, &error) != PARAC_OK) return 1;
    for (uint32_t v = 0; v < shape->variables; v++)
        for (uint32_t s = 0; s < network->domain_size[v]; s++)
            if (parac_rng_uniform(&rng) < shape->unary_removal_rate) parac_csp_remove_initial_value(network, v, s);
    for (uint32_t c = 0; c < shape->constraints; c++)
        if (add_random_binary(network, shape, &rng)) return 1;
    for (uint32_t t = 0; t < shape->tables; t++)
        if (add_random_table(network, shape, &rng)) return 1;
    return 0;
}

/* ---- brute force: look for each value's support by scanning, until nothing changes ---- */

static int present(const parac_csp_network *network, const uint64_t *bits, uint32_t var, uint32_t slot)
{
    return parac_bitset_test(bits, network->value_offset[var] + slot);
}

static int binary_supported(const parac_csp_network *network, const parac_csp_constraint *con, const uint64_t *bits,
                            int position, uint32_t slot)
{
    uint32_t x = con->scope[0], y = con->scope[1];
    for (uint32_t other = 0; other < network->domain_size[position ? x : y]; other++) {
        uint32_t a = position ? other : slot, b = position ? slot : other;
        if (present(network, bits, position ? x : y, other) && parac_bitset_test(con->matrix + a * con->row_words, b))
            return 1;
    }
    return 0;
}

static int table_supported(const parac_csp_network *network, const parac_csp_constraint *con, const uint64_t *bits,
                           uint32_t position, uint32_t slot)
{
    for (size_t t = 0; t < con->tuple_count; t++) {
        const uint32_t *tuple = con->tuples + t * con->arity;
        uint32_t i = 0;
        if (tuple[position] != slot) continue;
        while (i < con->arity && present(network, bits, con->scope[i], tuple[i])) i++;
        if (i == con->arity) return 1;
    }
    return 0;
}

/* One sweep; returns 1 when something was removed. */
static int sweep(const parac_csp_network *network, uint64_t *bits)
{
    int removed = 0;
    for (size_t c = 0; c < network->constraint_count; c++) {
        const parac_csp_constraint *con = &network->constraints[c];
        for (uint32_t p = 0; p < con->arity; p++) {
            uint32_t var = con->scope[p];
            for (uint32_t s = 0; s < network->domain_size[var]; s++) {
                int ok;
                if (!present(network, bits, var, s)) continue;
                ok = con->arity == 2 ? binary_supported(network, con, bits, (int)p, s)
                                     : table_supported(network, con, bits, p, s);
                if (!ok) {
                    parac_bitset_clear_bit(bits, network->value_offset[var] + s);
                    removed = 1;
                }
            }
        }
    }
    return removed;
}

static int wiped(const parac_csp_network *network, const uint64_t *bits)
{
    for (size_t v = 0; v < network->variable_count; v++) {
        uint32_t s = 0;
        while (s < network->domain_size[v] && !present(network, bits, (uint32_t)v, s)) s++;
        if (s == network->domain_size[v]) return 1;
    }
    return 0;
}

static int closure_from(const parac_csp_network *network, uint64_t *bits)
{
    while (!wiped(network, bits) && sweep(network, bits)) {}
    if (!wiped(network, bits)) return 0;
    memset(bits, 0, parac_bitset_words(network->value_count) * sizeof *bits);
    return 1;
}

int brute_force_ac(const parac_csp_network *network, uint64_t *value_bits)
{
    memcpy(value_bits, network->present, parac_bitset_words(network->value_count) * sizeof *value_bits);
    return closure_from(network, value_bits);
}

int brute_force_sac(const parac_csp_network *network, uint64_t *value_bits)
{
    size_t words = parac_bitset_words(network->value_count);
    uint64_t *probe = malloc((words + 1) * sizeof *probe);
    int changed = 1;
    if (brute_force_ac(network, value_bits)) {
        free(probe);
        return 1;
    }
    while (changed) {
        changed = 0;
        for (size_t v = 0; v < network->variable_count; v++)
            for (uint32_t s = 0; s < network->domain_size[v]; s++) {
                if (!present(network, value_bits, (uint32_t)v, s)) continue;
                memcpy(probe, value_bits, words * sizeof *probe);
                for (uint32_t o = 0; o < network->domain_size[v]; o++)
                    if (o != s) parac_bitset_clear_bit(probe, network->value_offset[v] + o);
                if (!closure_from(network, probe)) continue;
                parac_bitset_clear_bit(value_bits, network->value_offset[v] + s);
                changed = 1;
                if (closure_from(network, value_bits)) {
                    free(probe);
                    return 1;
                }
            }
    }
    free(probe);
    return 0;
}

int ne_rounds_reference(const parac_csp_network *network, uint64_t *value_bits, uint64_t *rounds)
{
    size_t words = parac_bitset_words(network->value_count);
    uint64_t *next = malloc((words + 1) * sizeof *next);
    memcpy(value_bits, network->present, words * sizeof *value_bits);
    *rounds = 0;
    if (wiped(network, value_bits)) {
        free(next);
        memset(value_bits, 0, words * sizeof *value_bits);
        return 1;
    }
    for (;;) {
        int changed = 0;
        (*rounds)++;
        memcpy(next, value_bits, words * sizeof *next);
        for (size_t c = 0; c < network->constraint_count; c++) {
            const parac_csp_constraint *con = &network->constraints[c];
            for (int p = 0; p < 2 && con->arity == 2; p++)
                for (uint32_t s = 0; s < network->domain_size[con->scope[p]]; s++)
                    if (present(network, value_bits, con->scope[p], s) &&
                        !binary_supported(network, con, value_bits, p, s)) {
                        parac_bitset_clear_bit(next, network->value_offset[con->scope[p]] + s);
                        changed = 1;
                    }
        }
        memcpy(value_bits, next, words * sizeof *value_bits);
        if (changed && wiped(network, value_bits)) {
            memset(value_bits, 0, words * sizeof *value_bits);
            free(next);
            return 1;
        }
        if (!changed) {
            free(next);
            return 0;
        }
    }
}
