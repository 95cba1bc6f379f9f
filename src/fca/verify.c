/* fca/verify.c — independent check of a concept list: every intent closed
 * (B'' = B, computed from the columns and rows of the original context, not
 * the search copy), strictly increasing canonical order (so no duplicates),
 * and the support bound. */
#include <stdlib.h>

#include "core/error.h"
#include "fca/fca_internal.h"

/* 0 when intent is closed; fills *support with |B'|. */
static int check_closed(const parac_fca_context *context, const parac_word *intent, parac_word *extent,
                        parac_word *closure, size_t *support)
{
    size_t object_words = context->object_words, words = context->attribute_words;
    const fca_bit_matrices *bits = fca_context_bits_built(context);
    parac_bitset_fill(extent, context->objects);
    for (size_t a = parac_bitset_next(intent, context->attributes, 0); a < context->attributes;
         a = parac_bitset_next(intent, context->attributes, a + 1))
        parac_bitset_and(extent, extent, bits->columns + a * object_words, object_words);
    parac_bitset_fill(closure, context->attributes);
    for (size_t o = parac_bitset_next(extent, context->objects, 0); o < context->objects;
         o = parac_bitset_next(extent, context->objects, o + 1))
        parac_bitset_and(closure, closure, bits->rows + o * words, words);
    *support = parac_bitset_popcount(extent, object_words);
    return parac_bitset_equal(closure, intent, words) ? 0 : -1;
}

parac_status parac_fca_verify(const parac_fca_context *context, const parac_fca_concepts *concepts,
                              uint64_t min_support, parac_error *error)
{
    size_t count = concepts->count, words = concepts->attribute_words;
    long long first_bad = -1;
    int bad_kind = 0;
    if (concepts->attributes != context->attributes)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca verify: concepts have %zu attributes, context %zu",
                          concepts->attributes, context->attributes);
    if (!fca_context_bits(context, error)) return error ? error->status : PARAC_ERR_NO_MEMORY;
#pragma omp parallel default(none) shared(context, concepts, count, words, min_support, first_bad, bad_kind)
    {
        parac_word *extent = calloc(context->object_words + 1, sizeof(parac_word));
        parac_word *closure = calloc(words + 1, sizeof(parac_word));
        parac_word *intent = calloc(words + 1, sizeof(parac_word)); /* the record as a bitset */
        const fca_record_format *format = &concepts->format;
#pragma omp for schedule(dynamic, 256)
        for (size_t i = 0; i < count; i++) {
            const parac_word *record = concepts->intents + i * format->words;
            size_t support = 0;
            int kind = 0;
            if (!extent || !closure || !intent) kind = 4;
            else if (fca_record_bitset(format, record, intent), check_closed(context, intent, extent, closure, &support))
                kind = 1;
            else if (support < min_support) kind = 2;
            else if (i > 0 && fca_record_compare(record - format->words, record, format) >= 0) kind = 3;
            if (kind) {
#pragma omp critical(fca_verify)
                if (first_bad < 0 || (long long)i < first_bad) first_bad = (long long)i, bad_kind = kind;
            }
        }
        free(extent);
        free(closure);
        free(intent);
    }
    if (first_bad < 0) return PARAC_OK;
    switch (bad_kind) {
    case 1: return parac_fail(error, PARAC_ERR_INTERNAL, "fca verify: concept %lld is not closed (B'' != B)", first_bad);
    case 2: return parac_fail(error, PARAC_ERR_INTERNAL, "fca verify: concept %lld has support below %llu", first_bad,
                              (unsigned long long)min_support);
    case 3: return parac_fail(error, PARAC_ERR_INTERNAL, "fca verify: concept %lld duplicates or precedes concept %lld",
                              first_bad, first_bad - 1);
    default: return parac_fail_no_memory(error, "verify scratch", 0);
    }
}
