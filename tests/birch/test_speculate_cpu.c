/* tests/birch/test_speculate_cpu.c — the SIMD speculative descents (AVX2,
 * AVX-512) against the scalar one, bit for bit: leaf slots and runner-up
 * bounds, on trees of every branching factor from 2 to 70 (every tail length
 * of the 4- and 8-entry steps), on points that tie exactly between entries
 * (entries on an integer grid, queries at half-integers), on duplicated
 * points, on ranges that do not start or end on a SIMD width, and on an
 * empty tree. ISAs this CPU lacks are reported, not compared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_tree.h"
#include "birch/speculate_cpu.h"
#include "birch/speculative.h"
#include "core/rng.h"
#include "test_util.h"

static const char *isa_name(birch_descent_isa isa)
{
    return isa == BIRCH_DESCENT_AVX512 ? "avx512" : isa == BIRCH_DESCENT_AVX2 ? "avx2" : "scalar";
}

/* Runs every available form on points [begin, end) and compares each with the scalar form. */
static int compare_forms(const char *name, const birch_tree *tree, const double *points, size_t n, size_t begin,
                         size_t end)
{
    size_t height = birch_tree_height(tree), levels = height ? height : 1;
    int32_t *scalar_slot = calloc(n, sizeof *scalar_slot), *slot = calloc(n, sizeof *slot);
    double *scalar_bound = calloc(n * levels, sizeof *scalar_bound), *bound = calloc(n * levels, sizeof *bound);
    int compared = 0;
    birch_speculate_range(BIRCH_DESCENT_SCALAR, tree, points, n, begin, end, scalar_slot, scalar_bound);
    for (int isa = BIRCH_DESCENT_AVX2; isa <= BIRCH_DESCENT_AVX512; isa++) {
        size_t slot_mismatch = 0, bound_mismatch = 0;
        if (!birch_descent_isa_available((birch_descent_isa)isa)) continue;
        memset(slot, 0, n * sizeof *slot), memset(bound, 0, n * levels * sizeof *bound);
        birch_speculate_range((birch_descent_isa)isa, tree, points, n, begin, end, slot, bound);
        for (size_t i = begin; i < end; i++) {
            slot_mismatch += slot[i] != scalar_slot[i];
            for (size_t l = 0; l < height; l++)
                bound_mismatch += memcmp(&bound[l * n + i], &scalar_bound[l * n + i], sizeof(double)) != 0;
        }
        CHECK(slot_mismatch == 0 && bound_mismatch == 0, "%s, %s: %zu slots and %zu bounds differ from scalar", name,
              isa_name((birch_descent_isa)isa), slot_mismatch, bound_mismatch);
        compared++;
    }
    free(scalar_slot), free(slot), free(scalar_bound), free(bound);
    return compared;
}

static void fill_tree(birch_tree *tree, const double *points, size_t n)
{
    parac_error error;
    for (size_t i = 0; i < n; i++) CHECK_OK(birch_tree_insert(tree, points + 2 * i, 1, &error), &error);
}

/* Clustered random points (with every 7th point a duplicate of an earlier one). */
static void random_points(parac_rng *rng, double *points, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int c = (int)parac_rng_below(rng, 12);
        if (i > 0 && i % 7 == 0) {
            size_t j = (size_t)parac_rng_below(rng, i);
            points[2 * i] = points[2 * j], points[2 * i + 1] = points[2 * j + 1];
            continue;
        }
        points[2 * i] = 3.0 * c + 0.8 * parac_rng_normal(rng);
        points[2 * i + 1] = -2.0 * c + 0.8 * parac_rng_normal(rng);
    }
}

static void test_random_trees(void)
{
    parac_rng rng;
    size_t n = 3000, compared = 0;
    double *points = malloc(2 * n * sizeof *points), *queries = malloc(2 * n * sizeof *queries);
    parac_rng_seed(&rng, 20261201);
    for (int branching = 2; branching <= 70; branching++) {
        birch_tree tree;
        parac_error error;
        char name[64];
        double threshold = branching % 3 == 0 ? 0.05 : 0.4;
        random_points(&rng, points, n);
        random_points(&rng, queries, n);
        CHECK_OK(birch_tree_init(&tree, 2, branching, threshold, &error), &error);
        fill_tree(&tree, points, n);
        snprintf(name, sizeof name, "branching %d, inserted points", branching);
        compared += compare_forms(name, &tree, points, n, 0, n);
        snprintf(name, sizeof name, "branching %d, fresh points, range [13, %zu)", branching, n - 5);
        compared += compare_forms(name, &tree, queries, n, 13, n - 5);
        birch_tree_free(&tree);
    }
    printf("random trees: %zu SIMD comparisons\n", compared);
    free(points), free(queries);
}

/* Entries on an integer grid (threshold tiny: one subcluster per point) and
 * queries at half-integers: two to four entries at exactly the same distance,
 * in different lanes and in different 4- and 8-entry steps. */
static void test_exact_ties(void)
{
    int side = 9;
    size_t n = (size_t)side * (size_t)side, queries_n = 4 * n;
    double *grid = malloc(2 * n * sizeof *grid), *queries = malloc(2 * queries_n * sizeof *queries);
    size_t q = 0, compared = 0;
    for (int a = 0; a < side; a++)
        for (int b = 0; b < side; b++) {
            size_t i = (size_t)(a * side + b);
            grid[2 * i] = a, grid[2 * i + 1] = (b * 7) % side; /* scrambled order: ties land in any lanes */
            queries[2 * q] = a + 0.5, queries[2 * q + 1] = b, q++;
            queries[2 * q] = a, queries[2 * q + 1] = b + 0.5, q++;
            queries[2 * q] = a + 0.5, queries[2 * q + 1] = b + 0.5, q++;
            queries[2 * q] = a, queries[2 * q + 1] = b, q++; /* on an entry: runner-up at distance 1, often tied */
        }
    for (int branching = 3; branching <= 90; branching += 29) {
        birch_tree tree;
        parac_error error;
        char name[64];
        CHECK_OK(birch_tree_init(&tree, 2, branching, 1e-3, &error), &error);
        fill_tree(&tree, grid, n);
        snprintf(name, sizeof name, "grid ties, branching %d", branching);
        compared += compare_forms(name, &tree, queries, queries_n, 0, queries_n);
        birch_tree_free(&tree);
    }
    printf("exact ties: %zu SIMD comparisons\n", compared);
    free(grid), free(queries);
}

static void test_empty_tree(void)
{
    birch_tree tree;
    parac_error error;
    const double points[] = {1.0, 2.0, 3.0, 4.0};
    CHECK_OK(birch_tree_init(&tree, 2, 50, 0.5, &error), &error);
    for (int isa = BIRCH_DESCENT_SCALAR; isa <= BIRCH_DESCENT_AVX512; isa++) {
        int32_t slot[2] = {7, 7};
        double bound[2] = {0, 0};
        if (!birch_descent_isa_available((birch_descent_isa)isa)) continue;
        birch_speculate_range((birch_descent_isa)isa, &tree, points, 2, 0, 2, slot, bound);
        CHECK(slot[0] == -1 && slot[1] == -1, "%s: empty tree gives slots %d %d", isa_name((birch_descent_isa)isa),
              slot[0], slot[1]);
    }
    birch_tree_free(&tree);
}

int main(void)
{
    for (int isa = BIRCH_DESCENT_AVX2; isa <= BIRCH_DESCENT_AVX512; isa++)
        printf("%s: %s\n", isa_name((birch_descent_isa)isa),
               birch_descent_isa_available((birch_descent_isa)isa) ? "compared" : "not on this CPU");
    printf("speculator's choice: %s\n", isa_name(birch_descent_best_isa()));
    test_random_trees();
    test_exact_ties();
    test_empty_tree();
    return test_finish("birch.speculate_cpu");
}
