/* ac/global_propagate.h — the propagators of global constraints (global.h) and what they share.
 *
 * Every propagator has the same contract as ac_revise_table: it reads the current domains,
 * removes values (each removal of a variable's value is noted in changed[var] when changed is not
 * NULL) and returns 1 on wipe-out (a domain emptied, or a constant term found unsupported). It
 * never removes a value that has a support (a satisfying assignment of the whole scope within the
 * current domains); how many unsupported values it finds is its strength (ac_strength), listed in
 * docs/ac.md. ac_revise_global (global_propagate.c) picks, per constraint:
 *   1. the dedicated propagator when it is exact (GAC) for this constraint;
 *   2. else the generic support search (global_support_search.c) when the product of the current
 *      domain sizes of the scope is at most AC_SUPPORT_SEARCH_BUDGET: exact GAC by enumeration;
 *   3. else the dedicated propagator at its documented (weaker) strength.
 * Exactness of the dedicated propagators assumes each variable appears once in the constraint (a
 * repeated variable makes them weaker, never unsound): ac_global_strength says which applies.
 */
#ifndef PARAC_AC_GLOBAL_PROPAGATE_H
#define PARAC_AC_GLOBAL_PROPAGATE_H

#include "ac/ac_algorithms.h"
#include "ac/global.h"

/* The generic support search enumerates at most this many tuples per revision. */
#define AC_SUPPORT_SEARCH_BUDGET ((uint64_t)200000)
/* sum: dynamic programming over partial sums when its work (sum over terms of the partial sums'
 * range before the term times the term's domain size) is at most this; bounds consistency above. */
#define AC_SUM_DP_STATE_LIMIT ((uint64_t)20000000)

typedef enum ac_strength {
    AC_STRENGTH_GAC = 0,     /* every value without a support is removed */
    AC_STRENGTH_DECOMPOSITION, /* GAC over the auxiliary variables of expression terms whose variables
                                  overlap (global.h, shared_expression_variables) */
    AC_STRENGTH_BOUNDS,      /* bounds consistency (or the standard bounds reasoning of the kind) */
    AC_STRENGTH_PARTIAL      /* a documented polynomial filtering weaker than bounds consistency */
} ac_strength;

const char *ac_strength_name(ac_strength strength); /* "gac", "decomposition", "bounds", "partial" */

/* The strength the network's revisions of `global` reach (the reported one): GAC when the
 * dedicated propagator is exact for it or the support search covers its initial domains. */
ac_strength ac_global_strength(const parac_csp_network *network, const parac_csp_global *global);
/* The dedicated propagator's strength alone (before the support search is considered). */
ac_strength ac_global_dedicated_strength(const parac_csp_network *network, const parac_csp_global *global);
/* 1 when no variable occurs in two places of the constraint (lists, operand, index, size). */
int ac_global_variables_distinct(const parac_csp_global *global);

/* One revision (the engines call it through ac_revise_nary, with `exact` = the dedicated
 * propagator's strength is GAC, computed once per model; ac_revise_global computes it). */
int ac_revise_global(const ac_model *model, ac_domains *domains, const parac_csp_global *global, uint8_t *changed,
                     parac_ac_stats *stats);
int ac_revise_global_as(const ac_model *model, ac_domains *domains, const parac_csp_global *global, int exact,
                        uint8_t *changed, parac_ac_stats *stats);

/* 1 when the assignment satisfies the constraint: values[i] is the value of variable scope[i]
 * (scope ascending, as ac_global_scope gives it). The definition of every kind's semantics. */
int ac_global_satisfied(const parac_csp_global *global, const uint32_t *scope, const int64_t *values, size_t count);

/* 0 when the constraint's fields do not fit its kind (lists missing, lengths that differ): the
 * reader refuses such constraints; the revision leaves them alone (never a crash). */
int ac_global_well_formed(const parac_csp_global *global);

/* Exact GAC by enumerating the tuples of the scope's current domains; *applied = 0 (and nothing
 * done) when there are more than budget of them. */
int ac_global_support_search(const ac_model *model, ac_domains *domains, const parac_csp_global *global,
                             uint64_t budget, uint8_t *changed, int *applied);

/* ---- terms over the current domains ---- */
/* The first position of a sorted (ascending) array whose value is >= x (count when none). */
size_t ac_lower_bound(const int64_t *sorted, size_t count, int64_t x);
/* The slot of `value` in var's initial domain, or -1. */
long ac_value_slot(const parac_csp_network *network, uint32_t var, int64_t value);
int ac_term_has(const ac_model *model, const ac_domains *domains, const ac_term *term, int64_t value);
int64_t ac_term_min(const ac_model *model, const ac_domains *domains, const ac_term *term); /* INT64_MAX if empty */
int64_t ac_term_max(const ac_model *model, const ac_domains *domains, const ac_term *term); /* INT64_MIN if empty */
size_t ac_term_size(const ac_model *model, const ac_domains *domains, const ac_term *term);
/* Writes the term's current values ascending to out (room for its domain size); returns how many. */
size_t ac_term_values(const ac_model *model, const ac_domains *domains, const ac_term *term, int64_t *out);
/* Removes value from the term's domain (a constant term: "removing" its value fails). Returns 1
 * when the term has no value left. */
int ac_term_remove(const ac_model *model, ac_domains *domains, const ac_term *term, int64_t value, uint8_t *changed);
/* Keeps only values within [low, high]; returns 1 on wipe-out. */
int ac_term_restrict(const ac_model *model, ac_domains *domains, const ac_term *term, int64_t low, int64_t high,
                     uint8_t *changed);
/* Open intervals of values (after, before), in 128 bits so that bounds computed from values near
 * the int64 ends do not overflow. */
typedef struct ac_open_interval {
    __int128 after, before;
} ac_open_interval;
/* Sorts the intervals by `after` (for ac_term_remove_intervals). */
void ac_sort_intervals(ac_open_interval *intervals, size_t count);
/* Removes the term's values lying in any of the intervals (sorted by `after`): one walk over the
 * values (ascending, written to `scratch`, room for the term's domain) and the intervals. Returns 1
 * on wipe-out. */
int ac_term_remove_intervals(const ac_model *model, ac_domains *domains, const ac_term *term,
                             const ac_open_interval *intervals, size_t count, int64_t *scratch, uint8_t *changed);
/* The largest initial domain over the network (buffer sizes). */
size_t ac_largest_domain(const parac_csp_network *network);

/* ---- conditions ---- */
int ac_condition_holds(const ac_condition *condition, int64_t x, int64_t operand);
/* x op operand for the relational operators (LT..NE); 1 for the others (no relation to test). */
int ac_operator_holds(ac_operator op, int64_t x, int64_t operand);
/* 1 when some value of the operand (its current domain, or the constant) makes condition(x) hold. */
int ac_condition_possible(const ac_model *model, const ac_domains *domains, const ac_condition *condition, int64_t x);
/* Removes the operand variable's values b for which no x of `feasible` (ascending, count > 0) has
 * condition(x, b). Nothing for a constant operand. Returns 1 on wipe-out. */
int ac_condition_prune_operand(const ac_model *model, ac_domains *domains, const ac_condition *condition,
                               const int64_t *feasible, size_t count, uint8_t *changed);

/* ---- the propagators (global_<kind>.c); each returns 1 on wipe-out ---- */
#define AC_PROPAGATOR(kind)                                                                                      \
    int ac_propagate_##kind(const ac_model *model, ac_domains *domains, const parac_csp_global *global,         \
                            uint8_t *changed, parac_ac_stats *stats)
AC_PROPAGATOR(all_different);
AC_PROPAGATOR(all_equal);
AC_PROPAGATOR(sum);
AC_PROPAGATOR(count);
AC_PROPAGATOR(nvalues);
AC_PROPAGATOR(cardinality);
AC_PROPAGATOR(element);
AC_PROPAGATOR(channel);
AC_PROPAGATOR(ordered);
AC_PROPAGATOR(lex);
AC_PROPAGATOR(regular); /* regular and mdd */
AC_PROPAGATOR(min_max); /* minimum and maximum */
AC_PROPAGATOR(no_overlap);
AC_PROPAGATOR(cumulative);
AC_PROPAGATOR(circuit);
AC_PROPAGATOR(bin_packing);
AC_PROPAGATOR(knapsack);

/* 1 when count's values are one variable (its own exact propagation). */
int ac_count_variable_value(const parac_csp_global *global);

/* 1 when cardinality's flow is GAC for the constraint (distinct constant values, constant or range
 * occurrences). */
int ac_cardinality_flow_exact(const parac_csp_global *global);

/* Tarjan's strongly connected components of the graph with arcs target[offset[v]..offset[v+1])
 * out of node v: component[v] numbers them. Returns 0, or -1 when out of memory. */
int ac_strong_components(size_t nodes, const size_t *offset, const uint32_t *target, uint32_t *component);

/* 1 when sum's dynamic programming over the initial domains stays within AC_SUM_DP_STATE_LIMIT work. */
int ac_sum_dp_fits(const parac_csp_network *network, const parac_csp_global *global);

/* Régin's matching-based GAC on allDifferent over `count` terms, values in `except` (ascending)
 * exempt; shared by allDifferent, channel and circuit. Returns 1 on wipe-out. */
int ac_all_different_terms(const ac_model *model, ac_domains *domains, const ac_term *terms, size_t count,
                           const int64_t *except, size_t except_count, uint8_t *changed);

#endif
