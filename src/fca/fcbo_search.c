/* fca/fcbo_search.c — the search copy of the context: attributes sorted by
 * ascending support, rows and columns as bitsets, and the root concept. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/sort_ids.h"
#include "fca/fca_internal.h"

typedef struct attribute_support {
    uint32_t attribute;
    uint32_t support;
} attribute_support;

static int by_support(const void *a, const void *b)
{
    const attribute_support *x = a, *y = b;
    if (x->support != y->support) return x->support < y->support ? -1 : 1;
    return x->attribute < y->attribute ? -1 : (x->attribute > y->attribute);
}

/* The permuted bit matrices, from the context's cells (search_of: original id -> search id). */
static void fill_permuted(const parac_fca_context *context, const uint32_t *search_of, fca_search *search)
{
    for (size_t o = 0; o < context->objects; o++)
        for (size_t i = context->cell_offsets[o]; i < context->cell_offsets[o + 1]; i++) {
            size_t s = search_of[context->cell_attributes[i]];
            parac_bitset_set(search->rows + o * search->attribute_words, s);
            parac_bitset_set(search->columns + s * search->object_words, o);
        }
}

/* The search order (groups of equal columns by ascending support, then smallest id: column_groups.c)
 * and, when some group has two attributes, each group's members. support: per original attribute; 0
 * marks it empty. */
static int order_groups(const parac_fca_context *context, const uint32_t *support, fca_search *search)
{
    size_t n = context->attributes, kept = 0, groups = 0;
    const fca_column_groups *equal = fca_context_groups(context, NULL);
    uint32_t *search_of = malloc((n + 1) * sizeof *search_of);
    attribute_support *order = malloc((n + 1) * sizeof *order);
    int ok = equal && search_of && order;
    for (size_t a = 0; ok && a < n; a++) {
        if (support[a] == 0) {
            parac_bitset_set(search->empty_attributes, a);
            search->empty_count++;
            continue;
        }
        kept++;
        if (equal->first[a] == a) order[groups++] = (attribute_support){(uint32_t)a, support[a]};
    }
    if (ok) {
        qsort(order, groups, sizeof *order, by_support);
        search->attributes = groups;
        search->original_attribute = malloc((groups + 1) * sizeof *search->original_attribute);
        ok = search->original_attribute != NULL;
    }
    for (size_t s = 0; ok && s < groups; s++) {
        search->original_attribute[s] = order[s].attribute;
        search_of[order[s].attribute] = (uint32_t)s;
    }
    if (ok && groups < kept) { /* members, each group's ascending: original ids in order */
        search->member_offset = calloc(groups + 2, sizeof *search->member_offset);
        search->members = malloc((kept + 1) * sizeof *search->members);
        ok = search->member_offset && search->members;
        for (size_t a = 0; ok && a < n; a++)
            if (support[a]) search->member_offset[search_of[equal->first[a]] + 2]++;
        for (size_t s = 0; ok && s < groups; s++) search->member_offset[s + 2] += search->member_offset[s + 1];
        for (size_t a = 0; ok && a < n; a++)
            if (support[a]) search->members[search->member_offset[search_of[equal->first[a]] + 1]++] = (uint32_t)a;
    }
    free(search_of);
    free(order);
    return ok;
}

parac_status fca_search_create_order(const parac_fca_context *context, uint64_t min_support, fca_search *search,
                                     parac_error *error)
{
    size_t n = context->attributes;
    uint32_t *support = calloc(n + 1, sizeof *support);
    memset(search, 0, sizeof *search);
    search->objects = context->objects;
    search->object_words = context->object_words ? context->object_words : 1;
    search->original_attributes = n;
    search->original_words = context->attribute_words ? context->attribute_words : 1;
    search->min_support = min_support;
    search->empty_attributes = calloc(search->original_words, sizeof(parac_word));
    if (support && search->empty_attributes)
        for (size_t i = 0; i < fca_context_cells(context); i++) support[context->cell_attributes[i]]++;
    if (!support || !search->empty_attributes || !order_groups(context, support, search)) {
        free(support);
        fca_search_destroy(search);
        return parac_fail_no_memory(error, "search context", (unsigned long long)(n + 1) * 32 + fca_context_cells(context) * 4);
    }
    free(support);
    search->attribute_words = parac_bitset_words(search->attributes) ? parac_bitset_words(search->attributes) : 1;
    search->full_intent_has_empty_extent = search->objects == 0;
    return PARAC_OK;
}

void fca_search_map_originals(const fca_search *search, uint32_t *search_of)
{
    for (size_t s = 0; s < search->attributes; s++) {
        if (!search->member_offset) search_of[search->original_attribute[s]] = (uint32_t)s;
        else
            for (uint32_t m = search->member_offset[s]; m < search->member_offset[s + 1]; m++)
                search_of[search->members[m]] = (uint32_t)s;
    }
}

parac_status fca_search_fill_dense(const parac_fca_context *context, fca_search *search, parac_error *error)
{
    search->rows = calloc(search->objects * search->attribute_words + 1, sizeof(parac_word));
    search->columns = calloc(search->attributes * search->object_words + 1, sizeof(parac_word));
    if (!search->rows || !search->columns) {
        fca_search_destroy(search);
        return parac_fail_no_memory(error, "search context",
                                    (unsigned long long)(search->objects * search->attribute_words +
                                                         search->attributes * search->object_words) * 8);
    }
    {
        uint32_t *search_of = malloc((context->attributes + 1) * sizeof *search_of);
        if (!search_of) {
            fca_search_destroy(search);
            return parac_fail_no_memory(error, "search context", (unsigned long long)(context->attributes + 1) * 4);
        }
        fca_search_map_originals(search, search_of);
        fill_permuted(context, search_of, search);
        free(search_of);
    }
    search->full_intent_has_empty_extent = 0;
    if (search->objects == 0) search->full_intent_has_empty_extent = 1;
    else {
        parac_word *all = calloc(search->attribute_words, sizeof(parac_word));
        size_t having_all = 0;
        if (!all) { fca_search_destroy(search); return parac_fail_no_memory(error, "search context", 64); }
        parac_bitset_fill(all, search->attributes);
        for (size_t o = 0; o < search->objects; o++)
            having_all += parac_bitset_is_subset(all, search->rows + o * search->attribute_words, search->attribute_words);
        search->full_intent_has_empty_extent = having_all == 0;
        free(all);
    }
    return PARAC_OK;
}

parac_status fca_search_create(const parac_fca_context *context, uint64_t min_support, fca_search *search,
                               parac_error *error)
{
    parac_status status = fca_search_create_order(context, min_support, search, error);
    return status == PARAC_OK ? fca_search_fill_dense(context, search, error) : status;
}

parac_status fca_search_finish(const fca_search *search, parac_fca_concepts *concepts, uint64_t *count,
                               parac_error *error)
{
    parac_word *all;
    parac_status status = PARAC_OK;
    if (!search->empty_count || search->full_intent_has_empty_extent || search->min_support > 0) return PARAC_OK;
    ++*count;
    if (!concepts) return PARAC_OK;
    all = calloc(search->original_words, sizeof *all);
    if (!all) return parac_fail_no_memory(error, "bottom concept", search->original_words * 8);
    parac_bitset_fill(all, search->original_attributes);
    status = fca_concepts_append(concepts, all, error);
    free(all);
    return status;
}

void fca_search_destroy(fca_search *search)
{
    free(search->rows);
    free(search->columns);
    free(search->original_attribute);
    free(search->member_offset);
    free(search->members);
    free(search->empty_attributes);
    memset(search, 0, sizeof *search);
}

void fca_search_original_intent(const fca_search *search, const parac_word *intent, parac_word *original)
{
    size_t size = 0;
    memset(original, 0, search->original_words * sizeof *original);
    for (size_t w = 0; w < search->attribute_words; w++)
        for (parac_word bits = intent[w]; bits; bits &= bits - 1, size++) {
            size_t s = w * 64 + (size_t)__builtin_ctzll(bits);
            if (!search->member_offset) parac_bitset_set(original, search->original_attribute[s]);
            else
                for (uint32_t m = search->member_offset[s]; m < search->member_offset[s + 1]; m++)
                    parac_bitset_set(original, search->members[m]);
        }
    /* the full search intent with no object is the bottom concept: it has the empty attributes too */
    if (size == search->attributes && search->full_intent_has_empty_extent)
        parac_bitset_or(original, original, search->empty_attributes, search->original_words);
}

size_t fca_search_original_length(const fca_search *search, const uint32_t *intent, size_t length)
{
    size_t total = 0;
    if (!search->member_offset) return length;
    for (size_t i = 0; i < length; i++) total += search->member_offset[intent[i] + 1] - search->member_offset[intent[i]];
    return total;
}

size_t fca_search_original_ids(const fca_search *search, const uint32_t *intent, size_t length, uint32_t *ids)
{
    size_t count = 0;
    for (size_t i = 0; i < length; i++) {
        if (!search->member_offset) ids[count++] = search->original_attribute[intent[i]];
        else
            for (uint32_t m = search->member_offset[intent[i]]; m < search->member_offset[intent[i] + 1]; m++)
                ids[count++] = search->members[m];
    }
    parac_sort_u32(ids, count); /* search order is by support, not by id */
    return count;
}

void fca_search_root(const fca_search *search, parac_word *extent, parac_word *intent)
{
    memset(extent, 0, search->object_words * sizeof *extent);
    memset(intent, 0, search->attribute_words * sizeof *intent);
    parac_bitset_fill(extent, search->objects);
    parac_bitset_fill(intent, search->attributes);
    for (size_t o = 0; o < search->objects; o++)
        parac_bitset_and(intent, intent, search->rows + o * search->attribute_words, search->attribute_words);
}

int fca_search_cancelled(const fca_search *search, parac_error *error)
{
    if (!search->progress || !parac_progress_gate_poll(search->progress)) return 0;
    parac_fail(error, PARAC_ERR_CANCELLED, "fca: cancelled");
    return 1;
}
