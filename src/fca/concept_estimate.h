/* fca/concept_estimate.h — how many concepts a search will find, guessed in milliseconds,
 * so that --device auto can weigh the run (core/device_choice.c). */
#ifndef PARAC_FCA_CONCEPT_ESTIMATE_H
#define PARAC_FCA_CONCEPT_ESTIMATE_H

#include "fca/fca_internal.h"

/* Knuth's estimator of a search tree's size: random root-to-leaf walks through the FCbO tree,
 * each walk's estimate being 1 + d1 + d1 d2 + ... (the product of the branching degrees met);
 * the mean over walks is unbiased. Stops after max_walks walks or budget_seconds (at least one
 * walk), on up to `threads` threads. Walk w is seeded by w and the mean is summed in walk order, so
 * the same context gives the same estimate on any thread count when the budget is not reached.
 * Returns -1 when out of memory. */
double fca_estimate_concepts(const fca_search *search, int max_walks, double budget_seconds, int threads);

#endif
