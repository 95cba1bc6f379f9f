/* fuzz/fca_context_fuzz.h — the body the three formal-context targets share (fuzz_fimi.c, fuzz_cxt.c,
 * fuzz_csv01.c): the input goes through parac_fca_context_read_memory in one format (the parsing body
 * parac_fca_context_read uses; gzip bytes are inflated in memory), and an accepted context is walked
 * through every accessor, so a context that loads but is inconsistent is found too. */
#ifndef PARAC_FUZZ_FCA_CONTEXT_FUZZ_H
#define PARAC_FUZZ_FCA_CONTEXT_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

/* Cells read through parac_fca_context_has per input: a 1.6 KB FIMI file of 387 lines naming ids up to
 * 16383 cost 90 ms in 4096 cells a row (found as a timeout on a loaded machine); the rows' last cells
 * are read besides. */
#define FUZZ_FCA_WALK_CELLS (1u << 16)

/* Reads every accessor of an accepted context (cells up to FUZZ_FCA_WALK_CELLS, then each row's last),
 * then destroys it. */
static inline void fuzz_fca_walk_and_destroy(parac_fca_context *context)
{
    size_t objects = parac_fca_context_objects(context), attributes = parac_fca_context_attributes(context);
    size_t set = 0, cells = 0;
    for (size_t o = 0; o < objects; o++) {
        const char *name = parac_fca_context_object_name(context, o);
        set += name ? strlen(name) : 0;
        for (size_t a = 0; a < attributes && a < 4096 && cells < FUZZ_FCA_WALK_CELLS; a++, cells++)
            set += (size_t)parac_fca_context_has(context, o, a);
        if (attributes) set += (size_t)parac_fca_context_has(context, o, attributes - 1);
    }
    for (size_t a = 0; a < attributes; a++) {
        const char *name = parac_fca_context_attribute_name(context, a);
        set += name ? strlen(name) : 0;
    }
    if (set == (size_t)-1) abort(); /* keeps the walk from being optimised away */
    parac_fca_context_destroy(context);
}

static inline int fuzz_fca_context(const uint8_t *data, size_t size, const char *input_name, parac_fca_format format)
{
    parac_error error = {0};
    parac_fca_context *context = NULL;
    if (parac_fca_context_read_memory(data, size, input_name, format, &context, &error) == PARAC_OK)
        fuzz_fca_walk_and_destroy(context);
    return 0;
}

#endif
