/* ac/ac_bitset_rounds.c — the parallel CPU path: rounds of bitset revisions.
 *
 * Each round revises, for every variable x at once (one OpenMP task per x),
 * the arcs (x, y) whose y changed in the previous round, reading the domains
 * as they were at the start of the round and writing x's new domain only.
 * Reads and writes never overlap, so the result and the number of rounds do
 * not depend on the thread count, and they equal gpu-bitset's (same rounds).
 * N-ary constraints (tables, globals) are revised after the binary part of a round, serially, in
 * their fixed order, so the rounds stay independent of the thread count.
 */
#include "ac/ac_algorithms.h"

#include <stdlib.h>

#include "core/error.h"
#include "core/threads.h"

/* x's new domain = old domain minus values unsupported on a changed neighbour. */
static uint64_t revise_variable(const ac_model *model, const ac_domains *old, ac_domains *next, uint32_t x,
                                const uint8_t *changed_before)
{
    const parac_csp_network *net = model->network;
    size_t words_x = parac_bitset_words(net->domain_size[x]);
    parac_word *dom_x = ac_domain_of(model, next, x);
    uint64_t revisions = 0;
    parac_bitset_copy(dom_x, ac_domain_of(model, old, x), words_x);
    for (size_t i = model->arcs_of_offset[x]; i < model->arcs_of_offset[x + 1]; i++) {
        const ac_arc *arc = &model->arcs[model->arcs_of[i]];
        const parac_word *dom_y = ac_domain_of(model, old, arc->y);
        if (!changed_before[arc->y]) continue;
        revisions++;
        for (size_t a = parac_bitset_next(dom_x, net->domain_size[x], 0); a < net->domain_size[x];
             a = parac_bitset_next(dom_x, net->domain_size[x], a + 1)) {
            const parac_word *row = arc->matrix + a * arc->row_words;
            size_t w = 0;
            while (w < arc->row_words && !(row[w] & dom_y[w])) w++;
            if (w == arc->row_words) parac_bitset_clear_bit(dom_x, a);
        }
    }
    next->size[x] = (uint32_t)parac_bitset_popcount(dom_x, words_x);
    return revisions;
}

static int revise_tables_after_round(const ac_model *model, ac_domains *next, const uint8_t *changed_before,
                                     uint8_t *changed_now, parac_ac_stats *stats)
{
    for (size_t c = 0; c < model->nary_count; c++) {
        const ac_nary *con = &model->nary[c];
        int touched = 0;
        for (uint32_t i = 0; i < con->arity; i++) touched |= changed_before[con->scope[i]] | changed_now[con->scope[i]];
        if (touched && ac_revise_nary(model, next, c, changed_now, stats)) return 1;
    }
    return 0;
}

/* One round; returns 1 when some domain changed, sets *wipeout. */
static int bitset_round(const ac_model *model, ac_domains *old, ac_domains *next, const uint8_t *changed_before,
                        uint8_t *changed_now, int threads, parac_ac_stats *stats, int *wipeout)
{
    long n = (long)model->network->variable_count;
    uint64_t revisions = 0;
    int any_change = 0, empty = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) reduction(+ : revisions)
    for (long x = 0; x < n; x++) {
        revisions += revise_variable(model, old, next, (uint32_t)x, changed_before);
        changed_now[x] = next->size[x] != old->size[x];
    }
    stats->revisions += revisions;
    if (model->nary_count && revise_tables_after_round(model, next, changed_before, changed_now, stats)) empty = 1;
    for (long x = 0; x < n; x++) {
        any_change |= changed_now[x];
        empty |= next->size[x] == 0;
    }
    *wipeout = empty;
    return any_change;
}

parac_status ac_run_bitset_rounds(const ac_model *model, ac_domains *domains, int threads, parac_ac_stats *stats,
                                  parac_error *error)
{
    size_t n = model->network->variable_count;
    ac_domains other = {0};
    ac_domains *old = domains, *next = &other;
    uint8_t *changed_before = malloc(n + 1), *changed_now = calloc(n + 1, 1);
    parac_status status = PARAC_OK;
    int wipeout = 0;
    if (!changed_before || !changed_now) {
        status = parac_fail_no_memory(error, "round flags", (unsigned long long)n * 2);
        goto done;
    }
    if ((status = ac_domains_clone(model, domains, &other, error)) != PARAC_OK) goto done;
    for (size_t v = 0; v < n; v++) {
        changed_before[v] = 1;
        wipeout |= domains->size[v] == 0;
    }
    threads = parac_threads_resolve(threads);
    while (!wipeout) {
        uint8_t *swap_flags;
        ac_domains *swap_domains;
        stats->iterations++;
        if (ac_cancelled(model, error, &status)) break; /* a round is short: check each one */
        if (!bitset_round(model, old, next, changed_before, changed_now, threads, stats, &wipeout)) {
            old = next;
            break;
        }
        swap_domains = old, old = next, next = swap_domains;
        swap_flags = changed_before, changed_before = changed_now, changed_now = swap_flags;
    }
    if (old != domains) ac_domains_copy(model, domains, old);
    stats->wipeout = wipeout;
done:
    ac_domains_free(&other);
    free(changed_before);
    free(changed_now);
    return status;
}
