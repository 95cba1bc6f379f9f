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
 * is a pseudo-intent: its conclusion is added first). Like LinCbO it reuses
 * the parent's work, but instead of LinClosure's counters each node keeps the
 * implications that can still fire below it: those whose premise minus B
 * starts after B's generator (an attribute at or before it would make any
 * descendant non-canonical), keyed by that first missing attribute. An
 * attempt with j reads only the keys >= j, a child filters its parent's list
 * once, and an implication found later is appended to the lists of the nodes
 * on the current path (its premise contains each of them). Lists shrink fast
 * with depth, where most attempts are. The first added attribute before j
 * ends an attempt (not canonical). The context closure C'' is computed only
 * for canonical children, from C's extent (B's extent ∩ j's column: every
 * implication holds in the context, so the L-closure keeps the extent).
 *
 * Support: an infrequent child is skipped before its closure, and with it its
 * subtree (supports only shrink downwards); every pseudo-intent inside a
 * frequent set is frequent, so the frequent part of the basis is exact.
 */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "core/error.h"
#include "core/progress.h"
#include "fca/concept_stream.h"
#include "fca/fca_internal.h"
#include "fca/itemset_pairs.h"

struct parac_fca_implications {
    fca_itemset_pairs basis;
};

/* One node of the depth-first path: an L-closed set, its extent and context closure, and the
 * implications that can still fire below it. */
typedef struct search_level {
    parac_word *set, *extent, *closure;
    parac_word *candidates; /* with min_support: the attributes some object of the extent has (any other
                               j gives an empty child extent, never frequent: not tried) */
    size_t generator; /* the j this node was reached by; SIZE_MAX for the root ("none") */
    uint64_t serial;  /* names this node's sorted list (levels are reused, lists re-sorted): the key of
                         the buckets remembered for it (bucket_of) */
    size_t asks;      /* binary searches in the list since it was named or indexed */
    size_t next;      /* the next j to try is next - 1 */
    size_t limit;     /* try only j < limit: a pseudo-intent's first new attribute + 1 (a child by a
                         later j gains that attribute before j: it is not canonical) */
    uint32_t *relevant; /* implication indices whose premise is no subset of set ... */
    uint32_t *keys;     /* ... with the first premise attribute set lacks (always after generator) */
    size_t relevant_count, relevant_capacity;
    size_t sorted_count; /* the first sorted_count entries (those filtered from the parent) by ascending
                            key, so a key's bucket is found by binary search; the rest (the tail) were
                            found later below this node */
    uint32_t implication; /* a pseudo-intent's own implication in the basis (its conclusion, closure \ set,
                             as ascending ids); UINT32_MAX for an intent */
    int listed;          /* the list is filtered from the parent's: done at the node's first attempt,
                            so the many nodes that try no child (most, on a wide sparse context) never
                            copy their parent's list */
} search_level;

typedef struct basis_search {
    const parac_fca_context *context;
    size_t attributes, words, object_words;
    uint64_t min_support;
    fca_itemset_pairs *basis;
    search_level *levels;
    size_t depth, level_capacity; /* depth: the deepest node entered (levels 0..depth are the path) */
    uint32_t *queue;              /* the attributes a closure added to its parent's set */
    uint64_t *moved, *merged, *sorted; /* filter_relevant's (key << 32 | implication) entries */
    size_t moved_capacity;
    size_t *counts;               /* attributes + 1 zeros: sort_by_key's counting sort */
    uint64_t serials;             /* lists named so far */
    uint64_t indexed;             /* the list whose buckets are all recorded (index_buckets), 0: none */
    uint64_t *bucket_serial;      /* per key: the list whose bucket [begin, end) is remembered ... */
    uint32_t *bucket_begin, *bucket_end; /* ... (bucket_of; other lists: look again) */
    const fca_column_lists *columns;     /* set: extents and closures from the cells (wide sparse contexts) */
    uint64_t *cell_counts;               /* attributes + 1 (cells only): zero between uses */
    uint32_t *cell_touched, *members;    /* attributes + 1 and objects + 1 (cells only) */
    parac_progress_gate gate;
} basis_search;

void parac_fca_rule_options_init(parac_fca_rule_options *options)
{
    if (!options) return;
    memset(options, 0, sizeof *options);
    parac_exec_init(&options->exec);
}

/* ---- the relevant implications of a node ---------------------------------------------------- */

static int relevant_add(search_level *level, uint32_t implication, size_t key)
{
    if (level->relevant_count == level->relevant_capacity) {
        size_t capacity = level->relevant_capacity ? level->relevant_capacity * 2 : 64;
        uint32_t *relevant = realloc(level->relevant, capacity * sizeof *relevant), *keys;
        if (!relevant) return -1;
        level->relevant = relevant;
        if (!(keys = realloc(level->keys, capacity * sizeof *keys))) return -1;
        level->keys = keys;
        level->relevant_capacity = capacity;
    }
    level->relevant[level->relevant_count] = implication;
    level->keys[level->relevant_count++] = (uint32_t)key;
    return 0;
}

/* The first attribute of a bitset premise that set lacks; attributes when premise ⊆ set. */
static size_t first_missing(const basis_search *search, const parac_word *premise, const parac_word *set)
{
    for (size_t w = 0; w < search->words; w++) {
        parac_word missing = premise[w] & ~set[w];
        if (missing) return w * 64 + (size_t)__builtin_ctzll(missing);
    }
    return search->attributes;
}

/* The same for implication i of the basis, whose premise is its ascending ids. */
static size_t first_missing_of(const basis_search *search, uint32_t implication, const parac_word *set)
{
    size_t size;
    const uint32_t *premise = fca_itemset_pairs_premise(search->basis, implication, &size);
    for (size_t i = 0; i < size; i++)
        if (!parac_bitset_test(set, premise[i])) return premise[i];
    return search->attributes;
}

/* Records P -> closure \ P in the basis and in the lists of the nodes above P on the path (P is
 * the node at search->depth: its own implication is applied through its closure instead). */
static parac_status add_implication(basis_search *search, const parac_word *premise, const parac_word *closure,
                                    uint64_t support, parac_error *error)
{
    size_t index = search->basis->count;
    parac_status status;
    if (index >= UINT32_MAX) return parac_fail(error, PARAC_ERR_NO_MEMORY, "fca implications: more than 2^32 - 1");
    status = fca_itemset_pairs_append_sets(search->basis, premise, closure, support, support, "implications", error);
    if (status != PARAC_OK) return status;
    for (size_t d = 0; d < search->depth; d++) {
        search_level *above = &search->levels[d];
        if (relevant_add(above, (uint32_t)index, first_missing(search, premise, above->set)))
            return parac_fail_no_memory(error, "implication lists", above->relevant_capacity * 8);
    }
    return PARAC_OK;
}

/* Room for `count` entries in the filter's scratch arrays; 0 on success. */
static int reserve_moved(basis_search *search, size_t count)
{
    uint64_t *moved, *merged, *sorted;
    size_t capacity = search->moved_capacity ? search->moved_capacity : 256;
    if (count <= search->moved_capacity) return 0;
    while (capacity < count) capacity *= 2;
    if (!(moved = realloc(search->moved, capacity * sizeof *moved))) return -1;
    search->moved = moved;
    if (!(merged = realloc(search->merged, capacity * sizeof *merged))) return -1;
    search->merged = merged;
    if (!(sorted = realloc(search->sorted, capacity * sizeof *sorted))) return -1;
    search->sorted = sorted;
    search->moved_capacity = capacity;
    return 0;
}

/* Room for `count` entries in level's list; 0 on success. */
static int reserve_relevant(search_level *level, size_t count)
{
    uint32_t *relevant, *keys;
    size_t capacity = level->relevant_capacity ? level->relevant_capacity : 64;
    if (count <= level->relevant_capacity) return 0;
    while (capacity < count) capacity *= 2;
    if (!(relevant = realloc(level->relevant, capacity * sizeof *relevant))) return -1;
    level->relevant = relevant;
    if (!(keys = realloc(level->keys, capacity * sizeof *keys))) return -1;
    level->keys = keys;
    level->relevant_capacity = capacity;
    return 0;
}

static int by_packed(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

/* Sorts count (key << 32 | implication) entries of search->moved by key, keys in [low, attributes):
 * insertion sort for a few, a counting sort over the key range when that range is small next to
 * count (search->counts: attributes + 1 slots, left zero), qsort otherwise. */
static void sort_by_key(basis_search *search, size_t count, size_t low)
{
    uint64_t *items = search->moved;
    size_t *counts = search->counts, position = 0;
    if (count <= 32) {
        for (size_t i = 1; i < count; i++) {
            uint64_t held = items[i];
            size_t k = i;
            for (; k > 0 && items[k - 1] >> 32 > held >> 32; k--) items[k] = items[k - 1];
            items[k] = held;
        }
        return;
    }
    if (count * 4 < search->attributes - low) {
        qsort(items, count, sizeof *items, by_packed);
        return;
    }
    for (size_t i = 0; i < count; i++) counts[items[i] >> 32]++;
    for (size_t key = low; key < search->attributes; key++) {
        size_t here = counts[key];
        counts[key] = position;
        position += here;
    }
    for (size_t i = 0; i < count; i++) search->sorted[counts[items[i] >> 32]++] = items[i];
    for (size_t key = low; key < search->attributes; key++) counts[key] = 0;
    memcpy(items, search->sorted, count * sizeof *items);
}

/* The first entry of level's sorted part with key >= key. */
static size_t bucket_start(const search_level *level, size_t key)
{
    size_t low = 0, high = level->sorted_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (level->keys[middle] < key) low = middle + 1;
        else high = middle;
    }
    return low;
}

/* Records every bucket of level's sorted list at once: a key then missing from the record has none. */
static void index_buckets(basis_search *search, search_level *level)
{
    for (size_t i = 0; i < level->sorted_count; i++) {
        size_t key = level->keys[i];
        if (search->bucket_serial[key] != level->serial) {
            search->bucket_serial[key] = level->serial;
            search->bucket_begin[key] = (uint32_t)i;
        }
        search->bucket_end[key] = (uint32_t)i + 1;
    }
    search->indexed = level->serial;
    level->asks = 0;
}

/* [*begin, *end): key's bucket in level's sorted part. Remembered per key for the list that asked
 * (bucket_serial); a key not remembered is found by binary search, or known empty while the whole
 * list is indexed (search->indexed). A list is indexed whole once its binary searches since it was
 * last indexed or renamed reach 1/32 of its length, so an index costs at most a constant times the
 * searches before it: a short list read at many attempts (a dense context) is indexed almost at once,
 * a long one asked for a few keys per attempt (the root of a wide context, returned to once per
 * child) is not read whole at every return. (1/8: vote 2 % more instructions than indexing at every
 * return, as before; 1/32: the same count; wide.dat 6.2 s, where indexing at every return was
 * quadratic.) */
static void bucket_of(basis_search *search, search_level *level, size_t key, size_t *begin, size_t *end)
{
    if (search->bucket_serial[key] != level->serial) {
        size_t first, past;
        if (search->indexed == level->serial) {
            *begin = *end = 0;
            return;
        }
        search->indexed = 0; /* the record is written for another list than the indexed one */
        first = past = bucket_start(level, key);
        while (past < level->sorted_count && level->keys[past] == key && past - first < 8) past++;
        if (past - first == 8) past = bucket_start(level, key + 1); /* a long bucket: search its end too */
        search->bucket_serial[key] = level->serial;
        search->bucket_begin[key] = (uint32_t)first;
        search->bucket_end[key] = (uint32_t)past;
        if (++level->asks * 32 > level->sorted_count) index_buckets(search, level);
    }
    *begin = search->bucket_begin[key];
    *end = search->bucket_end[key];
}

/* A new name for level's sorted part, which just changed: the buckets remembered under the old one
 * are stale. */
static void rename_list(basis_search *search, search_level *level)
{
    level->serial = ++search->serials;
    level->asks = 0;
}

/* One parent entry for child's list: kept with its key (still in order) when child lacks that
 * attribute, else re-keyed to the next attribute child lacks (moved: sorted and merged in later);
 * dropped when the premise is inside child's set or, with min_support, its key is no attribute of
 * child's extent: every set below child is inside the closure of a non-empty part of that extent, so
 * the key is never added and the implication never fires there. */
static inline __attribute__((always_inline)) /* in the loops: a call per entry cost vote 20 % */
void filter_entry(basis_search *search, const search_level *child, size_t key, uint32_t implication, int sorted,
                  size_t *kept, size_t *moved)
{
    int held = parac_bitset_test(child->set, key);
    if (held) key = first_missing_of(search, implication, child->set);
    if (key >= search->attributes || (child->candidates && !parac_bitset_test(child->candidates, key))) return;
    if (sorted && !held) search->merged[(*kept)++] = (uint64_t)key << 32 | implication;
    else search->moved[(*moved)++] = (uint64_t)key << 32 | implication;
}

/* child's list (child = the closure of parent ∪ {j}): the parent's implications whose premise child
 * lacks and whose first lacking attribute is after j and can still be added below child, sorted by
 * that key (filter_entry). Entries whose key child does not hold keep it and their order; the others
 * (keys child now holds, the parent's tail) get new keys, are sorted, and merged in. With min_support
 * only the buckets of child's candidates are read, so a node with a long list and thousands of
 * children (a wide sparse context, where an extent of a few rows has few candidates) does not copy
 * the list each time (wide10k.dat: 0.29 s, 1.39 s reading all from j; mushroom, vote: the same). */
static parac_status filter_relevant(basis_search *search, search_level *parent, search_level *child, size_t j,
                                    parac_error *error)
{
    size_t kept = 0, moved = 0, from = bucket_start(parent, j), k = 0, m = 0, out = 0;
    uint64_t *merged, *moved_items;
    if (reserve_moved(search, parent->relevant_count - from) || reserve_relevant(child, parent->relevant_count - from))
        return parac_fail_no_memory(error, "implication lists", (parent->relevant_count - from) * 24);
    merged = search->merged;
    moved_items = search->moved;
    if (child->candidates) {
        for (size_t c = parac_bitset_next(child->candidates, search->attributes, j); c < search->attributes;
             c = parac_bitset_next(child->candidates, search->attributes, c + 1))
        {
            size_t begin, end;
            bucket_of(search, parent, c, &begin, &end);
            for (size_t i = begin; i < end; i++) filter_entry(search, child, c, parent->relevant[i], 1, &kept, &moved);
        }
    } else {
        for (size_t i = from; i < parent->sorted_count; i++)
            filter_entry(search, child, parent->keys[i], parent->relevant[i], 1, &kept, &moved);
    }
    for (size_t i = parent->sorted_count; i < parent->relevant_count; i++)
        filter_entry(search, child, parent->keys[i], parent->relevant[i], 0, &kept, &moved);
    sort_by_key(search, moved, j + 1);
    while (k < kept || m < moved) {
        uint64_t next = m == moved || (k < kept && merged[k] >> 32 <= moved_items[m] >> 32) ? merged[k++] : moved_items[m++];
        child->relevant[out] = (uint32_t)next;
        child->keys[out++] = (uint32_t)(next >> 32);
    }
    child->relevant_count = child->sorted_count = out;
    return PARAC_OK;
}

/* Folds level's tail (implications found below it since its list was filtered) into its sorted part
 * once the tail is long next to it, so that attempts read the buckets of added attributes rather than
 * the whole tail, and children filter by bucket. The root's list is all tail (it starts empty): without
 * this each of its attempts, and each child's filter, read every implication found so far, quadratic
 * in the basis on a wide context. Folding at a tail of an eighth of the sorted part keeps the copies
 * linear (each costs the list, after appends of an eighth of it; a half: wide.dat 9.5 s, an eighth 6.3 s). */
static parac_status absorb_tail(basis_search *search, search_level *level, parac_error *error)
{
    size_t sorted = level->sorted_count, tail = level->relevant_count - sorted, k = 0, m = 0, out = 0;
    uint64_t *merged, *moved;
    if (tail < 64 || tail * 8 < sorted) return PARAC_OK;
    if (reserve_moved(search, level->relevant_count))
        return parac_fail_no_memory(error, "implication lists", level->relevant_count * 24);
    merged = search->merged;
    moved = search->moved;
    for (size_t i = 0; i < sorted; i++) merged[i] = (uint64_t)level->keys[i] << 32 | level->relevant[i];
    for (size_t i = 0; i < tail; i++) moved[i] = (uint64_t)level->keys[sorted + i] << 32 | level->relevant[sorted + i];
    sort_by_key(search, tail, level->generator == SIZE_MAX ? 0 : level->generator + 1); /* keys follow it */
    while (k < sorted || m < tail) {
        uint64_t next = m == tail || (k < sorted && merged[k] >> 32 <= moved[m] >> 32) ? merged[k++] : moved[m++];
        level->relevant[out] = (uint32_t)next;
        level->keys[out++] = (uint32_t)(next >> 32);
    }
    level->sorted_count = level->relevant_count;
    rename_list(search, level);
    return PARAC_OK;
}

/* ---- closures ------------------------------------------------------------------------------ */

/* child = extent ∩ {j}': the AND with j's column, or on a wide sparse context (search->columns: no
 * bit matrices) j's objects kept where the extent has them. */
static void child_extent(const basis_search *search, const parac_word *extent, size_t j, parac_word *child)
{
    const fca_column_lists *columns = search->columns;
    if (!columns) {
        parac_bitset_and(child, extent, fca_context_bits_built(search->context)->columns + j * search->object_words,
                         search->object_words);
        return;
    }
    memset(child, 0, search->object_words * sizeof *child);
    for (size_t k = columns->offsets[j]; k < columns->offsets[j + 1]; k++)
        if (parac_bitset_test(extent, columns->objects[k])) parac_bitset_set(child, columns->objects[k]);
}

/* The attributes every object of extent has (all attributes for an empty extent): the AND of the
 * rows, or from the cells the attributes counted as often as the extent has objects. candidates (when
 * not NULL): the attributes some object of it has. */
static void context_closure(basis_search *search, const parac_word *extent, parac_word *closure,
                            parac_word *candidates)
{
    const parac_fca_context *context = search->context;
    size_t words = search->words, members = 0, touched = 0;
    if (!search->columns) {
        const parac_word *rows = fca_context_bits_built(context)->rows;
        parac_bitset_fill(closure, search->attributes);
        if (candidates) memset(candidates, 0, words * sizeof *candidates);
        for (size_t o = parac_bitset_next(extent, context->objects, 0); o < context->objects;
             o = parac_bitset_next(extent, context->objects, o + 1)) {
            parac_bitset_and(closure, closure, rows + o * words, words);
            if (candidates) parac_bitset_or(candidates, candidates, rows + o * words, words);
        }
        return;
    }
    for (size_t o = parac_bitset_next(extent, context->objects, 0); o < context->objects;
         o = parac_bitset_next(extent, context->objects, o + 1))
        search->members[members++] = (uint32_t)o;
    touched = fca_count_row_attributes(context, search->members, members, search->cell_counts, search->cell_touched);
    if (members == 0) parac_bitset_fill(closure, search->attributes);
    else memset(closure, 0, words * sizeof *closure);
    if (candidates) memset(candidates, 0, words * sizeof *candidates);
    for (size_t t = 0; t < touched; t++) {
        uint32_t a = search->cell_touched[t];
        if (members && search->cell_counts[a] == members) parac_bitset_set(closure, a);
        if (candidates) parac_bitset_set(candidates, a);
        search->cell_counts[a] = 0;
    }
}

/* set |= the parent's conclusion (a pseudo-intent's closure minus its set: the ids its implication
 * holds in the basis; most nodes have none, and a scan of the closure's words at every attempt was a
 * fifth of wide.dat's time), queueing each attribute gained; -1 (set left half done) when it brings
 * one before j (set holds the parent's set, so it is new: not canonical). */
static int conclusion_add(basis_search *search, parac_word *set, const search_level *parent, size_t j,
                          size_t *queued)
{
    size_t size = 0;
    const uint32_t *conclusion = NULL;
    if (parent->implication != UINT32_MAX)
        conclusion = fca_itemset_pairs_conclusion(search->basis, parent->implication, &size);
    for (size_t i = 0; i < size; i++) { /* ascending: one before j comes first */
        uint32_t a = conclusion[i];
        if (parac_bitset_test(set, a)) continue; /* j itself */
        if (a < j) return -1;
        parac_bitset_set(set, a);
        search->queue[(*queued)++] = a;
    }
    return 0;
}

/* Fires implication i of the basis when its premise holds in set and its conclusion does not yet:
 * 1 fired, 0 not, -1 not canonical (a conclusion attribute before j that set lacks). Both sets are
 * id lists: a test per id, not per word of the attributes. */
static int try_fire(basis_search *search, parac_word *set, uint32_t implication, size_t j, size_t *queued)
{
    size_t premise_size, conclusion_size;
    const uint32_t *premise = fca_itemset_pairs_premise(search->basis, implication, &premise_size);
    const uint32_t *conclusion = fca_itemset_pairs_conclusion(search->basis, implication, &conclusion_size);
    int fired = 0;
    for (size_t i = 0; i < premise_size; i++)
        if (!parac_bitset_test(set, premise[i])) return 0;
    for (size_t i = 0; i < conclusion_size; i++) { /* ascending: any gain before j comes first */
        size_t a = conclusion[i];
        if (parac_bitset_test(set, a)) continue;
        if (a < j) return -1;
        parac_bitset_set(set, a);
        search->queue[(*queued)++] = (uint32_t)a;
        fired = 1;
    }
    return fired;
}

/* child->set = the L-closure of parent's set ∪ {j} (parent's own implication included through its
 * closure); 0 when canonical, -1 as soon as it adds an attribute before j. An implication of the
 * parent's sorted part can fire only once its key (first attribute the parent lacks) is added, so
 * only the buckets of added attributes are read; the tail is read whole. */
static int implication_closure(basis_search *search, search_level *parent, search_level *child, size_t j)
{
    parac_word *set = child->set;
    size_t queued = 0;
    int changed = 1, fired;
    parac_bitset_copy(set, parent->set, search->words);
    parac_bitset_set(set, j);
    search->queue[queued++] = (uint32_t)j;
    if (conclusion_add(search, set, parent, j, &queued)) return -1; /* a pseudo-intent's conclusion */
    while (changed) { /* again while something fired: an implication read early may hold now */
        changed = 0;
        for (size_t q = 0; q < queued; q++) {
            size_t key = search->queue[q], begin, end;
            bucket_of(search, parent, key, &begin, &end);
            for (size_t i = begin; i < end; i++) {
                if ((fired = try_fire(search, set, parent->relevant[i], j, &queued)) < 0) return -1;
                changed |= fired;
            }
        }
        for (size_t i = parent->sorted_count; i < parent->relevant_count; i++) {
            /* its first missing attribute not added yet: it cannot fire (one bit test instead of a
             * premise of `words` words) */
            if (!parac_bitset_test(set, parent->keys[i])) continue;
            if ((fired = try_fire(search, set, parent->relevant[i], j, &queued)) < 0) return -1;
            changed |= fired;
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
        at->candidates = search->min_support ? calloc(search->words + 1, sizeof *at->candidates) : NULL;
        if (!at->set || !at->closure || !at->extent || (search->min_support && !at->candidates))
            return parac_fail_no_memory(error, "implication search levels", (search->words * 2 + search->object_words) * 8);
    }
    *level = at;
    return PARAC_OK;
}

/* The node at search->depth was reached (set, extent, generator, relevant list filled): its
 * closure, its implication when it is a pseudo-intent, the bounds of its children. */
static parac_status enter(basis_search *search, search_level *level, parac_error *error)
{
    size_t words = search->words;
    parac_status status = PARAC_OK;
    context_closure(search, level->extent, level->closure, level->candidates);
    level->next = search->attributes;
    level->limit = search->attributes;
    level->implication = UINT32_MAX;
    if (!parac_bitset_equal(level->closure, level->set, words)) {
        uint64_t support = parac_bitset_popcount(level->extent, search->object_words);
        size_t size;
        level->implication = (uint32_t)search->basis->count;
        if ((status = add_implication(search, level->set, level->closure, support, error)) != PARAC_OK) return status;
        level->limit = fca_itemset_pairs_conclusion(search->basis, level->implication, &size)[0] + 1u;
    }
    return status;
}

/* Tries the parent's next j; *entered = 1 when a canonical, frequent child was entered at depth + 1. */
static parac_status try_next_child(basis_search *search, int *entered, parac_error *error)
{
    size_t depth = search->depth;
    search_level *parent = &search->levels[depth], *child;
    parac_status status;
    size_t j;
    *entered = 0;
    if (!parent->listed) { /* the parent's list still holds what it held at entry, plus this node's own
                              implication in its tail, which filter_entry drops (premise = this set) */
        status = filter_relevant(search, &search->levels[depth - 1], parent, parent->generator, error);
        if (status != PARAC_OK) return status;
        parent->listed = 1;
        rename_list(search, parent);
    }
    if ((status = absorb_tail(search, parent, error)) != PARAC_OK) return status;
    j = --parent->next;
    if (parac_bitset_test(parent->set, j)) return PARAC_OK;
    if ((status = level_at(search, depth + 1, &child, error)) != PARAC_OK) return status;
    parent = &search->levels[depth]; /* level_at may have moved the levels */
    /* The extent first only when it can prune (min_support): most attempts fail the closure's
     * canonicity test, and the extent costs object_words. */
    if (search->min_support) {
        child_extent(search, parent->extent, j, child->extent);
        if (parac_bitset_popcount(child->extent, search->object_words) < search->min_support) return PARAC_OK;
    }
    if (implication_closure(search, parent, child, j)) return PARAC_OK;
    if (!search->min_support)
        child_extent(search, parent->extent, j, child->extent);
    child->generator = j;
    child->listed = 0;
    search->depth = depth + 1;
    *entered = 1;
    return enter(search, child, error);
}

static parac_status run_search(basis_search *search, parac_error *error)
{
    size_t attempts = 0, attributes = search->attributes;
    search_level *root;
    parac_status status = level_at(search, 0, &root, error);
    if (status != PARAC_OK) return status;
    parac_bitset_fill(root->extent, search->context->objects);
    if (parac_bitset_popcount(root->extent, search->object_words) < search->min_support) return PARAC_OK;
    root->generator = SIZE_MAX;
    root->listed = 1; /* empty */
    rename_list(search, root);
    search->depth = 0;
    if ((status = enter(search, root, error)) != PARAC_OK) return status;
    for (;;) {
        search_level *level = &search->levels[search->depth];
        size_t lowest = level->generator == SIZE_MAX ? 0 : level->generator + 1;
        int entered;
        if (level->next > level->limit) level->next = level->limit;
        if (level->candidates && level->next > lowest) { /* the next j some object of the extent has */
            size_t j = parac_bitset_prev(level->candidates, level->next);
            level->next = j == SIZE_MAX || j < lowest ? lowest : j + 1;
        }
        if (level->next <= lowest) {
            if (search->depth == 0) break;
            search->depth--;
            continue;
        }
        if ((++attempts & 1023) == 0 &&
            parac_progress_gate_poll_at(&search->gate, attributes - search->levels[0].next))
            return parac_fail(error, PARAC_ERR_CANCELLED, "fca implications: cancelled");
        if ((status = try_next_child(search, &entered, error)) != PARAC_OK) return status;
    }
    return PARAC_OK;
}

/* ---- setup and the public functions ------------------------------------------------------------ */

static parac_status search_init(basis_search *search, const parac_fca_context *context,
                                const parac_fca_rule_options *options, fca_itemset_pairs *basis, parac_error *error)
{
    size_t attributes = context->attributes;
    memset(search, 0, sizeof *search);
    /* wide and sparse (fca_covers_use_cells): extents and closures from the cells, no bit matrices */
    if (fca_covers_use_cells(context)) {
        if (!(search->columns = fca_context_columns(context, error)))
            return error ? error->status : PARAC_ERR_NO_MEMORY;
    } else if (!fca_context_bits(context, error)) {
        return error ? error->status : PARAC_ERR_NO_MEMORY;
    }
    search->context = context;
    search->attributes = attributes;
    search->words = context->attribute_words;
    search->object_words = context->object_words;
    search->min_support = options->min_support;
    search->basis = basis;
    search->queue = malloc((attributes + 1) * sizeof *search->queue);
    search->counts = calloc(attributes + 1, sizeof *search->counts);
    search->bucket_serial = calloc(attributes + 1, sizeof *search->bucket_serial);
    search->bucket_begin = calloc(attributes + 1, sizeof *search->bucket_begin);
    search->bucket_end = calloc(attributes + 1, sizeof *search->bucket_end);
    if (search->columns) {
        search->cell_counts = calloc(attributes + 1, sizeof *search->cell_counts);
        search->cell_touched = malloc((attributes + 1) * sizeof *search->cell_touched);
        search->members = malloc((context->objects + 1) * sizeof *search->members);
        if (!search->cell_counts || !search->cell_touched || !search->members)
            return parac_fail_no_memory(error, "implication search", (attributes + context->objects + 2) * 12);
    }
    if (!search->queue || !search->counts || !search->bucket_serial || !search->bucket_begin ||
        !search->bucket_end)
        return parac_fail_no_memory(error, "implication search", (attributes + 1) * 36);
    parac_progress_gate_init(&search->gate, &options->exec, attributes ? attributes : 1);
    return PARAC_OK;
}

static void search_release(basis_search *search)
{
    for (size_t d = 0; d < search->level_capacity; d++) {
        free(search->levels[d].set);
        free(search->levels[d].closure);
        free(search->levels[d].extent);
        free(search->levels[d].candidates);
        free(search->levels[d].relevant);
        free(search->levels[d].keys);
    }
    free(search->levels);
    free(search->queue);
    free(search->moved);
    free(search->merged);
    free(search->sorted);
    free(search->counts);
    free(search->bucket_serial);
    free(search->bucket_begin);
    free(search->bucket_end);
    free(search->cell_counts);
    free(search->cell_touched);
    free(search->members);
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
    fca_itemset_pairs_init(&made->basis, context->attributes,
                           options->max_host_bytes ? options->max_host_bytes : fca_default_host_budget());
    made->basis.hint = "a min_support above 0 keeps only the frequent part";
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
    size_t size;
    const uint32_t *set;
    if (!basis || index >= basis->count) return 0;
    set = fca_itemset_pairs_premise(basis, index, &size);
    return fca_itemset_pairs_copy(set, size, ids, capacity);
}

size_t parac_fca_implication_conclusion(const parac_fca_implications *implications, size_t index, uint32_t *ids,
                                        size_t capacity)
{
    const fca_itemset_pairs *basis = implications ? &implications->basis : NULL;
    size_t size;
    const uint32_t *set;
    if (!basis || index >= basis->count) return 0;
    set = fca_itemset_pairs_conclusion(basis, index, &size);
    return fca_itemset_pairs_copy(set, size, ids, capacity);
}

uint64_t parac_fca_implication_support(const parac_fca_implications *implications, size_t index)
{
    return implications && index < implications->basis.count ? implications->basis.supports[index] : 0;
}
