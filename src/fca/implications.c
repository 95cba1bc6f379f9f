/* fca/implications.c — the Duquenne-Guigues basis: every pseudo-intent P of the
 * context with the implication P -> P'' \ P.
 *
 * The sets closed under "the implications found so far" (L-closed sets) are
 * exactly the intents and the pseudo-intents, and visiting them in lectic
 * order finds every pseudo-intent after all the pseudo-intents it contains
 * (Ganter's NextClosure argument). Rather than NextClosure, which restarts
 * from the last set for every successor, the search is CbO over L-closed
 * sets as in LinCbO (Janostik, Konecny & Krajca 2021): a node B has children
 * C = L(B ∪ {j}) for j after B's own generator, kept when C adds no attribute
 * before j (CbO's canonicity test); trying j from the last attribute down and
 * going depth first visits exactly the lectic order (a child with the larger
 * j, and its subtree, precedes one with the smaller j: the smaller set below j
 * decides). Each child's closure is computed when it is reached, so L then
 * holds every pseudo-intent lectically before it.
 *
 * The closure of B ∪ {j} starts from B, which was closed under every
 * implication found before it: an implication found later has a premise that
 * is lectically later than B, so it is no subset of B (except B's own, when B
 * is a pseudo-intent: its conclusion is added first). Only implications whose
 * premise holds an attribute added since B can fire, so each added attribute
 * walks the list of the premises that contain it (LinClosure's index), and the
 * first added attribute before j that B lacks ends the attempt: the child is
 * not canonical. The context closure C'' is computed only for canonical
 * children, from C's extent (B's extent ∩ j's column: the L-closure adds no
 * object constraint, every implication holds in the context).
 *
 * Support: C's extent is B's extent ∩ j's column, so an infrequent child is
 * skipped before its closure, and with it its subtree (supports only shrink
 * downwards); every pseudo-intent inside a frequent set is frequent, so the
 * frequent part of the basis is exact.
 */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "core/error.h"
#include "core/progress.h"
#include "fca/fca_internal.h"
#include "fca/itemset_pairs.h"

struct parac_fca_implications {
    fca_itemset_pairs basis;
};

/* For each attribute, the implications (indices into the basis) whose premise contains it. */
typedef struct premise_lists {
    uint32_t **items;
    size_t *sizes, *capacities;
} premise_lists;

/* One node of the depth-first path: an L-closed set, its extent and context closure. */
typedef struct search_level {
    parac_word *set, *extent, *closure;
    size_t generator; /* the j this node was reached by; attributes + 1 for the root ("none") */
    size_t next;      /* the next j to try is next - 1 */
    size_t stop;      /* try only j > stop (CbO) ... */
    size_t limit;     /* ... and j < limit (a pseudo-intent's first new attribute + 1: a child by a later j
                         gains that attribute before j, it is not canonical) */
} search_level;

typedef struct basis_search {
    const parac_fca_context *context;
    size_t attributes, words, object_words;
    uint64_t min_support;
    fca_itemset_pairs *basis;
    premise_lists lists;
    search_level *levels;
    size_t level_count, level_capacity;
    uint32_t *queue;       /* attributes added to the closure and not yet walked */
    parac_word *new_items; /* scratch: one conclusion's attributes the closure lacks */
    parac_progress_gate gate;
} basis_search;

void parac_fca_rule_options_init(parac_fca_rule_options *options)
{
    if (!options) return;
    memset(options, 0, sizeof *options);
    parac_exec_init(&options->exec);
}

/* ---- the premise lists ------------------------------------------------------------------ */

static int lists_add(premise_lists *lists, size_t attribute, uint32_t implication)
{
    if (lists->sizes[attribute] == lists->capacities[attribute]) {
        size_t capacity = lists->capacities[attribute] ? lists->capacities[attribute] * 2 : 4;
        uint32_t *grown = realloc(lists->items[attribute], capacity * sizeof *grown);
        if (!grown) return -1;
        lists->items[attribute] = grown;
        lists->capacities[attribute] = capacity;
    }
    lists->items[attribute][lists->sizes[attribute]++] = implication;
    return 0;
}

static void lists_release(premise_lists *lists, size_t attributes)
{
    for (size_t a = 0; lists->items && a < attributes; a++) free(lists->items[a]);
    free(lists->items);
    free(lists->sizes);
    free(lists->capacities);
}

/* Records P -> closure \ P in the basis and in the lists of P's attributes. */
static parac_status add_implication(basis_search *search, const parac_word *premise, const parac_word *closure,
                                    uint64_t support, parac_error *error)
{
    size_t index = search->basis->count, words = search->words;
    parac_word *conclusion = search->new_items;
    parac_status status;
    if (index >= UINT32_MAX) return parac_fail(error, PARAC_ERR_NO_MEMORY, "fca implications: more than 2^32 - 1");
    parac_bitset_andnot(conclusion, closure, premise, words);
    status = fca_itemset_pairs_append(search->basis, premise, conclusion, support, support, "implications", error);
    if (status != PARAC_OK) return status;
    for (size_t a = parac_bitset_next(premise, search->attributes, 0); a < search->attributes;
         a = parac_bitset_next(premise, search->attributes, a + 1))
        if (lists_add(&search->lists, a, (uint32_t)index))
            return parac_fail_no_memory(error, "implication premise lists", search->lists.capacities[a] * 8);
    return PARAC_OK;
}

/* ---- closures ------------------------------------------------------------------------------ */

/* The attributes every object of extent has (all attributes for an empty extent). */
static void context_closure(const basis_search *search, const parac_word *extent, parac_word *closure)
{
    const parac_fca_context *context = search->context;
    size_t words = search->words, first = parac_bitset_next(extent, context->objects, 0);
    parac_bitset_fill(closure, search->attributes);
    for (size_t o = first; o < context->objects; o = parac_bitset_next(extent, context->objects, o + 1))
        parac_bitset_and(closure, closure, context->rows + o * words, words);
}

/* Adds attribute a to the closure X of B ∪ {j}; 0 when X stays canonical (a after j, or a in X). */
static int closure_add(basis_search *search, parac_word *set, size_t a, size_t j, size_t *queued)
{
    if (parac_bitset_test(set, a)) return 0;
    if (a < j) return -1; /* X gains an attribute before j that B lacks */
    parac_bitset_set(set, a);
    search->queue[(*queued)++] = (uint32_t)a;
    return 0;
}

/* child->set = the L-closure of parent's set ∪ {j} (parent's own implication included through its
 * closure); 0 when canonical, -1 as soon as it adds an attribute before j. */
static int implication_closure(basis_search *search, const search_level *parent, search_level *child, size_t j)
{
    size_t words = search->words, queued = 0, walked = 0;
    parac_word *set = child->set;
    parac_bitset_copy(set, parent->set, words);
    if (closure_add(search, set, j, j, &queued)) return -1;
    if (!parac_bitset_equal(parent->closure, parent->set, words)) /* a pseudo-intent: its conclusion */
        for (size_t w = 0; w < words; w++)
            for (parac_word bits = parent->closure[w] & ~parent->set[w]; bits; bits &= bits - 1)
                if (closure_add(search, set, w * 64 + (size_t)__builtin_ctzll(bits), j, &queued)) return -1;
    while (walked < queued) {
        size_t a = search->queue[walked++];
        const uint32_t *items = search->lists.items[a];
        for (size_t i = 0, size = search->lists.sizes[a]; i < size; i++) {
            const parac_word *premise = search->basis->premises + (size_t)items[i] * words;
            const parac_word *conclusion = search->basis->conclusions + (size_t)items[i] * words;
            if (parac_bitset_is_subset(conclusion, set, words) || !parac_bitset_is_subset(premise, set, words)) continue;
            for (size_t w = 0; w < words; w++)
                for (parac_word bits = conclusion[w] & ~set[w]; bits; bits &= bits - 1)
                    if (closure_add(search, set, w * 64 + (size_t)__builtin_ctzll(bits), j, &queued)) return -1;
        }
    }
    return 0;
}

/* ---- the search ------------------------------------------------------------------------------- */

/* *level = the level at depth, allocated on first use (depth is at most attributes + 1). */
static parac_status level_at(basis_search *search, size_t depth, search_level **level, parac_error *error)
{
    search_level *at;
    if (depth >= search->level_capacity) {
        size_t capacity = search->level_capacity ? search->level_capacity * 2 : 16;
        search_level *grown = realloc(search->levels, capacity * sizeof *grown);
        if (!grown) return parac_fail_no_memory(error, "implication search levels", capacity * sizeof *grown);
        memset(grown + search->level_capacity, 0, (capacity - search->level_capacity) * sizeof *grown);
        search->levels = grown;
        search->level_capacity = capacity;
    }
    at = &search->levels[depth];
    if (!at->set) {
        at->set = calloc(search->words + 1, sizeof *at->set);
        at->closure = calloc(search->words + 1, sizeof *at->closure);
        at->extent = calloc(search->object_words + 1, sizeof *at->extent);
        if (!at->set || !at->closure || !at->extent)
            return parac_fail_no_memory(error, "implication search levels", (search->words * 2 + search->object_words) * 8);
    }
    *level = at;
    return PARAC_OK;
}

/* A node was reached (its set, extent and generator filled): its closure, its implication when it
 * is a pseudo-intent, and the bounds of its children. */
static parac_status enter(basis_search *search, search_level *level, parac_error *error)
{
    size_t words = search->words, first_new;
    uint64_t support = parac_bitset_popcount(level->extent, search->object_words);
    parac_status status = PARAC_OK;
    context_closure(search, level->extent, level->closure);
    level->next = search->attributes;
    level->stop = level->generator;
    level->limit = search->attributes;
    if (!parac_bitset_equal(level->closure, level->set, words)) {
        status = add_implication(search, level->set, level->closure, support, error);
        /* every child contains the closure: one adding it before j is not canonical */
        parac_bitset_andnot(search->new_items, level->closure, level->set, words);
        first_new = parac_bitset_next(search->new_items, search->attributes, 0);
        level->limit = first_new + 1;
    }
    return status;
}

/* Tries the parent's next j; *entered = 1 when a canonical, frequent child was entered at depth + 1. */
static parac_status try_next_child(basis_search *search, size_t depth, int *entered, parac_error *error)
{
    search_level *parent = &search->levels[depth], *child;
    parac_status status;
    size_t j;
    *entered = 0;
    j = --parent->next;
    if (parac_bitset_test(parent->set, j)) return PARAC_OK;
    if ((status = level_at(search, depth + 1, &child, error)) != PARAC_OK) return status;
    parent = &search->levels[depth]; /* level_at may have moved the levels */
    parac_bitset_and(child->extent, parent->extent, search->context->columns + j * search->object_words,
                     search->object_words);
    if (search->min_support && parac_bitset_popcount(child->extent, search->object_words) < search->min_support)
        return PARAC_OK;
    if (implication_closure(search, parent, child, j)) return PARAC_OK;
    child->generator = j;
    *entered = 1;
    return enter(search, child, error);
}

static parac_status run_search(basis_search *search, parac_error *error)
{
    size_t depth = 0, attempts = 0, attributes = search->attributes;
    search_level *root;
    parac_status status = level_at(search, 0, &root, error);
    if (status != PARAC_OK) return status;
    parac_bitset_fill(root->extent, search->context->objects);
    if (parac_bitset_popcount(root->extent, search->object_words) < search->min_support) return PARAC_OK;
    root->generator = SIZE_MAX; /* "before every attribute": j > stop holds for all j via the wrap below */
    if ((status = enter(search, root, error)) != PARAC_OK) return status;
    for (;;) {
        search_level *level = &search->levels[depth];
        size_t lowest = level->stop == SIZE_MAX ? 0 : level->stop + 1;
        int entered;
        if (level->next > level->limit) level->next = level->limit;
        if (level->next <= lowest) {
            if (depth == 0) break;
            depth--;
            continue;
        }
        if ((++attempts & 4095) == 0 &&
            parac_progress_gate_poll_at(&search->gate, attributes - search->levels[0].next))
            return parac_fail(error, PARAC_ERR_CANCELLED, "fca implications: cancelled");
        if ((status = try_next_child(search, depth, &entered, error)) != PARAC_OK) return status;
        depth += (size_t)entered;
    }
    return PARAC_OK;
}

/* ---- setup and the public functions ------------------------------------------------------------ */

static parac_status search_init(basis_search *search, const parac_fca_context *context,
                                const parac_fca_rule_options *options, fca_itemset_pairs *basis, parac_error *error)
{
    size_t attributes = context->attributes;
    memset(search, 0, sizeof *search);
    search->context = context;
    search->attributes = attributes;
    search->words = context->attribute_words;
    search->object_words = context->object_words;
    search->min_support = options->min_support;
    search->basis = basis;
    search->lists.items = calloc(attributes + 1, sizeof *search->lists.items);
    search->lists.sizes = calloc(attributes + 1, sizeof *search->lists.sizes);
    search->lists.capacities = calloc(attributes + 1, sizeof *search->lists.capacities);
    search->queue = malloc((attributes + 1) * sizeof *search->queue);
    search->new_items = calloc(search->words + 1, sizeof *search->new_items);
    if (!search->lists.items || !search->lists.sizes || !search->lists.capacities || !search->queue || !search->new_items)
        return parac_fail_no_memory(error, "implication search", (attributes + 1) * 28);
    parac_progress_gate_init(&search->gate, &options->exec, attributes ? attributes : 1);
    return PARAC_OK;
}

static void search_release(basis_search *search)
{
    lists_release(&search->lists, search->attributes);
    for (size_t d = 0; d < search->level_capacity; d++) {
        free(search->levels[d].set);
        free(search->levels[d].closure);
        free(search->levels[d].extent);
    }
    free(search->levels);
    free(search->queue);
    free(search->new_items);
}

parac_status parac_fca_implications_compute(const parac_fca_context *context, const parac_fca_rule_options *options,
                                            parac_fca_implications **implications, parac_error *error)
{
    parac_fca_rule_options defaults;
    parac_fca_implications *made;
    basis_search search;
    parac_status status;
    if (!context || !implications)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca implications: context and result are required");
    if (!options) {
        parac_fca_rule_options_init(&defaults);
        options = &defaults;
    }
    if (!(made = calloc(1, sizeof *made))) return parac_fail_no_memory(error, "implications", sizeof *made);
    fca_itemset_pairs_init(&made->basis, context->attributes);
    status = search_init(&search, context, options, &made->basis, error);
    if (status == PARAC_OK) status = run_search(&search, error);
    if (status == PARAC_OK && parac_progress_gate_finish(&search.gate))
        status = parac_fail(error, PARAC_ERR_CANCELLED, "fca implications: cancelled");
    search_release(&search);
    if (status == PARAC_OK) status = fca_itemset_pairs_sort(&made->basis, "implications", error);
    if (status != PARAC_OK) {
        parac_fca_implications_destroy(made);
        return status;
    }
    *implications = made;
    return PARAC_OK;
}

void parac_fca_implications_destroy(parac_fca_implications *implications)
{
    if (!implications) return;
    fca_itemset_pairs_release(&implications->basis);
    free(implications);
}

size_t parac_fca_implications_size(const parac_fca_implications *implications)
{
    return implications ? implications->basis.count : 0;
}

size_t parac_fca_implication_premise(const parac_fca_implications *implications, size_t index, uint32_t *ids,
                                     size_t capacity)
{
    const fca_itemset_pairs *basis = implications ? &implications->basis : NULL;
    if (!basis || index >= basis->count) return 0;
    return fca_itemset_pairs_ids(basis, basis->premises + index * basis->words, ids, capacity);
}

size_t parac_fca_implication_conclusion(const parac_fca_implications *implications, size_t index, uint32_t *ids,
                                        size_t capacity)
{
    const fca_itemset_pairs *basis = implications ? &implications->basis : NULL;
    if (!basis || index >= basis->count) return 0;
    return fca_itemset_pairs_ids(basis, basis->conclusions + index * basis->words, ids, capacity);
}

uint64_t parac_fca_implication_support(const parac_fca_implications *implications, size_t index)
{
    return implications && index < implications->basis.count ? implications->basis.supports[index] : 0;
}
