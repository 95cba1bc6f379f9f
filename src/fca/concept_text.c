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
 * block is cut into slices (several per thread, taken dynamically), each formatted into its own
 * buffer, and the buffers handed to the caller's write in slice order, so the bytes do not depend
 * on the thread count. The write of a block overlaps the formatting of the next: while the other
 * threads format block b, the caller's thread (the team's master, so write is always called from
 * the thread that called parac_fca_write_text) writes block b - 1, then joins the formatting. On
 * the 2-core dev machine the kernel's copy into the page cache was a fifth of `parac fca -o`'s time
 * on a retail-like context, with every other thread waiting for it. Records that stay where they
 * lie (the in-memory case) are collected by pointer; those of the external merge, valid only
 * during its callback, are copied into the block. */
#include <omp.h>
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
#define SLICES_PER_THREAD 4            /* the writing thread formats fewer: the slices balance it */
#define PARALLEL_BLOCK_MIN 1024        /* fewer records are formatted by one thread */

typedef struct text_scratch {
    uint32_t *intent, *extent; /* ids: attributes + 1, objects + 1 */
} text_scratch;

/* One block's text: its slices in order. */
typedef struct block_text {
    parac_text_buffer *slices;
    int filled;     /* slices holding this block's text (0: nothing to write) */
    size_t records; /* the concepts they hold */
} block_text;

typedef struct text_writer {
    const parac_fca_context *context;
    parac_fca_text_options options;
    const fca_record_format *format;
    parac_fca_text_fn write;
    void *user;
    int threads, slice_capacity;
    const parac_word **block; /* the collected records, in order */
    size_t count, capacity;
    parac_word *copies;       /* capacity records' room for those that do not last */
    text_scratch *scratch;    /* one per thread */
    block_text texts[2];      /* the block being formatted and the one being written, alternately */
    int current;
    uint64_t written;
    int out_of_memory;        /* a slice's buffer could not grow: the run fails with NO_MEMORY */
} text_writer;

static void append_ids(parac_text_buffer *text, const uint32_t *ids, size_t count, const text_writer *writer,
                       int objects)
{
    for (size_t i = 0; i < count; i++) {
        const char *name = !writer->options.names ? NULL
                           : objects              ? parac_fca_context_object_name(writer->context, ids[i])
                                                  : parac_fca_context_attribute_name(writer->context, ids[i]);
        if (i) parac_text_append(text, " ", 1);
        if (name) parac_text_append(text, name, strlen(name));
        else parac_text_append_uint(text, ids[i]);
    }
}

static void format_concept(parac_text_buffer *text, text_scratch *scratch, const parac_word *record,
                           const text_writer *writer)
{
    size_t size = fca_record_decode(writer->format, record, scratch->intent);
    append_ids(text, scratch->intent, size, writer, 0);
    if (writer->options.extents) {
        size_t objects = parac_fca_context_objects(writer->context);
        size_t extent = parac_fca_context_extent(writer->context, scratch->intent, size, scratch->extent, objects);
        parac_text_append(text, " | ", 3);
        append_ids(text, scratch->extent, extent, writer, 1);
    }
    parac_text_append(text, "\n", 1);
}

/* Records [first, end) of the block into text. */
static void format_slice(const text_writer *writer, parac_text_buffer *text, text_scratch *scratch, size_t first,
                         size_t end)
{
    text->size = 0;
    for (size_t c = first; c < end; c++) {
        /* the records lie scattered over the stores: fetch ahead, or each one waits on memory */
        if (c + FORMAT_PREFETCH < end) __builtin_prefetch(writer->block[c + FORMAT_PREFETCH]);
        format_concept(text, scratch, writer->block[c], writer);
    }
}

/* Hands a formatted block to the caller's write, slice by slice; non-zero stops the run. */
static int write_block(text_writer *writer, block_text *done)
{
    int stop = 0;
    for (int s = 0; s < done->filled && !stop; s++) {
        parac_text_buffer *text = &done->slices[s];
        if (text->failed) writer->out_of_memory = stop = 1;
        else if (text->size) stop = writer->write(writer->user, text->bytes, text->size) != 0;
    }
    if (!stop) writer->written += done->records;
    done->filled = 0, done->records = 0;
    return stop;
}

/* Formats the collected block on the threads while the master writes the previous one; non-zero
 * stops the run. The block's text is written by the next flush, or by writer_finish. */
static int flush_block(text_writer *writer)
{
    size_t count = writer->count;
    int parallel = count >= PARALLEL_BLOCK_MIN, stop = 0;
    int slices = parallel ? writer->slice_capacity : 1;
    block_text *formatting = &writer->texts[writer->current], *writing = &writer->texts[writer->current ^ 1];
#pragma omp parallel num_threads(parallel ? writer->threads : 1) if (parallel && writer->threads > 1)
    {
#pragma omp master
        stop = write_block(writer, writing);
#pragma omp for schedule(dynamic, 1)
        for (int s = 0; s < slices; s++)
            format_slice(writer, &formatting->slices[s], &writer->scratch[omp_get_thread_num()],
                         count * (size_t)s / (size_t)slices, count * (size_t)(s + 1) / (size_t)slices);
    }
    formatting->filled = slices, formatting->records = count;
    writer->current ^= 1;
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
    writer->slice_capacity = writer->threads * SLICES_PER_THREAD;
    writer->scratch = calloc((size_t)writer->threads, sizeof *writer->scratch);
    for (int b = 0; b < 2; b++)
        writer->texts[b].slices = calloc((size_t)writer->slice_capacity, sizeof *writer->texts[b].slices);
    if (!writer->block || !writer->copies || !writer->scratch || !writer->texts[0].slices || !writer->texts[1].slices)
        return parac_fail_no_memory(error, "concept text blocks", writer->capacity * (record_bytes + sizeof(void *)));
    for (int t = 0; t < writer->threads; t++) {
        text_scratch *scratch = &writer->scratch[t];
        scratch->intent = malloc((attributes + 1) * sizeof *scratch->intent);
        scratch->extent = writer->options.extents ? malloc((objects + 1) * sizeof *scratch->extent) : NULL;
        if (!scratch->intent || (writer->options.extents && !scratch->extent))
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

/* The last, partial block, then its text (the previous block's is written while it is formatted). */
static parac_status writer_finish(void *self, parac_error *error)
{
    text_writer *writer = self;
    int stop = writer->count && flush_block(writer);
    if (!stop) stop = write_block(writer, &writer->texts[writer->current ^ 1]);
    if (stop && !writer->out_of_memory) return parac_fail(error, PARAC_ERR_CANCELLED, "fca: stopped by the text writer");
    return writer->out_of_memory ? parac_fail_no_memory(error, "concept text", 0) : PARAC_OK;
}

static void writer_free(text_writer *writer)
{
    for (int t = 0; writer->scratch && t < writer->threads; t++) {
        free(writer->scratch[t].intent);
        free(writer->scratch[t].extent);
    }
    for (int b = 0; b < 2; b++) {
        for (int s = 0; writer->texts[b].slices && s < writer->slice_capacity; s++)
            parac_text_buffer_free(&writer->texts[b].slices[s]);
        free(writer->texts[b].slices);
    }
    free(writer->scratch);
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
