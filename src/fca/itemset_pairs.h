/* fca/itemset_pairs.h — what implications and association rules both hand
 * out: a list of (premise, conclusion) attribute sets with two counts, each set
 * stored as its ascending attribute ids (memory in proportion to the ids, not to
 * the attributes: a wide sparse context has short sets over hundreds of
 * thousands of attributes), sorted into one canonical order. */
#ifndef PARAC_FCA_ITEMSET_PAIRS_H
#define PARAC_FCA_ITEMSET_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "core/bitset.h"

typedef struct fca_itemset_pairs {
    size_t attributes;
    size_t count, capacity;
    uint32_t *ids;                /* pair i: premise_sizes[i] premise ids, then its conclusion's */
    size_t ids_used, ids_capacity;
    uint64_t *first;              /* where pair i's ids begin */
    uint32_t *premise_sizes, *conclusion_sizes;
    uint64_t *supports;           /* objects having premise and conclusion */
    uint64_t *premise_supports;
    uint64_t byte_limit;          /* fail (PARAC_ERR_NO_MEMORY) rather than hold more; 0: no limit */
    const char *hint;             /* how to ask for less, appended to that error (NULL: none) */
} fca_itemset_pairs;

/* An empty list over `attributes` that holds at most byte_limit bytes (0: no limit). */
void fca_itemset_pairs_init(fca_itemset_pairs *pairs, size_t attributes, uint64_t byte_limit);
void fca_itemset_pairs_release(fca_itemset_pairs *pairs);
/* Appends the pair (premise, whole \ premise) of two bitsets over the attributes (an implication's
 * premise and closure, a rule's two intents); PARAC_ERR_NO_MEMORY (naming `what`) when it cannot
 * grow or would pass byte_limit. */
parac_status fca_itemset_pairs_append_sets(fca_itemset_pairs *pairs, const parac_word *premise,
                                           const parac_word *whole, uint64_t support,
                                           uint64_t premise_support, const char *what, parac_error *error);
/* The same from two ascending id lists, premise ⊆ whole. */
parac_status fca_itemset_pairs_append_ids(fca_itemset_pairs *pairs, const uint32_t *premise, size_t premise_size,
                                          const uint32_t *whole, size_t whole_size, uint64_t support,
                                          uint64_t premise_support, const char *what, parac_error *error);
/* Sorts by premise, then conclusion, each in the concepts' canonical order (lexicographic by
 * ascending ids, a prefix first: fca_intent_compare on bitsets). */
parac_status fca_itemset_pairs_sort(fca_itemset_pairs *pairs, const char *what, parac_error *error);
/* Pair `index`'s premise or conclusion ids; *size gets their number. */
const uint32_t *fca_itemset_pairs_premise(const fca_itemset_pairs *pairs, size_t index, size_t *size);
const uint32_t *fca_itemset_pairs_conclusion(const fca_itemset_pairs *pairs, size_t index, size_t *size);
/* Copies at most capacity of `size` ids into ids (NULL: none) and returns size: the public accessors. */
size_t fca_itemset_pairs_copy(const uint32_t *set, size_t size, uint32_t *ids, size_t capacity);

#endif
