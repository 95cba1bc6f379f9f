/* core/hash_index.c — open addressing with linear probing (see hash_index.h). */
#include "core/hash_index.h"

#include <stdlib.h>

static uint64_t finalize(uint64_t hash)
{
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 33;
    return hash;
}

uint64_t parac_hash_bytes(const void *data, size_t length)
{
    const unsigned char *bytes = data;
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 1099511628211ULL;
    return finalize(hash);
}

/* The first slot, probing from the hash, that is empty or holds an item matching the key. */
static size_t probe(const parac_hash_index *index, uint64_t key_hash, const void *key, parac_hash_match_fn matches,
                    const void *context)
{
    size_t mask = index->capacity - 1, slot = (size_t)finalize(key_hash) & mask;
    while (index->slots[slot] && !matches(context, index->slots[slot] - 1, key)) slot = (slot + 1) & mask;
    return slot;
}

int parac_hash_index_reserve(parac_hash_index *index, parac_hash_item_fn item_hash, const void *context)
{
    size_t capacity = index->capacity ? index->capacity : 16, *slots;
    while ((index->count + 1) > capacity / 2) {
        if (capacity > SIZE_MAX / 2 / sizeof *slots) return -1;
        capacity *= 2;
    }
    if (capacity == index->capacity) return 0;
    if (!(slots = calloc(capacity, sizeof *slots))) return -1;
    for (size_t i = 0; i < index->capacity; i++) {
        size_t item = index->slots[i], slot;
        if (!item) continue;
        slot = (size_t)finalize(item_hash(context, item - 1)) & (capacity - 1);
        while (slots[slot]) slot = (slot + 1) & (capacity - 1); /* stored keys are distinct: no compare */
        slots[slot] = item;
    }
    free(index->slots);
    index->slots = slots;
    index->capacity = capacity;
    return 0;
}

size_t parac_hash_index_find(const parac_hash_index *index, uint64_t key_hash, const void *key,
                             parac_hash_match_fn matches, const void *context, size_t *slot)
{
    size_t at;
    if (slot) *slot = 0;
    if (!index->capacity) return SIZE_MAX;
    at = probe(index, key_hash, key, matches, context);
    if (slot) *slot = at;
    return index->slots[at] ? index->slots[at] - 1 : SIZE_MAX;
}

void parac_hash_index_insert(parac_hash_index *index, size_t slot, size_t item)
{
    index->slots[slot] = item + 1;
    index->count++;
}

void parac_hash_index_free(parac_hash_index *index)
{
    free(index->slots);
    index->slots = NULL;
    index->capacity = index->count = 0;
}
