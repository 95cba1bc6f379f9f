/* fca/itemset_pairs.h — what implications and association rules both hand
 * out: a list of (premise, conclusion) attribute sets with two counts, stored
 * as bitsets over the original attribute ids, sorted into one canonical order. */
#ifndef PARAC_FCA_ITEMSET_PAIRS_H
#define PARAC_FCA_ITEMSET_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "core/bitset.h"

typedef struct fca_itemset_pairs {
    size_t attributes, words;
    size_t count, capacity;
    parac_word *premises;     /* count x words */
    parac_word *conclusions;  /* count x words */
    uint64_t *supports;       /* objects having premise and conclusion */
    uint64_t *premise_supports;
} fca_itemset_pairs;

void fca_itemset_pairs_init(fca_itemset_pairs *pairs, size_t attributes);
void fca_itemset_pairs_release(fca_itemset_pairs *pairs);
/* Appends a copy of both sets; PARAC_ERR_NO_MEMORY (naming `what`) when it cannot grow. */
parac_status fca_itemset_pairs_append(fca_itemset_pairs *pairs, const parac_word *premise,
                                      const parac_word *conclusion, uint64_t support, uint64_t premise_support,
                                      const char *what, parac_error *error);
/* Sorts by premise, then conclusion, each in the concepts' canonical order (fca_intent_compare). */
parac_status fca_itemset_pairs_sort(fca_itemset_pairs *pairs, const char *what, parac_error *error);
/* The ascending ids of a bitset of pair `index` (at most capacity); returns the set's size. */
size_t fca_itemset_pairs_ids(const fca_itemset_pairs *pairs, const parac_word *set, uint32_t *ids, size_t capacity);

#endif
