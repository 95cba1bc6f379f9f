/* ac/ac3rm.c — AC3rm: AC3 with residues (the last support found for (arc, a)
 * is tried first; it is not restored on backtrack, so it needs no bookkeeping). */
#include "ac/ac_algorithms.h"


static uint64_t revise_ac3rm(void *state, const ac_model *model, ac_domains *domains, size_t arc_index)
{
    uint32_t *residue = (uint32_t *)state + model->arc_value_offset[arc_index];
    const ac_arc *arc = &model->arcs[arc_index];
    const parac_csp_network *net = model->network;
    parac_word *dom_x = ac_domain_of(model, domains, arc->x);
    const parac_word *dom_y = ac_domain_of(model, domains, arc->y);
    uint32_t size_x = net->domain_size[arc->x], size_y = net->domain_size[arc->y];
    uint64_t removed = 0;
    for (size_t a = parac_bitset_next(dom_x, size_x, 0); a < size_x; a = parac_bitset_next(dom_x, size_x, a + 1)) {
        const parac_word *row = arc->matrix + a * arc->row_words;
        size_t b = residue[a];
        if (b < size_y && parac_bitset_test(dom_y, b) && parac_bitset_test(row, b)) continue;
        b = ac_next_support(dom_y, row, 0, size_y);
        if (b < size_y) {
            residue[a] = (uint32_t)b;
        } else {
            parac_bitset_clear_bit(dom_x, a);
            removed++;
        }
    }
    return removed;
}

parac_status ac_run_ac3rm(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error)
{
    return ac_run_with_arc_value_state(model, domains, revise_ac3rm, "AC3rm residues", stats, error);
}
