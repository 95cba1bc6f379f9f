/* ac/global_regular.c — regular and mdd: the list's values spell a word the automaton accepts
 * (mdd: a path from the root to a terminal). Layered graph: states reachable forward after i
 * values, states from which a final one is reachable with the remaining values; a value of term
 * i is kept iff some transition on it links a forward state of layer i to a backward one of layer
 * i + 1. GAC for distinct variables, O(n * T * log d) for T transitions. Non-deterministic
 * automata are fine.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>
#include <string.h>

static int valid_state(int64_t state, size_t states)
{
    return state >= 0 && (uint64_t)state < states;
}

AC_PROPAGATOR(regular)
{
    const parac_csp_network *net = model->network;
    size_t n = global->list_length[0], states = global->state_count > 0 ? (size_t)global->state_count : 0;
    size_t layer = states + 1, largest = ac_largest_domain(net);
    uint8_t *forward = calloc((n + 1) * layer, 1), *backward = calloc((n + 1) * layer, 1);
    parac_word *kept = malloc((parac_bitset_words(largest) + 1) * sizeof *kept);
    int64_t *values = malloc((largest + 1) * sizeof *values);
    int wipeout = 0;
    (void)stats;
    if (!forward || !backward || !kept || !values) goto done;
    if (valid_state(global->start, states)) forward[(size_t)global->start] = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < global->transition_count; t++) {
            const int64_t *tr = global->transitions + 3 * t;
            if (valid_state(tr[0], states) && valid_state(tr[2], states) && forward[i * layer + (size_t)tr[0]] &&
                ac_term_has(model, domains, &global->lists[0][i], tr[1]))
                forward[(i + 1) * layer + (size_t)tr[2]] = 1;
        }
    for (size_t f = 0; f < global->final_count; f++)
        if (valid_state(global->finals[f], states)) backward[n * layer + (size_t)global->finals[f]] = 1;
    for (size_t i = n; i-- > 0;)
        for (size_t t = 0; t < global->transition_count; t++) {
            const int64_t *tr = global->transitions + 3 * t;
            if (valid_state(tr[0], states) && valid_state(tr[2], states) && backward[(i + 1) * layer + (size_t)tr[2]] &&
                ac_term_has(model, domains, &global->lists[0][i], tr[1]))
                backward[i * layer + (size_t)tr[0]] = 1;
        }
    if (!valid_state(global->start, states) || !backward[(size_t)global->start]) {
        wipeout = 1;
        goto done;
    }
    for (size_t i = 0; i < n && !wipeout; i++) {
        const ac_term *term = &global->lists[0][i];
        size_t count;
        int constant_ok = 0;
        if (term->var >= 0) memset(kept, 0, parac_bitset_words(net->domain_size[term->var]) * sizeof *kept);
        for (size_t t = 0; t < global->transition_count; t++) {
            const int64_t *tr = global->transitions + 3 * t;
            long slot;
            if (!valid_state(tr[0], states) || !valid_state(tr[2], states) || !forward[i * layer + (size_t)tr[0]] ||
                !backward[(i + 1) * layer + (size_t)tr[2]])
                continue;
            if (term->var < 0) {
                constant_ok |= tr[1] == term->value;
                continue;
            }
            slot = ac_value_slot(net, (uint32_t)term->var, tr[1]);
            if (slot >= 0) parac_bitset_set(kept, (size_t)slot);
        }
        if (term->var < 0) {
            wipeout = !constant_ok;
            continue;
        }
        count = ac_term_values(model, domains, term, values);
        for (size_t k = 0; k < count && !wipeout; k++)
            if (!parac_bitset_test(kept, (size_t)ac_value_slot(net, (uint32_t)term->var, values[k])))
                wipeout = ac_term_remove(model, domains, term, values[k], changed);
    }
done:
    free(forward), free(backward), free(kept), free(values);
    return wipeout;
}
