/* core/bitset.h — fixed-size bit sets stored in 64-bit words.
 *
 * A bitset of n bits is an array of parac_bitset_words(n) uint64_t words;
 * bit i lives in word i / 64 at position i % 64. Bits past n in the last word
 * are kept zero by every operation here (callers that write words directly
 * must do the same), so popcounts and comparisons may run over whole words.
 * All functions are static inline: they sit on the hot paths of FCbO and the
 * bitset AC revisions.
 */
#ifndef PARAC_CORE_BITSET_H
#define PARAC_CORE_BITSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t parac_word;
#define PARAC_WORD_BITS 64

static inline size_t parac_bitset_words(size_t bits) { return (bits + PARAC_WORD_BITS - 1) / PARAC_WORD_BITS; }

/* Mask of the valid bits in the last word of an n-bit set (all ones when n % 64 == 0). */
static inline parac_word parac_bitset_tail_mask(size_t bits)
{
    size_t rest = bits % PARAC_WORD_BITS;
    return rest ? (((parac_word)1 << rest) - 1) : ~(parac_word)0;
}

static inline void parac_bitset_set(parac_word *set, size_t bit) { set[bit / 64] |= (parac_word)1 << (bit % 64); }
static inline void parac_bitset_clear_bit(parac_word *set, size_t bit) { set[bit / 64] &= ~((parac_word)1 << (bit % 64)); }
static inline int parac_bitset_test(const parac_word *set, size_t bit) { return (int)((set[bit / 64] >> (bit % 64)) & 1u); }

static inline void parac_bitset_zero(parac_word *set, size_t words) { memset(set, 0, words * sizeof *set); }
static inline void parac_bitset_copy(parac_word *dst, const parac_word *src, size_t words) { memcpy(dst, src, words * sizeof *dst); }

/* All bits 0..bits-1 set, the tail kept clear. */
static inline void parac_bitset_fill(parac_word *set, size_t bits)
{
    size_t words = parac_bitset_words(bits);
    if (!words) return;
    memset(set, 0xff, words * sizeof *set);
    set[words - 1] &= parac_bitset_tail_mask(bits);
}

static inline void parac_bitset_and(parac_word *dst, const parac_word *a, const parac_word *b, size_t words)
{
    for (size_t i = 0; i < words; i++) dst[i] = a[i] & b[i];
}
static inline void parac_bitset_or(parac_word *dst, const parac_word *a, const parac_word *b, size_t words)
{
    for (size_t i = 0; i < words; i++) dst[i] = a[i] | b[i];
}
/* dst = a & ~b */
static inline void parac_bitset_andnot(parac_word *dst, const parac_word *a, const parac_word *b, size_t words)
{
    for (size_t i = 0; i < words; i++) dst[i] = a[i] & ~b[i];
}

/* 1 when every bit of a is also in b. */
static inline int parac_bitset_is_subset(const parac_word *a, const parac_word *b, size_t words)
{
    for (size_t i = 0; i < words; i++)
        if (a[i] & ~b[i]) return 0;
    return 1;
}

static inline int parac_bitset_equal(const parac_word *a, const parac_word *b, size_t words)
{
    return memcmp(a, b, words * sizeof *a) == 0;
}

/* 1 when a and b agree on bits 0..prefix_bits-1 (bit prefix_bits itself is not compared).
 * This is FCbO's canonicity test: a new intent must not gain attributes before j. */
static inline int parac_bitset_equal_prefix(const parac_word *a, const parac_word *b, size_t prefix_bits)
{
    size_t full = prefix_bits / 64, rest = prefix_bits % 64;
    for (size_t i = 0; i < full; i++)
        if (a[i] != b[i]) return 0;
    if (rest) {
        parac_word mask = ((parac_word)1 << rest) - 1;
        if ((a[full] ^ b[full]) & mask) return 0;
    }
    return 1;
}

static inline size_t parac_bitset_popcount(const parac_word *set, size_t words)
{
    size_t count = 0;
    for (size_t i = 0; i < words; i++) count += (size_t)__builtin_popcountll(set[i]);
    return count;
}

static inline int parac_bitset_is_empty(const parac_word *set, size_t words)
{
    for (size_t i = 0; i < words; i++)
        if (set[i]) return 0;
    return 1;
}

/* Index of the first set bit at or after `from`, or `bits` when there is none.
 * Iterate with: for (i = next(s, n, 0); i < n; i = next(s, n, i + 1)). */
static inline size_t parac_bitset_next(const parac_word *set, size_t bits, size_t from)
{
    size_t words = parac_bitset_words(bits);
    size_t w = from / 64;
    parac_word word;
    if (from >= bits) return bits;
    word = set[w] & (~(parac_word)0 << (from % 64));
    for (;;) {
        if (word) {
            size_t bit = w * 64 + (size_t)__builtin_ctzll(word);
            return bit < bits ? bit : bits;
        }
        if (++w >= words) return bits;
        word = set[w];
    }
}

/* Index of the last set bit before `before` (at most before - 1), or SIZE_MAX when there is none. */
static inline size_t parac_bitset_prev(const parac_word *set, size_t before)
{
    size_t w;
    parac_word word;
    if (before == 0) return SIZE_MAX;
    w = (before - 1) / 64;
    word = set[w] & (~(parac_word)0 >> (63 - (before - 1) % 64));
    for (;;) {
        if (word) return w * 64 + 63 - (size_t)__builtin_clzll(word);
        if (w-- == 0) return SIZE_MAX;
        word = set[w];
    }
}

#endif
