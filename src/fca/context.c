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
    made->cell_offsets = calloc(objects + 1, sizeof *made->cell_offsets);
    if (!made->cell_offsets) {
        parac_fca_context_destroy(made);
        return parac_fail_no_memory(error, "context", (unsigned long long)(objects + 1) * sizeof(size_t));
    }
    *context = made;
    return PARAC_OK;
}

parac_status fca_context_adopt_cells(size_t objects, size_t attributes, size_t *offsets, uint32_t *cell_attributes,
                                     parac_fca_context **context, parac_error *error)
{
    parac_fca_context *made;
    parac_status status = fca_context_alloc(objects, attributes, &made, error);
    if (status != PARAC_OK) {
        free(offsets);
        free(cell_attributes);
        return status;
    }
    free(made->cell_offsets);
    made->cell_offsets = offsets;
    made->cell_attributes = cell_attributes;
    made->cell_capacity = offsets[objects];
    made->last_object = objects ? objects - 1 : 0;
    *context = made;
    return PARAC_OK;
}

/* While cells are added, cell_offsets[o + 1] is object o's end for o up to last_object (an object
 * skipped over, with no cells, gets its predecessor's end); fca_context_end_cells completes the rest. */
parac_status fca_context_add(parac_fca_context *context, size_t object, size_t attribute, parac_error *error)
{
    size_t count = context->cell_offsets[context->last_object + 1];
    if (count == context->cell_capacity) {
        size_t capacity = context->cell_capacity ? context->cell_capacity * 2 : 1024;
        uint32_t *grown = realloc(context->cell_attributes, capacity * sizeof *grown);
        if (!grown) return parac_fail_no_memory(error, "context cells", (unsigned long long)capacity * 4);
        context->cell_attributes = grown;
        context->cell_capacity = capacity;
    }
    for (size_t o = context->last_object + 1; o < object; o++) context->cell_offsets[o + 1] = count;
    context->last_object = object;
    context->cell_attributes[count] = (uint32_t)attribute;
    context->cell_offsets[object + 1] = count + 1;
    return PARAC_OK;
}

void fca_context_end_cells(parac_fca_context *context)
{
    for (size_t o = context->last_object + 1; o < context->objects; o++)
        context->cell_offsets[o + 1] = context->cell_offsets[o];
    context->last_object = context->objects ? context->objects - 1 : 0;
}

static void bits_free(fca_bit_matrices *bits)
{
    if (!bits) return;
    free(bits->rows);
    free(bits->columns);
    free(bits);
}

const fca_bit_matrices *fca_context_bits(const parac_fca_context *context, parac_error *error)
{
    fca_bit_matrices *made = fca_context_bits_built(context) ? NULL : calloc(1, sizeof *made), *expected = NULL;
    size_t row_words = context->objects * context->attribute_words;
    size_t column_words = context->attributes * context->object_words;
    if (!made) {
        if (fca_context_bits_built(context)) return fca_context_bits_built(context);
        parac_fail_no_memory(error, "context bit matrix", sizeof *made);
        return NULL;
    }
    made->rows = calloc(row_words ? row_words : 1, sizeof(parac_word));
    made->columns = calloc(column_words ? column_words : 1, sizeof(parac_word));
    if (!made->rows || !made->columns) {
        bits_free(made);
        parac_fail_no_memory(error, "context bit matrix", (unsigned long long)(row_words + column_words) * 8);
        return NULL;
    }
    for (size_t o = 0; o < context->objects; o++)
        for (size_t i = context->cell_offsets[o]; i < context->cell_offsets[o + 1]; i++) {
            size_t a = context->cell_attributes[i];
            parac_bitset_set(made->rows + o * context->attribute_words, a);
            parac_bitset_set(made->columns + a * context->object_words, o);
        }
    /* the context is const to its readers; its one mutable field is published with a CAS */
    if (!__atomic_compare_exchange_n(&((parac_fca_context *)context)->bits, &expected, made, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        bits_free(made);
        return expected;
    }
    return made;
}

int fca_context_has_bits(const parac_fca_context *context) { return fca_context_bits_built(context) != NULL; }

static void columns_free(fca_column_lists *columns)
{
    if (!columns) return;
    free(columns->offsets);
    free(columns->objects);
    free(columns);
}

const fca_column_lists *fca_context_columns(const parac_fca_context *context, parac_error *error)
{
    fca_column_lists *made, *expected = NULL;
    size_t cells = fca_context_cells(context);
    if ((made = __atomic_load_n(&((parac_fca_context *)context)->columns, __ATOMIC_ACQUIRE)) != NULL) return made;
    made = calloc(1, sizeof *made);
    if (made) {
        made->offsets = calloc(context->attributes + 2, sizeof *made->offsets);
        made->objects = malloc((cells + 1) * sizeof *made->objects);
    }
    if (!made || !made->offsets || !made->objects) {
        columns_free(made);
        parac_fail_no_memory(error, "context column lists", (unsigned long long)cells * 4);
        return NULL;
    }
    for (size_t c = 0; c < cells; c++) made->offsets[context->cell_attributes[c] + 2]++;
    for (size_t a = 0; a < context->attributes; a++) made->offsets[a + 2] += made->offsets[a + 1];
    for (size_t o = 0; o < context->objects; o++) /* objects ascending: each list ascends */
        for (size_t c = context->cell_offsets[o]; c < context->cell_offsets[o + 1]; c++)
            made->objects[made->offsets[context->cell_attributes[c] + 1]++] = (uint32_t)o;
    if (!__atomic_compare_exchange_n(&((parac_fca_context *)context)->columns, &expected, made, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        columns_free(made);
        return expected;
    }
    return made;
}

/* A context being filled that failed is destroyed and *context cleared. */
static parac_status finish_or_destroy(parac_status status, parac_fca_context **context)
{
    if (status == PARAC_OK) fca_context_end_cells(*context);
    else if (*context) {
        parac_fca_context_destroy(*context);
        *context = NULL;
    }
    return status;
}

parac_status parac_fca_context_create(size_t objects, size_t attributes, const uint8_t *cells,
                                      parac_fca_context **context, parac_error *error)
{
    parac_status status;
    if (!context || (!cells && objects != 0 && attributes != 0))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: context and cells must not be NULL");
    status = fca_context_alloc(objects, attributes, context, error);
    for (size_t o = 0; o < objects && status == PARAC_OK; o++)
        for (size_t a = 0; a < attributes && status == PARAC_OK; a++)
            if (cells[o * attributes + a]) status = fca_context_add(*context, o, a, error);
    return finish_or_destroy(status, context);
}

parac_status parac_fca_context_random(size_t objects, size_t attributes, double density, uint64_t seed,
                                      parac_fca_context **context, parac_error *error)
{
    parac_rng rng;
    parac_status status;
    if (!(density >= 0.0 && density <= 1.0))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: density must be in [0, 1], got %g", density);
    status = fca_context_alloc(objects, attributes, context, error);
    parac_rng_seed(&rng, seed);
    for (size_t o = 0; o < objects && status == PARAC_OK; o++)
        for (size_t a = 0; a < attributes && status == PARAC_OK; a++)
            if (parac_rng_uniform(&rng) < density) status = fca_context_add(*context, o, a, error);
    return finish_or_destroy(status, context);
}

parac_status parac_fca_context_write_fimi(const parac_fca_context *context, const char *path, parac_error *error)
{
    FILE *file = fopen(path, "w");
    int failed;
    if (!file) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot create");
    for (size_t o = 0; o < context->objects; o++) {
        const char *separator = "";
        for (size_t i = context->cell_offsets[o]; i < context->cell_offsets[o + 1]; i++) {
            fprintf(file, "%s%u", separator, (unsigned)context->cell_attributes[i]);
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
    free(context->cell_offsets);
    free(context->cell_attributes);
    bits_free(context->bits);
    columns_free(context->columns);
    fca_column_groups_free(context->groups);
    free_names(context->object_names, context->objects);
    free_names(context->attribute_names, context->attributes);
    free(context);
}

size_t parac_fca_context_objects(const parac_fca_context *context) { return context->objects; }
size_t parac_fca_context_attributes(const parac_fca_context *context) { return context->attributes; }

int parac_fca_context_has(const parac_fca_context *context, size_t object, size_t attribute)
{
    const fca_bit_matrices *bits;
    size_t low, high;
    if (object >= context->objects || attribute >= context->attributes) return 0;
    if ((bits = fca_context_bits_built(context)) != NULL)
        return parac_bitset_test(bits->rows + object * context->attribute_words, attribute);
    low = context->cell_offsets[object], high = context->cell_offsets[object + 1];
    while (low < high) { /* the object's attributes are ascending */
        size_t middle = low + (high - low) / 2;
        if (context->cell_attributes[middle] < attribute) low = middle + 1;
        else high = middle;
    }
    return low < context->cell_offsets[object + 1] && context->cell_attributes[low] == attribute;
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
