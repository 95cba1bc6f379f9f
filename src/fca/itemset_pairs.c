/* fca/itemset_pairs.c — the (premise, conclusion) store shared by implications.c and
 * association_rules.c: id lists end to end (itemset_pairs.h). Held as bitsets before, one
 * pair took 2 * attributes / 8 bytes: `--rules` on 50,000 rows over 200,000 items needed 10 GB. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fca_internal.h"
#include "fca/itemset_pairs.h"

/* What one pair costs besides its ids: first, two sizes, two supports. */
#define PAIR_BYTES (sizeof(uint64_t) * 3 + sizeof(uint32_t) * 2)

void fca_itemset_pairs_init(fca_itemset_pairs *pairs, size_t attributes, uint64_t byte_limit)
{
    memset(pairs, 0, sizeof *pairs);
    pairs->attributes = attributes;
    pairs->byte_limit = byte_limit;
}

void fca_itemset_pairs_release(fca_itemset_pairs *pairs)
{
    free(pairs->ids);
    free(pairs->first);
    free(pairs->premise_sizes);
    free(pairs->conclusion_sizes);
    free(pairs->supports);
    free(pairs->premise_supports);
    memset(pairs, 0, sizeof *pairs);
}

/* Grows the per-pair arrays to `capacity` entries; 0 on success. Arrays already grown stay valid. */
static int grow_pairs(fca_itemset_pairs *pairs, size_t capacity)
{
    uint64_t *first, *supports, *premise_supports;
    uint32_t *premise_sizes, *conclusion_sizes;
    if (capacity > SIZE_MAX / sizeof(uint64_t)) return -1;
    if (!(first = realloc(pairs->first, capacity * sizeof *first))) return -1;
    pairs->first = first;
    if (!(premise_sizes = realloc(pairs->premise_sizes, capacity * sizeof *premise_sizes))) return -1;
    pairs->premise_sizes = premise_sizes;
    if (!(conclusion_sizes = realloc(pairs->conclusion_sizes, capacity * sizeof *conclusion_sizes))) return -1;
    pairs->conclusion_sizes = conclusion_sizes;
    if (!(supports = realloc(pairs->supports, capacity * sizeof *supports))) return -1;
    pairs->supports = supports;
    if (!(premise_supports = realloc(pairs->premise_supports, capacity * sizeof *premise_supports))) return -1;
    pairs->premise_supports = premise_supports;
    pairs->capacity = capacity;
    return 0;
}

/* Room for one more pair of at most `ids` ids; 0 on success. */
static int reserve(fca_itemset_pairs *pairs, size_t ids)
{
    if (pairs->count == pairs->capacity) {
        size_t capacity = pairs->capacity ? pairs->capacity * 2 : 256;
        if (capacity < pairs->capacity || grow_pairs(pairs, capacity)) return -1;
    }
    if (ids > pairs->ids_capacity - pairs->ids_used) {
        size_t capacity = pairs->ids_capacity ? pairs->ids_capacity : 1024;
        uint32_t *grown;
        while (capacity - pairs->ids_used < ids) {
            if (capacity > SIZE_MAX / 2 / sizeof *grown) return -1;
            capacity *= 2;
        }
        if (!(grown = realloc(pairs->ids, capacity * sizeof *grown))) return -1;
        pairs->ids = grown;
        pairs->ids_capacity = capacity;
    }
    return 0;
}

static uint64_t bytes_with(const fca_itemset_pairs *pairs, size_t more_ids)
{
    return (uint64_t)(pairs->count + 1) * PAIR_BYTES + (uint64_t)(pairs->ids_used + more_ids) * sizeof(uint32_t);
}

/* The ids of set (minus `minus` when given) appended at ids; returns how many. */
static size_t append_ids_of(uint32_t *ids, const parac_word *set, const parac_word *minus, size_t attributes)
{
    size_t size = 0, words = parac_bitset_words(attributes);
    for (size_t w = 0; w < words; w++)
        for (parac_word bits = minus ? set[w] & ~minus[w] : set[w]; bits; bits &= bits - 1)
            ids[size++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
    return size;
}

/* Room for a pair of at most `most` ids within the budget; PARAC_OK or the error. */
static parac_status make_room(fca_itemset_pairs *pairs, size_t most, const char *what, parac_error *error)
{
    if (pairs->byte_limit && bytes_with(pairs, most) > pairs->byte_limit)
        return parac_fail(error, PARAC_ERR_NO_MEMORY,
                          "fca %s: past the result's memory budget of %llu bytes after %zu of them (max_host_bytes, "
                          "--max-memory)%s%s",
                          what, (unsigned long long)pairs->byte_limit, pairs->count, pairs->hint ? "; " : "",
                          pairs->hint ? pairs->hint : "");
    if (reserve(pairs, most))
        return parac_fail_no_memory(error, what, (unsigned long long)bytes_with(pairs, most) * 2);
    return PARAC_OK;
}

/* Records the pair whose ids were just written at ids + ids_used. */
static void commit(fca_itemset_pairs *pairs, size_t premise_size, size_t conclusion_size, uint64_t support,
                   uint64_t premise_support)
{
    pairs->first[pairs->count] = pairs->ids_used;
    pairs->premise_sizes[pairs->count] = (uint32_t)premise_size;
    pairs->conclusion_sizes[pairs->count] = (uint32_t)conclusion_size;
    pairs->supports[pairs->count] = support;
    pairs->premise_supports[pairs->count] = premise_support;
    pairs->ids_used += premise_size + conclusion_size;
    pairs->count++;
}

parac_status fca_itemset_pairs_append_sets(fca_itemset_pairs *pairs, const parac_word *premise,
                                           const parac_word *whole, uint64_t support, uint64_t premise_support,
                                           const char *what, parac_error *error)
{
    size_t words = parac_bitset_words(pairs->attributes), premise_size;
    parac_status status = make_room(pairs, parac_bitset_popcount(premise, words) + parac_bitset_popcount(whole, words),
                                    what, error);
    if (status != PARAC_OK) return status;
    premise_size = append_ids_of(pairs->ids + pairs->ids_used, premise, NULL, pairs->attributes);
    commit(pairs, premise_size,
           append_ids_of(pairs->ids + pairs->ids_used + premise_size, whole, premise, pairs->attributes), support,
           premise_support);
    return PARAC_OK;
}

parac_status fca_itemset_pairs_append_ids(fca_itemset_pairs *pairs, const uint32_t *premise, size_t premise_size,
                                          const uint32_t *whole, size_t whole_size, uint64_t support,
                                          uint64_t premise_support, const char *what, parac_error *error)
{
    parac_status status = make_room(pairs, premise_size + whole_size, what, error);
    uint32_t *conclusion;
    size_t conclusion_size = 0, p = 0;
    if (status != PARAC_OK) return status;
    memcpy(pairs->ids + pairs->ids_used, premise, premise_size * sizeof *premise);
    conclusion = pairs->ids + pairs->ids_used + premise_size;
    for (size_t w = 0; w < whole_size; w++) { /* whole \ premise, both ascending */
        while (p < premise_size && premise[p] < whole[w]) p++;
        if (p < premise_size && premise[p] == whole[w]) continue;
        conclusion[conclusion_size++] = whole[w];
    }
    commit(pairs, premise_size, conclusion_size, support, premise_support);
    return PARAC_OK;
}

const uint32_t *fca_itemset_pairs_premise(const fca_itemset_pairs *pairs, size_t index, size_t *size)
{
    *size = pairs->premise_sizes[index];
    return pairs->ids + pairs->first[index];
}

const uint32_t *fca_itemset_pairs_conclusion(const fca_itemset_pairs *pairs, size_t index, size_t *size)
{
    *size = pairs->conclusion_sizes[index];
    return pairs->ids + pairs->first[index] + pairs->premise_sizes[index];
}

/* Lexicographic on ascending id lists, a prefix first: the canonical order of the sets' bitsets. */
static int compare_ids(const uint32_t *a, size_t a_size, const uint32_t *b, size_t b_size)
{
    size_t common = a_size < b_size ? a_size : b_size;
    for (size_t i = 0; i < common; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return (a_size > b_size) - (a_size < b_size);
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
    size_t x_size, y_size;
    const uint32_t *x_set = fca_itemset_pairs_premise(pairs, x->index, &x_size);
    const uint32_t *y_set = fca_itemset_pairs_premise(pairs, y->index, &y_size);
    int order = compare_ids(x_set, x_size, y_set, y_size);
    if (!order) {
        x_set = fca_itemset_pairs_conclusion(pairs, x->index, &x_size);
        y_set = fca_itemset_pairs_conclusion(pairs, y->index, &y_size);
        order = compare_ids(x_set, x_size, y_set, y_size);
    }
    if (!order) order = x->index < y->index ? -1 : (x->index > y->index); /* equal pairs keep their order */
    return order;
}

/* Moves the ids and every per-pair array into the order of keys. */
static int permute(fca_itemset_pairs *pairs, const pair_key *keys)
{
    size_t count = pairs->count, at = 0;
    fca_itemset_pairs sorted;
    fca_itemset_pairs_init(&sorted, pairs->attributes, 0);
    if (grow_pairs(&sorted, count) || !(sorted.ids = malloc((pairs->ids_used + 1) * sizeof *sorted.ids))) {
        fca_itemset_pairs_release(&sorted);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        size_t from = keys[i].index, size = (size_t)pairs->premise_sizes[from] + pairs->conclusion_sizes[from];
        memcpy(sorted.ids + at, pairs->ids + pairs->first[from], size * sizeof *sorted.ids);
        sorted.first[i] = at;
        sorted.premise_sizes[i] = pairs->premise_sizes[from];
        sorted.conclusion_sizes[i] = pairs->conclusion_sizes[from];
        sorted.supports[i] = pairs->supports[from];
        sorted.premise_supports[i] = pairs->premise_supports[from];
        at += size;
    }
    sorted.count = count;
    sorted.ids_used = sorted.ids_capacity = at;
    sorted.byte_limit = pairs->byte_limit;
    sorted.hint = pairs->hint;
    fca_itemset_pairs_release(pairs);
    *pairs = sorted;
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
        return parac_fail_no_memory(error, what, (unsigned long long)bytes_with(pairs, 0) * 2);
    }
    free(keys);
    return PARAC_OK;
}

size_t fca_itemset_pairs_copy(const uint32_t *set, size_t size, uint32_t *ids, size_t capacity)
{
    if (ids) memcpy(ids, set, (size < capacity ? size : capacity) * sizeof *ids);
    return size;
}
