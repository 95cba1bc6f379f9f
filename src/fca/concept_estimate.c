/* fca/concept_estimate.c — Knuth's random-walk estimate of the FCbO tree size (concept_estimate.h).
 *
 * Every node of the FCbO tree is one concept, so the tree's size is the concept count. A walk
 * opens the root, picks one canonical child at random, opens it, and so on to a leaf, using the
 * same fcbo_open_node as the search (same N_j inheritance, so the same tree). Skewed trees make
 * single walks noisy; the device choice needs the order of magnitude only. */
#include "fca/concept_estimate.h"

#include "core/rng.h"
#include "core/timer.h"
#include "fca/fcbo_tree.h"

#define ESTIMATE_SEED 0x9e3779b97f4a7c15ULL

static double one_walk(fcbo_worker *worker, const fcbo_node *root, parac_rng *rng)
{
    fcbo_stack_mark mark = fcbo_stack_save(&worker->stack);
    const fcbo_node *node = root;
    double estimate = 1.0, weight = 1.0;
    for (;;) {
        fcbo_node **children = NULL;
        size_t count = fcbo_open_node(worker, node, &children);
        if (count == 0) break;
        weight *= (double)count;
        estimate += weight;
        node = children[parac_rng_below(rng, count)];
    }
    fcbo_stack_restore(&worker->stack, mark);
    return estimate;
}

double fca_estimate_concepts(const fca_search *search, int max_walks, double budget_seconds)
{
    fcbo_worker worker;
    fcbo_node root;
    parac_rng rng;
    parac_error ignored;
    double started = parac_now_seconds(), sum = 0.0;
    int walks = 0;
    if (fcbo_worker_init(&worker, search, 0, &ignored) != PARAC_OK) {
        fcbo_worker_destroy(&worker);
        return -1.0;
    }
    if (!fcbo_make_root(&worker, &root)) {
        double result = worker.status == PARAC_OK ? 1.0 : -1.0;
        fcbo_worker_destroy(&worker);
        return result;
    }
    parac_rng_seed(&rng, ESTIMATE_SEED);
    do {
        sum += one_walk(&worker, &root, &rng);
        walks++;
    } while (walks < max_walks && worker.status == PARAC_OK && parac_now_seconds() - started < budget_seconds);
    if (worker.status != PARAC_OK) walks = 0;
    fcbo_worker_destroy(&worker);
    return walks ? sum / walks : -1.0;
}
