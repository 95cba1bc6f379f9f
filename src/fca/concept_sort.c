/* fca/concept_sort.c — the concepts' canonical order (lexicographic by intent,
 * fca_intent_compare), sorted in parallel. Why not an index sort: the intents
 * are small records (8 bytes per 64 attributes), so moving them keeps every
 * pass sequential in memory; an index sort compares through random pointers
 * and took ~35 s for 35 M concepts on one core. Chunks are sorted by the
 * threads, then merged pairwise, the pairs of a level in parallel. Intents of
 * distinct concepts differ, so the order (and the bytes) do not depend on the
 * thread count. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fca_internal.h"

#define INSERTION_RUN 16        /* records sorted by insertion before merging */
#define MIN_CHUNK_RECORDS 8192  /* below this a chunk is not worth a thread */

static void copy_records(parac_word *to, const parac_word *from, size_t count, size_t words)
{
    memcpy(to, from, count * words * sizeof *to);
}

/* Merges the sorted runs a (na records) and b (nb) into out; ties take a first (stable). */
static void merge_runs(const parac_word *a, size_t na, const parac_word *b, size_t nb, parac_word *out,
                       const fca_record_format *format)
{
    size_t i = 0, j = 0, words = format->words;
    while (i < na && j < nb) {
        const parac_word *pick = fca_record_compare(b + j * words, a + i * words, format) < 0 ? b + j++ * words
                                                                                                 : a + i++ * words;
        copy_records(out, pick, 1, words);
        out += words;
    }
    copy_records(out, a + i * words, na - i, words);
    copy_records(out + (na - i) * words, b + j * words, nb - j, words);
}

static void insertion_sort(parac_word *data, size_t count, const fca_record_format *format, parac_word *held)
{
    size_t words = format->words;
    for (size_t i = 1; i < count; i++) {
        size_t j = i;
        copy_records(held, data + i * words, 1, words);
        while (j > 0 && fca_record_compare(held, data + (j - 1) * words, format) < 0) {
            copy_records(data + j * words, data + (j - 1) * words, 1, words);
            j--;
        }
        copy_records(data + j * words, held, 1, words);
    }
}

/* Sorts count records of data (scratch: as large); the result ends in data. */
static void sort_chunk(parac_word *data, parac_word *scratch, size_t count, const fca_record_format *format)
{
    parac_word *from = data, *to = scratch, *swap;
    size_t words = format->words;
    for (size_t left = 0; left < count; left += INSERTION_RUN) {
        size_t run = count - left < INSERTION_RUN ? count - left : INSERTION_RUN;
        insertion_sort(data + left * words, run, format, scratch); /* scratch[0] holds one record */
    }
    for (size_t width = INSERTION_RUN; width < count; width *= 2) {
        for (size_t left = 0; left < count; left += 2 * width) {
            size_t middle = left + width < count ? left + width : count;
            size_t right = left + 2 * width < count ? left + 2 * width : count;
            merge_runs(from + left * words, middle - left, from + middle * words, right - middle, to + left * words,
                       format);
        }
        swap = from, from = to, to = swap;
    }
    if (from != data) copy_records(data, from, count, words);
}

/* Where the first `taken` records of the merge of a (na) and b (nb) split: *from_a of them come from
 * a (ties take a first, as merge_runs). The co-rank search of merge path (Odeh, Green, Mwassi,
 * Shmueli & Birk 2012). */
static size_t co_rank(const parac_word *a, size_t na, const parac_word *b, size_t nb, size_t taken,
                      const fca_record_format *format)
{
    size_t words = format->words, low = taken > nb ? taken - nb : 0, high = taken < na ? taken : na;
    while (low < high) {
        size_t i = low + (high - low) / 2, j = taken - i;
        /* i too small when b[j - 1] (taken before a[i]) is not below a[i]: a[i] would have come first */
        if (j > 0 && i < na && fca_record_compare(b + (j - 1) * words, a + i * words, format) >= 0) low = i + 1;
        else high = i;
    }
    return low;
}

/* One merge split into `pieces` output ranges, each merged on its own (the same bytes as one merge). */
static void merge_piece(const parac_word *a, size_t na, const parac_word *b, size_t nb, parac_word *out,
                        size_t piece, size_t pieces, const fca_record_format *format)
{
    size_t words = format->words, total = na + nb;
    size_t first = total * piece / pieces, last = total * (piece + 1) / pieces;
    size_t a_first = co_rank(a, na, b, nb, first, format), a_last = co_rank(a, na, b, nb, last, format);
    size_t b_first = first - a_first, b_last = last - a_last;
    merge_runs(a + a_first * words, a_last - a_first, b + b_first * words, b_last - b_first, out + first * words,
               format);
}

/* Sorts `count` records with `threads` threads: chunks in parallel, then merge levels, each merge
 * of a level cut into pieces so that the last levels (fewer pairs than threads: one pair at the top,
 * which moved every record on one thread) keep every thread busy. */
static void sort_records(parac_word *data, parac_word *scratch, size_t count, const fca_record_format *format,
                         int threads)
{
    size_t chunks = 1, chunk, words = format->words;
    parac_word *from = data, *to = scratch, *swap;
    while ((int)chunks < threads && count / (chunks * 2) >= MIN_CHUNK_RECORDS) chunks *= 2;
    chunk = (count + chunks - 1) / chunks;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (chunks > 1)
    for (size_t c = 0; c < chunks; c++) {
        size_t left = c * chunk < count ? c * chunk : count, right = left + chunk < count ? left + chunk : count;
        sort_chunk(data + left * words, scratch + left * words, right - left, format);
    }
    for (size_t width = chunk; width < count; width *= 2) {
        size_t pairs = (count + 2 * width - 1) / (2 * width);
        size_t pieces = pairs < (size_t)threads ? ((size_t)threads + pairs - 1) / pairs : 1;
        if (pieces > 1 && 2 * width / pieces < MIN_CHUNK_RECORDS) pieces = 2 * width / MIN_CHUNK_RECORDS + 1;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (pairs * pieces > 1)
        for (size_t task = 0; task < pairs * pieces; task++) {
            size_t p = task / pieces, left = p * 2 * width, middle = left + width < count ? left + width : count;
            size_t right = left + 2 * width < count ? left + 2 * width : count;
            merge_piece(from + left * words, middle - left, from + middle * words, right - middle, to + left * words,
                        task % pieces, pieces, format);
        }
        swap = from, from = to, to = swap;
    }
    if (from != data) copy_records(data, from, count, words);
}

parac_status fca_concepts_sort(parac_fca_concepts *concepts, int threads, parac_error *error)
{
    size_t count = concepts->count, words = concepts->format.words;
    parac_word *scratch;
    if (count < 2) return PARAC_OK;
    scratch = malloc(count * words * sizeof *scratch);
    if (!scratch) return parac_fail_no_memory(error, "sorting concepts", (unsigned long long)count * words * 8);
    sort_records(concepts->intents, scratch, count, &concepts->format, threads > 0 ? threads : 1);
    free(scratch);
    return PARAC_OK;
}
