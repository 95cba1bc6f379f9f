/* tests/fca/test_clarify.c — contexts whose attributes repeat each other's columns (few objects, many
 * attributes: at most 2^objects distinct columns). The search takes each group of equal columns as one
 * attribute and writes every member back into the intents (fca_internal.h, fca_search): checked here
 * against brute force over every object subset (the closed extents and their intents), on the dense
 * and sparse searches, 1 and 3 threads, with min_support; and the lattice (Lindig's test closes one
 * member of each group, lattice.c): its edges against the covering relation by brute force. On
 * 2026-12-05 a 10 x 100,000 context took minutes and 6 GB (the N_j rows are attributes x attributes)
 * and its lattice over 30 s; here 8 x 60,000 must end within seconds, concepts and lattice. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "core/rng.h"
#include "core/timer.h"
#include "support_fca.h"
#include "test_util.h"

#define OBJECTS 8

/* cells[o * attributes + a]: `distinct` random columns, each attribute one of them (or empty or full). */
static uint8_t *repeated_columns(size_t attributes, size_t distinct, uint64_t seed)
{
    uint8_t *cells = calloc(OBJECTS * attributes + 1, 1), *columns = calloc(OBJECTS * distinct + 1, 1);
    parac_rng rng;
    parac_rng_seed(&rng, seed);
    for (size_t c = 0; c < distinct; c++)
        for (size_t o = 0; o < OBJECTS; o++) columns[c * OBJECTS + o] = parac_rng_uniform(&rng) < 0.5;
    for (size_t a = 0; a < attributes; a++) {
        uint64_t pick = parac_rng_below(&rng, distinct + 2);
        for (size_t o = 0; o < OBJECTS; o++)
            cells[o * attributes + a] = pick < distinct ? columns[pick * OBJECTS + o] : pick == distinct;
    }
    free(columns);
    return cells;
}

/* Object-set extent of concept c (bit o: object o has every attribute of its intent). */
static unsigned extent_of(const uint8_t *cells, size_t attributes, const parac_fca_concepts *concepts, size_t c,
                          uint32_t *ids)
{
    size_t size = parac_fca_concept_intent(concepts, c, ids, attributes);
    unsigned extent = 0;
    for (unsigned o = 0; o < OBJECTS; o++) {
        int has_all = 1;
        for (size_t i = 0; i < size && has_all; i++) has_all = cells[o * attributes + ids[i]];
        extent |= (unsigned)has_all << o;
    }
    return extent;
}

/* Brute force: for every subset of objects, its intent; the distinct intents of closed extents, and
 * of those with at least min_support objects, counted. Checks each parac intent is one of them. */
static void check_brute_force(const uint8_t *cells, size_t attributes, const parac_fca_concepts *concepts,
                              uint64_t min_support, const char *what)
{
    size_t found = 0, expected = 0;
    uint32_t *ids = malloc((attributes + 1) * sizeof *ids);
    uint8_t *intent = malloc(attributes + 1);
    int closed[1 << OBJECTS] = {0};
    for (unsigned subset = 0; subset < (1u << OBJECTS); subset++) {
        unsigned extent = 0;
        for (size_t a = 0; a < attributes; a++) {
            intent[a] = 1;
            for (unsigned o = 0; o < OBJECTS; o++)
                if ((subset >> o) & 1u) intent[a] &= cells[o * attributes + a];
        }
        for (unsigned o = 0; o < OBJECTS; o++) {
            int has_all = 1;
            for (size_t a = 0; a < attributes && has_all; a++) has_all = !intent[a] || cells[o * attributes + a];
            extent |= (unsigned)has_all << o;
        }
        if (extent == subset && (uint64_t)__builtin_popcount(subset) >= min_support) closed[subset] = 1, expected++;
    }
    for (size_t c = 0; concepts && c < parac_fca_concepts_size(concepts); c++) {
        unsigned extent = extent_of(cells, attributes, concepts, c, ids);
        size_t size = parac_fca_concept_intent(concepts, c, ids, attributes);
        /* the intent must be exactly the extent's common attributes: closed, and every member there */
        size_t common = 0;
        for (size_t a = 0; a < attributes; a++) {
            int all = 1;
            for (unsigned o = 0; o < OBJECTS && all; o++)
                if ((extent >> o) & 1u) all = cells[o * attributes + a];
            common += all;
        }
        found += closed[extent] && common == size;
        closed[extent] = 0; /* each closed extent once */
    }
    CHECK(concepts && found == expected && parac_fca_concepts_size(concepts) == expected,
          "%s: %zu of %zu brute-force concepts found, %zu written", what, found, expected,
          concepts ? parac_fca_concepts_size(concepts) : 0);
    free(ids);
    free(intent);
}

/* The lattice's edges (Lindig's test closes one member of each group of equal columns, lattice.c)
 * against the covering relation by brute force: upper's extent strictly contains lower's with no
 * concept's extent strictly between. */
static void check_lattice(const uint8_t *cells, size_t attributes, const parac_fca_context *context,
                          const parac_fca_concepts *concepts, uint64_t min_support, const char *what)
{
    size_t count = parac_fca_concepts_size(concepts), expected = 0, matched = 0;
    uint32_t *ids = malloc((attributes + 1) * sizeof *ids);
    unsigned *extent = malloc((count + 1) * sizeof *extent);
    parac_fca_lattice *lattice = NULL;
    parac_error error = {0};
    for (size_t c = 0; c < count; c++) extent[c] = extent_of(cells, attributes, concepts, c, ids);
    CHECK_OK(parac_fca_lattice_create(context, concepts, min_support, &lattice, &error), &error);
    for (size_t u = 0; u < count; u++)
        for (size_t l = 0; l < count; l++) {
            int covers = u != l && (extent[l] & ~extent[u]) == 0 && extent[l] != extent[u];
            for (size_t b = 0; b < count && covers; b++)
                covers = !(b != u && b != l && (extent[l] & ~extent[b]) == 0 && (extent[b] & ~extent[u]) == 0 &&
                           extent[b] != extent[l] && extent[b] != extent[u]);
            expected += covers;
            for (size_t e = 0; lattice && covers && e < parac_fca_lattice_edge_count(lattice); e++) {
                size_t upper, lower;
                parac_fca_lattice_edge(lattice, e, &upper, &lower);
                matched += upper == u && lower == l;
            }
        }
    CHECK(lattice && matched == expected && parac_fca_lattice_edge_count(lattice) == expected,
          "%s: lattice has %zu edges, %zu of the %zu covering pairs", what, lattice ? parac_fca_lattice_edge_count(lattice) : 0,
          matched, expected);
    parac_fca_lattice_destroy(lattice);
    free(extent);
    free(ids);
}

static parac_fca_concepts *compute(const parac_fca_context *context, parac_fca_cpu_strategy strategy, int threads,
                                   uint64_t min_support)
{
    parac_fca_options options;
    parac_fca_concepts *concepts = NULL;
    parac_error error = {0};
    parac_fca_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    options.cpu_strategy = strategy;
    options.min_support = min_support;
    CHECK_OK(parac_fca_compute(context, &options, &concepts, &error), &error);
    return concepts;
}

static void check_shape(size_t attributes, size_t distinct, uint64_t seed, uint64_t min_support)
{
    static const parac_fca_cpu_strategy strategies[] = {PARAC_FCA_CPU_ON_DEMAND, PARAC_FCA_CPU_SPARSE};
    uint8_t *cells = repeated_columns(attributes, distinct, seed);
    parac_fca_context *context = NULL;
    parac_fca_concepts *first = NULL;
    parac_error error = {0};
    char what[160];
    CHECK_OK(parac_fca_context_create(OBJECTS, attributes, cells, &context, &error), &error);
    for (size_t s = 0; context && s < 2; s++)
        for (int threads = 1; threads <= 3; threads += 2) {
            double started = parac_now_seconds(), seconds;
            parac_fca_concepts *concepts = compute(context, strategies[s], threads, min_support);
            seconds = parac_now_seconds() - started;
            snprintf(what, sizeof what, "%d x %zu (%zu distinct columns), min_support %llu, %s, %d threads", OBJECTS,
                     attributes, distinct, (unsigned long long)min_support, s ? "sparse" : "dense", threads);
            CHECK(seconds < test_time_limit(10.0), "%s: %.1f s", what, seconds);
            if (!first) {
                check_brute_force(cells, attributes, concepts, min_support, what);
                if (concepts && attributes <= 1000) check_lattice(cells, attributes, context, concepts, min_support, what);
                first = concepts;
                continue;
            }
            CHECK(concepts && fca_test_same_concepts(first, concepts), "%s: not the concepts of the first run", what);
            parac_fca_concepts_destroy(concepts);
        }
    parac_fca_concepts_destroy(first);
    parac_fca_context_destroy(context);
    free(cells);
}

/* The lattice of a wide context of repeated columns within seconds (it took over 30 s on 10 x
 * 100,000, closing every member of every group for each of 1,024 concepts): 8 x 60,000 here. */
static void check_wide_lattice(void)
{
    uint8_t *cells = repeated_columns(60000, 200, 13);
    parac_fca_context *context = NULL;
    parac_fca_concepts *concepts;
    parac_fca_lattice *lattice = NULL;
    parac_error error = {0};
    double started;
    CHECK_OK(parac_fca_context_create(OBJECTS, 60000, cells, &context, &error), &error);
    concepts = context ? compute(context, PARAC_FCA_CPU_AUTO, 0, 0) : NULL;
    started = parac_now_seconds();
    if (concepts) {
        CHECK_OK(parac_fca_lattice_create(context, concepts, 0, &lattice, &error), &error);
        CHECK(parac_now_seconds() - started < test_time_limit(10.0), "8 x 60,000 lattice: %.1f s",
              parac_now_seconds() - started);
        CHECK(lattice && parac_fca_lattice_edge_count(lattice) >= parac_fca_concepts_size(concepts) - 1,
              "8 x 60,000 lattice: %zu edges for %zu concepts (a connected lattice has at least concepts - 1)",
              lattice ? parac_fca_lattice_edge_count(lattice) : 0, parac_fca_concepts_size(concepts));
    }
    parac_fca_lattice_destroy(lattice);
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    free(cells);
}

int main(void)
{
    /* wide: 60,000 attributes over 40 columns (and empty and full ones); the old search's N_j rows
     * alone were 60,000 x 60,000 bits a level */
    check_shape(60000, 40, 11, 0);
    check_shape(60000, 40, 12, 3);
    check_wide_lattice();
    /* small: every attribute its own column or a copy of one, brute force on every shape */
    for (uint64_t seed = 1; seed <= 6; seed++) check_shape(30 + 17 * seed, 3 + 4 * seed, seed, seed % 3);
    /* 20 attributes drawn from 256 random columns: mostly distinct, few groups of two */
    check_shape(20, 256, 7, 0);
    return test_finish("fca.clarify");
}
