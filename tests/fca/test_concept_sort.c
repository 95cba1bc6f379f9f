/* tests/fca/test_concept_sort.c — fca_concepts_sort (concept_sort.c) against qsort by the same
 * comparison, on 1-8 threads, for both record formats: enough records that the chunk sorts and
 * every merge level run in parallel and the top merges are cut into pieces (merge path co-ranks),
 * with records that share long prefixes, repeat (ties keep their order: equal bytes anyway) and
 * include every attribute. The bytes must not depend on the thread count. Id-list records also
 * packed (each its own length) and spread over parts of a store. */
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "fca/fca_internal.h"
#include "test_util.h"

#define ATTRIBUTES 3000
#define RECORDS 90000

static const fca_record_format *sorted_format;

static int by_record(const void *a, const void *b) { return fca_record_compare(a, b, sorted_format); }

/* Record i: a few ids drawn from a small range (long shared prefixes), every 97th a copy of an
 * earlier one, every 1,000th every attribute. */
static void fill(parac_fca_concepts *concepts, uint64_t seed)
{
    parac_rng rng;
    uint32_t ids[12], *copied = malloc(ATTRIBUTES * sizeof *copied);
    parac_error error;
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < RECORDS; i++) {
        size_t count = 0;
        if (i % 1000 == 999) {
            parac_word *all = calloc(parac_bitset_words(ATTRIBUTES), sizeof *all);
            parac_bitset_fill(all, ATTRIBUTES);
            CHECK_OK(fca_concepts_append(concepts, all, &error), &error);
            free(all);
            continue;
        }
        if (i % 97 == 96) { /* a copy of an earlier record */
            size_t from = (size_t)parac_rng_below(&rng, i);
            size_t size = fca_record_decode(&concepts->format, concepts->intents + from * concepts->format.words, copied);
            CHECK_OK(fca_concepts_append_ids(concepts, copied, size, &error), &error);
            continue;
        }
        for (uint32_t id = (uint32_t)parac_rng_below(&rng, 4); id < ATTRIBUTES && count < 10;
             id += 1 + (uint32_t)parac_rng_below(&rng, count < 3 ? 3 : 400))
            ids[count++] = id;
        CHECK_OK(fca_concepts_append_ids(concepts, ids, count, &error), &error);
    }
    free(copied);
}

/* The same records appended to packed stores (each its own length), some handed over as parts:
 * sorted, the whole records must be qsort's. */
static void check_packed(const parac_fca_concepts *unsorted, const parac_fca_concepts *reference, const char *label)
{
    const fca_record_format *format = &unsorted->format;
    size_t bytes = reference->count * format->words * sizeof(parac_word);
    uint32_t *ids = malloc((format->attributes + 1) * sizeof *ids);
    parac_error error;
    for (int threads = 1; threads <= 4; threads += 3) {
        parac_fca_concepts packed, part;
        fca_concepts_init(&packed, format->attributes, &error);
        fca_concepts_set_format(&packed, format);
        fca_concepts_init(&part, format->attributes, &error);
        fca_concepts_set_format(&part, format);
        for (size_t r = 0; r < unsorted->count; r++) {
            size_t size = fca_record_decode(format, unsorted->intents + r * format->words, ids);
            CHECK_OK(fca_concepts_append_ids(r % 3 ? &packed : &part, ids, size, &error), &error);
            if (r % 20000 == 19999) CHECK_OK(fca_concepts_take(&packed, &part, &error), &error);
        }
        CHECK_OK(fca_concepts_take(&packed, &part, &error), &error);
        CHECK(packed.packed && packed.part_count > 0 && fca_concepts_total(&packed) == reference->count,
              "%s: a packed store with parts (%zu parts, %zu records)", label, packed.part_count,
              fca_concepts_total(&packed));
        /* a record as long as the longest row takes one word more packed (its 0); most are far shorter */
        CHECK(packed.used < packed.count * (format->words + 1),
              "%s: %zu packed records take %zu words, whole ones %zu", label, packed.count, packed.used,
              packed.count * format->words);
        CHECK_OK(fca_concepts_sort(&packed, threads, &error), &error);
        CHECK(!packed.packed && packed.count == reference->count &&
                  memcmp(packed.intents, reference->intents, bytes) == 0,
              "%s: packed, %d threads: sorted otherwise than qsort", label, threads);
        fca_concepts_release(&packed);
        fca_concepts_release(&part);
    }
    free(ids);
}

static void check_format(fca_record_format format, const char *label)
{
    parac_fca_concepts reference, sorted;
    parac_error error;
    size_t bytes;
    fca_concepts_init(&reference, ATTRIBUTES, &error);
    reference.format = format;
    fill(&reference, 5);
    bytes = reference.count * format.words * sizeof(parac_word);
    sorted_format = &reference.format;
    CHECK(reference.count == RECORDS, "%s: %zu records", label, reference.count);
    fca_concepts_init(&sorted, ATTRIBUTES, &error);
    sorted.format = format;
    sorted.intents = malloc(bytes);
    memcpy(sorted.intents, reference.intents, bytes);
    sorted.count = reference.count;
    sorted.used = sorted.capacity = reference.count * format.words;
    qsort(reference.intents, reference.count, format.words * sizeof(parac_word), by_record);
    for (int threads = 1; threads <= 8; threads++) {
        parac_fca_concepts copy = sorted;
        copy.intents = malloc(bytes);
        memcpy(copy.intents, sorted.intents, bytes);
        CHECK_OK(fca_concepts_sort(&copy, threads, &error), &error);
        CHECK(memcmp(copy.intents, reference.intents, bytes) == 0, "%s: %d threads sort otherwise than qsort", label,
              threads);
        free(copy.intents);
    }
    if (format.ids) check_packed(&sorted, &reference, label);
    fca_concepts_release(&reference);
    fca_concepts_release(&sorted);
}

int main(void)
{
    check_format(fca_record_format_for(ATTRIBUTES, 10), "id records");
    check_format(fca_record_format_for(ATTRIBUTES, ATTRIBUTES), "bitsets");
    return test_finish("fca.concept_sort");
}
