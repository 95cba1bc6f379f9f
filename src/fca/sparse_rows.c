/* fca/sparse_rows.c — the context by its occupied cells: each object's attributes as an ascending
 * list of search ids (attributes renumbered by ascending support, fcbo_search.c), in compressed
 * sparse rows. Memory: one uint32 per occupied cell plus one offset per object. */
#include <stdlib.h>
#include <string.h>

#include "core/bitset.h"
#include "core/error.h"
#include "fca/sparse_search.h"

/* Runs the statement that follows once for every object o having the original attribute. */
#define FOR_EACH_OBJECT(context, attribute, o)                                                              \
    for (size_t w_ = 0, o = 0; w_ < (context)->object_words; w_++)                                          \
        for (parac_word bits_ = (context)->columns[(size_t)(attribute) * (context)->object_words + w_];     \
             bits_ && ((o = w_ * 64 + (size_t)__builtin_ctzll(bits_)), 1); bits_ &= bits_ - 1)

parac_status sparse_rows_create(const parac_fca_context *context, const fca_search *search, sparse_rows *rows,
                                parac_error *error)
{
    size_t cells = 0;
    memset(rows, 0, sizeof *rows);
    rows->objects = context->objects;
    rows->offsets = calloc(context->objects + 1, sizeof *rows->offsets);
    rows->support = calloc(search->attributes + 1, sizeof *rows->support);
    if (!rows->offsets || !rows->support) {
        sparse_rows_destroy(rows);
        return parac_fail_no_memory(error, "sparse context", (unsigned long long)(context->objects + 1) * 8);
    }
    for (size_t s = 0; s < search->attributes; s++) {
        FOR_EACH_OBJECT(context, search->original_attribute[s], o) {
            rows->offsets[o + 1]++;
            rows->support[s]++;
        }
        cells += rows->support[s];
    }
    for (size_t o = 0; o < context->objects; o++) rows->offsets[o + 1] += rows->offsets[o];
    rows->attributes = malloc((cells ? cells : 1) * sizeof *rows->attributes);
    if (!rows->attributes) {
        sparse_rows_destroy(rows);
        return parac_fail_no_memory(error, "sparse context", (unsigned long long)cells * 4);
    }
    /* filled column by column in search order, so every row comes out ascending; offsets[o] walks
     * to offsets[o + 1] and is shifted back afterwards */
    for (size_t s = 0; s < search->attributes; s++)
        FOR_EACH_OBJECT(context, search->original_attribute[s], o) rows->attributes[rows->offsets[o]++] = (uint32_t)s;
    for (size_t o = context->objects; o > 0; o--) rows->offsets[o] = rows->offsets[o - 1];
    rows->offsets[0] = 0;
    return PARAC_OK;
}

void sparse_rows_destroy(sparse_rows *rows)
{
    free(rows->offsets);
    free(rows->attributes);
    free(rows->support);
    memset(rows, 0, sizeof *rows);
}
