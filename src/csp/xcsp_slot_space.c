/* csp/xcsp_slot_space.c — the product space of a scope's domain slots, walked by the extension
 * and intension builders (xcsp_slot_space.h), and tables of slot tuples. */
#include "csp/xcsp_slot_space.h"

#include <stdlib.h>
#include <string.h>

/* Product of the domain sizes of scope, saturating at UINT64_MAX. */
uint64_t xcsp_product_size(const parac_csp_network *network, const uint32_t *scope, uint32_t arity)
{
    uint64_t product = 1;
    for (uint32_t i = 0; i < arity; i++) {
        uint64_t size = network->domain_size[scope[i]];
        if (size && product > UINT64_MAX / size) return UINT64_MAX;
        product *= size;
    }
    return product;
}


/* Mixed-radix increment of slots (last position fastest); 0 when it wrapped around. */
int xcsp_next_combination(const parac_csp_network *network, const uint32_t *scope, uint32_t arity, uint32_t *slots)
{
    for (uint32_t i = arity; i-- > 0;) {
        if (++slots[i] < network->domain_size[scope[i]]) return 1;
        slots[i] = 0;
    }
    return 0;
}


int xcsp_table_push(slot_table *table, const uint32_t *slots, uint32_t arity)
{
    if (table->count == table->capacity) {
        size_t capacity = table->capacity ? table->capacity * 2 : 64;
        uint32_t *grown = realloc(table->tuples, capacity * arity * sizeof *grown);
        if (!grown) return -1;
        table->tuples = grown;
        table->capacity = capacity;
    }
    memcpy(table->tuples + table->count * arity, slots, arity * sizeof *slots);
    table->count++;
    return 0;
}

