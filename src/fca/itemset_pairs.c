/* fca/itemset_pairs.c — the (premise, conclusion) store shared by implications.c and
 * association_rules.c. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fca_internal.h"
#include "fca/itemset_pairs.h"

void fca_itemset_pairs_init(fca_itemset_pairs *pairs, size_t attributes)
{
    memset(pairs, 0, sizeof *pairs);
    pairs->attributes = attributes;
    pairs->words = parac_bitset_words(attributes);
}

void fca_itemset_pairs_release(fca_itemset_pairs *pairs)
{
    free(pairs->premises);
    free(pairs->conclusions);
    free(pairs->supports);
    free(pairs->premise_supports);
    memset(pairs, 0, sizeof *pairs);
}

/* Grows every array to `capacity` entries; 0 on success. Arrays already grown stay valid. */
static int grow(fca_itemset_pairs *pairs, size_t capacity)
{
    size_t words = pairs->words ? pairs->words : 1;
    parac_word *premises, *conclusions;
    uint64_t *supports, *premise_supports;
    if (capacity > SIZE_MAX / (words * sizeof(parac_word))) return -1;
    if (!(premises = realloc(pairs->premises, capacity * words * sizeof *premises))) return -1;
    pairs->premises = premises;
    if (!(conclusions = realloc(pairs->conclusions, capacity * words * sizeof *conclusions))) return -1;
    pairs->conclusions = conclusions;
    if (!(supports = realloc(pairs->supports, capacity * sizeof *supports))) return -1;
    pairs->supports = supports;
    if (!(premise_supports = realloc(pairs->premise_supports, capacity * sizeof *premise_supports))) return -1;
    pairs->premise_supports = premise_supports;
    pairs->capacity = capacity;
    return 0;
}

parac_status fca_itemset_pairs_append(fca_itemset_pairs *pairs, const parac_word *premise,
                                      const parac_word *conclusion, uint64_t support, uint64_t premise_support,
                                      const char *what, parac_error *error)
{
    size_t words = pairs->words;
    if (pairs->count == pairs->capacity) {
        size_t capacity = pairs->capacity ? pairs->capacity * 2 : 256;
        if (capacity < pairs->capacity || grow(pairs, capacity))
            return parac_fail_no_memory(error, what, (unsigned long long)capacity * (2 * words + 2) * 8);
    }
    if (words) {
        memcpy(pairs->premises + pairs->count * words, premise, words * sizeof *premise);
        memcpy(pairs->conclusions + pairs->count * words, conclusion, words * sizeof *conclusion);
    }
    pairs->supports[pairs->count] = support;
    pairs->premise_supports[pairs->count] = premise_support;
    pairs->count++;
    return PARAC_OK;
}

/* qsort has no user pointer: the order's comparison goes through a struct that
 * starts each key with the pairs it belongs to. */
typedef struct pair_key {
    const fca_itemset_pairs *pairs;
    size_t index;
} pair_key;

static int by_premise_then_conclusion(const void *a, const void *b)
{
    const pair_key *x = a, *y = b;
    const fca_itemset_pairs *pairs = x->pairs;
    size_t words = pairs->words;
    int order = fca_intent_compare(pairs->premises + x->index * words, pairs->premises + y->index * words, words);
    if (!order)
        order = fca_intent_compare(pairs->conclusions + x->index * words, pairs->conclusions + y->index * words, words);
    if (!order) order = x->index < y->index ? -1 : (x->index > y->index); /* equal pairs keep their order */
    return order;
}

/* Moves every array into the order of keys. */
static int permute(fca_itemset_pairs *pairs, const pair_key *keys)
{
    size_t words = pairs->words, count = pairs->count;
    parac_word *premises = malloc((count * words + 1) * sizeof *premises);
    parac_word *conclusions = malloc((count * words + 1) * sizeof *conclusions);
    uint64_t *supports = malloc((count + 1) * sizeof *supports), *premise_supports = malloc((count + 1) * sizeof *supports);
    if (!premises || !conclusions || !supports || !premise_supports) {
        free(premises);
        free(conclusions);
        free(supports);
        free(premise_supports);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        size_t from = keys[i].index;
        if (words) {
            memcpy(premises + i * words, pairs->premises + from * words, words * sizeof *premises);
            memcpy(conclusions + i * words, pairs->conclusions + from * words, words * sizeof *conclusions);
        }
        supports[i] = pairs->supports[from];
        premise_supports[i] = pairs->premise_supports[from];
    }
    free(pairs->premises);
    free(pairs->conclusions);
    free(pairs->supports);
    free(pairs->premise_supports);
    pairs->premises = premises;
    pairs->conclusions = conclusions;
    pairs->supports = supports;
    pairs->premise_supports = premise_supports;
    pairs->capacity = count;
    return 0;
}

parac_status fca_itemset_pairs_sort(fca_itemset_pairs *pairs, const char *what, parac_error *error)
{
    pair_key *keys;
    size_t count = pairs->count;
    if (count < 2) return PARAC_OK;
    if (!(keys = malloc(count * sizeof *keys))) return parac_fail_no_memory(error, what, count * sizeof *keys);
    for (size_t i = 0; i < count; i++) {
        keys[i].pairs = pairs;
        keys[i].index = i;
    }
    qsort(keys, count, sizeof *keys, by_premise_then_conclusion);
    if (permute(pairs, keys)) {
        free(keys);
        return parac_fail_no_memory(error, what, (unsigned long long)count * (2 * pairs->words + 2) * 8);
    }
    free(keys);
    return PARAC_OK;
}

size_t fca_itemset_pairs_ids(const fca_itemset_pairs *pairs, const parac_word *set, uint32_t *ids, size_t capacity)
{
    size_t size = 0;
    for (size_t a = parac_bitset_next(set, pairs->attributes, 0); a < pairs->attributes;
         a = parac_bitset_next(set, pairs->attributes, a + 1)) {
        if (size < capacity && ids) ids[size] = (uint32_t)a;
        size++;
    }
    return size;
}
