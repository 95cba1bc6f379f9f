/* tests/fca/support_fca.c — random contexts with awkward rows, and comparisons. */
#include "support_fca.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "test_util.h"

parac_fca_context *fca_test_random_context(size_t objects, size_t attributes, double density, uint64_t seed)
{
    uint8_t *cells = calloc(objects * attributes + 1, 1);
    parac_rng rng;
    parac_fca_context *context = NULL;
    parac_error error;
    parac_rng_seed(&rng, seed);
    for (size_t o = 0; o < objects; o++) {
        uint64_t kind = parac_rng_below(&rng, 10);
        for (size_t a = 0; a < attributes; a++) {
            if (kind == 0) cells[o * attributes + a] = 0;                                     /* empty row */
            else if (kind == 1 && o > 0) cells[o * attributes + a] = cells[(o - 1) * attributes + a]; /* duplicate */
            else cells[o * attributes + a] = parac_rng_uniform(&rng) < density;
        }
    }
    if (attributes > 2) /* one empty and one full column */
        for (size_t o = 0; o < objects; o++) cells[o * attributes + attributes / 2] = 0, cells[o * attributes + 1] = 1;
    if (parac_fca_context_create(objects, attributes, cells, &context, &error) != PARAC_OK) {
        CHECK(0, "context create: %s", error.message);
        context = NULL;
    }
    free(cells);
    return context;
}

parac_fca_concepts *fca_test_compute(const parac_fca_context *context, parac_device device, int threads,
                                     uint64_t min_support)
{
    parac_fca_options options;
    parac_fca_concepts *concepts = NULL;
    parac_error error = {0};
    memset(&options, 0, sizeof options);
    options.exec.device = device;
    options.exec.threads = threads;
    options.min_support = min_support;
    if (parac_fca_compute(context, &options, &concepts, &error) != PARAC_OK) {
        CHECK(0, "compute (device %d, %d threads): %s", (int)device, threads, error.message);
        return NULL;
    }
    return concepts;
}

int fca_test_same_concepts(const parac_fca_concepts *a, const parac_fca_concepts *b)
{
    size_t count = parac_fca_concepts_size(a);
    uint32_t ids_a[1024], ids_b[1024];
    if (!a || !b || count != parac_fca_concepts_size(b)) return 0;
    for (size_t c = 0; c < count; c++) {
        size_t size_a = parac_fca_concept_intent(a, c, ids_a, 1024), size_b = parac_fca_concept_intent(b, c, ids_b, 1024);
        if (size_a != size_b || memcmp(ids_a, ids_b, (size_a < 1024 ? size_a : 1024) * sizeof *ids_a)) return 0;
    }
    return 1;
}

parac_fca_context *fca_test_read_shared(const char *name)
{
    char path[1024];
    parac_fca_context *context = NULL;
    parac_error error;
    snprintf(path, sizeof path, "%s/fca/%s", test_data_dir(), name);
    CHECK_OK(parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, &error), &error);
    return context;
}
