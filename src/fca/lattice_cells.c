/* fca/lattice_cells.c — Lindig's lower covers of one concept from the context's cells, for contexts
 * whose bit matrices would be large against their cells (wide and sparse: transactions).
 *
 * The same test as lattice.c's (fca_lower_covers): the candidates m in ascending order, each giving
 * the child (C, C') with C = the extent's objects having m; a child whose closure adds no attribute
 * still "minimal" is a cover, a rejected m leaves the minimal set. What changes is how C and C' are
 * found: the extent is the shortest intent column filtered by the rows; the candidates are the
 * attributes the extent's rows hold (the others have support 0, whose child is the concept with an
 * empty extent: a cover exactly when no candidate is left, lattice.c); C comes from a local
 * inverted index of the extent's rows and C' from counting C's rows. No bitset over all objects or
 * attributes is built per candidate, and the context's bit matrices are never needed: a context of
 * 50,000 rows over 200,000 items has 2.5 GB of them for 250,000 cells.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sort_ids.h"
#include "fca/concept_stream.h"
#include "fca/fca_internal.h"

int fca_covers_use_cells(const parac_fca_context *context)
{
    double matrix_bytes = 8.0 * ((double)context->objects * (double)context->attribute_words +
                                 (double)context->attributes * (double)context->object_words);
    double cell_bytes = 12.0 * (double)fca_context_cells(context) + 8.0 * (double)context->attributes;
    /* T10I4D100K (25 MB of matrices) keeps the bitsets, whose closures are word-parallel */
    return matrix_bytes > 64.0 * 1024 * 1024 && matrix_bytes > 16.0 * cell_bytes;
}

int fca_cover_cells_init(fca_cover_cells *cells, const parac_fca_context *context)
{
    size_t n = context->attributes + 1;
    memset(cells, 0, sizeof *cells);
    cells->intent_ids = malloc(n * sizeof *cells->intent_ids);
    cells->slot_of = malloc(n * sizeof *cells->slot_of);
    cells->list_offsets = malloc((n + 1) * sizeof *cells->list_offsets);
    cells->closure_count = calloc(n, sizeof *cells->closure_count);
    cells->closure_ids = malloc(n * sizeof *cells->closure_ids);
    return cells->intent_ids && cells->slot_of && cells->list_offsets && cells->closure_count && cells->closure_ids
               ? 0
               : -1;
}

void fca_cover_cells_free(fca_cover_cells *cells)
{
    free(cells->intent_ids), free(cells->slot_of), free(cells->list_offsets), free(cells->closure_count);
    free(cells->closure_ids), free(cells->lists);
    memset(cells, 0, sizeof *cells);
}

/* 1 when object o's row holds every id of the (ascending) intent. */
static int row_holds(const parac_fca_context *context, size_t o, const uint32_t *ids, size_t count)
{
    size_t c = context->cell_offsets[o], end = context->cell_offsets[o + 1];
    for (size_t i = 0; i < count; i++) {
        while (c < end && context->cell_attributes[c] < ids[i]) c++;
        if (c == end || context->cell_attributes[c] != ids[i]) return 0;
    }
    return 1;
}

size_t fca_extent_from_cells(const parac_fca_context *context, const fca_column_lists *columns, const uint32_t *ids,
                             size_t size, uint32_t *out, size_t capacity)
{
    size_t shortest = 0, count = 0;
    if (size == 0) {
        for (size_t o = 0; o < context->objects && o < capacity; o++) out[o] = (uint32_t)o;
        return context->objects;
    }
    for (size_t i = 1; i < size; i++)
        if (columns->offsets[ids[i] + 1] - columns->offsets[ids[i]] <
            columns->offsets[ids[shortest] + 1] - columns->offsets[ids[shortest]])
            shortest = i;
    for (size_t k = columns->offsets[ids[shortest]]; k < columns->offsets[ids[shortest] + 1]; k++)
        if (row_holds(context, columns->objects[k], ids, size)) {
            if (count < capacity && out) out[count] = columns->objects[k];
            count++;
        }
    return count;
}

/* Each touched attribute's members (ascending), from the members' rows: slot_of[a] is a's list. */
static int build_lists(const parac_fca_context *context, size_t members, fca_cover_scratch *s)
{
    fca_cover_cells *cells = &s->cells;
    size_t total = 0;
    for (size_t t = 0; t < s->touched_count; t++) {
        cells->slot_of[s->touched[t]] = (uint32_t)t;
        cells->list_offsets[t] = total;
        total += s->support[s->touched[t]];
    }
    cells->list_offsets[s->touched_count] = total;
    if (total > cells->list_capacity) {
        uint32_t *grown = realloc(cells->lists, total * sizeof *grown);
        if (!grown) return -1;
        cells->lists = grown;
        cells->list_capacity = total;
    }
    for (size_t i = 0; i < members; i++) { /* members ascend: so does every list */
        uint32_t o = s->members[i];
        for (size_t c = context->cell_offsets[o]; c < context->cell_offsets[o + 1]; c++) {
            uint32_t slot = cells->slot_of[context->cell_attributes[c]];
            cells->lists[cells->list_offsets[slot]++] = o;
        }
    }
    for (size_t t = s->touched_count; t > 0; t--) cells->list_offsets[t] = cells->list_offsets[t - 1];
    cells->list_offsets[0] = 0;
    return 0;
}

/* C' for C = the list of slot t: the attributes every row of C holds, into closure_ids; returns how
 * many. closure_count is left zero. */
static size_t close_list(const parac_fca_context *context, fca_cover_cells *cells, size_t t)
{
    size_t first = cells->list_offsets[t], size = cells->list_offsets[t + 1] - first, seen = 0, kept = 0;
    for (size_t i = 0; i < size; i++) {
        uint32_t o = cells->lists[first + i];
        for (size_t c = context->cell_offsets[o]; c < context->cell_offsets[o + 1]; c++)
            if (cells->closure_count[context->cell_attributes[c]]++ == 0)
                cells->closure_ids[seen++] = context->cell_attributes[c];
    }
    for (size_t i = 0; i < seen; i++) {
        uint32_t a = cells->closure_ids[i];
        if (cells->closure_count[a] == size) cells->closure_ids[kept++] = a;
        cells->closure_count[a] = 0;
    }
    return kept;
}

/* Hands the closure (ids) to found as a bitset: s->closure is zero between calls. */
static int report_cover(fca_cover_scratch *s, size_t size, fca_cover_fn found, void *user)
{
    int stop;
    for (size_t i = 0; i < size; i++) parac_bitset_set(s->closure, s->cells.closure_ids[i]);
    stop = found(user, s->closure);
    for (size_t i = 0; i < size; i++) parac_bitset_clear_bit(s->closure, s->cells.closure_ids[i]);
    return stop;
}

static int test_candidates(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                           fca_cover_scratch *s, size_t *candidates, fca_cover_fn found, void *user)
{
    fca_cover_cells *cells = &s->cells;
    int stop = 0;
    for (size_t t = 0; t < s->touched_count && !stop; t++) {
        size_t m = s->touched[t], size;
        int is_cover = 1;
        if (parac_bitset_test(intent, m)) continue;
        ++*candidates;
        if (fca_cover_skips(s, m)) continue;
        if (s->support[m] < min_support) {
            parac_bitset_clear_bit(s->minimal, m);
            continue;
        }
        size = close_list(context, cells, cells->slot_of[m]);
        for (size_t i = 0; i < size && is_cover; i++) {
            uint32_t a = cells->closure_ids[i];
            is_cover = a == m || parac_bitset_test(intent, a) || !parac_bitset_test(s->minimal, a);
        }
        if (!is_cover) parac_bitset_clear_bit(s->minimal, m);
        else stop = report_cover(s, size, found, user);
    }
    return stop;
}

int fca_lower_covers_cells(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                           fca_cover_scratch *s, fca_cover_fn found, void *user)
{
    const fca_column_lists *columns = fca_context_columns(context, NULL);
    size_t n = context->attributes, words = context->attribute_words ? context->attribute_words : 1;
    size_t intent_size = 0, members, candidates = 0;
    int stop;
    if (!columns) return -2;
    for (size_t a = parac_bitset_next(intent, n, 0); a < n; a = parac_bitset_next(intent, n, a + 1))
        s->cells.intent_ids[intent_size++] = (uint32_t)a;
    members = fca_extent_from_cells(context, columns, s->cells.intent_ids, intent_size, s->members, context->objects);
    fca_count_supports(context, s->members, members, s, 1);
    parac_sort_u32(s->touched, s->touched_count); /* Lindig's order */
    if (build_lists(context, members, s) != 0) {
        fca_count_supports(context, s->members, members, s, 0);
        return -2;
    }
    memset(s->minimal, 0, words * sizeof(parac_word));
    parac_bitset_fill(s->minimal, n);
    parac_bitset_andnot(s->minimal, s->minimal, intent, words);
    stop = test_candidates(context, intent, min_support, s, &candidates, found, user);
    fca_count_supports(context, s->members, members, s, 0);
    return stop ? stop : fca_cover_empty_extent(context, intent, min_support, candidates, s, found, user);
}
