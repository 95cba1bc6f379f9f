/* fca/concept_estimate.c — Knuth's random-walk estimate of the FCbO tree size (concept_estimate.h).
 *
 * Every node of the FCbO tree is one concept, so the tree's size is the concept count. A walk
 * opens the root, picks one canonical child at random, opens it, and so on to a leaf, using the
 * same fcbo_open_node as the search (same N_j inheritance, so the same tree). Skewed trees make
 * single walks noisy; the device choice needs the order of magnitude only. The walks run on the
 * run's threads (on the H200's 16 cores the 256 walks took ~20 ms on one thread, as long as the
 * whole CPU search of mushroom: issue 16). */
#include "fca/concept_estimate.h"

#include <stdlib.h>

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

/* Walk w draws from its own generator (seeded by w), so a walk's estimate does not depend on which
 * thread ran it or on the walks before it. */
static void seed_walk(parac_rng *rng, int walk)
{
    parac_rng_seed(rng, ESTIMATE_SEED ^ ((uint64_t)walk * 0xbf58476d1ce4e5b9ULL));
}

/* One thread's share: walks taken in turn from *next until max_walks or the budget; each result
 * stored at its walk's index. Returns 0, or -1 when the worker could not be set up. */
static int walk_share(const fca_search *search, int max_walks, double deadline, int *next, double *estimates)
{
    fcbo_worker worker;
    fcbo_node root;
    parac_rng rng;
    parac_error ignored;
    int failed = 0;
    if (fcbo_worker_init(&worker, search, 0, &ignored) != PARAC_OK) {
        fcbo_worker_destroy(&worker);
        return -1;
    }
    if (!fcbo_make_root(&worker, &root)) {
        /* a root with no children: the tree is the root alone (or the worker ran out of memory) */
        failed = worker.status == PARAC_OK ? 0 : -1;
        if (!failed) estimates[0] = 1.0;
        fcbo_worker_destroy(&worker);
        return failed;
    }
    for (;;) {
        int walk;
#pragma omp atomic capture
        walk = (*next)++;
        if (walk >= max_walks || (walk > 0 && parac_now_seconds() > deadline)) break;
        seed_walk(&rng, walk);
        estimates[walk] = one_walk(&worker, &root, &rng);
        if (worker.status != PARAC_OK) {
            failed = -1;
            break;
        }
    }
    fcbo_worker_destroy(&worker);
    return failed;
}

double fca_estimate_concepts(const fca_search *search, int max_walks, double budget_seconds, int threads)
{
    double deadline = parac_now_seconds() + budget_seconds, sum = 0.0, *estimates;
    int next = 0, failed = 0, walks = 0;
    if (max_walks < 1) max_walks = 1;
    if (threads < 1) threads = 1;
    if (threads > max_walks) threads = max_walks;
    estimates = malloc((size_t)max_walks * sizeof *estimates);
    if (!estimates) return -1.0;
    for (int w = 0; w < max_walks; w++) estimates[w] = -1.0; /* not walked (budget) */
#pragma omp parallel num_threads(threads) reduction(| : failed)
    failed |= walk_share(search, max_walks, deadline, &next, estimates) != 0;
    /* The mean over the walks done, in walk order: the same sum on any thread count. */
    for (int w = 0; w < max_walks && !failed; w++)
        if (estimates[w] >= 0.0) {
            sum += estimates[w];
            walks++;
        }
    free(estimates);
    return failed || !walks ? -1.0 : sum / walks;
}
