/* fca/concept_stream.c — every concept handed to a callback in canonical
 * order, within a host memory budget whatever the concept count.
 *
 * The searches store intents as always (fca_concepts_append per worker,
 * fca_concepts_take at the end: the workers' stores become parts of one),
 * but every store of the run is attached to a spill: a store that reaches its
 * share of the budget sorts its intents (each store on its own thread) and
 * writes them as one run of an external sort (core/external_sort.h). At the
 * end, when nothing was spilled, the one merged store is put in order as
 * parac_fca_compute would sort it, and its records are read where they lie
 * (through sort entries: concept_sort.c); otherwise it becomes the last run
 * and the runs are merged k-way. Intents of distinct concepts differ, so the
 * merge's order is the canonical order exactly, on every device and thread
 * count.
 *
 * Budget: half for the stores (threads + 1 of them, the merged one included,
 * each up to its share and, while its sort runs, as much again plus two sort
 * entries a record), half for the merge's read buffers. The context and the
 * search's own memory are extra. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/external_sort.h"
#include "core/memory_limit.h"
#include "core/threads.h"
#include "fca/concept_stream.h"
#include "fca/fca_internal.h"

/* A quarter of what the process may use (core/memory_limit.h): under `ulimit -v 1000000` a wide
 * context's 400 MB store failed with "out of host memory" against a budget taken from the
 * machine's 24 GB; it now spills. */
uint64_t fca_default_host_budget(void)
{
    return parac_host_memory_limit() / 4;
}

static int compare_intents(const void *a, const void *b, void *context)
{
    return fca_record_compare(a, b, context);
}

parac_status fca_concept_spill_create(size_t attributes, size_t longest_row, uint64_t budget, int threads,
                                      const char *directory, fca_concept_spill **spill, parac_error *error)
{
    fca_concept_spill *made = calloc(1, sizeof *made);
    fca_record_format *format = malloc(sizeof *format);
    omp_lock_t *lock = malloc(sizeof *lock);
    parac_external_sort_config config;
    uint64_t limit;
    parac_status status;
    if (!made || !format || !lock) {
        free(made), free(format), free(lock);
        return parac_fail_no_memory(error, "concept spill", sizeof *made);
    }
    *format = fca_record_format_for(attributes, longest_row);
    config.record_bytes = format->words * sizeof(parac_word);
    config.compare = compare_intents;
    config.compare_context = format;
    config.memory_bytes = budget / 2;
    config.directory = directory;
    status = parac_external_sort_create(&config, &made->sorter, error);
    if (status != PARAC_OK) {
        free(made), free(format), free(lock);
        return status;
    }
    /* while a store is sorted it needs as much again, and two sort entries a record */
    limit = budget / 2 / (uint64_t)(threads > 0 ? threads + 1 : 2) /
            (2 * config.record_bytes + 2 * sizeof(fca_sort_entry));
    made->store_limit = limit < 1 ? 1 : limit > SIZE_MAX / config.record_bytes ? SIZE_MAX / config.record_bytes
                                                                                : (size_t)limit;
    made->format = format;
    omp_init_lock(lock);
    made->lock = lock;
    *spill = made;
    return PARAC_OK;
}

void fca_concept_spill_destroy(fca_concept_spill *spill)
{
    if (!spill) return;
    parac_external_sort_destroy(spill->sorter);
    omp_destroy_lock(spill->lock);
    free(spill->lock);
    free(spill->format);
    free(spill);
}

parac_status fca_concept_spill_store(fca_concept_spill *spill, parac_fca_concepts *store, int threads,
                                     parac_error *error)
{
    parac_status status = fca_concepts_sort(store, threads, error);
    if (status != PARAC_OK) return status;
    omp_set_lock(spill->lock);
    status = parac_external_sort_add_sorted_run(spill->sorter, store->intents, store->count, error);
    if (status == PARAC_OK) spill->spilled += store->count;
    omp_unset_lock(spill->lock);
    if (status == PARAC_OK) fca_concepts_clear(store); /* sorted: no parts; its buffer is kept */
    return status;
}

parac_status fca_concept_spill_clear(fca_concept_spill *spill, parac_error *error)
{
    parac_status status = parac_external_sort_clear(spill->sorter, error);
    if (status == PARAC_OK) spill->spilled = 0;
    return status;
}

/* ---- delivery ------------------------------------------------------------------ */

#define DELIVERY_PREFETCH 16 /* records fetched ahead of the one delivered */

/* Sorts and hands out the merged store when nothing was spilled; else merges the runs and it. */
static parac_status deliver_all(fca_concept_spill *spill, parac_fca_concepts *store, int threads,
                                const fca_record_sink *sink, parac_error *error)
{
    parac_status status;
    if (parac_external_sort_runs(spill->sorter) == 0) { /* read in order where they lie: no copy */
        size_t count = fca_concepts_total(store);
        fca_sort_entry *order;
        if ((status = fca_concepts_order(store, threads, &order, error)) != PARAC_OK) return status;
        for (size_t c = 0; c < count && status == PARAC_OK; c++) {
            /* the records lie scattered over the stores: fetch ahead, or each one waits on memory */
            if (c + DELIVERY_PREFETCH < count) __builtin_prefetch(order[c + DELIVERY_PREFETCH].record);
            if (sink->take(sink->self, order[c].record, 1))
                status = parac_fail(error, PARAC_ERR_CANCELLED, "fca: stopped by the concept callback");
        }
        free(order);
        return status;
    }
    if ((status = fca_concept_spill_store(spill, store, threads, error)) != PARAC_OK) return status;
    fca_concepts_release(store); /* its memory goes to the merge */
    status = parac_external_sort_finish(spill->sorter, sink->take_transient, sink->self, error);
    if (status == PARAC_ERR_CANCELLED) return parac_fail(error, status, "fca: stopped by the concept callback");
    return status;
}

parac_status fca_stream_records(const parac_fca_context *context, const parac_fca_options *options,
                                const fca_record_sink *sink, parac_error *error)
{
    fca_concept_spill *spill = NULL;
    parac_fca_concepts store;
    uint64_t count = 0, stored, budget;
    parac_status status;
    int threads = parac_threads_resolve(options->exec.threads);
    budget = options->max_host_bytes ? options->max_host_bytes : fca_default_host_budget();
    status = fca_concepts_init(&store, context->attributes, error);
    if (status == PARAC_OK)
        status = fca_concept_spill_create(context->attributes, fca_context_longest_row(context), budget, threads,
                                          options->temp_directory, &spill, error);
    if (status == PARAC_OK) {
        fca_concepts_attach_spill(&store, spill);
        status = sink->start(sink->self, spill->format, error);
    }
    if (status == PARAC_OK) status = fca_run_search(context, options, &store, &count, error);
    stored = spill ? spill->spilled + fca_concepts_total(&store) : 0;
    if (status == PARAC_OK && count != stored)
        status = parac_fail(error, PARAC_ERR_INTERNAL, "fca: counted %llu concepts but stored %llu",
                            (unsigned long long)count, (unsigned long long)stored);
    if (status == PARAC_OK) status = deliver_all(spill, &store, threads, sink, error);
    if (status == PARAC_OK && sink->finish) status = sink->finish(sink->self, error); /* the records still lie here */
    fca_concepts_release(&store);
    fca_concept_spill_destroy(spill);
    return status;
}

/* parac_fca_enumerate's sink: each record decoded and handed to the caller's callback. */
typedef struct concept_delivery {
    parac_fca_concept_fn fn;
    void *user;
    const fca_record_format *format;
    uint32_t *ids;
    size_t attributes;
} concept_delivery;

static parac_status delivery_start(void *self, const fca_record_format *format, parac_error *error)
{
    concept_delivery *delivery = self;
    delivery->format = format;
    delivery->ids = malloc((delivery->attributes + 1) * sizeof *delivery->ids);
    return delivery->ids ? PARAC_OK : parac_fail_no_memory(error, "intent ids", (delivery->attributes + 1) * 4);
}

static int deliver_intent(void *self, const void *record)
{
    concept_delivery *delivery = self;
    size_t size = fca_record_decode(delivery->format, record, delivery->ids);
    return delivery->fn(delivery->user, delivery->ids, size);
}

static int deliver_lasting(void *self, const parac_word *record, int lasts)
{
    (void)lasts;
    return deliver_intent(self, record);
}

parac_status parac_fca_enumerate(const parac_fca_context *context, const parac_fca_options *options,
                                 parac_fca_concept_fn fn, void *user, parac_error *error)
{
    parac_fca_options defaults;
    concept_delivery delivery = {fn, user, NULL, NULL, 0};
    fca_record_sink sink = {delivery_start, deliver_lasting, deliver_intent, NULL, &delivery};
    parac_status status;
    if (!context || !fn) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: context and callback are required");
    if (!options) {
        parac_fca_options_init(&defaults);
        options = &defaults;
    }
    delivery.attributes = context->attributes;
    status = fca_stream_records(context, options, &sink, error);
    free(delivery.ids);
    return status;
}

/* ---- extents from intents ---------------------------------------------------------- */

size_t parac_fca_context_extent(const parac_fca_context *context, const uint32_t *intent, size_t size, uint32_t *ids,
                                size_t capacity)
{
    size_t words = context ? context->object_words : 0, count = 0;
    parac_word *extent;
    int ascending = 1;
    if (!context) return 0;
    for (size_t i = 0; i < size; i++) {
        if (intent[i] >= context->attributes) return 0; /* no object has an attribute the context lacks */
        ascending &= i == 0 || intent[i] > intent[i - 1];
    }
    if (ascending && fca_covers_use_cells(context)) { /* wide and sparse: no bit matrices */
        const fca_column_lists *columns = fca_context_columns(context, NULL);
        return columns ? fca_extent_from_cells(context, columns, intent, size, ids, ids ? capacity : 0) : 0;
    }
    if (!fca_context_bits(context, NULL)) return 0; /* no memory for the bit matrices */
    extent = calloc(words ? words : 1, sizeof *extent);
    if (!extent) return 0;
    parac_bitset_fill(extent, context->objects);
    for (size_t i = 0; i < size; i++)
        parac_bitset_and(extent, extent, fca_context_bits_built(context)->columns + (size_t)intent[i] * words, words);
    for (size_t o = parac_bitset_next(extent, context->objects, 0); o < context->objects;
         o = parac_bitset_next(extent, context->objects, o + 1)) {
        if (count < capacity && ids) ids[count] = (uint32_t)o;
        count++;
    }
    free(extent);
    return count;
}
