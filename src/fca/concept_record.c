/* fca/concept_record.c — the two ways a store holds an intent (fca_record_format in
 * fca_internal.h): a bitset over every attribute, or the ids of a short intent. A streamed run over
 * a wide sparse context keeps, sorts and spills the short form: `parac fca` on a retail-like
 * context of 16,470 items wrote its 2.3 M concepts in 21 s and 2 GB with bitsets of 2 KB each,
 * most of it sorting and spilling those bitsets (docs/fca.md, "Output"). */
#include <string.h>

#include "fca/fca_internal.h"

fca_record_format fca_record_format_for(size_t attributes, size_t longest_row)
{
    fca_record_format format;
    size_t bitset_words = parac_bitset_words(attributes) ? parac_bitset_words(attributes) : 1;
    size_t slots = longest_row + (longest_row & 1); /* even: whole words */
    format.attributes = attributes;
    if (slots == 0) slots = 2;
    if (slots / 2 < bitset_words) {
        format.ids = slots;
        format.words = slots / 2;
    } else {
        format.ids = 0;
        format.words = bitset_words;
    }
    return format;
}

int fca_record_encode(const fca_record_format *format, const parac_word *intent, parac_word *record)
{
    uint32_t *slots = (uint32_t *)record;
    size_t size = 0;
    if (format->ids == 0) {
        memcpy(record, intent, format->words * sizeof *record);
        return 1;
    }
    memset(record, 0, format->words * sizeof *record);
    for (size_t a = parac_bitset_next(intent, format->attributes, 0); a < format->attributes;
         a = parac_bitset_next(intent, format->attributes, a + 1)) {
        if (size == format->ids) { /* longer than any row: only every attribute may be */
            if (parac_bitset_popcount(intent, parac_bitset_words(format->attributes)) != format->attributes) return 0;
            memset(record, 0, format->words * sizeof *record);
            slots[0] = FCA_RECORD_ALL;
            return 1;
        }
        slots[size++] = (uint32_t)a + 1;
    }
    return 1;
}

int fca_record_encode_ids(const fca_record_format *format, const uint32_t *ids, size_t count, parac_word *record)
{
    uint32_t *slots = (uint32_t *)record;
    memset(record, 0, format->words * sizeof *record);
    if (format->ids == 0) {
        for (size_t i = 0; i < count; i++) parac_bitset_set(record, ids[i]);
        return 1;
    }
    if (count > format->ids) {
        if (count != format->attributes) return 0; /* longer than any row: only every attribute may be */
        slots[0] = FCA_RECORD_ALL;
        return 1;
    }
    for (size_t i = 0; i < count; i++) slots[i] = ids[i] + 1;
    return 1;
}

size_t fca_record_ids(const fca_record_format *format, const parac_word *record, uint32_t *ids, size_t capacity)
{
    const uint32_t *slots = (const uint32_t *)record;
    size_t size = 0;
    if (!ids) capacity = 0;
    if (format->ids == 0) { /* word by word: this decodes every concept written (parac_bitset_next per
                               id was a tenth of `parac fca -o` on T10I4D100K) */
        for (size_t w = 0; w < format->words; w++)
            for (parac_word bits = record[w]; bits; bits &= bits - 1) {
                if (size < capacity) ids[size] = (uint32_t)(w * PARAC_WORD_BITS + (size_t)__builtin_ctzll(bits));
                size++;
            }
        return size;
    }
    if (slots[0] == FCA_RECORD_ALL) {
        for (size_t a = 0; a < format->attributes && a < capacity; a++) ids[a] = (uint32_t)a;
        return format->attributes;
    }
    for (; size < format->ids && slots[size] != 0; size++)
        if (size < capacity) ids[size] = slots[size] - 1;
    return size;
}

size_t fca_record_decode(const fca_record_format *format, const parac_word *record, uint32_t *ids)
{
    return fca_record_ids(format, record, ids, format->attributes);
}

/* Every attribute against the short list b: b comes first when it is 0, 1, ..., k-1 (a prefix of
 * every attribute), else every attribute does (at b's first gap it holds the missing id). */
static int compare_all(const uint32_t *b, size_t slots)
{
    if (b[0] == FCA_RECORD_ALL) return 0;
    for (size_t i = 0; i < slots && b[i] != 0; i++)
        if (b[i] != i + 1) return -1;
    return 1;
}

int fca_record_compare(const parac_word *a, const parac_word *b, const fca_record_format *format)
{
    const uint32_t *x = (const uint32_t *)a, *y = (const uint32_t *)b;
    if (format->ids == 0) return fca_intent_compare(a, b, format->words);
    if (x[0] == FCA_RECORD_ALL) return compare_all(y, format->ids);
    if (y[0] == FCA_RECORD_ALL) return -compare_all(x, format->ids);
    /* ids + 1, 0 after the last: lexicographic on the slots is lexicographic on the id lists with a
     * prefix first, which is the canonical order */
    for (size_t i = 0; i < format->ids; i++) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
        if (x[i] == 0) return 0; /* both ended: packed records are not read past their 0 */
    }
    return 0;
}

void fca_record_bitset(const fca_record_format *format, const parac_word *record, parac_word *bits)
{
    const uint32_t *slots = (const uint32_t *)record;
    size_t words = parac_bitset_words(format->attributes) ? parac_bitset_words(format->attributes) : 1;
    if (format->ids == 0) {
        memcpy(bits, record, format->words * sizeof *bits);
        return;
    }
    memset(bits, 0, words * sizeof *bits);
    if (slots[0] == FCA_RECORD_ALL) {
        parac_bitset_fill(bits, format->attributes);
        return;
    }
    for (size_t i = 0; i < format->ids && slots[i] != 0; i++) parac_bitset_set(bits, slots[i] - 1);
}

size_t fca_record_pack_ids(const fca_record_format *format, const uint32_t *ids, size_t count, parac_word *to)
{
    uint32_t *slots = (uint32_t *)to;
    size_t words;
    if (count > format->ids) {
        if (count != format->attributes) return 0; /* longer than any row: only every attribute may be */
        to[0] = 0;
        slots[0] = FCA_RECORD_ALL;
        return 1;
    }
    words = (count + 2) / 2;
    for (size_t i = 0; i < count; i++) slots[i] = ids[i] + 1; /* ids may be slots itself: in place */
    slots[count] = 0;
    if (count % 2 == 0) slots[count + 1] = 0; /* the padding to a whole word */
    return words;
}

size_t fca_record_packed_words(const fca_record_format *format, const parac_word *record)
{
    const uint32_t *slots = (const uint32_t *)record;
    size_t count = 0;
    if (slots[0] == FCA_RECORD_ALL) return 1;
    while (count < format->ids && slots[count] != 0) count++;
    return (count + 2) / 2;
}
