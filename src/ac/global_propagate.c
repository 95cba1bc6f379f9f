/* ac/global_propagate.c — one revision of a global constraint: the choice between the dedicated
 * propagator and the generic support search (global_propagate.h), and the strength each reaches. */
#include "ac/global_propagate.h"

#include <stdlib.h>

const char *ac_strength_name(ac_strength strength)
{
    switch (strength) {
    case AC_STRENGTH_GAC: return "gac";
    case AC_STRENGTH_DECOMPOSITION: return "decomposition";
    case AC_STRENGTH_BOUNDS: return "bounds";
    default: return "partial";
    }
}

static size_t term_count(const parac_csp_global *global)
{
    size_t count = 0;
    for (size_t l = 0; l < global->list_count && l < AC_GLOBAL_MAX_LISTS; l++)
        for (size_t i = 0; i < global->list_length[l]; i++) count += global->lists[l][i].var >= 0;
    count += global->condition.operand.var >= 0;
    count += global->condition2.operand.var >= 0;
    count += global->index.var >= 0;
    count += global->index2.var >= 0;
    count += global->size.var >= 0;
    return count;
}

int ac_global_variables_distinct(const parac_csp_global *global)
{
    return ac_global_scope(global, NULL, 0) == term_count(global);
}

static int all_constant(const ac_term *terms, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (terms[i].var >= 0) return 0;
    return 1;
}

ac_strength ac_global_dedicated_strength(const parac_csp_network *network, const parac_csp_global *global)
{
    int distinct;
    if (!ac_global_well_formed(global)) return AC_STRENGTH_PARTIAL; /* left alone: nothing is removed */
    distinct = ac_global_variables_distinct(global);
    switch (global->kind) {
    case AC_GLOBAL_ALL_DIFFERENT:
    case AC_GLOBAL_ALL_EQUAL:
    case AC_GLOBAL_ELEMENT:
    case AC_GLOBAL_ORDERED:
    case AC_GLOBAL_REGULAR:
    case AC_GLOBAL_MDD:
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM: return distinct ? AC_STRENGTH_GAC : AC_STRENGTH_PARTIAL;
    case AC_GLOBAL_CHANNEL:
        return distinct && ((global->list_count == 1 && global->condition.op == AC_OP_EQ) ||
                            (global->list_count == 2 && global->list_length[0] == global->list_length[1]))
                   ? AC_STRENGTH_GAC
                   : AC_STRENGTH_PARTIAL;
    case AC_GLOBAL_CARDINALITY: return distinct && ac_cardinality_flow_exact(global) ? AC_STRENGTH_GAC : AC_STRENGTH_PARTIAL;
    case AC_GLOBAL_LEX: return distinct && global->list_count == 2 ? AC_STRENGTH_GAC : AC_STRENGTH_PARTIAL;
    case AC_GLOBAL_COUNT:
        return distinct && (all_constant(global->lists[1], global->list_length[1]) || ac_count_variable_value(global))
                   ? AC_STRENGTH_GAC
                   : AC_STRENGTH_PARTIAL;
    case AC_GLOBAL_SUM:
        return ac_sum_dp_fits(network, global) ? AC_STRENGTH_GAC : AC_STRENGTH_BOUNDS; /* repeats merged */
    default: return AC_STRENGTH_PARTIAL;
    }
}

static int fits_support_search(const parac_csp_network *network, const parac_csp_global *global)
{
    size_t count = ac_global_scope(global, NULL, 0);
    uint32_t *scope = malloc((count + 1) * sizeof *scope);
    uint64_t tuples = 1;
    int fits = scope != NULL;
    if (scope) ac_global_scope(global, scope, count);
    for (size_t i = 0; fits && i < count; i++) {
        uint32_t size = network->domain_size[scope[i]];
        if (size && tuples > AC_SUPPORT_SEARCH_BUDGET / size) fits = 0;
        tuples *= size ? size : 1;
    }
    free(scope);
    return fits;
}

ac_strength ac_global_strength(const parac_csp_network *network, const parac_csp_global *global)
{
    ac_strength dedicated = ac_global_dedicated_strength(network, global);
    if (!ac_global_well_formed(global)) return AC_STRENGTH_PARTIAL;
    if (dedicated == AC_STRENGTH_GAC || fits_support_search(network, global))
        return global->shared_expression_variables ? AC_STRENGTH_DECOMPOSITION : AC_STRENGTH_GAC;
    return dedicated;
}

static int run_dedicated(const ac_model *model, ac_domains *domains, const parac_csp_global *global,
                         uint8_t *changed, parac_ac_stats *stats)
{
    switch (global->kind) {
    case AC_GLOBAL_ALL_DIFFERENT: return ac_propagate_all_different(model, domains, global, changed, stats);
    case AC_GLOBAL_ALL_EQUAL: return ac_propagate_all_equal(model, domains, global, changed, stats);
    case AC_GLOBAL_SUM: return ac_propagate_sum(model, domains, global, changed, stats);
    case AC_GLOBAL_COUNT: return ac_propagate_count(model, domains, global, changed, stats);
    case AC_GLOBAL_NVALUES: return ac_propagate_nvalues(model, domains, global, changed, stats);
    case AC_GLOBAL_CARDINALITY: return ac_propagate_cardinality(model, domains, global, changed, stats);
    case AC_GLOBAL_ELEMENT: return ac_propagate_element(model, domains, global, changed, stats);
    case AC_GLOBAL_CHANNEL: return ac_propagate_channel(model, domains, global, changed, stats);
    case AC_GLOBAL_ORDERED: return ac_propagate_ordered(model, domains, global, changed, stats);
    case AC_GLOBAL_LEX: return ac_propagate_lex(model, domains, global, changed, stats);
    case AC_GLOBAL_REGULAR:
    case AC_GLOBAL_MDD: return ac_propagate_regular(model, domains, global, changed, stats);
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM: return ac_propagate_min_max(model, domains, global, changed, stats);
    case AC_GLOBAL_NO_OVERLAP: return ac_propagate_no_overlap(model, domains, global, changed, stats);
    case AC_GLOBAL_CUMULATIVE: return ac_propagate_cumulative(model, domains, global, changed, stats);
    case AC_GLOBAL_CIRCUIT: return ac_propagate_circuit(model, domains, global, changed, stats);
    case AC_GLOBAL_BIN_PACKING: return ac_propagate_bin_packing(model, domains, global, changed, stats);
    case AC_GLOBAL_KNAPSACK: return ac_propagate_knapsack(model, domains, global, changed, stats);
    default: return 0;
    }
}

/* The values left in the constraint's terms (repeats counted; every term of ac_global_scope): a weak
 * revision runs again while this drops, so one revision is idempotent. */
static uint64_t values_in_terms(const ac_model *model, const ac_domains *domains, const parac_csp_global *global)
{
    uint64_t total = 0;
    for (size_t l = 0; l < global->list_count && l < AC_GLOBAL_MAX_LISTS; l++)
        for (size_t i = 0; i < global->list_length[l]; i++) total += ac_term_size(model, domains, &global->lists[l][i]);
    total += ac_term_size(model, domains, &global->condition.operand);
    total += ac_term_size(model, domains, &global->condition2.operand);
    total += ac_term_size(model, domains, &global->index) + ac_term_size(model, domains, &global->index2);
    return total + ac_term_size(model, domains, &global->size);
}

/* A propagator may detect a wipe-out (no matching, no path...) without emptying a domain: empty
 * one of the scope's, so every engine (and a SAC probe) sees the same state as for a table. */
static int wiped_out(const ac_model *model, ac_domains *domains, const parac_csp_global *global, uint8_t *changed)
{
    uint32_t first;
    size_t count = ac_global_scope(global, &first, 1);
    for (size_t l = 0; l < global->list_count && l < AC_GLOBAL_MAX_LISTS; l++)
        for (size_t i = 0; i < global->list_length[l]; i++)
            if (global->lists[l][i].var >= 0 && domains->size[global->lists[l][i].var] == 0) return 1;
    if (count) {
        parac_bitset_zero(ac_domain_of(model, domains, first), parac_bitset_words(model->network->domain_size[first]));
        if (domains->size[first] && changed) changed[first] = 1;
        domains->size[first] = 0;
    }
    return 1;
}

/* The AC3 family does not revise a constraint again for its own removals (ac3.c), so a revision
 * must leave the constraint at the fixpoint of its rule: a second revision removes nothing. An
 * exact propagator gets there in one run (GAC of GAC domains is themselves). A weak one runs again
 * while it removes values, and before each run the support search is tried once more: the run may
 * have shrunk the scope's tuples under the budget, and then the search's GAC is the rule for these
 * domains (stopping at the weak propagator's fixpoint instead left values a second revision
 * removes: a circuit whose 43M tuples fell to 23,328 kept self-loops it rules out). */
static int revise(const ac_model *model, ac_domains *domains, const parac_csp_global *global, int exact,
                  uint8_t *changed, parac_ac_stats *stats)
{
    uint64_t before;
    int applied = 0, wipeout;
    if (!ac_global_well_formed(global)) return 0;
    if (exact) return run_dedicated(model, domains, global, changed, stats);
    for (;;) {
        wipeout = ac_global_support_search(model, domains, global, AC_SUPPORT_SEARCH_BUDGET, changed, &applied);
        if (applied) return wipeout;
        before = values_in_terms(model, domains, global);
        if (run_dedicated(model, domains, global, changed, stats)) return 1;
        if (values_in_terms(model, domains, global) == before) return 0;
    }
}

int ac_revise_global_as(const ac_model *model, ac_domains *domains, const parac_csp_global *global, int exact,
                        uint8_t *changed, parac_ac_stats *stats)
{
    if (stats) stats->revisions++;
    return revise(model, domains, global, exact, changed, stats) ? wiped_out(model, domains, global, changed) : 0;
}

int ac_revise_global(const ac_model *model, ac_domains *domains, const parac_csp_global *global, uint8_t *changed,
                     parac_ac_stats *stats)
{
    int exact = ac_global_dedicated_strength(model->network, global) == AC_STRENGTH_GAC;
    return ac_revise_global_as(model, domains, global, exact, changed, stats);
}
