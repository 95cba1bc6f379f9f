/* tests/csp/test_network.c — the constraint-network builder (ac/network.c):
 * layout of value ids, binary merge by AND (with transposition), x = x to unary,
 * tables canonicalised and reduced when a variable repeats, counts. */
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

int main(void)
{
    test_layout_and_merge();
    test_unary_and_tables();
    test_many_scopes();
    return test_finish("csp.network");
}
