/* fca/column_groups.c — the context's attributes grouped by equal columns (the same objects).
 *
 * Such attributes are in the same intents, always all or none: the search takes each group as one
 * attribute (fcbo_search.c, the context clarified) and the lattice's neighbour test closes only one
 * member of each (lattice.c). A context of few objects and many attributes has at most 2^objects
 * distinct columns (10 objects x 100,000 attributes: 1,024 groups). Built once per context from its
 * column lists: each column hashed, the attributes sorted by (support, hash, id), and each run of
 * equal support and hash split by comparing the lists themselves (a hash collision makes two groups,
 * never a wrong one). Attributes no object has are one group too. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hash_index.h"
#include "fca/fca_internal.h"

typedef struct column_key {
    uint32_t attribute;
    uint64_t support, hash;
} column_key;

static int by_column(const void *a, const void *b)
{
    const column_key *x = a, *y = b;
    if (x->support != y->support) return x->support < y->support ? -1 : 1;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return x->attribute < y->attribute ? -1 : (x->attribute > y->attribute);
}

static int same_column(const fca_column_lists *columns, uint32_t a, uint32_t b)
{
    size_t length = columns->offsets[a + 1] - columns->offsets[a];
    return length == columns->offsets[b + 1] - columns->offsets[b] &&
           memcmp(columns->objects + columns->offsets[a], columns->objects + columns->offsets[b],
                  length * sizeof *columns->objects) == 0;
}

/* first[a] for the attributes of keys (sorted by by_column): within a run of one support and hash,
 * each attribute against the run's groups so far; the first met, the smallest id, names the group. */
static void group_runs(const fca_column_lists *columns, const column_key *keys, size_t count, uint32_t *first)
{
    for (size_t run = 0, end; run < count; run = end) {
        for (end = run + 1; end < count && keys[end].support == keys[run].support && keys[end].hash == keys[run].hash;)
            end++;
        for (size_t i = run; i < end; i++) {
            uint32_t a = keys[i].attribute;
            size_t j = run;
            while (j < i && !(first[keys[j].attribute] == keys[j].attribute && same_column(columns, keys[j].attribute, a)))
                j++;
            first[a] = j < i ? keys[j].attribute : a;
        }
    }
}

static void groups_free(fca_column_groups *groups)
{
    if (!groups) return;
    free(groups->first);
    free(groups->last);
    free(groups);
}

void fca_column_groups_free(fca_column_groups *groups) { groups_free(groups); }

const fca_column_groups *fca_context_groups(const parac_fca_context *context, parac_error *error)
{
    size_t n = context->attributes;
    const fca_column_lists *columns;
    fca_column_groups *made, *expected = NULL;
    column_key *keys;
    if ((made = __atomic_load_n(&((parac_fca_context *)context)->groups, __ATOMIC_ACQUIRE)) != NULL) return made;
    if (!(columns = fca_context_columns(context, error))) return NULL;
    made = calloc(1, sizeof *made);
    keys = malloc((n + 1) * sizeof *keys);
    if (made) {
        made->first = malloc((n + 1) * sizeof *made->first);
        made->last = malloc((n + 1) * sizeof *made->last);
    }
    if (!made || !keys || !made->first || !made->last) {
        groups_free(made);
        free(keys);
        parac_fail_no_memory(error, "attribute column groups", (unsigned long long)(n + 1) * 32);
        return NULL;
    }
    for (size_t a = 0; a < n; a++) {
        size_t length = columns->offsets[a + 1] - columns->offsets[a];
        keys[a] = (column_key){(uint32_t)a, length,
                               parac_hash_bytes(columns->objects + columns->offsets[a], length * sizeof *columns->objects)};
    }
    qsort(keys, n, sizeof *keys, by_column);
    group_runs(columns, keys, n, made->first);
    free(keys);
    /* ids ascending: each group's last member is the last written over its name's slot */
    for (size_t a = 0; a < n; a++) made->last[made->first[a]] = (uint32_t)a;
    for (size_t a = 0; a < n; a++) made->last[a] = made->last[made->first[a]];
    if (!__atomic_compare_exchange_n(&((parac_fca_context *)context)->groups, &expected, made, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        groups_free(made);
        return expected;
    }
    return made;
}
