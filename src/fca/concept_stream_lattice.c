/* fca/concept_stream_lattice.c — the lattice of a context whose concepts
 * need not fit in memory (parac_fca_lattice_enumerate).
 *
 * A concept's number is its position in the canonical stream. Pass 1 walks
 * the stream (parac_fca_enumerate) and computes each concept's lower covers
 * from the context alone (Lindig's test, lattice.c; batches of concepts in
 * parallel), so no table of all intents is needed. Every concept goes into
 * one external sort as (intent, 0) and every cover as (lower's intent,
 * upper + 1), ordered by intent, then by that number. Pass 2 reads it back:
 * the (intent, 0) records come in canonical order, so the n-th of them is
 * concept n, and the cover records that follow it, sharing its intent, name
 * it as their lower end: the intents turn into indices without a lookup.
 * Those (upper, lower) pairs go through a second external sort, and pass 3
 * hands them out by (upper, lower): the edges of parac_fca_lattice_create.
 *
 * Budget: half to the concept stream, a quarter to each sort. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/external_sort.h"
#include "core/progress.h"
#include "core/threads.h"
#include "fca/concept_stream.h"
#include "fca/fca_internal.h"

#define MAX_BATCH 4096 /* concepts whose covers are computed in one parallel step */

typedef struct lattice_stream {
    const parac_fca_context *context;
    uint64_t min_support;
    fca_record_format format;       /* the sorts' intents: short id lists on wide sparse contexts */
    size_t record_bytes;            /* a sort record: format.words of intent, then a uint64 number */
    size_t bitset_words;            /* an intent as a bitset (Lindig's test takes one) */
    int threads;
    parac_external_sort *by_intent; /* (intent, 0) per concept, (lower intent, upper + 1) per edge */
    parac_external_sort *by_edge;   /* (upper, lower) */
    unsigned char *batch;           /* records (intent, index) of the concepts awaiting their covers */
    size_t batch_count, batch_capacity;
    uint64_t concepts;              /* seen so far (pass 1), numbered so far (pass 2) */
    unsigned char *current;         /* pass 2: the last concept's record */
    uint64_t edges;
    parac_fca_concept_fn concept_fn;
    parac_fca_edge_fn edge_fn;
    void *user;
    parac_progress_gate gate;       /* the caller's progress callback: pass 1's cancel (each concept's
                                       covers poll it: one concept of a wide context takes seconds) */
    uint32_t *ids;
    parac_status status;            /* the first failure inside a callback */
    parac_error *error;
} lattice_stream;

static int compare_intent_records(const void *a, const void *b, void *context)
{
    const fca_record_format *format = context;
    int order = fca_record_compare(a, b, format);
    uint64_t x, y;
    if (order) return order;
    memcpy(&x, (const parac_word *)a + format->words, sizeof x);
    memcpy(&y, (const parac_word *)b + format->words, sizeof y);
    return x < y ? -1 : x > y;
}

static int compare_edges(const void *a, const void *b, void *context)
{
    const uint64_t *x = a, *y = b;
    (void)context;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int fail(lattice_stream *stream, parac_status status)
{
    if (stream->status == PARAC_OK) stream->status = status;
    return 1;
}

/* ---- pass 1: concepts and their covers into the first sort ------------------------------ */

typedef struct cover_list {
    unsigned char *records;
    size_t count, capacity, record_bytes;
    const fca_record_format *format;
    uint64_t upper;
    int failed;
} cover_list;

static int collect_cover(void *user, const parac_word *closure)
{
    cover_list *list = user;
    uint64_t tag = list->upper + 1;
    size_t intent_bytes = list->record_bytes - sizeof tag;
    unsigned char *record;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        unsigned char *grown = realloc(list->records, capacity * list->record_bytes);
        if (!grown) return list->failed = 1;
        list->records = grown;
        list->capacity = capacity;
    }
    record = list->records + list->count * list->record_bytes;
    if (!fca_record_encode(list->format, closure, (parac_word *)record)) return list->failed = 1;
    memcpy(record + intent_bytes, &tag, sizeof tag);
    list->count++;
    return 0;
}

/* The covers of every concept of the batch, in parallel, into the first sort. */
static void cover_batch(lattice_stream *stream)
{
    int failure = 0;
#pragma omp parallel num_threads(stream->threads) if (stream->batch_count > 16)
    {
        cover_list list = {NULL, 0, 0, stream->record_bytes, &stream->format, 0, 0};
        fca_cover_scratch scratch;
        parac_word *intent = malloc(stream->bitset_words * sizeof *intent);
        int mine = fca_cover_scratch_init(&scratch, stream->context) || !intent;
#pragma omp for schedule(dynamic, 8)
        for (size_t c = 0; c < stream->batch_count; c++) {
            const unsigned char *record = stream->batch + c * stream->record_bytes;
            if (mine || list.failed || parac_progress_gate_poll(&stream->gate)) continue;
            memcpy(&list.upper, record + stream->format.words * sizeof(parac_word), sizeof list.upper);
            fca_record_bitset(&stream->format, (const parac_word *)record, intent);
            if (fca_lower_covers(stream->context, intent, stream->min_support, &scratch, collect_cover, &list) != 0)
                list.failed = 1; /* collect_cover stops only when out of memory; -2: the test's own */
        }
#pragma omp critical(fca_lattice_stream_add)
        {
            if (mine || list.failed) failure = 1;
            for (size_t e = 0; e < list.count && !failure && stream->status == PARAC_OK; e++) {
                parac_status status = parac_external_sort_add(stream->by_intent,
                                                              list.records + e * stream->record_bytes, stream->error);
                if (status != PARAC_OK) fail(stream, status);
            }
        }
        free(list.records), free(intent);
        fca_cover_scratch_free(&scratch);
    }
    if (failure) fail(stream, parac_fail_no_memory(stream->error, "lattice covers", 0));
    if (parac_progress_gate_cancelled(&stream->gate)) fail(stream, PARAC_ERR_CANCELLED);
    stream->batch_count = 0;
}

static int take_concept(void *user, const uint32_t *intent, size_t size)
{
    lattice_stream *stream = user;
    unsigned char *record = stream->batch + stream->batch_count * stream->record_bytes;
    size_t intent_bytes = stream->format.words * sizeof(parac_word);
    uint64_t tag = 0;
    parac_status status;
    if (!fca_record_encode_ids(&stream->format, intent, size, (parac_word *)record))
        return fail(stream, parac_fail(stream->error, PARAC_ERR_INTERNAL, "fca lattice: an intent longer than every row"));
    memcpy(record + intent_bytes, &tag, sizeof tag); /* tag 0: the concept itself */
    status = parac_external_sort_add(stream->by_intent, record, stream->error);
    if (status != PARAC_OK) return fail(stream, status);
    tag = stream->concepts++; /* in the batch the tag is the index, the upper end of its covers */
    memcpy(record + intent_bytes, &tag, sizeof tag);
    if (++stream->batch_count == stream->batch_capacity) {
        /* Pass 1 calls no caller callback (concepts and edges are handed out in passes 2 and 3), so the
         * progress callback is where a cancel (the CLI's Ctrl-C) is seen: the batch's threads poll it
         * between concepts. Total unknown (0): the concepts are still being found. */
        parac_progress_gate_set(&stream->gate, stream->concepts);
        cover_batch(stream);
    }
    return stream->status != PARAC_OK;
}

/* ---- pass 2: intents to indices; pass 3: edges in order ------------------------------------ */

static int join_record(void *user, const void *data)
{
    lattice_stream *stream = user;
    const unsigned char *record = data;
    size_t intent_bytes = stream->format.words * sizeof(parac_word);
    uint64_t tag, edge[2];
    parac_status status;
    memcpy(&tag, record + intent_bytes, sizeof tag);
    if (tag == 0) {
        size_t size;
        memcpy(stream->current, record, intent_bytes);
        stream->concepts++;
        if (!stream->concept_fn) return 0;
        size = fca_record_decode(&stream->format, data, stream->ids);
        return stream->concept_fn(stream->user, stream->ids, size) ? fail(stream, PARAC_ERR_CANCELLED) : 0;
    }
    if (!stream->concepts || memcmp(stream->current, record, intent_bytes) != 0)
        return fail(stream, parac_fail(stream->error, PARAC_ERR_INTERNAL,
                                       "fca lattice: a cover of concept %llu is not among the concepts",
                                       (unsigned long long)(tag - 1)));
    edge[0] = tag - 1;
    edge[1] = stream->concepts - 1;
    status = parac_external_sort_add(stream->by_edge, edge, stream->error);
    return status != PARAC_OK ? fail(stream, status) : 0;
}

static int hand_out_edge(void *user, const void *data)
{
    lattice_stream *stream = user;
    const uint64_t *edge = data;
    stream->edges++;
    return stream->edge_fn && stream->edge_fn(stream->user, edge[0], edge[1]) ? fail(stream, PARAC_ERR_CANCELLED) : 0;
}

/* ---- setup ----------------------------------------------------------------------------------- */

static parac_status stream_open(lattice_stream *stream, const parac_fca_options *options, uint64_t budget,
                                parac_error *error)
{
    const parac_fca_context *context = stream->context;
    parac_external_sort_config by_intent = {0}, by_edge = {0};
    uint64_t batch;
    parac_status status;
    stream->format = fca_record_format_for(context->attributes, fca_context_longest_row(context));
    stream->record_bytes = stream->format.words * sizeof(parac_word) + sizeof(uint64_t);
    stream->bitset_words = context->attribute_words ? context->attribute_words : 1;
    by_intent.record_bytes = stream->record_bytes;
    by_intent.compare = compare_intent_records;
    by_intent.compare_context = &stream->format;
    by_intent.memory_bytes = budget / 4;
    by_intent.directory = options->temp_directory;
    by_edge = by_intent;
    by_edge.record_bytes = 2 * sizeof(uint64_t);
    by_edge.compare = compare_edges;
    by_edge.compare_context = NULL;
    batch = budget / 16 / stream->record_bytes;
    stream->batch_capacity = batch < 1 ? 1 : batch > MAX_BATCH ? MAX_BATCH : (size_t)batch;
    stream->batch = malloc(stream->batch_capacity * stream->record_bytes);
    stream->current = malloc(stream->record_bytes);
    stream->ids = malloc((context->attributes + 1) * sizeof *stream->ids);
    if (!stream->batch || !stream->current || !stream->ids)
        return parac_fail_no_memory(error, "lattice stream", stream->batch_capacity * stream->record_bytes);
    if ((status = parac_external_sort_create(&by_intent, &stream->by_intent, error)) != PARAC_OK) return status;
    return parac_external_sort_create(&by_edge, &stream->by_edge, error);
}

static void stream_close(lattice_stream *stream)
{
    parac_external_sort_destroy(stream->by_intent);
    parac_external_sort_destroy(stream->by_edge);
    free(stream->batch), free(stream->current), free(stream->ids);
}

/* A pass's status: the callbacks' own failure first (the sorter only saw "stopped"). */
static parac_status pass_status(lattice_stream *stream, parac_status status, parac_error *error)
{
    if (stream->status == PARAC_ERR_CANCELLED) return parac_fail(error, PARAC_ERR_CANCELLED, "fca lattice: stopped by a callback");
    if (stream->status != PARAC_OK) return stream->status;
    return status;
}

parac_status parac_fca_lattice_enumerate(const parac_fca_context *context, const parac_fca_options *options,
                                         parac_fca_concept_fn concept_fn, parac_fca_edge_fn edge_fn, void *user,
                                         parac_error *error)
{
    parac_fca_options defaults, concept_options;
    lattice_stream stream;
    uint64_t budget;
    parac_status status;
    if (!context) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca lattice: a context is required");
    if (!fca_cover_index(context, error)) return error ? error->status : PARAC_ERR_NO_MEMORY;
    if (!options) {
        parac_fca_options_init(&defaults);
        options = &defaults;
    }
    memset(&stream, 0, sizeof stream);
    stream.context = context;
    stream.min_support = options->min_support;
    stream.threads = parac_threads_resolve(options->exec.threads);
    stream.concept_fn = concept_fn;
    stream.edge_fn = edge_fn;
    stream.user = user;
    parac_progress_gate_init(&stream.gate, &options->exec, 0);
    stream.error = error;
    budget = options->max_host_bytes ? options->max_host_bytes : fca_default_host_budget();
    concept_options = *options;
    concept_options.max_host_bytes = budget / 2 ? budget / 2 : 1;
    status = stream_open(&stream, options, budget, error);
    if (status == PARAC_OK) {
        status = parac_fca_enumerate(context, &concept_options, take_concept, &stream, error);
        if (status == PARAC_OK && stream.batch_count) cover_batch(&stream);
        status = pass_status(&stream, status, error);
    }
    stream.concepts = 0;
    if (status == PARAC_OK)
        status = pass_status(&stream, parac_external_sort_finish(stream.by_intent, join_record, &stream, error), error);
    if (status == PARAC_OK)
        status = pass_status(&stream, parac_external_sort_finish(stream.by_edge, hand_out_edge, &stream, error), error);
    stream_close(&stream);
    return status;
}
