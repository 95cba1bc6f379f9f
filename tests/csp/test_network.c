/* tests/csp/test_network.c — the constraint-network builder (ac/network.c):
 * layout of value ids, binary merge by AND (with transposition), x = x to unary,
 * tables canonicalised and reduced when a variable repeats, tables over the same variables
 * in any order merged by intersection, counts. */
#include <stdlib.h>
#include <string.h>

#include "ac/network.h"
#include "test_util.h"

static void add_range_variable(parac_csp_network *network, const char *name, int64_t low, uint32_t count)
{
    int64_t values[128];
    parac_error error;
    uint32_t index;
    for (uint32_t i = 0; i < count; i++) values[i] = low + i;
    CHECK_OK(parac_csp_add_variable(network, name, values, count, &index, &error), &error);
}

static int allowed(const parac_csp_constraint *constraint, uint32_t a, uint32_t b)
{
    return parac_bitset_test(constraint->matrix + (size_t)a * constraint->row_words, b);
}

static void test_layout_and_merge(void)
{
    parac_csp_network network;
    parac_error error;
    parac_word less[3], greater_or_equal_yx[4];
    CHECK_OK(parac_csp_network_init(&network, &error), &error);
    add_range_variable(&network, "x", 0, 3);  /* 0..2 */
    add_range_variable(&network, "y", 10, 4); /* 10..13 */
    add_range_variable(&network, "z", 5, 70); /* two words per row */
    CHECK_OK(parac_csp_finish_variables(&network, &error), &error);
    CHECK_EQ_INT(network.value_count, 77);
    CHECK_EQ_INT(network.value_offset[1], 3);
    CHECK_EQ_INT(network.value_offset[3], 77);
    CHECK_EQ_INT(network.values[3], 10);
    CHECK_EQ_INT(parac_bitset_popcount(network.present, parac_bitset_words(77)), 77);
    /* x slot a < y slot b */
    for (int a = 0; a < 3; a++) {
        less[a] = 0;
        for (int b = 0; b < 4; b++)
            if (a < b) less[a] |= (parac_word)1 << b;
    }
    CHECK_OK(parac_csp_add_binary(&network, 0, 1, less, &error), &error);
    /* given as (y, x): slot of y >= slot of x + 2, i.e. b >= a + 2 -> merged as AND, transposed */
    for (int b = 0; b < 4; b++) {
        greater_or_equal_yx[b] = 0;
        for (int a = 0; a < 3; a++)
            if (b >= a + 2) greater_or_equal_yx[b] |= (parac_word)1 << a;
    }
    CHECK_OK(parac_csp_add_binary(&network, 1, 0, greater_or_equal_yx, &error), &error);
    CHECK_EQ_INT(network.constraint_count, 1);
    CHECK_EQ_INT(network.constraints[0].scope[0], 0);
    CHECK_EQ_INT(network.constraints[0].scope[1], 1);
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 4; b++) CHECK_EQ_INT(allowed(&network.constraints[0], a, b), b >= a + 2);
    CHECK_EQ_INT(parac_csp_binary_count(&network), 1);
    CHECK_EQ_INT(parac_csp_edge_count(&network), 12);
    parac_csp_network_free(&network);
}

static void test_unary_and_tables(void)
{
    parac_csp_network network;
    parac_error error;
    parac_word diagonal[3] = {1u << 0, 0, 1u << 2}; /* x = x keeps slots 0 and 2 only */
    uint32_t scope3[3] = {0, 1, 2}, tuples3[9] = {2, 1, 0, 0, 0, 1, 2, 1, 0};
    uint32_t scope_repeat[3] = {0, 1, 0}, tuples_repeat[6] = {1, 2, 1, 1, 0, 2};
    CHECK_OK(parac_csp_network_init(&network, &error), &error);
    add_range_variable(&network, "a", 0, 3);
    add_range_variable(&network, "b", 0, 3);
    add_range_variable(&network, "c", 0, 3);
    CHECK_OK(parac_csp_finish_variables(&network, &error), &error);
    CHECK_OK(parac_csp_add_binary(&network, 0, 0, diagonal, &error), &error);
    CHECK_EQ_INT(network.constraint_count, 0);
    CHECK(!parac_bitset_test(network.present, 1) && parac_bitset_test(network.present, 2));
    CHECK_OK(parac_csp_add_table(&network, 3, scope3, tuples3, 3, &error), &error);
    CHECK_EQ_INT(network.constraint_count, 1);
    CHECK_EQ_INT(network.constraints[0].tuple_count, 2); /* duplicate removed */
    CHECK(memcmp(network.constraints[0].tuples, (uint32_t[]){0, 0, 1, 2, 1, 0}, 6 * sizeof(uint32_t)) == 0);
    /* (a, b, a): only (1,2,1) keeps a consistent -> binary a-b allowing (1,2) */
    CHECK_OK(parac_csp_add_table(&network, 3, scope_repeat, tuples_repeat, 2, &error), &error);
    CHECK_EQ_INT(network.constraint_count, 2);
    CHECK_EQ_INT(network.constraints[1].arity, 2);
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 3; b++) CHECK_EQ_INT(allowed(&network.constraints[1], a, b), a == 1 && b == 2);
    CHECK_OK(parac_csp_note_dropped(&network, "allDifferent at line 4", &error), &error);
    CHECK_EQ_INT(network.dropped_count, 1);
    CHECK(parac_csp_add_table(&network, 3, (uint32_t[]){0, 1, 7}, tuples3, 1, &error) != PARAC_OK);
    parac_csp_network_free(&network);
}

static void test_many_scopes(void)
{
    parac_csp_network network;
    parac_error error;
    parac_word full[2] = {3, 3}, one[2] = {1, 0};
    CHECK_OK(parac_csp_network_init(&network, &error), &error);
    for (int i = 0; i < 300; i++) add_range_variable(&network, "v", 0, 2);
    CHECK_OK(parac_csp_finish_variables(&network, &error), &error);
    for (uint32_t i = 0; i < 300; i++)
        for (uint32_t j = i + 1; j < 300; j += 7) CHECK_OK(parac_csp_add_binary(&network, j, i, full, &error), &error);
    size_t count = network.constraint_count;
    for (uint32_t i = 0; i < 300; i++)
        for (uint32_t j = i + 1; j < 300; j += 7) CHECK_OK(parac_csp_add_binary(&network, i, j, one, &error), &error);
    CHECK_EQ_INT(network.constraint_count, count);
    int all_one = 1;
    for (size_t c = 0; c < network.constraint_count; c++)
        all_one &= network.constraints[c].matrix[0] == 1 && network.constraints[c].matrix[1] == 0;
    CHECK(all_one, "merged matrices are the AND of both");
    parac_csp_network_free(&network);
}

/* Allowed under a random relation over (a, b, c) values, as a reference for the merge test. */
static int relation_allows(uint32_t relation, uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t h = ((uint64_t)relation * 0x9E3779B97F4A7C15ULL) ^ (a * 131u + b * 17u + c);
    h *= 0xff51afd7ed558ccdULL;
    return (h >> 61) != 0; /* 7 in 8 */
}

/* Tables over {0, 1, 2} given in all six orders (and once with a repeated variable) merge into one
 * table over the sorted scope whose tuples are exactly those every relation allows. */
static void test_table_merge_permuted(void)
{
    static const uint32_t orders[6][3] = {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    uint32_t sizes[3] = {3, 4, 5}, tuples[4 * 60], repeated[4 * 60];
    parac_csp_network network;
    parac_error error;
    CHECK_OK(parac_csp_network_init(&network, &error), &error);
    for (int v = 0; v < 3; v++) add_range_variable(&network, "v", 0, sizes[v]);
    CHECK_OK(parac_csp_finish_variables(&network, &error), &error);
    for (uint32_t r = 0; r < 6; r++) {
        const uint32_t *order = orders[r];
        size_t count = 0, rcount = 0;
        for (uint32_t a = 0; a < 3; a++)
            for (uint32_t b = 0; b < 4; b++)
                for (uint32_t c = 0; c < 5; c++) {
                    uint32_t slot[3] = {a, b, c};
                    if (!relation_allows(r, a, b, c)) continue;
                    for (int k = 0; k < 3; k++) tuples[3 * count + k] = slot[order[k]];
                    count++;
                    /* the same relation over (order0, order1, order0, order2): repeated column agrees */
                    repeated[4 * rcount] = slot[order[0]], repeated[4 * rcount + 1] = slot[order[1]];
                    repeated[4 * rcount + 2] = slot[order[0]], repeated[4 * rcount + 3] = slot[order[2]];
                    rcount++;
                }
        CHECK_OK(parac_csp_add_table(&network, 3, order, tuples, count, &error), &error);
        if (r == 3) {
            uint32_t scope4[4] = {order[0], order[1], order[0], order[2]};
            CHECK_OK(parac_csp_add_table(&network, 4, scope4, repeated, rcount, &error), &error);
        }
    }
    CHECK_EQ_INT(network.constraint_count, 1);
    const parac_csp_constraint *t = &network.constraints[0];
    CHECK(t->scope[0] == 0 && t->scope[1] == 1 && t->scope[2] == 2, "sorted scope");
    size_t expected = 0, found = 0;
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 4; b++)
            for (uint32_t c = 0; c < 5; c++) {
                int all = 1;
                for (uint32_t r = 0; r < 6; r++) all &= relation_allows(r, a, b, c);
                if (!all) continue;
                expected++;
                for (size_t i = 0; i < t->tuple_count; i++)
                    found += t->tuples[3 * i] == a && t->tuples[3 * i + 1] == b && t->tuples[3 * i + 2] == c;
            }
    CHECK(expected > 0 && expected < 60, "the test relations leave some but not all tuples (%zu)", expected);
    CHECK_EQ_INT(t->tuple_count, expected);
    CHECK_EQ_INT(found, expected);
    int sorted = 1;
    for (size_t i = 1; i < t->tuple_count; i++) {
        const uint32_t *p = t->tuples + 3 * (i - 1), *q = t->tuples + 3 * i;
        sorted &= p[0] < q[0] || (p[0] == q[0] && (p[1] < q[1] || (p[1] == q[1] && p[2] < q[2])));
    }
    CHECK(sorted, "tuples sorted and distinct");
    parac_csp_network_free(&network);
}

/* Many tables over distinct scopes (the index grows) and each added twice: still one per scope. */
static void test_many_table_scopes(void)
{
    parac_csp_network network;
    parac_error error;
    uint32_t all[8 * 3], one[3] = {1, 0, 1};
    parac_word full[2] = {3, 3};
    size_t n = 0;
    for (uint32_t a = 0; a < 2; a++)
        for (uint32_t b = 0; b < 2; b++)
            for (uint32_t c = 0; c < 2; c++) all[n * 3] = a, all[n * 3 + 1] = b, all[n * 3 + 2] = c, n++;
    CHECK_OK(parac_csp_network_init(&network, &error), &error);
    for (int i = 0; i < 60; i++) add_range_variable(&network, "v", 0, 2);
    CHECK_OK(parac_csp_finish_variables(&network, &error), &error);
    for (uint32_t i = 0; i + 2 < 60; i++)
        for (uint32_t j = i + 1; j + 1 < 60; j += 5)
            CHECK_OK(parac_csp_add_table(&network, 3, (uint32_t[]){j + 1, i, j}, all, 8, &error), &error);
    /* binary constraints in between: the pair index grows and must not lose the table index */
    for (uint32_t i = 0; i + 1 < 60; i++) CHECK_OK(parac_csp_add_binary(&network, i, i + 1, full, &error), &error);
    size_t count = network.constraint_count;
    for (uint32_t i = 0; i + 2 < 60; i++)
        for (uint32_t j = i + 1; j + 1 < 60; j += 5)
            CHECK_OK(parac_csp_add_table(&network, 3, (uint32_t[]){j, j + 1, i}, one, 1, &error), &error);
    CHECK_EQ_INT(network.constraint_count, count);
    int all_one = count > 300;
    for (size_t c = 0; c < network.constraint_count; c++) {
        const parac_csp_constraint *t = &network.constraints[c];
        if (t->arity == 2) continue;
        /* (j=1, j+1=0, i=1) in sorted order (i, j, j+1) is (1, 1, 0) */
        all_one &= t->tuple_count == 1 && t->tuples[0] == 1 && t->tuples[1] == 1 && t->tuples[2] == 0;
    }
    CHECK(all_one, "every merged table keeps only the one tuple (%zu tables)", count);
    parac_csp_network_free(&network);
}

int main(void)
{
    test_layout_and_merge();
    test_unary_and_tables();
    test_many_scopes();
    test_table_merge_permuted();
    test_many_table_scopes();
    return test_finish("csp.network");
}
