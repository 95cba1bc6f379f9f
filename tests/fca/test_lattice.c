/* tests/fca/test_lattice.c — covering edges (Lindig) against the naive definition (c covers k when
 * k ⊂ c and no intent lies strictly between), on narrow dense, wide sparse and nested-row contexts;
 * and the cells' test (lattice_cells.c) against the bit matrices' on every concept. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "fca/concept_stream.h"
#include "fca/fca_internal.h"
#include "support_fca.h"
#include "test_util.h"

/* ids of intent c as a bitset of `words` words (wide contexts: more than 64 attributes). */
static void intent_bits(const parac_fca_concepts *concepts, size_t c, uint32_t *ids, size_t attributes,
                        uint64_t *bits, size_t words)
{
    size_t size = parac_fca_concept_intent(concepts, c, ids, attributes);
    memset(bits, 0, words * sizeof *bits);
    for (size_t i = 0; i < size; i++) bits[ids[i] / 64] |= (uint64_t)1 << (ids[i] % 64);
}

static int inside_bits(const uint64_t *small, const uint64_t *big, size_t words)
{
    int equal = 1;
    for (size_t w = 0; w < words; w++) {
        if (small[w] & ~big[w]) return 0;
        equal &= small[w] == big[w];
    }
    return !equal;
}

/* The covering edges of the context's concepts (consumed) against the naive definition (c covers k
 * when k ⊂ c and no intent lies strictly between), on intents as bitsets of any width. Wide sparse
 * contexts (far more attributes than any row holds) take the test's other ways: only the attributes
 * the extent's rows hold are candidates, and the concept with an empty extent must be a lower cover
 * exactly of the concepts no attribute leads below otherwise. */
static void check_against_naive(parac_fca_context *context, uint64_t seed, uint64_t min_support)
{
    size_t attributes = parac_fca_context_attributes(context);
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, min_support);
    parac_fca_lattice *lattice = NULL;
    parac_error error;
    size_t n = parac_fca_concepts_size(concepts), words = (attributes + 63) / 64, expected = 0, wrong = 0;
    uint64_t *bits = malloc((n + 1) * words * sizeof *bits);
    uint32_t *ids = malloc((attributes + 1) * sizeof *ids);
    char *is_edge = calloc(n * n + 1, 1);
    for (size_t c = 0; c < n; c++) intent_bits(concepts, c, ids, attributes, bits + c * words, words);
    for (size_t u = 0; u < n; u++)
        for (size_t l = 0; l < n; l++) {
            int covers = inside_bits(bits + u * words, bits + l * words, words);
            for (size_t m = 0; m < n && covers; m++)
                if (inside_bits(bits + u * words, bits + m * words, words) &&
                    inside_bits(bits + m * words, bits + l * words, words))
                    covers = 0;
            is_edge[u * n + l] = (char)covers;
            expected += (size_t)covers;
        }
    CHECK_OK(parac_fca_lattice_create(context, concepts, min_support, &lattice, &error), &error);
    if (lattice) {
        CHECK(parac_fca_lattice_edge_count(lattice) == expected, "seed %llu: %zu edges, naive %zu",
              (unsigned long long)seed, parac_fca_lattice_edge_count(lattice), expected);
        for (size_t e = 0; e < parac_fca_lattice_edge_count(lattice); e++) {
            size_t upper, lower;
            parac_fca_lattice_edge(lattice, e, &upper, &lower);
            wrong += !is_edge[upper * n + lower];
        }
        CHECK(wrong == 0, "seed %llu: %zu edges are not covers", (unsigned long long)seed, wrong);
    }
    parac_fca_lattice_destroy(lattice);
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    free(bits), free(ids), free(is_edge);
}

/* Covers handed to found, as closures one after the other. */
typedef struct cover_trace {
    uint64_t *closures;
    size_t count, capacity, words;
} cover_trace;

static int trace_cover(void *user, const parac_word *closure)
{
    cover_trace *trace = user;
    if (trace->count == trace->capacity) {
        trace->capacity = trace->capacity ? 2 * trace->capacity : 16;
        trace->closures = realloc(trace->closures, trace->capacity * trace->words * sizeof *trace->closures);
    }
    memcpy(trace->closures + trace->count++ * trace->words, closure, trace->words * sizeof *closure);
    return 0;
}

/* The cells' test (lattice_cells.c, which the library takes on contexts with large bit matrices)
 * against the bit matrices' on every concept of the context: the same covers in the same order. */
static void check_cells_against_bits(const parac_fca_context *context, const char *label, uint64_t min_support,
                                     int wide_records)
{
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, min_support);
    fca_cover_scratch bits_scratch, cells_scratch;
    size_t words = context->attribute_words ? context->attribute_words : 1, differ = 0, covers = 0;
    cover_trace by_bits = {NULL, 0, 0, words}, by_cells = {NULL, 0, 0, words};
    parac_error error;
    CHECK(fca_context_bits(context, &error) != NULL && fca_context_columns(context, &error) != NULL, "%s: indexes",
          label);
    CHECK(fca_cover_scratch_init(&bits_scratch, context) == 0, "%s: scratch", label);
    CHECK(fca_cover_scratch_init(&cells_scratch, context) == 0 && fca_cover_cells_init(&cells_scratch.cells, context) == 0,
          "%s: cells scratch", label);
    parac_word *intent = calloc(words + 1, sizeof *intent);
    /* parac_fca_compute keeps a wide sparse context's intents as short id lists (fca_record_format_for):
     * the lattice then decodes each and looks covers up by their records */
    if (wide_records)
        CHECK(concepts && concepts->format.ids != 0 && concepts->format.words < words, "%s: records of %zu words, bitsets %zu",
              label, concepts ? concepts->format.words : 0, words);
    for (size_t c = 0; concepts && c < concepts->count; c++) {
        fca_record_bitset(&concepts->format, concepts->intents + c * concepts->format.words, intent);
        by_bits.count = by_cells.count = 0;
        CHECK(fca_lower_covers(context, intent, min_support, &bits_scratch, trace_cover, &by_bits) == 0, "bits");
        CHECK(fca_lower_covers_cells(context, intent, min_support, &cells_scratch, trace_cover, &by_cells) == 0,
              "cells");
        covers += by_bits.count;
        differ += by_bits.count != by_cells.count ||
                  (by_bits.count && /* no covers: nothing stored, no buffer to compare */
                   memcmp(by_bits.closures, by_cells.closures, by_bits.count * words * sizeof(uint64_t)) != 0);
    }
    CHECK(differ == 0 && covers > 0, "%s (min support %llu): %zu concepts' covers differ (%zu covers)", label,
          (unsigned long long)min_support, differ, covers);
    fca_cover_scratch_free(&bits_scratch);
    fca_cover_scratch_free(&cells_scratch);
    free(by_bits.closures), free(by_cells.closures), free(intent);
    parac_fca_concepts_destroy(concepts);
}

static unsigned next_id(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((*state >> 33) % 1500);
}

/* Chains of nested rows (a base, the base and one more item, and one more again) among random rows
 * over 1,500 items: many concepts with exactly one candidate below them, which is a cover and not
 * the empty extent's concept. */
static parac_fca_context *nested_rows_context(uint64_t seed)
{
    char *text = malloc(1 << 16);
    size_t used = 0;
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    parac_fca_context *context = NULL;
    parac_error error;
    for (int chain = 0; chain < 30; chain++) {
        unsigned base[3], more[2], other[3];
        for (int k = 0; k < 3; k++) base[k] = next_id(&state), other[k] = next_id(&state);
        for (int k = 0; k < 2; k++) more[k] = next_id(&state);
        for (int length = 0; length < 3; length++) {
            used += (size_t)snprintf(text + used, 64, "%u %u %u", base[0], base[1], base[2]);
            for (int k = 0; k < length; k++) used += (size_t)snprintf(text + used, 16, " %u", more[k]);
            text[used++] = '\n';
        }
        used += (size_t)snprintf(text + used, 64, "%u %u %u %u\n", other[0], other[1], other[2], base[0]);
    }
    CHECK_OK(parac_fca_context_read_memory(text, used, "nested.dat", PARAC_FCA_FORMAT_FIMI, &context, &error), &error);
    free(text);
    return context;
}

static void check_context(size_t objects, size_t attributes, double density, uint64_t seed, uint64_t min_support)
{
    check_against_naive(fca_test_random_context(objects, attributes, density, seed), seed, min_support);
}

int main(void)
{
    for (uint64_t seed = 1; seed <= 40; seed++)
        check_context(3 + seed % 17, 2 + seed % 12, 0.15 + 0.05 * (double)(seed % 8), seed, seed % 4 == 0 ? 2 : 0);
    /* many objects, short rows: the covers are counted from the extent's rows and only the attributes
     * those rows hold are candidates (lattice.c, covers_from_touched); the empty extent's concept is
     * a cover exactly where no candidate is left */
    for (uint64_t seed = 1; seed <= 12; seed++)
        check_context(400 + 150 * seed, 30 + 2 * seed, 0.02 + 0.004 * (double)(seed % 5), 100 + seed,
                      seed % 3 == 0 ? 2 : 0);
    for (uint64_t seed = 1; seed <= 8; seed++)
        check_context(60 + 10 * seed, 800 + 200 * seed, 0.006, 300 + seed, seed % 4 == 0 ? 2 : 0);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        parac_fca_context *context = nested_rows_context(seed);
        if (context) check_cells_against_bits(context, "nested rows", seed % 2 == 0 ? 2 : 0, 0);
        if (context) check_against_naive(context, 400 + seed, seed % 2 == 0 ? 2 : 0);
    }
    for (uint64_t seed = 1; seed <= 6; seed++) {
        parac_fca_context *context = fca_test_random_context(100 + 80 * seed, 300 * seed, 0.01, 500 + seed);
        check_cells_against_bits(context, "wide random", seed % 3 == 0 ? 3 : 0, 0);
        parac_fca_context_destroy(context);
    }
    for (uint64_t seed = 1; seed <= 4; seed++) { /* rows of a few among 1,500: the store's short records */
        parac_fca_context *context = fca_test_random_context(200, 1500, 0.003, 600 + seed);
        check_cells_against_bits(context, "wide records", seed % 2 == 0 ? 2 : 0, 1);
        check_against_naive(context, 600 + seed, seed % 2 == 0 ? 2 : 0);
    }
    {
        parac_fca_context *context = fca_test_random_context(150, 60, 0.25, 77); /* dense: long closures */
        check_cells_against_bits(context, "dense random", 0, 0);
        parac_fca_context_destroy(context);
    }
    return test_finish("fca.lattice");
}
