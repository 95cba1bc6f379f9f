/* ac/ac2001.c — AC2001/3.1: for each (arc, a) remember the last support; when
 * it is lost, resume the search after it (domains only shrink during one
 * propagation, so no support before it can have appeared). */
#include "ac/ac_algorithms.h"


/* state: per (arc, a), one past the last support's slot (0: none found yet). */
static uint64_t revise_ac2001(void *state, const ac_model *model, ac_domains *domains, size_t arc_index)
{
    uint32_t *last = (uint32_t *)state + model->arc_value_offset[arc_index];
    const ac_arc *arc = &model->arcs[arc_index];
    const parac_csp_network *net = model->network;
    parac_word *dom_x = ac_domain_of(model, domains, arc->x);
    const parac_word *dom_y = ac_domain_of(model, domains, arc->y);
    uint32_t size_x = net->domain_size[arc->x], size_y = net->domain_size[arc->y];
    uint64_t removed = 0;
    for (size_t a = parac_bitset_next(dom_x, size_x, 0); a < size_x; a = parac_bitset_next(dom_x, size_x, a + 1)) {
        const parac_word *row = arc->matrix + a * arc->row_words;
        size_t b = last[a];
        if (b > 0 && parac_bitset_test(dom_y, b - 1)) continue; /* row(a) holds b - 1: it was a support */
        b = ac_next_support(dom_y, row, b, size_y);
        if (b < size_y) {
            last[a] = (uint32_t)(b + 1);
        } else {
            parac_bitset_clear_bit(dom_x, a);
            removed++;
        }
    }
    return removed;
}

parac_status ac_run_ac2001(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error)
{
    return ac_run_with_arc_value_state(model, domains, revise_ac2001, "AC2001 last supports", stats, error);
}
