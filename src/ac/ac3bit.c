/* ac/ac3bit.c — AC3bit+rm: the revision of (x, y) checks a value a of x word by
 * word (row(a) & D(y) != 0), starting with the word that held its last support
 * (the residue). This is the reference revision of ACE and Choco for binary
 * extension constraints: 64 constraint checks per AND. */
#include "ac/ac_algorithms.h"

#include <stdlib.h>

#include "core/error.h"

static uint64_t revise_ac3bit(void *state, const ac_model *model, ac_domains *domains, size_t arc_index)
{
    uint32_t *residue = (uint32_t *)state + model->arc_value_offset[arc_index];
    const ac_arc *arc = &model->arcs[arc_index];
    const parac_csp_network *net = model->network;
    parac_word *dom_x = ac_domain_of(model, domains, arc->x);
    const parac_word *dom_y = ac_domain_of(model, domains, arc->y);
    uint32_t size_x = net->domain_size[arc->x];
    size_t words = arc->row_words;
    uint64_t removed = 0;
    for (size_t a = parac_bitset_next(dom_x, size_x, 0); a < size_x; a = parac_bitset_next(dom_x, size_x, a + 1)) {
        const parac_word *row = arc->matrix + a * words;
        size_t w = residue[a];
        if (row[w] & dom_y[w]) continue;
        for (w = 0; w < words && !(row[w] & dom_y[w]); w++) {}
        if (w < words) {
            residue[a] = (uint32_t)w;
        } else {
            parac_bitset_clear_bit(dom_x, a);
            removed++;
        }
    }
    return removed;
}

void *ac3bit_residues_create(const ac_model *model)
{
    return calloc(model->arc_value_offset[model->arc_count] + 1, sizeof(uint32_t));
}

int ac3bit_propagate_from(const ac_model *model, ac_domains *domains, void *residues, const uint32_t *start,
                          size_t start_count, parac_ac_stats *stats, parac_error *error, parac_status *status)
{
    ac_reviser reviser = {revise_ac3bit, residues};
    return ac_propagate_variables(model, domains, &reviser, start, start_count, stats, error, status);
}

parac_status ac_run_ac3bit(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error)
{
    void *residues = ac3bit_residues_create(model);
    parac_status status;
    if (!residues)
        return parac_fail_no_memory(error, "AC3bit residues",
                                    (unsigned long long)model->arc_value_offset[model->arc_count] * 4);
    stats->wipeout = ac3bit_propagate_from(model, domains, residues, NULL, 0, stats, error, &status);
    free(residues);
    return status;
}
