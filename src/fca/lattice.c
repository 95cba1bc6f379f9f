/* fca/lattice.c — covering edges of the concept lattice by iPred
 * (Baixeries, Szathmary, Valtchev, Godin 2009).
 *
 * Concepts are taken by ascending intent size. The border holds the processed
 * intents with no processed superset. For a new intent c, the candidates are
 * c ∩ b for b in the border (intersections of intents are intents, even in an
 * iceberg lattice); a candidate k is covered by c exactly when c shares no
 * attribute with Δ[k], the attributes k's earlier covers added. Cost: border
 * size x intent words per concept, far below the quadratic naive check. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fca_internal.h"

typedef struct lattice_edge {
    size_t upper, lower;
} lattice_edge;

struct parac_fca_lattice {
    lattice_edge *edges;
    size_t count, capacity;
};

typedef struct intent_table {
    size_t *slots; /* concept index + 1, 0 = empty */
    size_t mask;
    const parac_word *intents;
    size_t words;
} intent_table;

static uint64_t hash_words(const parac_word *words, size_t count)
{
    uint64_t hash = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < count; i++) {
        hash ^= words[i] + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
        hash *= 0xff51afd7ed558ccdULL;
    }
    return hash ^ (hash >> 33);
}

static size_t *table_find(const intent_table *table, const parac_word *intent)
{
    for (size_t slot = hash_words(intent, table->words) & table->mask;; slot = (slot + 1) & table->mask) {
        size_t *entry = &table->slots[slot];
        if (!*entry || parac_bitset_equal(table->intents + (*entry - 1) * table->words, intent, table->words))
            return entry;
    }
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

typedef struct ipred_state {
    const parac_fca_concepts *concepts;
    intent_table table;
    parac_word *delta, *meet;
    size_t *order, *border, *border_position, *candidates, *stamp;
    size_t border_count;
} ipred_state;

static void border_remove(ipred_state *s, size_t k)
{
    size_t position = s->border_position[k], last = s->border[--s->border_count];
    s->border[position] = last;
    s->border_position[last] = position;
    s->border_position[k] = (size_t)-1;
}

/* Processes concept c: finds its upper covers among border intersections. */
static parac_status ipred_step(ipred_state *s, parac_fca_lattice *lattice, size_t step, size_t c, parac_error *error)
{
    size_t words = s->concepts->attribute_words, candidate_count = 0;
    const parac_word *intent = s->concepts->intents + c * words;
    for (size_t b = 0; b < s->border_count; b++) {
        size_t *entry;
        parac_bitset_and(s->meet, intent, s->concepts->intents + s->border[b] * words, words);
        entry = table_find(&s->table, s->meet);
        if (!*entry)
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                              "fca lattice: an intersection of intents is missing: the concept list is incomplete");
        if (s->stamp[*entry - 1] != step) s->stamp[*entry - 1] = step, s->candidates[candidate_count++] = *entry - 1;
    }
    for (size_t i = 0; i < candidate_count; i++) {
        size_t k = s->candidates[i];
        parac_word *delta = s->delta + k * words;
        int disjoint = 1;
        for (size_t w = 0; w < words && disjoint; w++) disjoint = !(delta[w] & intent[w]);
        if (disjoint && k != c) {
            if (add_edge(lattice, k, c)) return parac_fail_no_memory(error, "lattice edges", lattice->capacity * 16);
            for (size_t w = 0; w < words; w++) delta[w] |= intent[w] & ~s->concepts->intents[k * words + w];
        }
        if (s->border_position[k] != (size_t)-1) border_remove(s, k);
    }
    s->border_position[c] = s->border_count;
    s->border[s->border_count++] = c;
    return PARAC_OK;
}

/* Concept indices by ascending intent size (counting sort, stable). */
static void order_by_size(const parac_fca_concepts *concepts, size_t *order, size_t *bucket_start)
{
    size_t n = concepts->count, words = concepts->attribute_words;
    memset(bucket_start, 0, (concepts->attributes + 2) * sizeof *bucket_start);
    for (size_t i = 0; i < n; i++) bucket_start[parac_bitset_popcount(concepts->intents + i * words, words) + 1]++;
    for (size_t s = 1; s <= concepts->attributes + 1; s++) bucket_start[s] += bucket_start[s - 1];
    for (size_t i = 0; i < n; i++) order[bucket_start[parac_bitset_popcount(concepts->intents + i * words, words)]++] = i;
}

static parac_status ipred_run(ipred_state *s, parac_fca_lattice *lattice, parac_error *error)
{
    const parac_fca_concepts *concepts = s->concepts;
    size_t n = concepts->count;
    parac_status status = PARAC_OK;
    for (size_t i = 0; i < n; i++) {
        size_t *entry = table_find(&s->table, concepts->intents + i * concepts->attribute_words);
        if (*entry) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca lattice: concepts %zu and %zu are equal", *entry - 1, i);
        *entry = i + 1;
        s->border_position[i] = (size_t)-1;
        s->stamp[i] = (size_t)-1;
    }
    order_by_size(concepts, s->order, s->border); /* border doubles as bucket scratch here */
    s->border_count = 0;
    for (size_t i = 0; i < n && status == PARAC_OK; i++) status = ipred_step(s, lattice, i, s->order[i], error);
    if (status == PARAC_OK && lattice->count > 1) qsort(lattice->edges, lattice->count, sizeof *lattice->edges, by_edge);
    return status;
}

parac_status parac_fca_lattice_create(const parac_fca_concepts *concepts, parac_fca_lattice **lattice,
                                      parac_error *error)
{
    size_t n = concepts->count, words = concepts->attribute_words, table_size = 16, scratch = n + concepts->attributes + 2;
    ipred_state s;
    parac_fca_lattice *made = calloc(1, sizeof *made);
    parac_status status;
    while (table_size < 2 * n) table_size *= 2;
    memset(&s, 0, sizeof s);
    s.concepts = concepts;
    s.table.slots = calloc(table_size, sizeof(size_t));
    s.table.mask = table_size - 1;
    s.table.intents = concepts->intents;
    s.table.words = words;
    s.delta = calloc(n * words + 1, sizeof(parac_word));
    s.meet = calloc(words, sizeof(parac_word));
    s.order = malloc(scratch * sizeof(size_t));
    s.border = malloc(scratch * sizeof(size_t));
    s.border_position = malloc(scratch * sizeof(size_t));
    s.candidates = malloc(scratch * sizeof(size_t));
    s.stamp = malloc(scratch * sizeof(size_t));
    if (!made || !s.table.slots || !s.delta || !s.meet || !s.order || !s.border || !s.border_position ||
        !s.candidates || !s.stamp)
        status = parac_fail_no_memory(error, "lattice", (unsigned long long)n * (words * 8 + 56));
    else
        status = ipred_run(&s, made, error);
    free(s.table.slots), free(s.delta), free(s.meet), free(s.order), free(s.border);
    free(s.border_position), free(s.candidates), free(s.stamp);
    if (status != PARAC_OK) {
        parac_fca_lattice_destroy(made);
        return status;
    }
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
