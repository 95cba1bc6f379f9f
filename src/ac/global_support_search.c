/* ac/global_support_search.c — exact GAC for any global constraint on a small scope: enumerate
 * every tuple of the scope's current domains (odometer order), check it (ac_global_satisfied),
 * mark the values of each satisfying tuple, and remove the unmarked ones. Used when the dedicated
 * propagator is weaker than GAC for the constraint and the tuples number at most the budget
 * (AC_SUPPORT_SEARCH_BUDGET), so small instances of every kind get GAC. */
#include "ac/global_propagate.h"

#include <stdlib.h>

typedef struct search_space {
    size_t count;
    uint32_t *scope;
    size_t *offset;        /* count + 1: where each variable's current values start in `values` */
    int64_t *values;       /* current values, per variable */
    uint32_t *slots;       /* their slots */
    uint8_t *supported;    /* per entry of values */
    size_t *at;            /* odometer: the index of each variable's current value */
    int64_t *tuple;
} search_space;

static void space_free(search_space *s)
{
    free(s->scope), free(s->offset), free(s->values), free(s->slots), free(s->supported), free(s->at), free(s->tuple);
}

/* Fills the space; returns 0, 1 when over budget, -1 when out of memory. */
static int space_init(const ac_model *model, const ac_domains *domains, const parac_csp_global *global,
                      uint64_t budget, search_space *s)
{
    const parac_csp_network *net = model->network;
    uint64_t tuples = 1;
    size_t total = 0;
    s->count = ac_global_scope(global, NULL, 0);
    s->scope = malloc((s->count + 1) * sizeof *s->scope);
    if (!s->scope) return -1;
    ac_global_scope(global, s->scope, s->count);
    for (size_t i = 0; i < s->count; i++) {
        uint32_t size = domains->size[s->scope[i]];
        if (size && tuples > budget / size) return 1;
        tuples *= size ? size : 1;
        total += size;
    }
    s->offset = malloc((s->count + 1) * sizeof *s->offset);
    s->values = malloc((total + 1) * sizeof *s->values);
    s->slots = malloc((total + 1) * sizeof *s->slots);
    s->supported = calloc(total + 1, 1);
    s->at = calloc(s->count + 1, sizeof *s->at);
    s->tuple = malloc((s->count + 1) * sizeof *s->tuple);
    if (!s->offset || !s->values || !s->slots || !s->supported || !s->at || !s->tuple) return -1;
    total = 0;
    for (size_t i = 0; i < s->count; i++) {
        uint32_t var = s->scope[i], size = net->domain_size[var];
        const parac_word *dom = ac_domain_of(model, domains, var);
        s->offset[i] = total;
        for (size_t slot = parac_bitset_next(dom, size, 0); slot < size; slot = parac_bitset_next(dom, size, slot + 1)) {
            s->values[total] = net->values[net->value_offset[var] + slot];
            s->slots[total++] = (uint32_t)slot;
        }
    }
    s->offset[s->count] = total;
    return 0;
}

/* Advances the odometer (last variable fastest); 0 when every tuple was seen. */
static int next_tuple(search_space *s)
{
    for (size_t i = s->count; i-- > 0;) {
        if (s->offset[i] + ++s->at[i] < s->offset[i + 1]) return 1;
        s->at[i] = 0;
    }
    return 0;
}

int ac_global_support_search(const ac_model *model, ac_domains *domains, const parac_csp_global *global,
                             uint64_t budget, uint8_t *changed, int *applied)
{
    search_space s = {0};
    int wipeout = 0, status = space_init(model, domains, global, budget, &s);
    *applied = status == 0;
    if (status != 0) { /* over budget, or no memory: leave the domains (sound) to the dedicated propagator */
        space_free(&s);
        return 0;
    }
    for (size_t i = 0; i < s.count; i++)
        if (s.offset[i] == s.offset[i + 1]) wipeout = 1;
    if (!wipeout) {
        do {
            for (size_t i = 0; i < s.count; i++) s.tuple[i] = s.values[s.offset[i] + s.at[i]];
            if (ac_global_satisfied(global, s.scope, s.tuple, s.count))
                for (size_t i = 0; i < s.count; i++) s.supported[s.offset[i] + s.at[i]] = 1;
        } while (next_tuple(&s));
        if (s.count == 0 && !ac_global_satisfied(global, s.scope, s.tuple, 0)) wipeout = 1;
    }
    for (size_t i = 0; i < s.count && !wipeout; i++) {
        uint32_t var = s.scope[i];
        parac_word *dom = ac_domain_of(model, domains, var);
        for (size_t e = s.offset[i]; e < s.offset[i + 1]; e++) {
            if (s.supported[e]) continue;
            parac_bitset_clear_bit(dom, s.slots[e]);
            domains->size[var]--;
            if (changed) changed[var] = 1;
        }
        if (domains->size[var] == 0) wipeout = 1;
    }
    space_free(&s);
    return wipeout;
}
