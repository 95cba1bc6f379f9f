/* fca/concept_text.c — parac_fca_write_text: the streamed concepts as text, formatted by all the
 * run's threads and written in order; parac_fca_concepts_write_text: a computed set the same way
 * (the CLI's --verify output), so the text format lives here alone.
 *
 * Why in the library: a caller formatting concepts from parac_fca_enumerate's callback does it on
 * one thread, after the search, concept by concept. With 16 threads that serial tail was most of
 * `parac fca -o` on sparse contexts (a retail-like context's 2.3 M concepts: search 0.25 s, the
 * written command 0.7-0.9 s on the H100 machine's 16 cores), while LCM writes as it searches.
 *
 * Records arrive in canonical order (fca_stream_records) and are collected into a block; a full
 * block is cut into one slice per thread, each slice formatted into its thread's buffer, and the
 * buffers handed to the caller's write in slice order, so the bytes do not depend on the thread
 * count. Records that stay where they lie (the in-memory case) are collected by pointer; those of
 * the external merge, valid only during its callback, are copied into the block. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/text_buffer.h"
#include "core/threads.h"
#include "fca/concept_stream.h"
#include "fca/fca_internal.h"

#define BLOCK_RECORDS 65536            /* records formatted together */
#define BLOCK_COPY_BYTES (16u << 20)   /* at most this much copied into a block (wide bitsets) */
#define FORMAT_PREFETCH 8              /* records fetched ahead of the one formatted */

typedef struct text_slice {
    parac_text_buffer text;
    uint32_t *intent, *extent; /* ids: attributes + 1, objects + 1 */
} text_slice;

typedef struct text_writer {
    const parac_fca_context *context;
    parac_fca_text_options options;
    const fca_record_format *format;
    parac_fca_text_fn write;
    void *user;
    int threads;
    const parac_word **block; /* the collected records, in order */
    size_t count, capacity;
    parac_word *copies;       /* capacity records' room for those that do not last */
    text_slice *slices;       /* one per thread */
    uint64_t written;
    int out_of_memory;        /* a slice's buffer could not grow: the run fails with NO_MEMORY */
} text_writer;

static void append_ids(text_slice *slice, const uint32_t *ids, size_t count, const text_writer *writer, int objects)
{
    for (size_t i = 0; i < count; i++) {
        const char *name = !writer->options.names ? NULL
                           : objects              ? parac_fca_context_object_name(writer->context, ids[i])
                                                  : parac_fca_context_attribute_name(writer->context, ids[i]);
        if (i) parac_text_append(&slice->text, " ", 1);
        if (name) parac_text_append(&slice->text, name, strlen(name));
        else parac_text_append_uint(&slice->text, ids[i]);
    }
}

static void format_concept(text_slice *slice, const parac_word *record, const text_writer *writer)
{
    size_t size = fca_record_decode(writer->format, record, slice->intent);
    append_ids(slice, slice->intent, size, writer, 0);
    if (writer->options.extents) {
        size_t objects = parac_fca_context_objects(writer->context);
        size_t extent = parac_fca_context_extent(writer->context, slice->intent, size, slice->extent, objects);
        parac_text_append(&slice->text, " | ", 3);
        append_ids(slice, slice->extent, extent, writer, 1);
    }
    parac_text_append(&slice->text, "\n", 1);
}

/* Formats the block on the threads, then writes the slices in order; non-zero stops the run. */
static int flush_block(text_writer *writer)
{
    size_t count = writer->count;
    int slices = count >= 1024 ? writer->threads : 1, stop = 0;
#pragma omp parallel for schedule(static, 1) num_threads(slices) if (slices > 1)
    for (int s = 0; s < slices; s++) {
        text_slice *slice = &writer->slices[s];
        slice->text.size = 0;
        size_t first = count * (size_t)s / (size_t)slices, end = count * (size_t)(s + 1) / (size_t)slices;
        for (size_t c = first; c < end; c++) {
            /* the records lie scattered over the stores: fetch ahead, or each one waits on memory */
            if (c + FORMAT_PREFETCH < end) __builtin_prefetch(writer->block[c + FORMAT_PREFETCH]);
            format_concept(slice, writer->block[c], writer);
        }
    }
    for (int s = 0; s < slices && !stop; s++) {
        text_slice *slice = &writer->slices[s];
        if (slice->text.failed) writer->out_of_memory = stop = 1;
        else if (slice->text.size) stop = writer->write(writer->user, slice->text.bytes, slice->text.size) != 0;
    }
    if (!stop) writer->written += count;
    writer->count = 0;
    return stop;
}

static parac_status writer_start(void *self, const fca_record_format *format, parac_error *error)
{
    text_writer *writer = self;
    size_t record_bytes = format->words * sizeof(parac_word);
    size_t attributes = parac_fca_context_attributes(writer->context);
    size_t objects = parac_fca_context_objects(writer->context);
    writer->format = format;
    writer->capacity = BLOCK_COPY_BYTES / record_bytes;
    if (writer->capacity > BLOCK_RECORDS) writer->capacity = BLOCK_RECORDS;
    if (writer->capacity < 64) writer->capacity = 64;
    writer->block = malloc(writer->capacity * sizeof *writer->block);
    writer->copies = malloc(writer->capacity * record_bytes);
    writer->slices = calloc((size_t)writer->threads, sizeof *writer->slices);
    if (!writer->block || !writer->copies || !writer->slices)
        return parac_fail_no_memory(error, "concept text blocks", writer->capacity * (record_bytes + sizeof(void *)));
    for (int s = 0; s < writer->threads; s++) {
        text_slice *slice = &writer->slices[s];
        slice->intent = malloc((attributes + 1) * sizeof *slice->intent);
        slice->extent = writer->options.extents ? malloc((objects + 1) * sizeof *slice->extent) : NULL;
        if (!slice->intent || (writer->options.extents && !slice->extent))
            return parac_fail_no_memory(error, "concept text ids", (attributes + objects + 2) * sizeof(uint32_t));
    }
    /* extents read the context's column lists or bit matrices: built here, once, not by every thread */
    if (writer->options.extents && !fca_cover_index(writer->context, error))
        return error ? error->status : PARAC_ERR_NO_MEMORY;
    return PARAC_OK;
}

static int writer_take(void *self, const parac_word *record, int lasts)
{
    text_writer *writer = self;
    if (!lasts) {
        parac_word *copy = writer->copies + writer->count * writer->format->words;
        memcpy(copy, record, writer->format->words * sizeof *copy);
        record = copy;
    }
    writer->block[writer->count++] = record;
    return writer->count == writer->capacity ? flush_block(writer) : 0;
}

static int writer_take_transient(void *self, const void *record) { return writer_take(self, record, 0); }

static parac_status writer_finish(void *self, parac_error *error)
{
    text_writer *writer = self;
    if (writer->count && flush_block(writer) && !writer->out_of_memory)
        return parac_fail(error, PARAC_ERR_CANCELLED, "fca: stopped by the text writer");
    return writer->out_of_memory ? parac_fail_no_memory(error, "concept text", 0) : PARAC_OK;
}

static void writer_free(text_writer *writer)
{
    for (int s = 0; writer->slices && s < writer->threads; s++) {
        parac_text_buffer_free(&writer->slices[s].text);
        free(writer->slices[s].intent);
        free(writer->slices[s].extent);
    }
    free(writer->slices);
    free(writer->block);
    free(writer->copies);
}

static void writer_init(text_writer *writer, const parac_fca_context *context, const parac_fca_text_options *text,
                        parac_fca_text_fn write, void *user, int threads)
{
    memset(writer, 0, sizeof *writer);
    writer->context = context;
    if (text) writer->options = *text;
    writer->write = write;
    writer->user = user;
    writer->threads = parac_threads_resolve(threads);
}

/* The run's status once the writer is done: a stop for want of memory is that, not a cancel. */
static parac_status writer_end(text_writer *writer, parac_status status, uint64_t *count, parac_error *error)
{
    if (status == PARAC_ERR_CANCELLED && writer->out_of_memory) status = parac_fail_no_memory(error, "concept text", 0);
    if (count) *count = writer->written;
    writer_free(writer);
    return status;
}

parac_status parac_fca_write_text(const parac_fca_context *context, const parac_fca_options *options,
                                  const parac_fca_text_options *text, parac_fca_text_fn write, void *user,
                                  uint64_t *count, parac_error *error)
{
    parac_fca_options defaults;
    text_writer writer;
    fca_record_sink sink = {writer_start, writer_take, writer_take_transient, writer_finish, &writer};
    if (count) *count = 0;
    if (!context || !write)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: context and writer are required");
    if (!options) {
        parac_fca_options_init(&defaults);
        options = &defaults;
    }
    writer_init(&writer, context, text, write, user, options->exec.threads);
    return writer_end(&writer, fca_stream_records(context, options, &sink, error), count, error);
}

parac_status parac_fca_concepts_write_text(const parac_fca_context *context, const parac_fca_concepts *concepts,
                                           const parac_fca_text_options *text, int threads, parac_fca_text_fn write,
                                           void *user, parac_error *error)
{
    text_writer writer;
    parac_status status;
    if (!context || !concepts || !write || concepts->attributes != context->attributes)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: a context, its concepts and a writer are required");
    writer_init(&writer, context, text, write, user, threads);
    status = writer_start(&writer, &concepts->format, error);
    /* a computed set is sorted: whole records, one after another */
    for (size_t c = 0; c < concepts->count && status == PARAC_OK; c++)
        if (writer_take(&writer, concepts->intents + c * concepts->format.words, 1))
            status = parac_fail(error, PARAC_ERR_CANCELLED, "fca: stopped by the text writer");
    if (status == PARAC_OK) status = writer_finish(&writer, error);
    return writer_end(&writer, status, NULL, error);
}
