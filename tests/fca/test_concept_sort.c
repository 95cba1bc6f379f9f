/* tests/fca/test_concept_sort.c — fca_concepts_sort (concept_sort.c) against qsort by the same
 * comparison, on 1-8 threads, for both record formats: enough records that the chunk sorts and
 * every merge level run in parallel and the top merges are cut into pieces (merge path co-ranks),
 * with records that share long prefixes, repeat (ties keep their order: equal bytes anyway) and
 * include every attribute. The bytes must not depend on the thread count. */
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
    sorted.count = sorted.capacity = reference.count;
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
    fca_concepts_release(&reference);
    fca_concepts_release(&sorted);
}

int main(void)
{
    check_format(fca_record_format_for(ATTRIBUTES, 10), "id records");
    check_format(fca_record_format_for(ATTRIBUTES, ATTRIBUTES), "bitsets");
    return test_finish("fca.concept_sort");
}
