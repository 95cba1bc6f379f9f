/* core/hash_index.c — open addressing with linear probing (see hash_index.h). */
#include "core/hash_index.h"

#include <stdlib.h>

uint64_t parac_hash_bytes(const void *data, size_t length)
{
    const unsigned char *bytes = data;
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 1099511628211ULL;
    return parac_hash_finalize(hash);
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
        slot = (size_t)parac_hash_finalize(item_hash(context, item - 1)) & (capacity - 1);
        while (slots[slot]) slot = (slot + 1) & (capacity - 1); /* stored keys are distinct: no compare */
        slots[slot] = item;
    }
    free(index->slots);
    index->slots = slots;
    index->capacity = capacity;
    return 0;
}

int parac_hash_index_reserve_batch(parac_hash_index *index, size_t items)
{
    size_t capacity = 16, *slots;
    while (capacity / 2 < items) {
        if (capacity > SIZE_MAX / 2 / sizeof *slots) return -1;
        capacity *= 2;
    }
    if (capacity <= index->capacity) return 0; /* empty already: every slot is free */
    if (!(slots = calloc(capacity, sizeof *slots))) return -1;
    free(index->slots);
    index->slots = slots;
    index->capacity = capacity;
    return 0;
}

void parac_hash_index_empty_run(parac_hash_index *index, uint64_t key_hash)
{
    size_t mask = index->capacity - 1, slot;
    if (!index->capacity) return;
    for (slot = (size_t)parac_hash_finalize(key_hash) & mask; index->slots[slot]; slot = (slot + 1) & mask) {
        index->slots[slot] = 0;
        index->count--;
    }
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
