/* ac/global.h — global constraints as the network stores them: what the XCSP3
 * reader builds (csp/xcsp3_globals.c) and the GAC propagators read
 * (ac/global_*.c). One plain struct for every kind; which fields a kind uses
 * is listed below, so a reader and a propagator agree without sharing code.
 *
 * Terms. XCSP3 lets most lists mix variables and integer constants
 * ("x[0] 3 x[2]"), so list entries are terms: a variable index (var >= 0)
 * or a constant (var == AC_TERM_CONSTANT, value = the integer). Values are
 * the XCSP integers themselves (not domain slots): a propagator maps them to
 * slots of each variable's domain through the network's `values` table.
 *
 * Conditions. `<condition>(le, 10)</condition>`, `(eq, y)`, `(in, 2..5)`,
 * `(in, {1,3})`: an operator and an operand that is a constant, a variable,
 * a range or a value set.
 *
 * Ownership. A parac_csp_global and everything it points to is owned by the
 * network once added (parac_csp_add_global copies it); ac_global_free frees
 * a copy. Arrays are NULL when their count is 0.
 *
 * Kind          | lists (list_count)                          | other fields
 * --------------+---------------------------------------------+--------------------------------------------
 * ALL_DIFFERENT | lists[0] terms                              | values = except values (may be empty)
 *               | matrix form: one constraint per row and per column, added by the reader
 * ALL_EQUAL     | lists[0] terms                              | values = except values
 * SUM           | lists[0] terms                              | coeffs[i] per term (all 1 when none given;
 *               |                                             | variable coefficients: the reader makes
 *               |                                             | mul(x, c) an auxiliary term, coefficient 1),
 *               |                                             | condition
 * COUNT         | lists[0] terms                              | lists[1] = the counted values (terms:
 *               |                                             | constants or variables), condition on the
 *               |                                             | number of i with lists[0][i] in lists[1].
 *               |                                             | atLeast/atMost/exactly arrive as COUNT
 *               |                                             | with ge/le/eq.
 * NVALUES       | lists[0] terms                              | values = except values, condition on the
 *               |                                             | number of distinct values
 * CARDINALITY   | lists[0] terms                              | lists[1] = values (terms), lists[2] =
 *               |                                             | occurrences (terms: constants or variables;
 *               |                                             | a range lo..hi is given as ranges[k]),
 *               |                                             | closed = 1 when every list value must be one
 *               |                                             | of lists[1]
 * ELEMENT       | lists[0] terms (the vector; row-major       | index = the index term, start_index,
 *               | matrix when dims[1] > 0: dims[0] rows x     | index2/start_index2 the column index of the
 *               | dims[1] columns)                            | matrix form, condition on the element
 *               |                                             | (usually eq value)
 * CHANNEL       | lists[0] (and lists[1] for two lists)       | start_index / start_index2 per list; one
 *               |                                             | list: x[i] = j <=> x[j] = i; two lists:
 *               |                                             | x[i] = j <=> y[j] = i; a list and a value
 *               |                                             | (condition eq v): x[i] = 1 <=> v = i
 * ORDERED       | lists[0] terms                              | op (LT, LE, GE, GT), coeffs = lengths
 *               |                                             | (list_count - 1 of them, or NULL = 0)
 * LEX           | lists[0..list_count-1], equal lengths       | op (LT, LE, GE, GT); the matrix form
 *               |                                             | becomes two LEX constraints (rows, columns)
 * REGULAR       | lists[0] terms                              | automaton: states 0..state_count-1, start,
 *               |                                             | finals (values), transitions (from, value,
 *               |                                             | to) triples in `transitions`
 * MDD           | lists[0] terms                              | transitions (from, value, to) triples over
 *               |                                             | node numbers; start = the root, finals = the
 *               |                                             | terminal node(s)
 * MINIMUM       | lists[0] terms                              | condition on the minimum
 * MAXIMUM       | lists[0] terms                              | condition on the maximum
 * NO_OVERLAP    | lists[0] origins, lists[1] lengths (terms); | zero_ignored; dims[0] = k for the
 *               | k-dimensional boxes: lists of k*n terms,    | k-dimensional form (0 or 1 = one dimension)
 *               | box i's origins at i*k..i*k+k-1             |
 * CUMULATIVE    | lists[0] origins, lists[1] lengths,         | condition on the height reached (usually
 *               | lists[2] heights (terms); lists[3] ends     | le capacity)
 *               | when given                                  |
 * CIRCUIT       | lists[0] terms (successors)                 | start_index; size (a term, or var -1 and
 *               |                                             | value 0 when absent)
 * BIN_PACKING   | lists[0] terms (the bin of each item)       | coeffs = the items' sizes (integers, one
 *               |                                             | per term), condition (le / lt, a constant
 *               |                                             | or a variable) on the load of every bin
 *               |                                             | that some item is put in
 * KNAPSACK      | lists[0] terms (how many of each item)      | coeffs = weights, values = profits (one
 *               |                                             | per term, in list order, not sorted),
 *               |                                             | condition on sum(weights * list),
 *               |                                             | condition2 on sum(profits * list)
 *
 * instantiation is not a global here: the reader applies it to the domains.
 */
#ifndef PARAC_AC_GLOBAL_H
#define PARAC_AC_GLOBAL_H

#include <stddef.h>
#include <stdint.h>

#define AC_TERM_CONSTANT (-1)

typedef struct ac_term {
    int64_t var;   /* variable index, or AC_TERM_CONSTANT */
    int64_t value; /* the constant when var == AC_TERM_CONSTANT */
} ac_term;

typedef enum ac_global_kind {
    AC_GLOBAL_ALL_DIFFERENT = 1,
    AC_GLOBAL_ALL_EQUAL,
    AC_GLOBAL_SUM,
    AC_GLOBAL_COUNT,
    AC_GLOBAL_NVALUES,
    AC_GLOBAL_CARDINALITY,
    AC_GLOBAL_ELEMENT,
    AC_GLOBAL_CHANNEL,
    AC_GLOBAL_ORDERED,
    AC_GLOBAL_LEX,
    AC_GLOBAL_REGULAR,
    AC_GLOBAL_MDD,
    AC_GLOBAL_MINIMUM,
    AC_GLOBAL_MAXIMUM,
    AC_GLOBAL_NO_OVERLAP,
    AC_GLOBAL_CUMULATIVE,
    AC_GLOBAL_CIRCUIT,
    AC_GLOBAL_BIN_PACKING,
    AC_GLOBAL_KNAPSACK,
    AC_GLOBAL_KIND_COUNT
} ac_global_kind;

typedef enum ac_operator {
    AC_OP_NONE = 0,
    AC_OP_LT,
    AC_OP_LE,
    AC_OP_GE,
    AC_OP_GT,
    AC_OP_EQ,
    AC_OP_NE,
    AC_OP_IN,    /* operand: range (low..high) or set */
    AC_OP_NOT_IN
} ac_operator;

typedef struct ac_condition {
    ac_operator op;     /* AC_OP_NONE: the kind has no condition */
    ac_term operand;    /* LT..NE: a variable or a constant */
    int is_range;       /* IN / NOT_IN: 1 = low..high, 0 = set */
    int64_t low, high;
    int64_t *set;       /* IN / NOT_IN with a set: sorted, distinct */
    size_t set_count;
} ac_condition;

typedef struct ac_range {
    int64_t low, high;
} ac_range;

#define AC_GLOBAL_MAX_LISTS 4

typedef struct parac_csp_global {
    ac_global_kind kind;
    ac_term *lists[AC_GLOBAL_MAX_LISTS];
    size_t list_length[AC_GLOBAL_MAX_LISTS];
    size_t list_count;

    int64_t *coeffs;            /* SUM coefficients, ORDERED lengths */
    size_t coeff_count;
    int64_t *values;            /* except values (sorted, distinct); KNAPSACK: the profits */
    size_t value_count;
    ac_range *ranges;           /* CARDINALITY occurrences given as ranges: ranges[k] for value k when
                                   lists[2][k].var == AC_TERM_CONSTANT and has_ranges */
    int has_ranges;

    ac_condition condition;
    ac_condition condition2;    /* KNAPSACK: the condition on the profit */
    ac_operator op;             /* ORDERED, LEX */
    ac_term index, index2;      /* ELEMENT */
    int64_t start_index, start_index2;
    ac_term size;               /* CIRCUIT */
    int64_t dims[2];            /* ELEMENT matrix (rows, columns), NO_OVERLAP k */
    int closed;                 /* CARDINALITY */
    int zero_ignored;           /* NO_OVERLAP */

    int64_t start;              /* REGULAR start state, MDD root */
    int64_t *finals;            /* REGULAR final states, MDD terminal(s) */
    size_t final_count;
    int64_t *transitions;       /* (from, value, to) triples, 3 * transition_count values */
    size_t transition_count;
    int64_t state_count;        /* REGULAR/MDD: states are 0..state_count-1 (the reader numbers names) */

    /* 1 when the reader replaced expression terms (add(x,1), mul(x,y) in a list) by auxiliary
     * variables (network.h) and a variable of one expression also occurs in another term of the
     * constraint: GAC over the auxiliary variables is then weaker than GAC over the original ones
     * (ac_global_strength reports "decomposition"). Without such a shared variable the
     * decomposition is Berge-acyclic and its GAC is the original constraint's. */
    int shared_expression_variables;

    long line;                  /* source line, for messages */
} parac_csp_global;

/* Zeroes *global and sets its kind, with every single term (condition operands, index, index2,
 * size) a constant 0 and condition.op AC_OP_NONE: a term left at var 0 would name variable 0, so
 * a reader starts every constraint from here. */
void ac_global_init(parac_csp_global *global, ac_global_kind kind);

/* The distinct variables a global constraint reads, ascending (its scope for the propagation
 * queue). Writes at most capacity and returns how many there are. */
size_t ac_global_scope(const parac_csp_global *global, uint32_t *scope, size_t capacity);

/* Deep copy / free (the network owns its copies). copy returns 0, or -1 when out of memory. */
int ac_global_copy(parac_csp_global *to, const parac_csp_global *from);
void ac_global_free(parac_csp_global *global);

/* "allDifferent", "sum", ... as XCSP3 names the element (for messages and the JSON). */
const char *ac_global_kind_name(ac_global_kind kind);

#endif
