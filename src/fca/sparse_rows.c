/* fca/sparse_rows.c — the context by its occupied cells in search ids: each object's attributes as
 * an ascending list of search ids (attributes renumbered by ascending support, fcbo_search.c), in
 * compressed sparse rows. Memory: one uint32 per occupied cell plus one offset per object. Built
 * from the context's own cells, object by object on the run's threads (each row mapped to search
 * ids and sorted; a group of equal columns, one search id, kept once): no bit matrix is read or built. */
#include <stdlib.h>
#include <string.h>

#include "core/sort_ids.h"
#include "core/error.h"
#include "fca/sparse_search.h"

/* Keeps one of each run of equal ids in every (sorted) row and closes the gaps, in place. */
static void drop_repeats(sparse_rows *rows)
{
    size_t to = 0;
    for (size_t o = 0; o < rows->objects; o++) {
        size_t first = rows->offsets[o], last = rows->offsets[o + 1];
        rows->offsets[o] = to;
        for (size_t i = first; i < last; i++)
            if (i == first || rows->attributes[i] != rows->attributes[i - 1]) rows->attributes[to++] = rows->attributes[i];
    }
    rows->offsets[rows->objects] = to;
}

parac_status sparse_rows_create(const parac_fca_context *context, const fca_search *search, int threads,
                                sparse_rows *rows, parac_error *error)
{
    size_t cells = fca_context_cells(context);
    uint32_t *search_of;
    long long objects = (long long)context->objects;
    memset(rows, 0, sizeof *rows);
    rows->objects = context->objects;
    rows->offsets = malloc((context->objects + 1) * sizeof *rows->offsets);
    rows->support = calloc(search->attributes + 1, sizeof *rows->support);
    rows->attributes = malloc((cells ? cells : 1) * sizeof *rows->attributes);
    search_of = malloc((context->attributes + 1) * sizeof *search_of);
    if (!rows->offsets || !rows->support || !rows->attributes || !search_of) {
        free(search_of);
        sparse_rows_destroy(rows);
        return parac_fail_no_memory(error, "sparse context",
                                    (unsigned long long)(context->objects + 1) * 8 + cells * 4);
    }
    memcpy(rows->offsets, context->cell_offsets, (context->objects + 1) * sizeof *rows->offsets);
    fca_search_map_originals(search, search_of);
#pragma omp parallel for num_threads(threads > 1 ? threads : 1) schedule(dynamic, 4096)
    for (long long o = 0; o < objects; o++) {
        size_t first = context->cell_offsets[o], last = context->cell_offsets[o + 1];
        for (size_t i = first; i < last; i++) rows->attributes[i] = search_of[context->cell_attributes[i]];
        parac_sort_u32(rows->attributes + first, last - first);
    }
    free(search_of);
    if (search->member_offset) drop_repeats(rows); /* a group's members all became its search id */
    for (size_t i = 0; i < rows->offsets[rows->objects]; i++) rows->support[rows->attributes[i]]++;
    return PARAC_OK;
}

void sparse_rows_destroy(sparse_rows *rows)
{
    free(rows->offsets);
    free(rows->attributes);
    free(rows->support);
    memset(rows, 0, sizeof *rows);
}
