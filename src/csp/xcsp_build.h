/* csp/xcsp_build.h — what the XCSP3 and XCSP 2.1 readers share: fast integer
 * tokenizing (domains, tuple lists), a name table, and turning extension tuples
 * or intension expressions into network constraints over the current domains. */
#ifndef PARAC_CSP_XCSP_BUILD_H
#define PARAC_CSP_XCSP_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "ac/network.h"
#include "core/hash_index.h"
#include "csp/xcsp_expression.h"
#include "csp/xcsp_input.h"

/* Values read from XCSP lie within +-XCSP_MAX_VALUE, so INT64_MIN is free to mean '*'. */
#define XCSP_MAX_VALUE ((uint64_t)INT64_MAX)
#define XCSP_STAR INT64_MIN /* '*' in a tuple: any value */

typedef struct xcsp_tuples {
    int64_t *values; /* count * arity values, XCSP_STAR for '*' */
    size_t count;
    size_t capacity; /* in values */
    uint32_t arity;
} xcsp_tuples;

/* Where the constraint being built came from, for messages. */
typedef struct xcsp_site {
    const char *file;
    long line;
    uint64_t max_table_tuples;
} xcsp_site;

/* Reads an integer at *cursor after optional spaces; advances. 1 ok, 0 none there (or one
 * outside +-XCSP_MAX_VALUE: never wrapped). */
int xcsp_read_integer(const char **cursor, int64_t *value);

/* A domain "0..9 12 15..17" as sorted distinct values (malloc'd; NULL when empty), at most
 * max_values of them. 0 ok, -1 bad (why filled). */
int xcsp_parse_domain(const char *text, uint64_t max_values, int64_t **values, uint32_t *count, char *why,
                      size_t why_size);

/* XCSP3 tuples "(1,2)(3,*)..." of `arity` values; arity 1 accepts the unary form "1 3 5..7"
 * (at most max_values values). XCSP 2.1 tuples "1 2|3 4" with separator '|'. Appends to out.
 * 0 ok, -1 bad, -2 no memory. */
int xcsp_parse_tuples3(const char *text, uint32_t arity, uint64_t max_values, xcsp_tuples *out, char *why,
                       size_t why_size);
int xcsp_parse_tuples2(const char *text, uint32_t arity, xcsp_tuples *out, char *why, size_t why_size);
void xcsp_tuples_free(xcsp_tuples *tuples);

/* The slot of `value` in var's domain, or -1 when the domain lacks it. */
int64_t xcsp_slot_of(const parac_csp_network *network, uint32_t var, int64_t value);

/* parac_csp_add_variable within the variable and value budgets (PARAC_ERR_UNSUPPORTED past them). */
parac_status xcsp_add_variable(parac_csp_network *network, const xcsp_limits *limits, const char *name,
                               const int64_t *values, uint32_t count, uint32_t *index, const xcsp_site *site,
                               parac_error *error);

/* Adds an extension constraint: supports (1) or conflicts (0) given as values; tuples with
 * values outside the domains are ignored; scope may repeat variables. */
parac_status xcsp_add_extension(parac_csp_network *network, const uint32_t *scope, uint32_t arity,
                                const xcsp_tuples *tuples, int supports, const xcsp_site *site, parac_error *error);

/* Adds an intension constraint: operand k is variable operand_var[k], or the constant
 * operand_constant[k] when operand_var[k] < 0. The allowed tuples of the distinct
 * variables are found by evaluating the expression on every combination of slots. */
parac_status xcsp_add_intension(parac_csp_network *network, const xcsp_expr *expr, const int64_t *operand_var,
                                const int64_t *operand_constant, size_t operand_count, const xcsp_site *site,
                                parac_error *error);

/* A string -> int64 map (names of variables, arrays, domains, relations): entries in insertion
 * order, found through a core/hash_index. Zero-initialized = empty. */
/* An expression used as a term of a list (pycsp3's AllDifferent(x[i] + i), Sum(x[i] * y[i])):
 * without variables, its value in *constant (*var = -1); else a new auxiliary variable `name`
 * (parac_csp_add_auxiliary_variable) whose domain is every value expr takes, tied to the
 * expression's variables by a table of the expression's graph, in *var. Refused
 * (PARAC_ERR_UNSUPPORTED) past max_table_tuples combinations, past max_values values in all, or
 * on a 64-bit overflow. */
parac_status xcsp_add_expression_variable(parac_csp_network *network, const xcsp_expr *expr, const int64_t *operand_var,
                                          const int64_t *operand_constant, size_t operand_count, const char *name,
                                          uint64_t max_values, const xcsp_site *site, int64_t *var, int64_t *constant,
                                          parac_error *error);

typedef struct xcsp_names {
    char **keys;            /* entry i's name, owned */
    int64_t *values;
    size_t count, capacity; /* entries */
    parac_hash_index index; /* entries by name */
} xcsp_names;

int xcsp_names_put(xcsp_names *names, const char *key, size_t length, int64_t value); /* 0 ok, -1 no memory */
int64_t xcsp_names_get(const xcsp_names *names, const char *key, size_t length);      /* -1 when absent */
void xcsp_names_free(xcsp_names *names);

#endif
