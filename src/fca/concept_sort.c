/* fca/concept_sort.c — the concepts' canonical order (lexicographic by intent, fca_record_compare),
 * sorted in parallel through small entries: each record's first ids packed into a 128-bit key and a
 * pointer to the record.
 *
 * Why entries: a record is the intent's bitset or its padded id list (T10I4D100K: 128 bytes; a
 * retail-like context of 16,470 items: 304), and a merge sort moved every record once per level
 * (plus a scratch copy of them all): at 2.3 M concepts that was most of `parac fca -o`'s time after
 * the search. An entry is 24 bytes, and its key decides almost every comparison without reading the
 * record. Why not an index sort on the records themselves: comparing through random pointers took
 * ~35 s for 35 M concepts on one core; here the pointer is followed only on a tie of keys.
 *
 * Chunks of entries are sorted by the threads, then merged pairwise, the pairs of a level in
 * parallel and the last levels cut into pieces (merge path). Intents of distinct concepts differ,
 * so the order (and the bytes) do not depend on the thread count. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fca_internal.h"

#define INSERTION_RUN 16        /* entries sorted by insertion before merging */
#define MIN_CHUNK_ENTRIES 8192  /* below this a chunk is not worth a thread */

/* The key layout: ids + 1 (0: the list ended) in fields of `bits` bits from the top of each of the
 * key's two words, `per_word` fields a word. Lexicographic order of the fields is the canonical
 * order of the lists' first ids. Two words: with one, a retail-like context's 16,470 items left 4
 * ids, and most intents have 4-6: a tenth of the write went to comparing tied keys' records. */
typedef struct key_layout {
    unsigned bits, per_word;
    uint64_t last_field; /* the last field's mask in the second word: zero there, the list ended in the key */
    const fca_record_format *format;
} key_layout;

static key_layout layout_for(const fca_record_format *format)
{
    key_layout layout = {1, 0, 0, format};
    while (layout.bits < 64 && ((uint64_t)1 << layout.bits) <= (uint64_t)format->attributes) layout.bits++;
    layout.per_word = 64 / layout.bits;
    layout.last_field = ((((uint64_t)1 << layout.bits) - 1)) << (64 - layout.bits * layout.per_word);
    return layout;
}

static uint64_t pack(const key_layout *layout, const uint32_t *ids_plus_one, size_t count)
{
    uint64_t word = 0;
    for (size_t i = 0; i < layout->per_word; i++) word = (word << layout->bits) | (i < count ? ids_plus_one[i] : 0);
    return word << (64 - layout->bits * layout->per_word);
}

static void record_key(const key_layout *layout, const parac_word *record, uint64_t key[2])
{
    size_t fields = 2 * (size_t)layout->per_word, count;
    uint32_t first[128];
    count = fca_record_ids(layout->format, record, first, fields);
    if (count > fields) count = fields;
    for (size_t i = 0; i < count; i++) first[i]++; /* 0 marks the end */
    key[0] = pack(layout, first, count);
    key[1] = count > layout->per_word ? pack(layout, first + layout->per_word, count - layout->per_word) : 0;
}

static int entry_compare(const fca_sort_entry *a, const fca_sort_entry *b, const key_layout *layout)
{
    if (a->key[0] != b->key[0]) return a->key[0] < b->key[0] ? -1 : 1;
    if (a->key[1] != b->key[1]) return a->key[1] < b->key[1] ? -1 : 1;
    if ((a->key[1] & layout->last_field) == 0) return 0; /* both lists ended inside the key: the same intent */
    return fca_record_compare(a->record, b->record, layout->format);
}

/* Merges the sorted runs a (na entries) and b (nb) into out; ties take a first (stable). */
static void merge_runs(const fca_sort_entry *a, size_t na, const fca_sort_entry *b, size_t nb, fca_sort_entry *out,
                       const key_layout *layout)
{
    size_t i = 0, j = 0;
    while (i < na && j < nb) *out++ = entry_compare(b + j, a + i, layout) < 0 ? b[j++] : a[i++];
    memcpy(out, a + i, (na - i) * sizeof *out);
    memcpy(out + (na - i), b + j, (nb - j) * sizeof *out);
}

static void insertion_sort(fca_sort_entry *data, size_t count, const key_layout *layout)
{
    for (size_t i = 1; i < count; i++) {
        fca_sort_entry held = data[i];
        size_t j = i;
        for (; j > 0 && entry_compare(&held, &data[j - 1], layout) < 0; j--) data[j] = data[j - 1];
        data[j] = held;
    }
}

/* Sorts count entries of data (scratch: as large); the result ends in data. */
static void sort_chunk(fca_sort_entry *data, fca_sort_entry *scratch, size_t count, const key_layout *layout)
{
    fca_sort_entry *from = data, *to = scratch, *swap;
    for (size_t left = 0; left < count; left += INSERTION_RUN)
        insertion_sort(data + left, count - left < INSERTION_RUN ? count - left : INSERTION_RUN, layout);
    for (size_t width = INSERTION_RUN; width < count; width *= 2) {
        for (size_t left = 0; left < count; left += 2 * width) {
            size_t middle = left + width < count ? left + width : count;
            size_t right = left + 2 * width < count ? left + 2 * width : count;
            merge_runs(from + left, middle - left, from + middle, right - middle, to + left, layout);
        }
        swap = from, from = to, to = swap;
    }
    if (from != data) memcpy(data, from, count * sizeof *data);
}

/* Where the first `taken` entries of the merge of a (na) and b (nb) split: *from_a of them come from
 * a (ties take a first, as merge_runs). The co-rank search of merge path (Odeh, Green, Mwassi,
 * Shmueli & Birk 2012). */
static size_t co_rank(const fca_sort_entry *a, size_t na, const fca_sort_entry *b, size_t nb, size_t taken,
                      const key_layout *layout)
{
    size_t low = taken > nb ? taken - nb : 0, high = taken < na ? taken : na;
    while (low < high) {
        size_t i = low + (high - low) / 2, j = taken - i;
        /* i too small when b[j - 1] (taken before a[i]) is not below a[i]: a[i] would have come first */
        if (j > 0 && i < na && entry_compare(b + (j - 1), a + i, layout) >= 0) low = i + 1;
        else high = i;
    }
    return low;
}

/* One merge split into `pieces` output ranges, each merged on its own (the same entries as one merge). */
static void merge_piece(const fca_sort_entry *a, size_t na, const fca_sort_entry *b, size_t nb, fca_sort_entry *out,
                        size_t piece, size_t pieces, const key_layout *layout)
{
    size_t total = na + nb, first = total * piece / pieces, last = total * (piece + 1) / pieces;
    size_t a_first = co_rank(a, na, b, nb, first, layout), a_last = co_rank(a, na, b, nb, last, layout);
    size_t b_first = first - a_first, b_last = last - a_last;
    merge_runs(a + a_first, a_last - a_first, b + b_first, b_last - b_first, out + first, layout);
}

/* Sorts `count` entries with `threads` threads: chunks in parallel, then merge levels, each merge
 * of a level cut into pieces so that the last levels (fewer pairs than threads: one pair at the top)
 * keep every thread busy. */
static void sort_entries(fca_sort_entry *data, fca_sort_entry *scratch, size_t count, const key_layout *layout,
                         int threads)
{
    size_t chunks = 1, chunk;
    fca_sort_entry *from = data, *to = scratch, *swap;
    while ((int)chunks < threads && count / (chunks * 2) >= MIN_CHUNK_ENTRIES) chunks *= 2;
    chunk = (count + chunks - 1) / chunks;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (chunks > 1)
    for (size_t c = 0; c < chunks; c++) {
        size_t left = c * chunk < count ? c * chunk : count, right = left + chunk < count ? left + chunk : count;
        sort_chunk(data + left, scratch + left, right - left, layout);
    }
    for (size_t width = chunk; width < count; width *= 2) {
        size_t pairs = (count + 2 * width - 1) / (2 * width);
        size_t pieces = pairs < (size_t)threads ? ((size_t)threads + pairs - 1) / pairs : 1;
        if (pieces > 1 && 2 * width / pieces < MIN_CHUNK_ENTRIES) pieces = 2 * width / MIN_CHUNK_ENTRIES + 1;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (pairs * pieces > 1)
        for (size_t task = 0; task < pairs * pieces; task++) {
            size_t p = task / pieces, left = p * 2 * width, middle = left + width < count ? left + width : count;
            size_t right = left + 2 * width < count ? left + 2 * width : count;
            merge_piece(from + left, middle - left, from + middle, right - middle, to + left, task % pieces, pieces,
                        layout);
        }
        swap = from, from = to, to = swap;
    }
    if (from != data) memcpy(data, from, count * sizeof *data);
}

/* Where each of the count records of intents lies (packed records one after another). */
static void place_entries(fca_sort_entry *entries, const parac_word *intents, size_t count, int packed,
                          const fca_record_format *format)
{
    for (size_t c = 0; c < count; c++) {
        entries[c].record = intents;
        intents += packed ? fca_record_packed_words(format, intents) : format->words;
    }
}

static void key_entries(fca_sort_entry *entries, size_t count, const key_layout *layout, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads) if (count >= MIN_CHUNK_ENTRIES)
    for (size_t c = 0; c < count; c++) record_key(layout, entries[c].record, entries[c].key);
}

parac_status fca_concepts_order(const parac_fca_concepts *concepts, int threads, fca_sort_entry **order,
                                parac_error *error)
{
    size_t count = fca_concepts_total(concepts), done = concepts->count;
    key_layout layout = layout_for(&concepts->format);
    fca_sort_entry *entries, *scratch;
    if (threads < 1) threads = 1;
    entries = malloc((count ? count : 1) * sizeof *entries);
    scratch = malloc((count ? count : 1) * sizeof *scratch);
    if (!entries || !scratch) {
        free(entries), free(scratch);
        return parac_fail_no_memory(error, "sorting concepts", (unsigned long long)count * 2 * sizeof *entries);
    }
    /* the intents, then each part (a worker's store): walked on its own thread, packed records
     * being found one after another */
    place_entries(entries, concepts->intents, concepts->count, concepts->packed, &concepts->format);
    for (size_t p = 0; p < concepts->part_count; p++) { /* each part's first entry, in scratch's keys */
        scratch[p].key[0] = done;
        done += concepts->parts[p].count;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (concepts->part_count > 1)
    for (size_t p = 0; p < concepts->part_count; p++)
        place_entries(entries + scratch[p].key[0], concepts->parts[p].intents, concepts->parts[p].count,
                      concepts->packed, &concepts->format);
    key_entries(entries, count, &layout, threads);
    sort_entries(entries, scratch, count, &layout, threads);
    free(scratch);
    *order = entries;
    return PARAC_OK;
}

parac_status fca_concepts_sort(parac_fca_concepts *concepts, int threads, parac_error *error)
{
    size_t count = fca_concepts_total(concepts), words = concepts->format.words;
    const fca_record_format *format = &concepts->format;
    int packed = concepts->packed;
    fca_sort_entry *order;
    parac_word *sorted;
    parac_status status;
    if (count < 2 && concepts->part_count == 0 && !packed) return PARAC_OK;
    if ((status = fca_concepts_order(concepts, threads, &order, error)) != PARAC_OK) return status;
    sorted = malloc((count ? count : 1) * words * sizeof *sorted);
    if (!sorted) {
        free(order);
        return parac_fail_no_memory(error, "sorting concepts", (unsigned long long)count * words * 8);
    }
    /* whole records: a packed one is copied up to its 0 (at most the format's words) and zero-filled */
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (count >= MIN_CHUNK_ENTRIES)
    for (size_t c = 0; c < count; c++) {
        size_t have = packed ? fca_record_packed_words(format, order[c].record) : words;
        have = have < words ? have : words;
        memcpy(sorted + c * words, order[c].record, have * sizeof *sorted);
        memset(sorted + c * words + have, 0, (words - have) * sizeof *sorted);
    }
    free(order);
    fca_concepts_release(concepts);
    concepts->intents = sorted;
    concepts->count = count;
    concepts->used = concepts->capacity = count * words;
    concepts->packed = 0;
    return PARAC_OK;
}
