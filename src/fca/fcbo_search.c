/* fca/fcbo_search.c — the search copy of the context: attributes sorted by
 * ascending support, rows and columns as bitsets, and the root concept. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
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

static void fill_permuted(const parac_fca_context *context, fca_search *search)
{
    for (size_t s = 0; s < search->attributes; s++) {
        uint32_t a = search->original_attribute[s];
        const parac_word *column = context->columns + a * context->object_words;
        memcpy(search->columns + s * search->object_words, column, context->object_words * sizeof(parac_word));
        for (size_t o = parac_bitset_next(column, context->objects, 0); o < context->objects;
             o = parac_bitset_next(column, context->objects, o + 1))
            parac_bitset_set(search->rows + o * search->attribute_words, s);
    }
}

parac_status fca_search_create(const parac_fca_context *context, uint64_t min_support, fca_search *search,
                               parac_error *error)
{
    size_t n = context->attributes;
    attribute_support *order = malloc((n ? n : 1) * sizeof *order);
    memset(search, 0, sizeof *search);
    search->objects = context->objects;
    search->attributes = n;
    search->object_words = context->object_words ? context->object_words : 1;
    search->attribute_words = context->attribute_words ? context->attribute_words : 1;
    search->min_support = min_support;
    search->rows = calloc(search->objects * search->attribute_words + 1, sizeof(parac_word));
    search->columns = calloc(n * search->object_words + 1, sizeof(parac_word));
    search->original_attribute = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!order || !search->rows || !search->columns || !search->original_attribute) {
        free(order);
        fca_search_destroy(search);
        return parac_fail_no_memory(error, "search context",
                                    (unsigned long long)(search->objects * search->attribute_words + n * search->object_words) * 8);
    }
    for (size_t a = 0; a < n; a++) {
        order[a].attribute = (uint32_t)a;
        order[a].support = (uint32_t)parac_bitset_popcount(context->columns + a * context->object_words,
                                                           context->object_words);
    }
    qsort(order, n, sizeof *order, by_support);
    for (size_t s = 0; s < n; s++) search->original_attribute[s] = order[s].attribute;
    free(order);
    fill_permuted(context, search);
    return PARAC_OK;
}

void fca_search_destroy(fca_search *search)
{
    free(search->rows);
    free(search->columns);
    free(search->original_attribute);
    memset(search, 0, sizeof *search);
}

void fca_search_original_intent(const fca_search *search, const parac_word *intent, parac_word *original)
{
    memset(original, 0, search->attribute_words * sizeof *original);
    for (size_t w = 0; w < search->attribute_words; w++)
        for (parac_word bits = intent[w]; bits; bits &= bits - 1)
            parac_bitset_set(original, search->original_attribute[w * 64 + (size_t)__builtin_ctzll(bits)]);
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
