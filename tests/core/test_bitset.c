/* tests/core/test_bitset.c — every bitset operation against a plain bool-array model.
 *
 * Sizes straddle word boundaries (0, 1, 63, 64, 65, 127, 128, 130, ...), sets are
 * random with several densities, and after every operation the tail bits past n
 * must still be zero (the invariant popcount and equality rely on).
 */
#include <stdlib.h>
#include <string.h>

#include "core/bitset.h"
#include "core/rng.h"
#include "test_util.h"

#define MAX_BITS 1100
#define MAX_WORDS ((MAX_BITS + 63) / 64)

typedef struct model {
    size_t bits;
    unsigned char value[MAX_BITS];
} model;

static void random_model(parac_rng *rng, model *m, size_t bits, double density)
{
    m->bits = bits;
    for (size_t i = 0; i < bits; i++) m->value[i] = parac_rng_uniform(rng) < density;
}

static void to_bitset(const model *m, parac_word *set)
{
    /* Fill with garbage first so the conversion really goes through set(). */
    parac_bitset_zero(set, MAX_WORDS);
    for (size_t i = 0; i < m->bits; i++)
        if (m->value[i]) parac_bitset_set(set, i);
}

static int matches(const parac_word *set, const model *m)
{
    for (size_t i = 0; i < m->bits; i++)
        if (parac_bitset_test(set, i) != m->value[i]) return 0;
    return 1;
}

static int tail_is_clear(const parac_word *set, size_t bits)
{
    size_t words = parac_bitset_words(bits);
    if (!words) return 1;
    return (set[words - 1] & ~parac_bitset_tail_mask(bits)) == 0;
}

static void check_basics(size_t bits)
{
    parac_word set[MAX_WORDS + 1];
    size_t words = parac_bitset_words(bits);
    CHECK_EQ_INT(words, (bits + 63) / 64);
    set[words] = 0x5a5a5a5a5a5a5a5aULL; /* guard word: fill must not write past the set */
    parac_bitset_fill(set, bits);
    CHECK_EQ_INT(parac_bitset_popcount(set, words), bits);
    CHECK(tail_is_clear(set, bits), "fill left tail bits set for n=%zu", bits);
    CHECK(set[words] == 0x5a5a5a5a5a5a5a5aULL, "fill wrote past the last word for n=%zu", bits);
    for (size_t i = 0; i < bits; i++) CHECK(parac_bitset_test(set, i), "bit %zu not filled", i);
    CHECK(parac_bitset_is_empty(set, words) == (bits == 0));
    parac_bitset_zero(set, words);
    CHECK(parac_bitset_is_empty(set, words));
    CHECK_EQ_INT(parac_bitset_next(set, bits, 0), bits);
}

static void check_set_clear(parac_rng *rng, size_t bits)
{
    parac_word set[MAX_WORDS] = {0};
    model m;
    random_model(rng, &m, bits, 0.5);
    to_bitset(&m, set);
    CHECK(matches(set, &m), "set/test disagree with the model, n=%zu", bits);
    for (size_t k = 0; k < bits; k++) {
        size_t i = (size_t)parac_rng_below(rng, bits);
        if (parac_rng_below(rng, 2)) {
            parac_bitset_set(set, i);
            m.value[i] = 1;
        } else {
            parac_bitset_clear_bit(set, i);
            m.value[i] = 0;
        }
    }
    CHECK(matches(set, &m), "set/clear sequence disagrees with the model, n=%zu", bits);
    CHECK(tail_is_clear(set, bits));
}

static void check_binary_ops(parac_rng *rng, size_t bits, double density_a, double density_b)
{
    parac_word a[MAX_WORDS] = {0}, b[MAX_WORDS] = {0}, out[MAX_WORDS] = {0};
    model ma, mb, expect;
    size_t words = parac_bitset_words(bits), pop = 0;
    int subset = 1, equal = 1, empty = 1;
    random_model(rng, &ma, bits, density_a);
    random_model(rng, &mb, bits, density_b);
    to_bitset(&ma, a);
    to_bitset(&mb, b);
    expect.bits = bits;

    for (size_t i = 0; i < bits; i++) expect.value[i] = ma.value[i] && mb.value[i];
    parac_bitset_and(out, a, b, words);
    CHECK(matches(out, &expect) && tail_is_clear(out, bits), "and, n=%zu", bits);

    for (size_t i = 0; i < bits; i++) expect.value[i] = ma.value[i] || mb.value[i];
    parac_bitset_or(out, a, b, words);
    CHECK(matches(out, &expect) && tail_is_clear(out, bits), "or, n=%zu", bits);

    for (size_t i = 0; i < bits; i++) expect.value[i] = ma.value[i] && !mb.value[i];
    parac_bitset_andnot(out, a, b, words);
    CHECK(matches(out, &expect) && tail_is_clear(out, bits), "andnot, n=%zu", bits);

    parac_bitset_copy(out, a, words);
    CHECK(matches(out, &ma), "copy, n=%zu", bits);

    for (size_t i = 0; i < bits; i++) {
        if (ma.value[i] && !mb.value[i]) subset = 0;
        if (ma.value[i] != mb.value[i]) equal = 0;
        if (ma.value[i]) empty = 0, pop++;
    }
    CHECK_EQ_INT(parac_bitset_is_subset(a, b, words), subset);
    CHECK_EQ_INT(parac_bitset_equal(a, b, words), equal);
    CHECK_EQ_INT(parac_bitset_is_empty(a, words), empty);
    CHECK_EQ_INT(parac_bitset_popcount(a, words), pop);
    /* a & b is always a subset of a and of b; a subset of a | b. */
    parac_bitset_and(out, a, b, words);
    CHECK(parac_bitset_is_subset(out, a, words) && parac_bitset_is_subset(out, b, words));
    parac_bitset_or(out, a, b, words);
    CHECK(parac_bitset_is_subset(a, out, words));
}

/* equal_prefix at every prefix length 0..n against the model. */
static void check_equal_prefix(parac_rng *rng, size_t bits)
{
    parac_word a[MAX_WORDS] = {0}, b[MAX_WORDS] = {0};
    model ma, mb;
    size_t first_difference;
    random_model(rng, &ma, bits, 0.5);
    mb = ma;
    /* Make b differ from a in a few random places (or nowhere). */
    for (int k = (int)parac_rng_below(rng, 4); k > 0 && bits; k--) {
        size_t i = (size_t)parac_rng_below(rng, bits);
        mb.value[i] = !mb.value[i];
    }
    to_bitset(&ma, a);
    to_bitset(&mb, b);
    for (first_difference = 0; first_difference < bits; first_difference++)
        if (ma.value[first_difference] != mb.value[first_difference]) break;
    for (size_t prefix = 0; prefix <= bits; prefix++) {
        int expect = prefix <= first_difference;
        CHECK_EQ_INT(parac_bitset_equal_prefix(a, b, prefix), expect);
        CHECK_EQ_INT(parac_bitset_equal_prefix(b, a, prefix), expect);
        CHECK(parac_bitset_equal_prefix(a, a, prefix));
    }
}

/* next() must visit exactly the set bits, in order, from any starting point. */
static void check_iteration(parac_rng *rng, size_t bits, double density)
{
    parac_word set[MAX_WORDS] = {0};
    model m;
    size_t visited = 0, expected = 0, previous = 0;
    int first = 1;
    random_model(rng, &m, bits, density);
    to_bitset(&m, set);
    for (size_t i = 0; i < bits; i++) expected += m.value[i];
    for (size_t i = parac_bitset_next(set, bits, 0); i < bits; i = parac_bitset_next(set, bits, i + 1)) {
        CHECK(m.value[i], "next returned unset bit %zu, n=%zu", i, bits);
        CHECK(first || i > previous, "next went backwards");
        previous = i;
        first = 0;
        visited++;
        if (visited > bits) break;
    }
    CHECK_EQ_INT(visited, expected);
    for (size_t from = 0; from <= bits + 2; from++) {
        size_t expect = bits;
        for (size_t i = from; i < bits; i++)
            if (m.value[i]) {
                expect = i;
                break;
            }
        CHECK_EQ_INT(parac_bitset_next(set, bits, from), expect);
    }
    /* prev(before): the last set bit below `before`, SIZE_MAX when none */
    for (size_t before = 0; before <= bits; before++) {
        size_t expect = SIZE_MAX;
        for (size_t i = before; i > 0; i--)
            if (m.value[i - 1]) {
                expect = i - 1;
                break;
            }
        CHECK(parac_bitset_prev(set, before) == expect, "prev(%zu) = %zu, expected %zu, n=%zu", before,
              parac_bitset_prev(set, before), expect, bits);
    }
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 2, 31, 63, 64, 65, 127, 128, 129, 130, 191, 192, 193, 255, 256, 257, 1000, 1024, 1089};
    static const double densities[] = {0.0, 0.02, 0.5, 0.97, 1.0};
    parac_rng rng;
    parac_rng_seed(&rng, 20240501);
    CHECK(parac_bitset_tail_mask(64) == ~(parac_word)0);
    CHECK(parac_bitset_tail_mask(1) == 1);
    CHECK(parac_bitset_tail_mask(65) == 1);
    CHECK(parac_bitset_tail_mask(130) == 3);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t bits = sizes[s];
        check_basics(bits);
        for (int round = 0; round < 5; round++) {
            check_set_clear(&rng, bits);
            check_equal_prefix(&rng, bits);
            for (size_t da = 0; da < 5; da++) {
                check_iteration(&rng, bits, densities[da]);
                for (size_t db = 0; db < 5; db++) check_binary_ops(&rng, bits, densities[da], densities[db]);
            }
        }
    }
    /* Random sizes too: every n from 0 to 300 once. */
    for (size_t bits = 0; bits <= 300; bits++) {
        check_binary_ops(&rng, bits, 0.3, 0.6);
        check_equal_prefix(&rng, bits);
        check_iteration(&rng, bits, 0.1);
    }
    return test_finish("core.bitset");
}
