/* fca/lattice.c — covering edges of the concept lattice by Lindig's
 * neighbour test (Lindig 2000), one concept at a time, in parallel.
 *
 * The lower covers of a concept with intent B are the minimal intents among
 * (B ∪ {m})'' for m ∉ B. Lindig's test finds them without comparing
 * candidates pairwise: walking m in order and keeping `minimal` (the
 * attributes not yet shown to lead to a non-minimal closure), D is a cover
 * exactly when D \ B \ {m} misses `minimal`; otherwise m is dropped from it.
 * Each cover is reported once. Cost per concept: one closure per attribute
 * outside B — far below iPred's border scans on lattices with wide
 * antichains (primary-tumor: 87k concepts, 546k edges). A hash table maps
 * intents to concept indices; iceberg lattices work too (an infrequent
 * closure can be in no frequent intent, so it is skipped). */
#include <stdlib.h>
#include <string.h>

#include "core/sort_ids.h"
#include "core/error.h"
#include "core/hash_index.h"
#include "core/progress.h"
#include "fca/concept_stream.h"
#include "fca/fca_internal.h"

typedef struct lattice_edge {
    size_t upper, lower;
} lattice_edge;

struct parac_fca_lattice {
    lattice_edge *edges;
    size_t count, capacity;
};

/* Concept indices by intent (core/hash_index over the concepts' records: bitsets, or the short id
 * lists of a wide context's store; a record is one intent's only encoding, so equal intents have
 * equal bytes). */
typedef struct intent_table {
    parac_hash_index index;
    const parac_word *intents;
    size_t words; /* per record */
} intent_table;

static uint64_t intent_hash(const parac_word *intent, size_t words) { return parac_hash_bytes(intent, words * sizeof *intent); }

static uint64_t concept_hash(const void *context, size_t concept)
{
    const intent_table *table = context;
    return intent_hash(table->intents + concept * table->words, table->words);
}

static int concept_has_intent(const void *context, size_t concept, const void *intent)
{
    const intent_table *table = context;
    return parac_bitset_equal(table->intents + concept * table->words, intent, table->words);
}

/* The concept with this intent, or SIZE_MAX; *slot (when not NULL): where to index a new one. */
static size_t table_find(const intent_table *table, const parac_word *intent, size_t *slot)
{
    return parac_hash_index_find(&table->index, intent_hash(intent, table->words), intent, concept_has_intent, table, slot);
}

static int add_edge(parac_fca_lattice *lattice, size_t upper, size_t lower)
{
    if (lattice->count == lattice->capacity) {
        size_t capacity = lattice->capacity ? lattice->capacity * 2 : 1024;
        lattice_edge *grown = realloc(lattice->edges, capacity * sizeof *grown);
        if (!grown) return -1;
        lattice->edges = grown;
        lattice->capacity = capacity;
    }
    lattice->edges[lattice->count].upper = upper;
    lattice->edges[lattice->count].lower = lower;
    lattice->count++;
    return 0;
}

static int by_edge(const void *a, const void *b)
{
    const lattice_edge *x = a, *y = b;
    if (x->upper != y->upper) return x->upper < y->upper ? -1 : 1;
    return x->lower < y->lower ? -1 : (x->lower > y->lower);
}

/* closure = C' for the extent C (all attributes when C is empty). */
static void close_extent(const parac_fca_context *context, const parac_word *extent, parac_word *closure)
{
    const parac_word *rows = fca_context_bits_built(context)->rows;
    size_t words = context->attribute_words ? context->attribute_words : 1;
    memset(closure, 0, words * sizeof *closure);
    parac_bitset_fill(closure, context->attributes);
    for (size_t o = parac_bitset_next(extent, context->objects, 0); o < context->objects;
         o = parac_bitset_next(extent, context->objects, o + 1))
        parac_bitset_and(closure, closure, rows + o * context->attribute_words, context->attribute_words);
}

int fca_cover_scratch_init(fca_cover_scratch *s, const parac_fca_context *context)
{
    size_t object_words = context->object_words + 1, words = context->attribute_words ? context->attribute_words : 1;
    s->extent = calloc(object_words, sizeof(parac_word));
    s->child_extent = calloc(object_words, sizeof(parac_word));
    s->closure = calloc(words, sizeof(parac_word));
    s->minimal = calloc(words, sizeof(parac_word));
    s->support = calloc(context->attributes + 1, sizeof *s->support);
    s->members = malloc((context->objects + 1) * sizeof *s->members);
    s->touched = malloc((context->attributes + 1) * sizeof *s->touched);
    s->touched_count = 0;
    memset(&s->cells, 0, sizeof s->cells);
    s->groups = fca_context_groups(context, NULL); /* built by fca_cover_index */
    if (fca_covers_use_cells(context) && fca_cover_cells_init(&s->cells, context) != 0) return -1;
    return s->extent && s->child_extent && s->closure && s->minimal && s->support && s->members && s->touched ? 0
                                                                                                           : -1;
}

void fca_cover_scratch_free(fca_cover_scratch *s)
{
    free(s->extent), free(s->child_extent), free(s->closure), free(s->minimal), free(s->support), free(s->members);
    free(s->touched);
    fca_cover_cells_free(&s->cells);
    memset(s, 0, sizeof *s);
}

size_t fca_count_row_attributes(const parac_fca_context *context, const uint32_t *members, size_t count,
                                uint64_t *counts, uint32_t *touched)
{
    size_t met = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t c = context->cell_offsets[members[i]]; c < context->cell_offsets[members[i] + 1]; c++) {
            uint32_t a = context->cell_attributes[c];
            if (counts[a]++ == 0) touched[met++] = a;
        }
    return met;
}

void fca_count_supports(const parac_fca_context *context, const uint32_t *members, size_t count,
                        fca_cover_scratch *s, int add)
{
    if (add) {
        s->touched_count = fca_count_row_attributes(context, members, count, s->support, s->touched);
        return;
    }
    for (size_t i = 0; i < count; i++)
        for (size_t c = context->cell_offsets[members[i]]; c < context->cell_offsets[members[i] + 1]; c++)
            s->support[context->cell_attributes[c]] = 0;
}

/* C' for C = the members having attribute m (all attributes when none has it): the AND of their
 * rows, read from the member list instead of a child extent of object_words. */
static void close_members_with(const parac_fca_context *context, const uint32_t *members, size_t count, size_t m,
                               parac_word *closure)
{
    const parac_word *rows = fca_context_bits_built(context)->rows;
    size_t words = context->attribute_words ? context->attribute_words : 1;
    memset(closure, 0, words * sizeof *closure);
    parac_bitset_fill(closure, context->attributes);
    for (size_t i = 0; i < count; i++) {
        const parac_word *row = rows + (size_t)members[i] * context->attribute_words;
        if (parac_bitset_test(row, m)) parac_bitset_and(closure, closure, row, context->attribute_words);
    }
}

/* Counting the children's supports from the extent's rows costs its cells; a popcount per
 * attribute costs attributes x object words. On a sparse context (T10I4D100K: 1,000 attributes,
 * 1,563 object words, rows of ~10 cells) the rows are thousands of times cheaper: the rules of its
 * 26,807 frequent concepts at min support 100 took over 60 s in popcounts, and a few seconds now. */
static int counts_from_rows(const parac_fca_context *context, size_t members, size_t candidates)
{
    double per_row = context->objects ? (double)fca_context_cells(context) / (double)context->objects : 0.0;
    return (double)members * (per_row + 1.0) < (double)candidates * (double)context->object_words;
}

int fca_cover_skips(fca_cover_scratch *s, size_t m)
{
    if (!s->groups || s->groups->last[m] == m) return 0;
    parac_bitset_clear_bit(s->minimal, m);
    return 1;
}

/* Candidate m of Lindig's test (not in the intent, `support` of the extent's objects have it): its
 * closure, and whether it is a cover given the attributes still minimal; a rejected m leaves the
 * minimal set. Returns found's answer for a cover, else 0. */
static int test_candidate(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                          fca_cover_scratch *s, size_t members, int counted, size_t m, uint64_t support,
                          fca_cover_fn found, void *user)
{
    size_t object_words = context->object_words, words = context->attribute_words ? context->attribute_words : 1;
    const parac_word *columns = fca_context_bits_built(context)->columns;
    int is_cover = 1;
    if (support < min_support) {
        parac_bitset_clear_bit(s->minimal, m);
        return 0;
    }
    /* the closure from the member list when walking it is cheaper than a child extent and its rows */
    if (counted && members * (words + 1) <= object_words + support * words) {
        close_members_with(context, s->members, members, m, s->closure);
    } else {
        parac_bitset_and(s->child_extent, s->extent, columns + m * object_words, object_words);
        close_extent(context, s->child_extent, s->closure);
    }
    for (size_t w = 0; w < words && is_cover; w++) {
        parac_word added = s->closure[w] & ~intent[w];
        if (w == m / 64) added &= ~((parac_word)1 << (m % 64));
        is_cover = !(added & s->minimal[w]);
    }
    if (!is_cover) {
        parac_bitset_clear_bit(s->minimal, m);
        return 0;
    }
    return found(user, s->closure);
}

/* The counted path's candidates: only the attributes the extent's rows hold (s->touched), not every
 * attribute. The others have support 0: below any min_support >= 1; with min_support 0 their
 * closure is every attribute (the concept with an empty extent), which Lindig's test accepts, once,
 * exactly when no attribute has a support above 0 (else some child with objects lies between). */
static int covers_from_touched(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                               fca_cover_scratch *s, size_t members, fca_cover_fn found, void *user)
{
    size_t candidates = 0;
    int stop = 0;
    parac_sort_u32(s->touched, s->touched_count); /* Lindig's order: ascending */
    for (size_t t = 0; t < s->touched_count && !stop; t++) {
        size_t m = s->touched[t];
        if (parac_bitset_test(intent, m)) continue;
        candidates++;
        if (fca_cover_skips(s, m)) continue;
        stop = test_candidate(context, intent, min_support, s, members, 1, m, s->support[m], found, user);
    }
    return stop ? stop : fca_cover_empty_extent(context, intent, min_support, candidates, s, found, user);
}

int fca_cover_empty_extent(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                           size_t candidates, fca_cover_scratch *s, fca_cover_fn found, void *user)
{
    size_t n = context->attributes, words = context->attribute_words ? context->attribute_words : 1;
    int stop;
    if (min_support > 0 || candidates > 0 || parac_bitset_popcount(intent, words) == n) return 0;
    memset(s->closure, 0, words * sizeof *s->closure);
    parac_bitset_fill(s->closure, n);
    stop = found(user, s->closure);
    memset(s->closure, 0, words * sizeof *s->closure); /* the cells' test keeps it zero between covers */
    return stop;
}

const void *fca_cover_index(const parac_fca_context *context, parac_error *error)
{
    if (!fca_context_groups(context, error)) return NULL;
    if (fca_covers_use_cells(context)) return fca_context_columns(context, error);
    return fca_context_bits(context, error);
}

/* Lindig's test on the bit matrices (fca_lower_covers below picks it or the cells'). */
static int lower_covers_bits(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                             fca_cover_scratch *s, fca_cover_fn found, void *user)
{
    size_t n = context->attributes, object_words = context->object_words;
    size_t words = context->attribute_words ? context->attribute_words : 1;
    const parac_word *columns = fca_context_bits_built(context)->columns;
    size_t members;
    int counted, stop = 0;
    memset(s->extent, 0, (object_words + 1) * sizeof(parac_word));
    parac_bitset_fill(s->extent, context->objects);
    for (size_t a = parac_bitset_next(intent, n, 0); a < n; a = parac_bitset_next(intent, n, a + 1))
        parac_bitset_and(s->extent, s->extent, columns + a * object_words, object_words);
    memset(s->minimal, 0, words * sizeof(parac_word));
    parac_bitset_fill(s->minimal, n);
    parac_bitset_andnot(s->minimal, s->minimal, intent, words);
    members = parac_bitset_popcount(s->extent, object_words);
    counted = counts_from_rows(context, members, parac_bitset_popcount(s->minimal, words));
    if (counted) {
        size_t i = 0;
        for (size_t o = parac_bitset_next(s->extent, context->objects, 0); o < context->objects;
             o = parac_bitset_next(s->extent, context->objects, o + 1))
            s->members[i++] = (uint32_t)o;
        fca_count_supports(context, s->members, members, s, 1);
        /* the rows hold few of the attributes (a wide context): only those are tried; else every
         * attribute in order, which costs less than sorting them (T10I4D100K's extents hold
         * hundreds of its 1,000 items) */
        if (s->touched_count * 16 < n) {
            stop = covers_from_touched(context, intent, min_support, s, members, found, user);
        } else {
            for (size_t m = 0; m < n && !stop; m++)
                if (!parac_bitset_test(intent, m) && !fca_cover_skips(s, m))
                    stop = test_candidate(context, intent, min_support, s, members, 1, m, s->support[m], found, user);
        }
        fca_count_supports(context, s->members, members, s, 0);
        return stop;
    }
    for (size_t m = 0; m < n && !stop; m++) {
        if (parac_bitset_test(intent, m) || fca_cover_skips(s, m)) continue;
        parac_bitset_and(s->child_extent, s->extent, columns + m * object_words, object_words);
        stop = test_candidate(context, intent, min_support, s, members, 0, m,
                              parac_bitset_popcount(s->child_extent, object_words), found, user);
    }
    return stop;
}

int fca_lower_covers(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                     fca_cover_scratch *s, fca_cover_fn found, void *user)
{
    if (s->cells.intent_ids) return fca_lower_covers_cells(context, intent, min_support, s, found, user);
    return lower_covers_bits(context, intent, min_support, s, found, user);
}

/* One concept's edges into a thread's list, lower found by intent. */
/* A thread's covers of one concept: where they go, and (records not bitsets) the decoded intent
 * and a cover's record. */
typedef struct indexed_covers {
    const intent_table *table;
    const fca_record_format *format;
    parac_fca_lattice *edges;
    size_t upper;
    parac_word *intent, *record; /* NULL for bitset records */
} indexed_covers;

static int add_indexed_cover(void *user, const parac_word *closure)
{
    indexed_covers *covers = user;
    size_t lower;
    if (covers->record && !fca_record_encode(covers->format, closure, covers->record)) return -1;
    lower = table_find(covers->table, covers->record ? covers->record : closure, NULL);
    if (lower == SIZE_MAX) return -1;
    return add_edge(covers->edges, covers->upper, lower) ? -2 : 0;
}

/* Appends the edges from concept c to its lower covers; -1 on a missing concept, -2 out of memory. */
static int lower_covers(const parac_fca_context *context, const parac_fca_concepts *concepts, uint64_t min_support,
                        size_t c, fca_cover_scratch *s, indexed_covers *covers)
{
    const parac_word *record = concepts->intents + c * concepts->format.words;
    covers->upper = c;
    if (covers->intent) fca_record_bitset(&concepts->format, record, covers->intent);
    return fca_lower_covers(context, covers->intent ? covers->intent : record, min_support, s, add_indexed_cover,
                            covers);
}

/* The edges of every concept, on all cores; each thread credits gate (NULL: none) a unit a concept
 * (parac_progress_credit: the gate every 256 concepts or 20 ms), -4 once cancelled. */
static int cover_all(const parac_fca_context *context, const parac_fca_concepts *concepts, const intent_table *table,
                     uint64_t min_support, parac_progress_gate *gate, parac_fca_lattice *lattice)
{
    int failure = 0;
    size_t count = concepts->count;
#pragma omp parallel default(none) shared(context, concepts, table, min_support, lattice, failure, count, gate)
    {
        parac_fca_lattice local = {0};
        fca_cover_scratch s;
        int records = concepts->format.ids != 0;
        indexed_covers covers = {table, &concepts->format, &local, 0, NULL, NULL};
        parac_progress_credit credit = {0, 0, 0};
        int mine = fca_cover_scratch_init(&s, context) ? -2 : 0;
        if (records) {
            covers.intent = malloc((concepts->attribute_words + 1) * sizeof(parac_word));
            covers.record = malloc((concepts->format.words + 1) * sizeof(parac_word));
            if (!covers.intent || !covers.record) mine = -2;
        }
#pragma omp for schedule(dynamic, 64)
        for (size_t c = 0; c < count; c++) {
            if (!mine) mine = lower_covers(context, concepts, min_support, c, &s, &covers);
            if (!mine && gate && parac_progress_credit_add(gate, &credit, 1)) mine = -4;
        }
#pragma omp critical(fca_lattice_merge)
        {
            if (mine && !failure) failure = mine;
            for (size_t e = 0; e < local.count && !failure; e++)
                if (add_edge(lattice, local.edges[e].upper, local.edges[e].lower)) failure = -2;
        }
        free(local.edges);
        free(covers.intent);
        free(covers.record);
        fca_cover_scratch_free(&s);
    }
    return failure;
}

parac_status parac_fca_lattice_create(const parac_fca_context *context, const parac_fca_concepts *concepts,
                                      uint64_t min_support, parac_fca_lattice **lattice, parac_error *error)
{
    return fca_lattice_build(context, concepts, min_support, NULL, lattice, error);
}

parac_status fca_lattice_build(const parac_fca_context *context, const parac_fca_concepts *concepts,
                               uint64_t min_support, const parac_exec *exec, parac_fca_lattice **lattice,
                               parac_error *error)
{
    size_t n = concepts->count;
    parac_progress_gate gate;
    intent_table table = {{0}, concepts->intents, concepts->format.words};
    parac_fca_lattice *made;
    int failure = 0;
    if (concepts->attributes != context->attributes)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca lattice: concepts and context differ");
    if (!fca_cover_index(context, error)) return error ? error->status : PARAC_ERR_NO_MEMORY;
    made = calloc(1, sizeof *made);
    if (!made) return parac_fail_no_memory(error, "lattice", sizeof *made);
    for (size_t i = 0; i < n && !failure; i++) {
        size_t slot;
        if (parac_hash_index_reserve(&table.index, concept_hash, &table) != 0) failure = -2;
        else if (table_find(&table, concepts->intents + i * table.words, &slot) != SIZE_MAX) failure = -3;
        else parac_hash_index_insert(&table.index, slot, i);
    }
    parac_progress_gate_init(&gate, exec, n);
    if (!failure) failure = cover_all(context, concepts, &table, min_support, exec && exec->progress ? &gate : NULL, made);
    parac_hash_index_free(&table.index);
    if (failure) {
        parac_fca_lattice_destroy(made);
        if (failure == -2) return parac_fail_no_memory(error, "lattice edges", 0);
        if (failure == -4) return parac_fail(error, PARAC_ERR_CANCELLED, "fca lattice: cancelled");
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, failure == -3 ? "fca lattice: duplicate concepts"
                          : "fca lattice: a cover is missing from the concept list (incomplete list or wrong min support)");
    }
    if (made->count > 1) qsort(made->edges, made->count, sizeof *made->edges, by_edge);
    *lattice = made;
    return PARAC_OK;
}

void parac_fca_lattice_destroy(parac_fca_lattice *lattice)
{
    if (!lattice) return;
    free(lattice->edges);
    free(lattice);
}

size_t parac_fca_lattice_edge_count(const parac_fca_lattice *lattice) { return lattice->count; }

void parac_fca_lattice_edge(const parac_fca_lattice *lattice, size_t index, size_t *upper, size_t *lower)
{
    *upper = lattice->edges[index].upper;
    *lower = lattice->edges[index].lower;
}
