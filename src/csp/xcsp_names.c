/* csp/xcsp_names.c — the XCSP readers' name table (csp/xcsp_build.h): a string -> int64 map,
 * entries in insertion order, found through a core/hash_index. */
#include "csp/xcsp_build.h"

#include <stdlib.h>
#include <string.h>

/* ---- names -------------------------------------------------------------------------------- */

typedef struct name_key {
    const char *text;
    size_t length;
} name_key;

static uint64_t entry_hash(const void *context, size_t item)
{
    const char *key = ((const xcsp_names *)context)->keys[item];
    return parac_hash_bytes(key, strlen(key));
}

static int entry_matches(const void *context, size_t item, const void *key)
{
    const char *stored = ((const xcsp_names *)context)->keys[item];
    const name_key *k = key;
    return strncmp(stored, k->text, k->length) == 0 && stored[k->length] == '\0';
}

static size_t names_find(const xcsp_names *names, const char *key, size_t length, size_t *slot)
{
    name_key k = {key, length};
    return parac_hash_index_find(&names->index, parac_hash_bytes(key, length), &k, entry_matches, names, slot);
}

/* Room for one more entry in the arrays and the index: 0, or -1 out of memory. */
static int names_reserve(xcsp_names *names)
{
    if (names->count == names->capacity) {
        size_t capacity = names->capacity ? names->capacity * 2 : 64;
        char **keys = realloc(names->keys, capacity * sizeof *keys);
        int64_t *values;
        if (!keys) return -1;
        names->keys = keys;
        if (!(values = realloc(names->values, capacity * sizeof *values))) return -1;
        names->values = values;
        names->capacity = capacity;
    }
    return parac_hash_index_reserve(&names->index, entry_hash, names);
}

int xcsp_names_put(xcsp_names *names, const char *key, size_t length, int64_t value)
{
    size_t slot, entry;
    char *copy;
    if (names_reserve(names) < 0) return -1;
    entry = names_find(names, key, length, &slot);
    if (entry != SIZE_MAX) {
        names->values[entry] = value;
        return 0;
    }
    if (!(copy = malloc(length + 1))) return -1;
    memcpy(copy, key, length);
    copy[length] = '\0';
    names->keys[names->count] = copy;
    names->values[names->count] = value;
    parac_hash_index_insert(&names->index, slot, names->count++);
    return 0;
}

int64_t xcsp_names_get(const xcsp_names *names, const char *key, size_t length)
{
    size_t entry = names_find(names, key, length, NULL);
    return entry == SIZE_MAX ? -1 : names->values[entry];
}

void xcsp_names_free(xcsp_names *names)
{
    for (size_t i = 0; i < names->count; i++) free(names->keys[i]);
    free(names->keys);
    free(names->values);
    parac_hash_index_free(&names->index);
    memset(names, 0, sizeof *names);
}
