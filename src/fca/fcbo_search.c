/* fca/fcbo_search.c — the search copy of the context: attributes sorted by
 * ascending support, rows and columns as bitsets, and the root concept. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
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

/* Orders the attributes some object has by ascending support; records the others as empty.
 * order holds the supports, counted from the cells, on entry (order[a].support, a = 0..). */
static size_t order_attributes(const parac_fca_context *context, attribute_support *order, fca_search *search)
{
    size_t kept = 0;
    for (size_t a = 0; a < context->attributes; a++) {
        uint32_t support = order[a].support;
        if (support == 0) {
            parac_bitset_set(search->empty_attributes, a);
            search->empty_count++;
            continue;
        }
        order[kept].attribute = (uint32_t)a;
        order[kept].support = support;
        kept++;
    }
    qsort(order, kept, sizeof *order, by_support);
    return kept;
}

parac_status fca_search_create_order(const parac_fca_context *context, uint64_t min_support, fca_search *search,
                                     parac_error *error)
{
    size_t n = context->attributes;
    attribute_support *order = malloc((n ? n : 1) * sizeof *order);
    memset(search, 0, sizeof *search);
    search->objects = context->objects;
    search->object_words = context->object_words ? context->object_words : 1;
    search->original_attributes = n;
    search->original_words = context->attribute_words ? context->attribute_words : 1;
    search->min_support = min_support;
    search->empty_attributes = calloc(search->original_words, sizeof(parac_word));
    if (!order || !search->empty_attributes) {
        free(order);
        fca_search_destroy(search);
        return parac_fail_no_memory(error, "search context", n * 8ULL);
    }
    for (size_t a = 0; a < n; a++) order[a].support = 0;
    for (size_t i = 0; i < fca_context_cells(context); i++) order[context->cell_attributes[i]].support++;
    search->attributes = order_attributes(context, order, search);
    search->attribute_words = parac_bitset_words(search->attributes) ? parac_bitset_words(search->attributes) : 1;
    search->original_attribute = malloc((search->attributes + 1) * sizeof(uint32_t));
    if (!search->original_attribute) {
        free(order);
        fca_search_destroy(search);
        return parac_fail_no_memory(error, "search context", (unsigned long long)(search->attributes + 1) * 4);
    }
    for (size_t s = 0; s < search->attributes; s++) search->original_attribute[s] = order[s].attribute;
    free(order);
    search->full_intent_has_empty_extent = search->objects == 0;
    return PARAC_OK;
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
        for (size_t s = 0; s < search->attributes; s++) search_of[search->original_attribute[s]] = (uint32_t)s;
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
    free(search->empty_attributes);
    memset(search, 0, sizeof *search);
}

void fca_search_original_intent(const fca_search *search, const parac_word *intent, parac_word *original)
{
    size_t size = 0;
    memset(original, 0, search->original_words * sizeof *original);
    for (size_t w = 0; w < search->attribute_words; w++)
        for (parac_word bits = intent[w]; bits; bits &= bits - 1, size++)
            parac_bitset_set(original, search->original_attribute[w * 64 + (size_t)__builtin_ctzll(bits)]);
    /* the full search intent with no object is the bottom concept: it has the empty attributes too */
    if (size == search->attributes && search->full_intent_has_empty_extent)
        parac_bitset_or(original, original, search->empty_attributes, search->original_words);
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
