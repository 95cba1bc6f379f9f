/* tests/fca/test_verify.c — parac_fca_verify must catch what it is there to catch, by the bit
 * matrices (dense contexts) and by the cells (wide sparse ones, fca_covers_use_cells): a correct list
 * passes; an intent that is not closed, two concepts out of order, a duplicate and a support below
 * the bound each fail with the concept's index. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "fca/concept_stream.h"
#include "fca/fca_internal.h"
#include "support_fca.h"
#include "test_util.h"

static parac_status verify(const parac_fca_context *context, const parac_fca_concepts *concepts, uint64_t min_support,
                           parac_error *error)
{
    memset(error, 0, sizeof *error);
    return parac_fca_verify(context, concepts, min_support, error);
}

/* 1 when record is one of the concepts' (the list is every concept: then the set is closed). */
static int listed(const parac_fca_concepts *concepts, const parac_word *record)
{
    for (size_t c = 0; c < concepts->count; c++)
        if (!memcmp(concepts->intents + c * concepts->format.words, record, concepts->format.words * sizeof *record))
            return 1;
    return 0;
}

/* A concept c >= 1 and, in record, its intent less one attribute such that the set is not closed
 * (no concept has it); SIZE_MAX when none is found. */
static size_t not_closed_variant(const parac_fca_concepts *concepts, uint32_t *ids, uint32_t *fewer,
                                 parac_word *record)
{
    for (size_t c = 1; c < concepts->count; c++) {
        size_t size = parac_fca_concept_intent(concepts, c, ids, concepts->attributes);
        if (size < 2 || size == concepts->attributes) continue;
        for (size_t drop = 0; drop < size; drop++) {
            size_t k = 0;
            for (size_t i = 0; i < size; i++)
                if (i != drop) fewer[k++] = ids[i];
            if (fca_record_encode_ids(&concepts->format, fewer, k, record) && !listed(concepts, record)) return c;
        }
    }
    return SIZE_MAX;
}

static void check_context(parac_fca_context *context, const char *label, int expect_cells)
{
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 2, 0);
    const fca_record_format *format = &concepts->format;
    size_t words = format->words, c;
    uint32_t *ids = malloc((concepts->attributes + 1) * sizeof *ids), *fewer = malloc((concepts->attributes + 1) * sizeof *fewer);
    parac_word *saved = malloc(2 * words * sizeof *saved), *record = malloc(words * sizeof *record);
    parac_error error;
    CHECK(fca_covers_use_cells(context) == expect_cells, "%s: verify by %s expected", label,
          expect_cells ? "the cells" : "the bit matrices");
    CHECK_OK(verify(context, concepts, 0, &error), &error);
    /* not closed: concept c's intent less one attribute, a set no concept has */
    c = not_closed_variant(concepts, ids, fewer, record);
    CHECK(c != SIZE_MAX, "%s: no intent with a non-closed subset", label);
    if (c != SIZE_MAX) {
        memcpy(saved, concepts->intents + c * words, words * sizeof *saved);
        memcpy(concepts->intents + c * words, record, words * sizeof *record);
        CHECK(verify(context, concepts, 0, &error) == PARAC_ERR_INTERNAL && strstr(error.message, "not closed"),
              "%s: a set that is not closed passed: %s", label, error.message);
        memcpy(concepts->intents + c * words, saved, words * sizeof *saved);
    }
    /* out of order, then a duplicate: concepts 1 and 2 */
    memcpy(saved, concepts->intents + words, 2 * words * sizeof *saved);
    memcpy(concepts->intents + words, saved + words, words * sizeof *saved);
    memcpy(concepts->intents + 2 * words, saved, words * sizeof *saved);
    CHECK(verify(context, concepts, 0, &error) == PARAC_ERR_INTERNAL && strstr(error.message, "precedes concept 1"),
          "%s: a swapped pair passed: %s", label, error.message);
    memcpy(concepts->intents + 2 * words, saved + words, words * sizeof *saved);
    CHECK(verify(context, concepts, 0, &error) == PARAC_ERR_INTERNAL && strstr(error.message, "duplicates"),
          "%s: a duplicate passed: %s", label, error.message);
    memcpy(concepts->intents + words, saved, 2 * words * sizeof *saved);
    CHECK_OK(verify(context, concepts, 0, &error), &error);
    /* the support bound: the list of every concept holds one with a single object (or none) */
    CHECK(verify(context, concepts, 2, &error) == PARAC_ERR_INTERNAL && strstr(error.message, "support below 2"),
          "%s: supports below 2 passed: %s", label, error.message);
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    free(ids), free(fewer), free(saved), free(record);
}

int main(void)
{
    check_context(fca_test_random_context(60, 30, 0.3, 1), "dense", 0);
    /* 6,000 rows of a few among 60,000 attributes: bit matrices of 90 MB against 0.3 MB of cells */
    check_context(fca_test_random_context(6000, 60000, 0.00005, 2), "wide", 1);
    return test_finish("fca.verify");
}
