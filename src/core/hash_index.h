/* core/hash_index.h — the one open-addressing hash table: "which item has this key?".
 *
 * The table holds item numbers only (item + 1 in a slot, 0 = empty); the items and their keys
 * stay in the caller's arrays, so one mechanism serves integer pairs, strings, constraint scopes
 * and bitset intents alike. The caller hashes a key (parac_hash_bytes, or its own mix) and says
 * whether an item matches a key; the table probes linearly over a power-of-two capacity that it
 * keeps at most half full, rehashing stored items with the caller's item hash when it grows.
 * Items are never removed. Lookups visit no global state; the table's order never reaches a
 * result (callers only ask "is it there"), so outputs do not depend on the hash.
 */
#ifndef PARAC_CORE_HASH_INDEX_H
#define PARAC_CORE_HASH_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct parac_hash_index {
    size_t *slots;   /* item + 1; 0 = empty */
    size_t capacity; /* power of two; 0 before the first reserve */
    size_t count;    /* items stored */
} parac_hash_index;

/* The hash of stored item `item` (equal to the hash its key was looked up with). */
typedef uint64_t (*parac_hash_item_fn)(const void *context, size_t item);
/* Non-zero when stored item `item` has key `key`. */
typedef int (*parac_hash_match_fn)(const void *context, size_t item, const void *key);

/* Makes room for one more item (rehashing with item_hash when it grows): 0, or -1 when out of
 * memory or the capacity would overflow (the index is then unchanged). */
int parac_hash_index_reserve(parac_hash_index *index, parac_hash_item_fn item_hash, const void *context);

/* Batches: an index filled with at most `items` items, used, then emptied whole (one node's merge
 * table in the sparse FCbO search, reused node after node). The index must be empty (count 0); it
 * gets capacity >= 2 x items, all slots free. 0, or -1 when out of memory (the index is unchanged). */
int parac_hash_index_reserve_batch(parac_hash_index *index, size_t items);
/* Frees the slots from key_hash's first slot up to the next free one. Called with the hash of every
 * stored item it empties the index without touching the other slots (a batch's few items in a large
 * table). */
void parac_hash_index_empty_run(parac_hash_index *index, uint64_t key_hash);

/* Stores item in the slot find returned for its key (absent, after a reserve). */
void parac_hash_index_insert(parac_hash_index *index, size_t slot, size_t item);

void parac_hash_index_free(parac_hash_index *index); /* back to the empty index */

/* FNV-1a over the bytes, then a 64-bit finalizer (so the low bits, which pick the slot, mix well). */
uint64_t parac_hash_bytes(const void *data, size_t length);

/* The slot mix every operation applies to a key's hash. */
static inline uint64_t parac_hash_finalize(uint64_t hash)
{
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 33;
    return hash;
}

/* The stored item whose key matches, or SIZE_MAX when none (always SIZE_MAX before the first
 * reserve). When slot is not NULL it gets the slot where the key is or would go: after a
 * reserve, pass it to parac_hash_index_insert to add the item. Inline, so that a caller's match
 * function is inlined into the probe loop (the sparse search merges millions of rows through it). */
static inline size_t parac_hash_index_find(const parac_hash_index *index, uint64_t key_hash, const void *key,
                                           parac_hash_match_fn matches, const void *context, size_t *slot)
{
    size_t mask, at;
    if (slot) *slot = 0;
    if (!index->capacity) return SIZE_MAX;
    mask = index->capacity - 1;
    at = (size_t)parac_hash_finalize(key_hash) & mask;
    while (index->slots[at] && !matches(context, index->slots[at] - 1, key)) at = (at + 1) & mask;
    if (slot) *slot = at;
    return index->slots[at] ? index->slots[at] - 1 : SIZE_MAX;
}

#endif
