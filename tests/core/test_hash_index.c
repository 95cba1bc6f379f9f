/* tests/core/test_hash_index.c — the open-addressing index: integer keys through growth, string
 * keys, and a constant hash (every key collides: probing alone must keep them apart). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash_index.h"
#include "test_util.h"

typedef struct keys {
    const uint64_t *values;
    int constant_hash; /* 1: every key hashes to 0 */
} keys;

static uint64_t key_hash(const keys *k, uint64_t key) { return k->constant_hash ? 0 : parac_hash_bytes(&key, sizeof key); }
static uint64_t item_hash(const void *context, size_t item)
{
    const keys *k = context;
    return key_hash(k, k->values[item]);
}
static int item_matches(const void *context, size_t item, const void *key)
{
    return ((const keys *)context)->values[item] == *(const uint64_t *)key;
}

static void check_integers(size_t count, int constant_hash)
{
    uint64_t *values = malloc(count * sizeof *values);
    keys k = {values, constant_hash};
    parac_hash_index index = {0};
    size_t slot, wrong = 0;
    if (!values) return;
    for (size_t i = 0; i < count; i++) values[i] = (uint64_t)i * 0x9e3779b97f4a7c15ULL + 7;
    CHECK(parac_hash_index_find(&index, 1, &values[0], item_matches, &k, &slot) == SIZE_MAX, "empty index found a key");
    for (size_t i = 0; i < count; i++) {
        CHECK_EQ_INT(parac_hash_index_reserve(&index, item_hash, &k), 0);
        if (parac_hash_index_find(&index, key_hash(&k, values[i]), &values[i], item_matches, &k, &slot) != SIZE_MAX) wrong++;
        else parac_hash_index_insert(&index, slot, i);
    }
    CHECK_EQ_INT(index.count, count);
    CHECK(index.capacity >= 2 * count && (index.capacity & (index.capacity - 1)) == 0, "capacity %zu", index.capacity);
    for (size_t i = 0; i < count; i++)
        if (parac_hash_index_find(&index, key_hash(&k, values[i]), &values[i], item_matches, &k, NULL) != i) wrong++;
    for (size_t i = 0; i < count; i++) {
        uint64_t absent = values[i] + 1;
        if (parac_hash_index_find(&index, key_hash(&k, absent), &absent, item_matches, &k, NULL) != SIZE_MAX) wrong++;
    }
    CHECK(wrong == 0, "%zu wrong answers of %zu keys (constant hash %d)", wrong, count, constant_hash);
    parac_hash_index_free(&index);
    CHECK(index.slots == NULL && index.capacity == 0 && index.count == 0, "free leaves an empty index");
    free(values);
}

static uint64_t string_hash(const void *context, size_t item)
{
    const char *const *names = context;
    return parac_hash_bytes(names[item], strlen(names[item]));
}
static int string_matches(const void *context, size_t item, const void *key)
{
    return strcmp(((const char *const *)context)[item], key) == 0;
}

static void check_strings(void)
{
    const char *names[] = {"x", "y", "x[0]", "x[1]", "", "a much longer name than the others"};
    parac_hash_index index = {0};
    size_t slot;
    for (size_t i = 0; i < 6; i++) {
        CHECK_EQ_INT(parac_hash_index_reserve(&index, string_hash, names), 0);
        CHECK(parac_hash_index_find(&index, parac_hash_bytes(names[i], strlen(names[i])), names[i], string_matches,
                                    names, &slot) == SIZE_MAX, "'%s' found before insertion", names[i]);
        parac_hash_index_insert(&index, slot, i);
    }
    for (size_t i = 0; i < 6; i++)
        CHECK_EQ_INT(parac_hash_index_find(&index, parac_hash_bytes(names[i], strlen(names[i])), names[i],
                                           string_matches, names, NULL), i);
    CHECK(parac_hash_index_find(&index, parac_hash_bytes("x[2]", 4), "x[2]", string_matches, names, NULL) == SIZE_MAX,
          "absent name found");
    CHECK(parac_hash_bytes("ab", 2) != parac_hash_bytes("ba", 2), "the byte hash ignores order");
    parac_hash_index_free(&index);
}

int main(void)
{
    check_integers(1, 0);
    check_integers(100000, 0);
    check_integers(2000, 1);
    check_strings();
    return test_finish("core.hash_index");
}
