/* ac/table_rounds.c — the CPU twin of the GPU table rounds (table_gpu.cu), plain serial C.
 *
 * gpu-bitset on a network with tables runs Jacobi rounds: round k reads the domains D_k it
 * started with and writes D_{k+1} = D_k minus
 *   - every value (x, a) without a support in D_k(y) on an arc (x, y) whose y changed in round
 *     k - 1 (the binary part, as gpu-bitset on a binary network), and
 *   - every value (x, a) of a table t, one of whose variables changed in round k - 1, for which
 *     valid_t & support_row(x, a) is empty, where valid_t is first brought from D_{k-1} to D_k:
 *     for each position whose variable changed, valid_t &= ~(OR of the rows of the values deleted
 *     since D_{k-1}) or, when more values were deleted than are left, valid_t &= OR of the rows
 *     of the values left ("reset", as in Demeulenaere et al.'s compact-table). Both give the
 *     same set, so the choice changes only the cost.
 * Rounds stop when one changes nothing or empties a domain; the fixpoint is the GAC closure of
 * the binary and table constraints, the one every CPU engine reaches. A deletion that empties a
 * domain ends the round's revisions at once (the GPU raises its wipe-out flag there and its kernels
 * stop): the round wipes out whatever else it would delete, so only the cost changes. This file does
 * exactly what the kernels do, one step after the other, so its round count is the GPU's (tested).
 */
#include "ac/table_model.h"

#include <stdlib.h>

#include "core/error.h"

/* valid_t from D_{k-1} (prev) to D_k (old) for the positions whose variable changed. */
static void update_valid(const ac_model *model, const ac_table_model *tables, parac_word *valid,
                         const ac_domains *old, const ac_domains *prev, const uint8_t *changed_before)
{
    const parac_csp_network *net = model->network;
    for (size_t p = 0; p < tables->position_count; p++) {
        uint32_t x = tables->position_var[p], t = tables->position_table[p];
        size_t domain_words = parac_bitset_words(net->domain_size[x]);
        const parac_word *now = ac_domain_of(model, old, x), *before = ac_domain_of(model, prev, x);
        uint64_t words = tables->words[t], removed = 0, present = 0, first_row;
        parac_word *set = valid + tables->valid_offset[t];
        int reset;
        if (!changed_before[x]) continue;
        for (size_t w = 0; w < domain_words; w++) {
            removed += (uint64_t)__builtin_popcountll(before[w] & ~now[w]);
            present += (uint64_t)__builtin_popcountll(now[w]);
        }
        if (removed == 0) continue;
        reset = removed > present;
        first_row = tables->support_offset[t] +
                    (tables->slot_offset[p] - tables->slot_offset[tables->position_offset[t]]) * words;
        for (uint64_t w = 0; w < words; w++) {
            parac_word mask = 0;
            for (uint32_t a = 0; a < net->domain_size[x]; a++) {
                int gone = parac_bitset_test(before, a) && !parac_bitset_test(now, a);
                if (reset ? parac_bitset_test(now, a) : gone) mask |= tables->supports[first_row + a * words + w];
            }
            set[w] &= reset ? mask : ~mask;
        }
    }
}

static int table_touched(const ac_table_model *tables, size_t t, const uint8_t *changed_before)
{
    for (uint64_t p = tables->position_offset[t]; p < tables->position_offset[t + 1]; p++)
        if (changed_before[tables->position_var[p]]) return 1;
    return 0;
}

/* Clears value a of x in next; 1 when that empties x's domain (the round wipes out: stop revising). */
static int delete_value(const ac_model *model, ac_domains *next, uint32_t x, uint32_t a)
{
    parac_word *domain = ac_domain_of(model, next, x);
    parac_bitset_clear_bit(domain, a);
    return parac_bitset_popcount(domain, parac_bitset_words(model->network->domain_size[x])) == 0;
}

static int rows_intersect(const parac_word *a, const parac_word *b, uint64_t words)
{
    for (uint64_t w = 0; w < words; w++)
        if (a[w] & b[w]) return 1;
    return 0;
}

/* The tables' deletions of round k, read from D_k (old), written to next; 1 when one emptied a domain. */
static int check_tables(const ac_model *model, const ac_table_model *tables, const parac_word *valid,
                         const ac_domains *old, ac_domains *next, const uint8_t *changed_before)
{
    for (size_t t = 0; t < tables->table_count; t++) {
        uint64_t words = tables->words[t], first_slot = tables->slot_offset[tables->position_offset[t]];
        if (!table_touched(tables, t, changed_before)) continue;
        for (uint64_t p = tables->position_offset[t]; p < tables->position_offset[t + 1]; p++) {
            uint32_t x = tables->position_var[p];
            const parac_word *now = ac_domain_of(model, old, x);
            for (uint32_t a = 0; a < model->network->domain_size[x]; a++) {
                const parac_word *row = tables->supports + tables->support_offset[t] +
                                        (tables->slot_offset[p] - first_slot + a) * words;
                if (parac_bitset_test(now, a) && !rows_intersect(valid + tables->valid_offset[t], row, words) &&
                    delete_value(model, next, x, a))
                    return 1;
            }
        }
    }
    return 0;
}

/* The binary part of round k: gpu-bitset's revision of every (arc, a) whose y changed; 1 when a
 * deletion emptied a domain. */
static int revise_arcs(const ac_model *model, const ac_domains *old, ac_domains *next, const uint8_t *changed_before)
{
    for (size_t arc_index = 0; arc_index < model->arc_count; arc_index++) {
        const ac_arc *arc = &model->arcs[arc_index];
        const parac_word *dom_x = ac_domain_of(model, old, arc->x), *dom_y = ac_domain_of(model, old, arc->y);
        if (!changed_before[arc->y]) continue;
        for (uint32_t a = 0; a < model->network->domain_size[arc->x]; a++)
            if (parac_bitset_test(dom_x, a) &&
                !rows_intersect(arc->matrix + a * arc->row_words, dom_y, arc->row_words) &&
                delete_value(model, next, arc->x, a))
                return 1;
    }
    return 0;
}

/* Sizes of next, its changed flags; returns 1 when some domain changed, sets *empty. */
static int recount(const ac_model *model, const ac_domains *old, ac_domains *next, uint8_t *changed_now, int *empty)
{
    int any = 0;
    *empty = 0;
    for (size_t x = 0; x < model->network->variable_count; x++) {
        size_t words = parac_bitset_words(model->network->domain_size[x]);
        next->size[x] = (uint32_t)parac_bitset_popcount(ac_domain_of(model, next, (uint32_t)x), words);
        changed_now[x] = next->size[x] != old->size[x];
        any |= changed_now[x];
        *empty |= next->size[x] == 0;
    }
    return any;
}

parac_status ac_run_table_rounds(const ac_model *model, ac_domains *domains, parac_ac_stats *stats,
                                 parac_error *error)
{
    size_t n = model->network->variable_count;
    ac_table_model tables = {0};
    ac_domains other = {0};
    ac_domains *old = domains, *next = &other;
    uint8_t *changed_before = malloc(n + 1), *changed_now = calloc(n + 1, 1);
    parac_word *valid = NULL;
    parac_status status = PARAC_OK;
    int changed = 1, empty = 0;
    if (ac_table_count(model) != model->nary_count) {
        status = parac_fail(error, PARAC_ERR_UNSUPPORTED, "table rounds: the network has global constraints");
        goto done;
    }
    if (!changed_before || !changed_now) {
        status = parac_fail_no_memory(error, "round flags", (unsigned long long)n * 2);
        goto done;
    }
    if ((status = ac_table_model_build(model, &tables, error)) != PARAC_OK) goto done;
    if (!(valid = malloc((tables.valid_words + 1) * sizeof *valid))) {
        status = parac_fail_no_memory(error, "valid tuples", (unsigned long long)tables.valid_words * 8);
        goto done;
    }
    /* D_0 is also the "previous" domain of round 1, so valid starts as the tuples valid in D_0. */
    if ((status = ac_domains_clone(model, domains, &other, error)) != PARAC_OK) goto done;
    ac_table_valid_init(model, &tables, domains, valid);
    for (size_t v = 0; v < n; v++) changed_before[v] = 1;
    while (changed && !empty) {
        ac_domains *swap_domains;
        uint8_t *swap_flags;
        stats->iterations++;
        stats->revisions += model->arc_count + tables.table_count;
        if (ac_cancelled(model, error, &status)) break;
        update_valid(model, &tables, valid, old, next, changed_before); /* next still holds D_{k-1} */
        ac_domains_copy(model, next, old);
        /* a wipe-out in the binary part skips the tables; recount then finds the empty domain */
        if (!revise_arcs(model, old, next, changed_before))
            check_tables(model, &tables, valid, old, next, changed_before);
        changed = recount(model, old, next, changed_now, &empty);
        swap_domains = old, old = next, next = swap_domains;
        swap_flags = changed_before, changed_before = changed_now, changed_now = swap_flags;
    }
    if (old != domains) ac_domains_copy(model, domains, old);
    stats->wipeout = empty;
done:
    ac_table_model_free(&tables);
    ac_domains_free(&other);
    free(valid);
    free(changed_before);
    free(changed_now);
    return status;
}
