/* tests/fca/test_concept_record.c — the short id-list records of a streamed run (concept_record.c)
 * against the bitsets they stand for: the same order (fca_intent_compare) on random intents,
 * prefixes and the one long record (every attribute), the same ids back, and the format chosen
 * only where it is at most half the bitset. */
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "fca/fca_internal.h"
#include "test_util.h"

#define ATTRIBUTES 1000
#define LONGEST 9
#define INTENTS 400

static int sign(int x) { return (x > 0) - (x < 0); }

/* A random intent of 0..LONGEST ids; every 50th is every attribute and the one before it 0..k-1,
 * every 7th a prefix of the one before it (the prefix order's corner). */
static void random_intent(parac_rng *rng, int index, const parac_word *previous, parac_word *intent)
{
    size_t words = parac_bitset_words(ATTRIBUTES);
    memset(intent, 0, words * sizeof *intent);
    if (index % 50 == 49) {
        parac_bitset_fill(intent, ATTRIBUTES);
        return;
    }
    if (index % 50 == 48) { /* 0, 1, ..., k-1: a prefix of every attribute, so before it */
        for (uint64_t k = parac_rng_below(rng, LONGEST + 1); k > 0; k--) parac_bitset_set(intent, (size_t)(k - 1));
        return;
    }
    if (index % 7 == 6 && previous) {
        size_t kept = 0, keep = parac_rng_below(rng, 4);
        for (size_t a = parac_bitset_next(previous, ATTRIBUTES, 0); a < ATTRIBUTES && kept < keep;
             a = parac_bitset_next(previous, ATTRIBUTES, a + 1), kept++)
            parac_bitset_set(intent, a);
        return;
    }
    for (uint64_t k = parac_rng_below(rng, LONGEST + 1); k > 0; k--)
        parac_bitset_set(intent, (size_t)parac_rng_below(rng, index % 3 == 0 ? 12 : ATTRIBUTES));
}

int main(void)
{
    size_t words = parac_bitset_words(ATTRIBUTES);
    fca_record_format format = fca_record_format_for(ATTRIBUTES, LONGEST);
    parac_word *intents = calloc(INTENTS * words, sizeof *intents), *records, *back;
    uint32_t ids[ATTRIBUTES];
    parac_rng rng;
    size_t disagreements = 0, wrong_ids = 0;
    CHECK(format.ids == LONGEST + 1 && format.words == (LONGEST + 1) / 2, "format: %zu slots, %zu words", format.ids,
          format.words);
    CHECK(fca_record_format_for(ATTRIBUTES, 200).ids == 0, "200 of 1,000 attributes a row: bitsets");
    CHECK(fca_record_format_for(64, 1).ids == 0, "one word of bitset: bitsets");
    records = calloc(INTENTS * format.words, sizeof *records);
    back = calloc(words, sizeof *back);
    parac_rng_seed(&rng, 11);
    for (int i = 0; i < INTENTS; i++) {
        random_intent(&rng, i, i ? intents + (size_t)(i - 1) * words : NULL, intents + (size_t)i * words);
        CHECK(fca_record_encode(&format, intents + (size_t)i * words, records + (size_t)i * format.words),
              "intent %d did not encode", i);
    }
    for (int i = 0; i < INTENTS; i++) {
        size_t size = fca_record_decode(&format, records + (size_t)i * format.words, ids);
        memset(back, 0, words * sizeof *back);
        for (size_t k = 0; k < size; k++) parac_bitset_set(back, ids[k]);
        for (size_t k = 1; k < size; k++) wrong_ids += ids[k] <= ids[k - 1];
        wrong_ids += memcmp(back, intents + (size_t)i * words, words * sizeof *back) != 0;
        for (int j = 0; j < INTENTS; j++)
            disagreements += sign(fca_record_compare(records + (size_t)i * format.words,
                                                     records + (size_t)j * format.words, &format)) !=
                             sign(fca_intent_compare(intents + (size_t)i * words, intents + (size_t)j * words, words));
    }
    CHECK(wrong_ids == 0, "%zu records decode to other ids", wrong_ids);
    CHECK(disagreements == 0, "%zu of %d pairs ordered otherwise than their bitsets", disagreements,
          INTENTS * INTENTS);
    {
        /* longer than the slots and not every attribute: refused (no search makes one) */
        memset(back, 0, words * sizeof *back);
        for (size_t a = 0; a < LONGEST + 3; a++) parac_bitset_set(back, 3 * a);
        CHECK(!fca_record_encode(&format, back, records), "an intent past the slots was encoded");
    }
    free(intents), free(records), free(back);
    return test_finish("fca.concept_record");
}
