/* tests/fca/test_lattice.c — covering edges (Lindig) against the naive
 * definition (c covers k when k ⊂ c and no intent lies strictly between). */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

static uint64_t intent_mask(const parac_fca_concepts *concepts, size_t c)
{
    uint32_t ids[64];
    uint64_t mask = 0;
    size_t size = parac_fca_concept_intent(concepts, c, ids, 64);
    for (size_t i = 0; i < size; i++) mask |= (uint64_t)1 << ids[i];
    return mask;
}

static int strictly_inside(uint64_t small, uint64_t big) { return small != big && (small & ~big) == 0; }

static size_t naive_edges(const uint64_t *masks, size_t n, char *is_edge)
{
    size_t count = 0;
    for (size_t u = 0; u < n; u++)
        for (size_t l = 0; l < n; l++) {
            int covers = strictly_inside(masks[u], masks[l]);
            for (size_t m = 0; m < n && covers; m++)
                if (strictly_inside(masks[u], masks[m]) && strictly_inside(masks[m], masks[l])) covers = 0;
            is_edge[u * n + l] = (char)covers;
            count += (size_t)covers;
        }
    return count;
}

static void check_context(size_t objects, size_t attributes, double density, uint64_t seed, uint64_t min_support)
{
    parac_fca_context *context = fca_test_random_context(objects, attributes, density, seed);
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, min_support);
    parac_fca_lattice *lattice = NULL;
    parac_error error;
    size_t n = parac_fca_concepts_size(concepts), wrong = 0;
    uint64_t *masks = malloc((n + 1) * sizeof *masks);
    char *is_edge = calloc(n * n + 1, 1);
    CHECK_OK(parac_fca_lattice_create(context, concepts, min_support, &lattice, &error), &error);
    for (size_t c = 0; c < n; c++) masks[c] = intent_mask(concepts, c);
    if (lattice) {
        size_t expected = naive_edges(masks, n, is_edge);
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
    free(masks);
    free(is_edge);
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
    return test_finish("fca.lattice");
}
