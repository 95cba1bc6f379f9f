/* parac/csp.h — constraint networks: reading XCSP files, generating random
 * networks, writing XCSP3.
 *
 * A parac_csp is an opaque handle on a finite-domain constraint network:
 * variables with integer domains and binary (bit-matrix) or n-ary (table)
 * constraints; unary constraints are applied to the domains while loading and
 * constraints over the same variables, in any order, are merged (bit matrices
 * ANDed; tables intersected, stored over their scope sorted by variable index).
 * The arc-consistency functions (parac/ac.h) take this handle.
 *
 * Inputs: XCSP3 (`<instance format="XCSP3" type="CSP|COP">`: var, array, extension,
 * intension, the global constraints of XCSP3-core listed in docs/xcsp.md (allDifferent,
 * sum, count, element, regular, cumulative, ...), group with %i and %... parameters,
 * block, slide, objectives (kept, not enforced); compact references such as x[], x[0..4],
 * m[][2]) and XCSP 2.1 (domains, relations, predicates,
 * constraints), plain or compressed with xz/lzma (detected from the content).
 * Every function returns PARAC_OK or fills `error` with "file:line: problem".
 * No function prints, exits or keeps global state; handles are independent.
 */
#ifndef PARAC_CSP_H
#define PARAC_CSP_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac_csp parac_csp;

typedef struct parac_csp_load_options {
    /* 0: an unsupported element (e.g. binPacking, knapsack) fails with
     * PARAC_ERR_UNSUPPORTED naming the element and its line. 1: it is skipped
     * and listed by parac_csp_dropped_count / parac_csp_dropped. */
    int ignore_unsupported;
    /* Largest table (tuples) an intension or n-ary conflicts constraint may expand to;
     * 0 means the default (10^7). Larger ones are PARAC_ERR_UNSUPPORTED. */
    uint64_t max_table_tuples;
} parac_csp_load_options;

void parac_csp_load_options_default(parac_csp_load_options *options);

/* Reads an XCSP3 or XCSP 2.1 file (plain, gzip, xz or lzma). On success *out is a new
 * handle the caller frees with parac_csp_destroy. Fails with PARAC_ERR_IO (cannot open
 * or decompress), PARAC_ERR_PARSE (malformed or truncated XML, bad values, unknown
 * variables, entity declarations), PARAC_ERR_UNSUPPORTED (also past a budget: 4 GiB of
 * XML, 10^8 elements, 10^7 variables, 10^8 values, 64-bit overflow in an intension; see
 * docs/xcsp.md) or PARAC_ERR_NO_MEMORY; *out is then NULL. options may be NULL (defaults). */
parac_status parac_csp_load(const char *path, const parac_csp_load_options *options, parac_csp **out,
                            parac_error *error);

/* As parac_csp_load, from an XML document in memory (not compressed); `name` is used in
 * error messages. The buffer is not kept. */
parac_status parac_csp_load_memory(const char *xml, size_t size, const char *name,
                                   const parac_csp_load_options *options, parac_csp **out, parac_error *error);

typedef enum parac_csp_model {
    PARAC_CSP_MODEL_B = 0, /* `constraints` distinct scopes, each forbidding exactly round(T*D*D) pairs */
    PARAC_CSP_MODEL_RB = 1 /* scopes drawn with repetition (Xu & Li); same per-constraint tightness */
} parac_csp_model;

typedef struct parac_csp_generate_options {
    parac_csp_model model;
    uint32_t variables;   /* N >= 2 */
    uint32_t domain;      /* D >= 1, values 0..D-1 */
    uint64_t constraints; /* C; model B needs C <= N(N-1)/2 */
    double tightness;     /* T in [0, 1]: the fraction of forbidden pairs */
    uint64_t seed;
    int threads;          /* <= 0: all cores; the result does not depend on it */
    uint32_t arity;       /* 0 or 2: binary constraints (the models above); 3..8: C table constraints,
                             each over `arity` distinct variables drawn at random (both models: a
                             repeated scope is intersected, as a reader would) */
    uint64_t tuples;      /* tables: allowed tuples drawn per table, uniformly with repetition (the
                             duplicates dropped); 0: round((1 - T) x D^arity), for D^arity <= 2^24 */
} parac_csp_generate_options;

void parac_csp_generate_options_default(parac_csp_generate_options *options);

/* A random network (binary, or tables when arity >= 3); the same options give the same network
 * on every machine and thread count. PARAC_ERR_INVALID_ARGUMENT on out-of-range options. */
parac_status parac_csp_generate(const parac_csp_generate_options *options, parac_csp **out, parac_error *error);

/* Writes the network as XCSP3 (domains restricted to the initially present values;
 * each constraint as supports or conflicts, whichever list is shorter; global constraints
 * in XCSP3 syntax; the objective verbatim). Variables keep their names when XCSP3 can hold
 * them (plain ids, whole arrays), else become one array x[N] (then a network with an
 * objective is PARAC_ERR_UNSUPPORTED). path "-" or NULL is stdout. threads <= 0: all
 * cores; the bytes do not depend on it. */
parac_status parac_csp_write_xcsp3(const parac_csp *csp, const char *path, int threads, parac_error *error);

void parac_csp_destroy(parac_csp *csp);

/* Counts. variables = the variables the file declares (names 0..count-1); values = the value
 * ids, the size of a domains buffer (ac.h): the declared variables' initial domains, then those
 * of the auxiliary variables that stand for expression terms of global constraints (docs/xcsp.md),
 * which no other function here shows; present_values = the declared variables' values after
 * unary constraints (ACE's "values before" AC); edges = the N-E model's edges, sum over binary constraints
 * of |D(x)|*|D(y)|. */
size_t parac_csp_variable_count(const parac_csp *csp);
size_t parac_csp_constraint_count(const parac_csp *csp);
size_t parac_csp_binary_constraint_count(const parac_csp *csp);
uint64_t parac_csp_value_count(const parac_csp *csp);
uint64_t parac_csp_present_value_count(const parac_csp *csp);
uint64_t parac_csp_ne_edge_count(const parac_csp *csp);
/* Name of variable i ("x[3]"), owned by the handle. */
const char *parac_csp_variable_name(const parac_csp *csp, size_t variable);

/* 1 when the XCSP3 instance had an <objectives> element (<minimize>/<maximize>; type="COP").
 * Consistency does not use it; the reduced-instance writer re-emits it verbatim. */
int parac_csp_has_objective(const parac_csp *csp);
/* Global constraints (allDifferent, sum, element, ...) read, counted apart from
 * parac_csp_constraint_count (binary and table constraints). A matrix allDifferent or lex
 * counts one per row and column. */
size_t parac_csp_global_count(const parac_csp *csp);

/* Constraints skipped under ignore_unsupported: "element 'allDifferent' at line 12". */
size_t parac_csp_dropped_count(const parac_csp *csp);
const char *parac_csp_dropped(const parac_csp *csp, size_t index);

#ifdef __cplusplus
}
#endif
#endif
