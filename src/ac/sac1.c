/* ac/sac1.c — SAC1 on the CPU: a value (x, a) is singleton arc consistent when
 * AC on the network with D(x) = {a} does not wipe out. Every pass probes every
 * remaining value; a failed probe removes the value and re-establishes AC;
 * passes repeat until one removes nothing. The SAC closure is unique too. */
#include "ac/ac_algorithms.h"
#include "core/progress.h"

#include <stdlib.h>

#include "core/error.h"

/* 1 when AC on `probe` (a copy of domains with D(x) = {a}) wipes out. */
static int probe_fails(const ac_model *model, const ac_domains *domains, ac_domains *probe, void *residues,
                       uint32_t x, size_t a, parac_ac_stats *stats, parac_error *error, parac_status *status)
{
    parac_ac_stats inner = {0};
    parac_word *dom = ac_domain_of(model, probe, x);
    int wipeout;
    ac_domains_copy(model, probe, domains);
    parac_bitset_zero(dom, parac_bitset_words(model->network->domain_size[x]));
    parac_bitset_set(dom, a);
    probe->size[x] = 1;
    wipeout = ac3bit_propagate_from(model, probe, residues, &x, 1, &inner, error, status);
    stats->revisions += inner.revisions;
    return wipeout;
}

/* One pass over every value; returns 1 when a value was removed. */
static int sac_pass(const ac_model *model, ac_domains *domains, ac_domains *probe, void *residues,
                    parac_ac_stats *stats, parac_error *error, parac_status *status)
{
    const parac_csp_network *net = model->network;
    int removed_any = 0;
    for (uint32_t x = 0; x < net->variable_count && !stats->wipeout; x++) {
        parac_word *dom = ac_domain_of(model, domains, x);
        if (model->progress) parac_progress_gate_set(model->progress, x);
        for (size_t a = parac_bitset_next(dom, net->domain_size[x], 0); a < net->domain_size[x];
             a = parac_bitset_next(dom, net->domain_size[x], a + 1)) {
            parac_ac_stats inner = {0};
            if (ac_cancelled(model, error, status)) return 0; /* one probe is one AC run: check before each */
            if (!probe_fails(model, domains, probe, residues, x, a, stats, error, status)) continue;
            if (*status != PARAC_OK) return 0;
            removed_any = 1;
            parac_bitset_clear_bit(dom, a);
            if (--domains->size[x] == 0 ||
                ac3bit_propagate_from(model, domains, residues, &x, 1, &inner, error, status)) {
                stats->wipeout = 1;
                return 1;
            }
        }
    }
    return removed_any;
}

parac_status ac_run_sac1(const ac_model *model, ac_domains *domains, parac_ac_stats *stats,
                         parac_error *error)
{
    void *residues = ac3bit_residues_create(model);
    ac_domains probe = {0};
    parac_status status = PARAC_OK;
    if (!residues) return parac_fail_no_memory(error, "SAC residues", 0);
    stats->wipeout = ac3bit_propagate_from(model, domains, residues, NULL, 0, stats, error, &status);
    stats->iterations = 0;
    if (status == PARAC_OK && !stats->wipeout) status = ac_domains_clone(model, domains, &probe, error);
    while (status == PARAC_OK && !stats->wipeout) {
        stats->iterations++;
        if (!sac_pass(model, domains, &probe, residues, stats, error, &status)) break;
    }
    ac_domains_free(&probe);
    free(residues);
    return status;
}
