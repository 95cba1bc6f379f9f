/* ac/network.h — a constraint network after parsing: the one representation
 * every AC algorithm (CPU and GPU) reads.
 *
 * Variables have finite domains of integers; a value is addressed by its slot
 * (0..domain_size-1) in its variable's domain, and globally by
 * value_offset[var] + slot ("value id": the N-E model's node index).
 *
 * Constraints are stored in one of two forms:
 *  - binary (arity 2): a bit matrix over slots. Row a (a slot of scope[0])
 *    holds row_words = parac_bitset_words(domain_size[scope[1]]) words; bit b is
 *    1 when (a, b) is allowed. Constraints over the same pair of variables are
 *    merged (matrices ANDed) by the builder, so at most one binary constraint
 *    exists per unordered pair. scope[0] != scope[1] always (x = x constraints
 *    become unary and are applied to the domain).
 *  - table (arity >= 3): the allowed tuples as slot indices, tuple_count rows
 *    of arity uint32 each (conflicts are turned into supports by the builder).
 *    The builder stores scope sorted ascending (columns permuted to match), tuples
 *    sorted and distinct, and intersects tables over the same variables, so at
 *    most one table exists per set of variables.
 * Unary constraints never appear: they are applied to the domains at parse time.
 *
 * `present` is the initial domain state (1 bit per value id, all set unless a
 * unary constraint removed a value); algorithms copy it, never modify it.
 */
#ifndef PARAC_AC_NETWORK_H
#define PARAC_AC_NETWORK_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "ac/global.h"
#include "core/bitset.h"

typedef struct parac_csp_constraint {
    uint32_t arity;
    uint32_t *scope;            /* arity variable indices */
    /* binary form (arity == 2) */
    parac_word *matrix;         /* domain_size[scope[0]] rows of row_words words */
    size_t row_words;
    /* table form (arity >= 3) */
    uint32_t *tuples;           /* tuple_count * arity slot indices */
    size_t tuple_count;
} parac_csp_constraint;

typedef struct parac_csp_network {
    size_t variable_count;
    /* The variables the input declared (parac_csp_finish_variables sets it); those after it are
     * auxiliary ones the reader added for expressions in global constraints' lists (a variable per
     * expression, defined by a table): the algorithms see them like any other, the public API
     * (--domains, the counts of values) does not. */
    size_t declared_variable_count;
    char **variable_names;      /* "x[3]" etc., for --domains output */
    uint32_t *domain_size;      /* per variable, the initial size (slots) */
    uint64_t *value_offset;     /* per variable, first value id; value_offset[n] = value_count */
    int64_t *values;            /* value_count integers: the value at each value id */
    uint64_t value_count;
    parac_word *present;        /* value_count bits: initially present values */

    size_t constraint_count;
    size_t constraint_capacity;
    parac_csp_constraint *constraints;

    /* Global constraints (global.h), kept apart from `constraints` so code that knows only the
     * binary and table forms never mistakes one for an empty table. */
    parac_csp_global *globals;
    size_t global_count;
    int has_objective;          /* the instance had an <objectives> element (read, not enforced) */

    char **dropped;             /* descriptions of constraints dropped by --ignore-unsupported */
    size_t dropped_count;

    /* Private to network.c: the builder's (x, y) -> constraint lookup that makes merging
     * same-scope binary constraints O(1) instead of a scan; NULL before init and after free. */
    struct parac_csp_scope_index *scope_index;
} parac_csp_network;

/* Building (used by the parsers and generators; all return PARAC_OK or fill error). */
parac_status parac_csp_network_init(parac_csp_network *network, parac_error *error);
/* Adds a variable with the given domain values (sorted ascending, distinct); returns its index. */
parac_status parac_csp_add_variable(parac_csp_network *network, const char *name, const int64_t *values,
                                    uint32_t count, uint32_t *index, parac_error *error);
/* Call once after the last variable and before any constraint: lays out value ids. */
parac_status parac_csp_finish_variables(parac_csp_network *network, parac_error *error);
/* After parac_csp_finish_variables: appends an auxiliary variable (values sorted ascending,
 * distinct, all present), its value ids after every earlier one, so the constraints already added
 * keep their meaning. */
parac_status parac_csp_add_auxiliary_variable(parac_csp_network *network, const char *name, const int64_t *values,
                                              uint32_t count, uint32_t *index, parac_error *error);
/* Adds (or merges into an existing same-scope) binary constraint from an allowed-pairs
 * bit matrix over slots of (x, y); the matrix is copied, transposed when x > y. */
parac_status parac_csp_add_binary(parac_csp_network *network, uint32_t x, uint32_t y, const parac_word *matrix,
                                  parac_error *error);
/* Adds a table constraint (arity >= 3) of allowed tuples (slot indices); copied. */
parac_status parac_csp_add_table(parac_csp_network *network, uint32_t arity, const uint32_t *scope,
                                 const uint32_t *tuples, size_t tuple_count, parac_error *error);
/* Adds a global constraint (deep copy; its terms' variables must exist). PARAC_ERR_PARSE when a
 * term names an unknown variable, PARAC_ERR_NO_MEMORY. */
parac_status parac_csp_add_global(parac_csp_network *network, const parac_csp_global *global, parac_error *error);
/* Removes value slot `slot` of variable `var` from the initial domain (unary constraints). */
void parac_csp_remove_initial_value(parac_csp_network *network, uint32_t var, uint32_t slot);
/* Records a dropped (unsupported) constraint's description. */
parac_status parac_csp_note_dropped(parac_csp_network *network, const char *description, parac_error *error);

void parac_csp_network_free(parac_csp_network *network);

/* The variables the input declared (declared_variable_count; all of them for a network built
 * without auxiliary variables), and the values of their domains: value ids below it. */
size_t parac_csp_declared_variables(const parac_csp_network *network);
uint64_t parac_csp_declared_values(const parac_csp_network *network);
/* How many of the declared variables' values are set in `bits` (one bit per value id). */
uint64_t parac_csp_declared_values_in(const parac_csp_network *network, const parac_word *bits);

/* Number of binary constraints, and of N-E edges (sum over binary constraints of |D(x)|*|D(y)|). */
size_t parac_csp_binary_count(const parac_csp_network *network);
uint64_t parac_csp_edge_count(const parac_csp_network *network);

#endif
