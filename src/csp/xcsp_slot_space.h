/* csp/xcsp_slot_space.h — what building extension (xcsp_build.c) and intension
 * (xcsp_intension.c) constraints share: the product space of a scope's domain slots and a
 * growing table of slot tuples (xcsp_slot_space.c). */
#ifndef PARAC_CSP_XCSP_SLOT_SPACE_H
#define PARAC_CSP_XCSP_SLOT_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "ac/network.h"

typedef struct slot_table {
    uint32_t *tuples;
    size_t count, capacity; /* in tuples */
} slot_table;


/* Product of the domain sizes of scope, saturating at UINT64_MAX. */
uint64_t xcsp_product_size(const parac_csp_network *network, const uint32_t *scope, uint32_t arity);
/* Mixed-radix increment of slots (last position fastest); 0 when it wrapped around. */
int xcsp_next_combination(const parac_csp_network *network, const uint32_t *scope, uint32_t arity, uint32_t *slots);
/* Appends one tuple of `arity` slots. 0 ok, -1 out of memory. */
int xcsp_table_push(slot_table *table, const uint32_t *slots, uint32_t arity);

#endif
