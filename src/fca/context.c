/* fca/context.c — the binary context: building, accessors, random contexts,
 * FIMI output, and choosing a reader by extension. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/line_reader.h"
#include "core/rng.h"
#include "fca/fca_internal.h"

int fca_context_size_ok(size_t objects, size_t attributes)
{
    uint64_t cells;
    return !__builtin_mul_overflow((uint64_t)objects, (uint64_t)attributes, &cells) && cells <= PARAC_FCA_MAX_CONTEXT_CELLS;
}

parac_status fca_context_alloc(size_t objects, size_t attributes, parac_fca_context **context, parac_error *error)
{
    parac_fca_context *made;
    size_t row_words, column_words;
    if (!fca_context_size_ok(objects, attributes))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "fca: a context of %zu objects x %zu attributes is above the limit of %llu cells", objects,
                          attributes, (unsigned long long)PARAC_FCA_MAX_CONTEXT_CELLS);
    made = calloc(1, sizeof *made);
    if (!made) return parac_fail_no_memory(error, "context", sizeof *made);
    made->objects = objects;
    made->attributes = attributes;
    made->object_words = parac_bitset_words(objects);
    made->attribute_words = parac_bitset_words(attributes);
    row_words = objects * made->attribute_words;
    column_words = attributes * made->object_words;
    made->rows = calloc(row_words ? row_words : 1, sizeof(parac_word));
    made->columns = calloc(column_words ? column_words : 1, sizeof(parac_word));
    if (!made->rows || !made->columns) {
        parac_fca_context_destroy(made);
        return parac_fail_no_memory(error, "context bit matrix", (unsigned long long)(row_words + column_words) * 8);
    }
    *context = made;
    return PARAC_OK;
}

/* Both layouts at once: deriving the columns afterwards meant zeroing them again and scanning every
 * row word, 2 x 182 MB touched for a retail-like 88 k x 16 k context (issue 18) whose 0.9 M cells touch a
 * few pages of each; the calloc'd columns stay untouched where no bit falls. */
void fca_context_set(parac_fca_context *context, size_t object, size_t attribute)
{
    parac_bitset_set(context->rows + object * context->attribute_words, attribute);
    parac_bitset_set(context->columns + attribute * context->object_words, object);
}

parac_status parac_fca_context_create(size_t objects, size_t attributes, const uint8_t *cells,
                                      parac_fca_context **context, parac_error *error)
{
    parac_status status;
    if (!context || (!cells && objects != 0 && attributes != 0))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: context and cells must not be NULL");
    status = fca_context_alloc(objects, attributes, context, error);
    if (status != PARAC_OK) return status;
    for (size_t o = 0; o < objects; o++)
        for (size_t a = 0; a < attributes; a++)
            if (cells[o * attributes + a]) fca_context_set(*context, o, a);
    return PARAC_OK;
}

parac_status parac_fca_context_random(size_t objects, size_t attributes, double density, uint64_t seed,
                                      parac_fca_context **context, parac_error *error)
{
    parac_rng rng;
    parac_status status;
    if (!(density >= 0.0 && density <= 1.0))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: density must be in [0, 1], got %g", density);
    status = fca_context_alloc(objects, attributes, context, error);
    if (status != PARAC_OK) return status;
    parac_rng_seed(&rng, seed);
    for (size_t o = 0; o < objects; o++)
        for (size_t a = 0; a < attributes; a++)
            if (parac_rng_uniform(&rng) < density) fca_context_set(*context, o, a);
    return PARAC_OK;
}

parac_status parac_fca_context_write_fimi(const parac_fca_context *context, const char *path, parac_error *error)
{
    FILE *file = fopen(path, "w");
    int failed;
    if (!file) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot create");
    for (size_t o = 0; o < context->objects; o++) {
        const parac_word *row = context->rows + o * context->attribute_words;
        const char *separator = "";
        for (size_t a = parac_bitset_next(row, context->attributes, 0); a < context->attributes;
             a = parac_bitset_next(row, context->attributes, a + 1)) {
            fprintf(file, "%s%zu", separator, a);
            separator = " ";
        }
        fputc('\n', file);
    }
    failed = ferror(file);
    failed |= fclose(file) != 0;
    if (failed) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed");
    return PARAC_OK;
}

static void free_names(char **names, size_t count)
{
    if (!names) return;
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
}

void parac_fca_context_destroy(parac_fca_context *context)
{
    if (!context) return;
    free(context->rows);
    free(context->columns);
    free_names(context->object_names, context->objects);
    free_names(context->attribute_names, context->attributes);
    free(context);
}

size_t parac_fca_context_objects(const parac_fca_context *context) { return context->objects; }
size_t parac_fca_context_attributes(const parac_fca_context *context) { return context->attributes; }

int parac_fca_context_has(const parac_fca_context *context, size_t object, size_t attribute)
{
    if (object >= context->objects || attribute >= context->attributes) return 0;
    return parac_bitset_test(context->rows + object * context->attribute_words, attribute);
}

const char *parac_fca_context_object_name(const parac_fca_context *context, size_t object)
{
    return context->object_names && object < context->objects ? context->object_names[object] : NULL;
}

const char *parac_fca_context_attribute_name(const parac_fca_context *context, size_t attribute)
{
    return context->attribute_names && attribute < context->attributes ? context->attribute_names[attribute] : NULL;
}

/* One dispatch for files and buffers: AUTO picks the format by the input's name. */
static parac_status read_input(const parac_input *input, parac_fca_format format, parac_fca_context **context,
                               parac_error *error)
{
    if (format == PARAC_FCA_FORMAT_AUTO) {
        if (parac_path_has_extension(input->name, ".cxt")) format = PARAC_FCA_FORMAT_CXT;
        else if (parac_path_has_extension(input->name, ".csv") || parac_path_has_extension(input->name, ".tsv"))
            format = PARAC_FCA_FORMAT_CSV;
        else format = PARAC_FCA_FORMAT_FIMI;
    }
    switch (format) {
    case PARAC_FCA_FORMAT_CXT: return fca_read_cxt(input, context, error);
    case PARAC_FCA_FORMAT_CSV: return fca_read_csv01(input, context, error);
    default: return fca_read_fimi(input, context, error);
    }
}

parac_status parac_fca_context_read(const char *path, parac_fca_format format, parac_fca_context **context,
                                    parac_error *error)
{
    parac_input input;
    if (!path || !context) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: path and context are required");
    input = parac_input_file(path);
    return read_input(&input, format, context, error);
}

parac_status parac_fca_context_read_memory(const void *data, size_t size, const char *name, parac_fca_format format,
                                           parac_fca_context **context, parac_error *error)
{
    parac_input input;
    if ((!data && size) || !context)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: data (when size > 0) and context are required");
    input = parac_input_memory(data, size, name);
    return read_input(&input, format, context, error);
}
