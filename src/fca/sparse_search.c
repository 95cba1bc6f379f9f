/* fca/sparse_search.c — FCbO's tree on a sparse context, each closure found the way LCM finds it
 * (Uno, Kiyomi, Arimura, FIMI'04).
 *
 * The tree is Close-by-One's: concept (E, B) with next attribute y has a child for every attribute
 * j >= y outside B: C = E ∩ {j}', D = C'; the child is canonical when D adds nothing before j.
 * Every canonical child is a new concept, so the concepts (and, once sorted, the output) are those
 * of the dense search; only the way C and D are computed changes:
 *   - occurrence delivery: one pass over the node's transactions lists, for every attribute of a
 *     suffix, the transactions holding it: all the children's extents C at once, in time
 *     proportional to the node's cells, never to objects x attributes;
 *   - closure by counting: one pass over C's transactions sums, per attribute, the weight of
 *     those holding it; an attribute is in D iff its sum is |C|. One with a sum of |C| before j
 *     (in a prefix, or in a suffix between y and j) makes the child non-canonical;
 *   - the child's conditional database (sparse_search.h): C's transactions cut at j, attributes of
 *     D and infrequent ones removed, empty suffixes dropped, equal suffixes merged (their prefixes
 *     intersected, weights added), so deep nodes work on a few short merged transactions.
 * FCbO's N_j sets (an attributes x attributes bitset per level) are not kept: on a context with
 * 16,000 attributes they would cost 32 MB a level; the counting pass is cheap instead.
 * The concept with an empty extent is never searched (least_support >= 1); fca_sparse_search adds
 * it at the end when min_support is 0, as the dense search would have found it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sort_ids.h"
#include "core/error.h"
#include "core/hash_index.h"
#include "core/progress.h"
#include "fca/sparse_search.h"

#define TRANSACTION(worker, index) (((sparse_transaction *)(worker)->transactions.data)[index])
#define ITEMS(worker) ((uint32_t *)(worker)->items.data)
#define CANDIDATE(worker, index) (((sparse_candidate *)(worker)->candidates.data)[index])
#define OCCURRENCES(worker) ((uint32_t *)(worker)->occurrences.data)
#define INTENTS(worker) ((uint32_t *)(worker)->intents.data)

static void fail_no_memory(sparse_worker *worker, const char *what)
{
    if (worker->status == PARAC_OK) worker->status = parac_fail_no_memory(&worker->error, what, 0);
    if (worker->stop) atomic_store_explicit(worker->stop, 1, memory_order_relaxed);
}

int sparse_array_reserve(sparse_worker *worker, sparse_array *array, size_t more)
{
    size_t capacity = array->capacity ? array->capacity : 1024;
    void *grown;
    if (array->capacity - array->size >= more) return 1;
    while (capacity - array->size < more) capacity *= 2;
    grown = realloc(array->data, capacity * array->element_bytes);
    if (!grown) {
        fail_no_memory(worker, "sparse FCbO search");
        return 0;
    }
    array->data = grown;
    array->capacity = capacity;
    return 1;
}

parac_status sparse_worker_init(sparse_worker *worker, const fca_search *search, int store, parac_error *error)
{
    size_t n = search->attributes + 1;
    memset(worker, 0, sizeof *worker);
    worker->search = search;
    worker->least_support = search->min_support > 1 ? search->min_support : 1;
    worker->items.element_bytes = sizeof(uint32_t);
    worker->transactions.element_bytes = sizeof(sparse_transaction);
    worker->occurrences.element_bytes = sizeof(uint32_t);
    worker->candidates.element_bytes = sizeof(sparse_candidate);
    worker->intents.element_bytes = sizeof(uint32_t);
    worker->undo.element_bytes = 2 * sizeof(uint32_t);
    worker->support_of = calloc(n, sizeof *worker->support_of);
    worker->cursor_of = calloc(n, sizeof *worker->cursor_of);
    worker->touched = malloc(n * sizeof *worker->touched);
    worker->closure = malloc(n * sizeof *worker->closure);
    worker->witness_of = calloc(n, sizeof *worker->witness_of);
    worker->in_intent = calloc(search->attribute_words, sizeof(parac_word));
    worker->search_intent = calloc(search->attribute_words, sizeof(parac_word));
    worker->original_intent = malloc(search->original_words * sizeof(parac_word));
    /* an id-list intent holds a group's every member: up to the original attributes */
    worker->original_ids = malloc((search->original_attributes + 1) * sizeof *worker->original_ids);
    if (!worker->support_of || !worker->cursor_of || !worker->touched || !worker->closure || !worker->witness_of ||
        !worker->in_intent || !worker->search_intent || !worker->original_intent || !worker->original_ids)
        return parac_fail_no_memory(error, "sparse FCbO worker", (unsigned long long)n * 24);
    if (store) {
        worker->concepts = malloc(sizeof *worker->concepts);
        if (!worker->concepts) return parac_fail_no_memory(error, "concepts", 64);
        if (fca_concepts_init_worker(worker->concepts, search, error) != PARAC_OK) return error->status;
        return PARAC_OK;
    }
    return PARAC_OK;
}

void sparse_worker_destroy(sparse_worker *worker)
{
    free(worker->items.data);
    free(worker->transactions.data);
    free(worker->occurrences.data);
    free(worker->candidates.data);
    free(worker->intents.data);
    free(worker->support_of);
    free(worker->cursor_of);
    free(worker->touched);
    free(worker->closure);
    free(worker->witness_of);
    free(worker->in_intent);
    free(worker->undo.data);
    parac_hash_index_free(&worker->merge);
    free(worker->search_intent);
    free(worker->original_intent);
    free(worker->original_ids);
    if (worker->concepts) fca_concepts_release(worker->concepts);
    free(worker->concepts);
    memset(worker, 0, sizeof *worker);
}

void sparse_emit(sparse_worker *worker, const uint32_t *intent, size_t length)
{
    const fca_search *search = worker->search;
    parac_status status;
    worker->count++;
    if (!worker->concepts || worker->status != PARAC_OK) return;
    if (worker->concepts->format.ids && fca_search_original_length(search, intent, length) <= worker->concepts->format.ids &&
        !(length == search->attributes && search->full_intent_has_empty_extent)) {
        /* id-list records: no bitset over every attribute to build and scan (the full intent with
         * an empty extent takes the bitset way: it gains the attributes no object has) */
        status = fca_concepts_append_ids(worker->concepts, worker->original_ids,
                                         fca_search_original_ids(search, intent, length, worker->original_ids),
                                         &worker->error);
    } else {
        for (size_t i = 0; i < length; i++) parac_bitset_set(worker->search_intent, intent[i]);
        fca_search_original_intent(search, worker->search_intent, worker->original_intent);
        for (size_t i = 0; i < length; i++) parac_bitset_clear_bit(worker->search_intent, intent[i]);
        status = fca_concepts_append(worker->concepts, worker->original_intent, &worker->error);
    }
    if (status != PARAC_OK) {
        worker->status = worker->error.status;
        if (worker->stop) atomic_store_explicit(worker->stop, 1, memory_order_relaxed);
    }
}

/* Progress as in fcbo_serial.c: a node's weight is split evenly among its candidate children (and
 * itself); shares of non-canonical candidates are credited at once. As there (parac_progress_credit)
 * the worker hands its sum to the gate, which is also where a cancel is seen. */

static void cancel(sparse_worker *worker)
{
    if (worker->status == PARAC_OK) worker->status = parac_fail(&worker->error, PARAC_ERR_CANCELLED, "fca: cancelled");
    if (worker->stop) atomic_store_explicit(worker->stop, 1, memory_order_relaxed);
}

static void credit_progress(sparse_worker *worker, uint64_t credit)
{
    parac_progress_gate *gate = worker->search->progress;
    if (gate && parac_progress_credit_add(gate, &worker->progress, credit)) cancel(worker);
}

/* Inside a node with many candidates: as fcbo_serial.c's, the gate every PARAC_PROGRESS_CREDIT_NS (a
 * root of 50,000 candidates on a dense context tested them for minutes, deaf to SIGTERM). */
static int cancelled_inside_node(sparse_worker *worker)
{
    parac_progress_gate *gate = worker->search->progress;
    if (!gate || !parac_progress_credit_poll(gate, &worker->progress)) return 0;
    cancel(worker);
    return 1;
}

static int stopped(const sparse_worker *worker)
{
    return worker->status != PARAC_OK || (worker->stop && atomic_load_explicit(worker->stop, memory_order_relaxed));
}

/* ---- merging transactions with equal suffixes --------------------------------------------------- */

/* The suffix's key hash (the table's own finalizer mixes it further before it picks a slot). */
static uint64_t hash_items(const uint32_t *items, size_t count)
{
    uint64_t hash = 0x9e3779b97f4a7c15ULL ^ count;
    for (size_t i = 0; i < count; i++) hash = (hash ^ items[i]) * 0xff51afd7ed558ccdULL;
    return hash;
}

/* Up to this many transactions are merged by comparing each with the ones kept, without the table. */
#define SMALL_MERGE 8

/* A suffix being merged: the key of the merge table (core/hash_index.h), whose items are the
 * worker's transaction indices. */
typedef struct suffix_key {
    const uint32_t *items;
    uint32_t length;
} suffix_key;

static int same_suffix(const void *context, size_t item, const void *key)
{
    const sparse_worker *worker = context;
    const sparse_transaction *old = &((const sparse_transaction *)worker->transactions.data)[item];
    const suffix_key *suffix = key;
    return old->suffix_length == suffix->length &&
           memcmp(ITEMS(worker) + old->suffix_start, suffix->items, suffix->length * sizeof *suffix->items) == 0;
}

/* The merge table ready for up to `expected` transactions (it is empty between nodes). */
static int prepare_table(sparse_worker *worker, size_t expected)
{
    if (parac_hash_index_reserve_batch(&worker->merge, expected) == 0) return 1;
    fail_no_memory(worker, "sparse FCbO merge table");
    return 0;
}

/* Empties the table of the node's transactions: only the slots they took, not the whole table
 * (sized for the largest node so far, often the root's). */
static void clear_table(sparse_worker *worker, const sparse_node *node)
{
    for (size_t t = 0; t < node->transaction_count; t++) {
        const sparse_transaction *transaction = &TRANSACTION(worker, node->transaction_first + t);
        parac_hash_index_empty_run(&worker->merge, hash_items(ITEMS(worker) + transaction->suffix_start,
                                                              transaction->suffix_length));
    }
}

/* Intersects the sorted list `into` with the sorted list `other` in place; returns the new length. */
static uint32_t intersect_prefix(uint32_t *into, uint32_t into_length, const uint32_t *other, uint32_t other_length)
{
    uint32_t kept = 0, i = 0, k = 0;
    while (i < into_length && k < other_length) {
        if (into[i] < other[k]) i++;
        else if (into[i] > other[k]) k++;
        else into[kept++] = into[i++], k++;
    }
    return kept;
}

/* The transaction just written at the end of the node's arrays (items from `start`: prefix then
 * suffix) joins an equal-suffix transaction of the node, or becomes a new one. `hashed`: through
 * the merge table; else (a few transactions) compared one by one with the node's. */
static void add_transaction(sparse_worker *worker, sparse_node *node, size_t start, uint32_t prefix_length,
                            uint32_t suffix_length, uint64_t weight, int hashed)
{
    uint32_t *items = ITEMS(worker);
    suffix_key key = {items + start + prefix_length, suffix_length};
    size_t slot = 0, found = SIZE_MAX;
    sparse_transaction *fresh;
    if (hashed) {
        found = parac_hash_index_find(&worker->merge, hash_items(key.items, key.length), &key, same_suffix, worker, &slot);
    } else {
        for (size_t t = 0; t < node->transaction_count && found == SIZE_MAX; t++)
            if (same_suffix(worker, node->transaction_first + t, &key)) found = node->transaction_first + t;
    }
    if (found != SIZE_MAX) {
        sparse_transaction *old = &TRANSACTION(worker, found);
        old->prefix_length = intersect_prefix(items + old->prefix_start, old->prefix_length, items + start, prefix_length);
        old->weight += weight;
        worker->items.size = start; /* the copy is not needed */
        return;
    }
    fresh = &TRANSACTION(worker, worker->transactions.size);
    fresh->prefix_start = start;
    fresh->prefix_length = prefix_length;
    fresh->suffix_start = start + prefix_length;
    fresh->suffix_length = suffix_length;
    fresh->weight = weight;
    if (hashed) parac_hash_index_insert(&worker->merge, slot, worker->transactions.size);
    ++worker->transactions.size;
    node->transaction_count++;
}

/* ---- the root ------------------------------------------------------------------------------------ */

int sparse_make_root(sparse_worker *worker, const sparse_rows *rows, sparse_node *root)
{
    const fca_search *search = worker->search;
    size_t intent_length = 0;
    uint32_t *intent;
    memset(root, 0, sizeof *root);
    root->weight = FCA_PROGRESS_TOTAL;
    if (search->objects < search->min_support) return 0;
    /* the root's intent: the attributes of every object (every search attribute when there is none) */
    if (!sparse_array_reserve(worker, &worker->intents, search->attributes + 1)) return 0;
    intent = INTENTS(worker) + worker->intents.size;
    for (size_t s = 0; s < search->attributes; s++)
        if (rows->support[s] == search->objects) intent[intent_length++] = (uint32_t)s;
    root->intent_first = worker->intents.size;
    root->intent_length = intent_length;
    worker->intents.size += intent_length;
    root->transaction_first = worker->transactions.size;
    root->items_first = worker->items.size;
    if (!prepare_table(worker, search->objects)) return 0;
    for (size_t o = 0; o < search->objects; o++) {
        const uint32_t *row = rows->attributes + rows->offsets[o];
        size_t length = rows->offsets[o + 1] - rows->offsets[o], start = worker->items.size;
        uint32_t kept = 0;
        if (!sparse_array_reserve(worker, &worker->items, length) ||
            !sparse_array_reserve(worker, &worker->transactions, 1))
            return 0;
        for (size_t i = 0; i < length; i++) {
            uint64_t support = rows->support[row[i]];
            if (support != search->objects && support >= worker->least_support) ITEMS(worker)[start + kept++] = row[i];
        }
        if (!kept) continue;
        worker->items.size = start + kept;
        add_transaction(worker, root, start, 0, kept, 1, 1);
    }
    clear_table(worker, root);
    return 1;
}

/* ---- one node ------------------------------------------------------------------------------------ */

/* Occurrence delivery: one candidate per suffix attribute held by >= least_support objects of the
 * node, with the node's transactions holding it. Returns how many (0 when out of memory). */
static size_t deliver_occurrences(sparse_worker *worker, const sparse_node *node)
{
    size_t touched = 0, total = 0, first = worker->candidates.size, count = 0;
    for (size_t t = 0; t < node->transaction_count; t++) {
        const sparse_transaction *transaction = &TRANSACTION(worker, node->transaction_first + t);
        const uint32_t *suffix = ITEMS(worker) + transaction->suffix_start;
        for (uint32_t i = 0; i < transaction->suffix_length; i++) {
            uint32_t a = suffix[i];
            if (worker->cursor_of[a]++ == 0) worker->touched[touched++] = a;
            worker->support_of[a] += transaction->weight;
        }
    }
    /* any order of the candidates gives the same concepts: canonicity is about ids, not about order */
    for (size_t i = 0; i < touched && sparse_array_reserve(worker, &worker->candidates, touched); i++) {
        uint32_t a = worker->touched[i];
        sparse_candidate *candidate = &CANDIDATE(worker, first + count);
        if (worker->support_of[a] < worker->least_support) {
            worker->cursor_of[a] = SIZE_MAX;
            continue;
        }
        candidate->attribute = a;
        candidate->support = worker->support_of[a];
        candidate->occurrence_first = worker->occurrences.size + total;
        candidate->occurrence_count = worker->cursor_of[a];
        worker->cursor_of[a] = candidate->occurrence_first;
        total += candidate->occurrence_count;
        count++;
    }
    if (worker->status != PARAC_OK || (count && !sparse_array_reserve(worker, &worker->occurrences, total))) count = 0;
    for (size_t t = 0; count && t < node->transaction_count; t++) {
        const sparse_transaction *transaction = &TRANSACTION(worker, node->transaction_first + t);
        const uint32_t *suffix = ITEMS(worker) + transaction->suffix_start;
        for (uint32_t i = 0; i < transaction->suffix_length; i++) {
            size_t *cursor = &worker->cursor_of[suffix[i]];
            if (*cursor != SIZE_MAX) OCCURRENCES(worker)[(*cursor)++] = (uint32_t)t;
        }
    }
    for (size_t i = 0; i < touched; i++) {
        worker->cursor_of[worker->touched[i]] = 0;
        worker->support_of[worker->touched[i]] = 0;
    }
    worker->candidates.size += count;
    worker->occurrences.size += count ? total : 0;
    return count;
}

/* Sums, per attribute, the weights of the candidate's transactions (into support_of; the attributes
 * met listed in touched). Returns how many attributes were met. */
static size_t count_closure(sparse_worker *worker, const sparse_worker *source, const sparse_node *node,
                            const sparse_candidate *candidate)
{
    size_t touched = 0;
    for (size_t k = 0; k < candidate->occurrence_count; k++) {
        uint32_t t = OCCURRENCES(source)[candidate->occurrence_first + k];
        const sparse_transaction *transaction = &TRANSACTION(source, node->transaction_first + t);
        const uint32_t *items = ITEMS(source);
        for (uint32_t i = 0; i < transaction->prefix_length; i++) {
            uint32_t a = items[transaction->prefix_start + i];
            if (worker->support_of[a] == 0) worker->touched[touched++] = a;
            worker->support_of[a] += transaction->weight;
        }
        for (uint32_t i = 0; i < transaction->suffix_length; i++) {
            uint32_t a = items[transaction->suffix_start + i];
            if (worker->support_of[a] == 0) worker->touched[touched++] = a;
            worker->support_of[a] += transaction->weight;
        }
    }
    return touched;
}

/* The child's intent: the node's, j, and the closure's attributes after j (sorted, in closure[]). */
static int push_child_intent(sparse_worker *worker, const sparse_worker *source, const sparse_node *node, uint32_t j,
                             size_t extra, sparse_node *child)
{
    size_t length = node->intent_length + 1 + extra, i = 0, k = 0, out = 0;
    const uint32_t *parent;
    uint32_t *intent;
    if (!sparse_array_reserve(worker, &worker->intents, length)) return 0;
    intent = INTENTS(worker);
    parent = INTENTS(source) + node->intent_first; /* after the reserve: source may be worker */
    child->intent_first = worker->intents.size;
    child->intent_length = length;
    /* merge of the node's intent and {j} ∪ closure (j precedes every closure attribute) */
    while (i < node->intent_length || k <= extra) {
        uint32_t from_node = i < node->intent_length ? parent[i] : UINT32_MAX;
        uint32_t from_child = k == 0 ? j : worker->closure[k - 1];
        if (k > extra) from_child = UINT32_MAX;
        if (from_node < from_child) intent[child->intent_first + out++] = from_node, i++;
        else intent[child->intent_first + out++] = from_child, k++;
    }
    worker->intents.size += length;
    return 1;
}

/* Writes the child's transactions: each of the candidate's transactions cut at j, without the
 * closure's attributes (support_of == the candidate's support) and, when counted, the infrequent ones, dropped when its suffix is empty, merged by suffix. */
static int build_child_transactions(sparse_worker *worker, const sparse_worker *source, const sparse_node *node,
                                    const sparse_candidate *candidate, int counted, sparse_node *child)
{
    uint32_t j = candidate->attribute;
    uint64_t full = candidate->support, least = counted ? worker->least_support : 0;
    int hashed = candidate->occurrence_count > SMALL_MERGE;
    if (hashed && !prepare_table(worker, candidate->occurrence_count)) return 0;
    child->transaction_first = worker->transactions.size;
    child->transaction_count = 0;
    child->items_first = worker->items.size;
    for (size_t k = 0; k < candidate->occurrence_count; k++) {
        uint32_t t = OCCURRENCES(source)[candidate->occurrence_first + k];
        sparse_transaction from = TRANSACTION(source, node->transaction_first + t);
        size_t start = worker->items.size;
        uint32_t prefix = 0, suffix = 0, *items;
        const uint32_t *parent_items;
        if (!sparse_array_reserve(worker, &worker->items, from.prefix_length + from.suffix_length) ||
            !sparse_array_reserve(worker, &worker->transactions, 1))
            return 0;
        items = ITEMS(worker);
        parent_items = ITEMS(source); /* after the reserves: source may be worker */
        for (uint32_t i = 0; i < from.prefix_length; i++) {
            uint32_t a = parent_items[from.prefix_start + i];
            if (worker->support_of[a] >= least) items[start + prefix++] = a;
        }
        for (uint32_t i = 0; i < from.suffix_length && parent_items[from.suffix_start + i] < j; i++) {
            uint32_t a = parent_items[from.suffix_start + i];
            if (worker->support_of[a] >= least) items[start + prefix++] = a;
        }
        for (uint32_t i = 0; i < from.suffix_length; i++) {
            uint32_t a = parent_items[from.suffix_start + i];
            if (a > j && worker->support_of[a] != full && worker->support_of[a] >= least)
                items[start + prefix + suffix++] = a;
        }
        if (!suffix) continue;
        worker->items.size = start + prefix + suffix;
        add_transaction(worker, child, start, prefix, suffix, from.weight, hashed);
    }
    if (hashed) clear_table(worker, child);
    return 1;
}

/* 1 when x is in the sorted list. */
static int holds(const uint32_t *list, uint32_t length, uint32_t x)
{
    uint32_t low = 0, high = length;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (list[middle] < x) low = middle + 1;
        else high = middle;
    }
    return low < length && list[low] == x;
}

/* The canonicity test before any counting: an attribute before j in the closure is in every one of
 * the candidate's transactions, so in the first one's attributes before j; those few are checked
 * in turn against the other transactions: 1 + the first one they all hold (a witness: the child
 * is not canonical), or 0 (canonical). Most candidates fail at their first attribute. */
static uint32_t prefix_witness(sparse_worker *worker, const sparse_node *node, const sparse_candidate *candidate)
{
    const uint32_t *occurrences = OCCURRENCES(worker) + candidate->occurrence_first, *items = ITEMS(worker);
    const sparse_transaction *first = &TRANSACTION(worker, node->transaction_first + occurrences[0]);
    uint32_t j = candidate->attribute, length = first->prefix_length;
    while (length < first->prefix_length + first->suffix_length && items[first->suffix_start + length - first->prefix_length] < j)
        length++;
    for (uint32_t i = 0; i < length; i++) {
        uint32_t x = i < first->prefix_length ? items[first->prefix_start + i]
                                              : items[first->suffix_start + i - first->prefix_length];
        size_t k = 1;
        for (; k < candidate->occurrence_count; k++) {
            const sparse_transaction *other = &TRANSACTION(worker, node->transaction_first + occurrences[k]);
            int in_suffix = other->suffix_length && x >= items[other->suffix_start];
            if (!(in_suffix ? holds(items + other->suffix_start, other->suffix_length, x)
                            : holds(items + other->prefix_start, other->prefix_length, x)))
                break;
        }
        if (k == candidate->occurrence_count) return x + 1;
    }
    return 0;
}

/* The closure's attributes after j by intersecting the candidate's suffixes (min_support <= 1: no
 * counts are needed), sorted into closure[]; marked in support_of with the candidate's support for
 * build_child_transactions. Returns how many. */
static size_t intersect_closure(sparse_worker *worker, const sparse_worker *source, const sparse_node *node,
                                const sparse_candidate *candidate)
{
    const uint32_t *occurrences = OCCURRENCES(source) + candidate->occurrence_first, *items = ITEMS(source);
    const sparse_transaction *first = &TRANSACTION(source, node->transaction_first + occurrences[0]);
    uint32_t *left = worker->closure, count = 0, j = candidate->attribute;
    for (uint32_t i = 0; i < first->suffix_length; i++)
        if (items[first->suffix_start + i] > j) left[count++] = items[first->suffix_start + i];
    for (size_t k = 1; k < candidate->occurrence_count && count; k++) {
        const sparse_transaction *other = &TRANSACTION(source, node->transaction_first + occurrences[k]);
        count = intersect_prefix(left, count, items + other->suffix_start, other->suffix_length);
    }
    for (uint32_t i = 0; i < count; i++) worker->support_of[left[i]] = candidate->support;
    return count;
}

/* The closure's attributes after j by counting (min_support > 1: the counts also drop the
 * attributes too rare in the child), sorted into closure[]; the counts stay in support_of and the
 * attributes met in touched (*touched_count). Returns how many. */
static size_t count_closure_after(sparse_worker *worker, const sparse_worker *source, const sparse_node *node,
                                  const sparse_candidate *candidate, size_t *touched_count)
{
    size_t touched = count_closure(worker, source, node, candidate), extra = 0;
    for (size_t i = 0; i < touched; i++) {
        uint32_t a = worker->touched[i];
        if (worker->support_of[a] == candidate->support && a > candidate->attribute) worker->closure[extra++] = a;
    }
    parac_sort_u32(worker->closure, extra);
    *touched_count = touched;
    return extra;
}

int sparse_make_child(sparse_worker *worker, const sparse_worker *source, const sparse_node *node,
                      size_t candidate_index, sparse_node *child)
{
    sparse_candidate candidate = CANDIDATE(source, candidate_index);
    int counted = worker->least_support > 1, made;
    size_t touched = 0, extra;
    extra = counted ? count_closure_after(worker, source, node, &candidate, &touched)
                    : intersect_closure(worker, source, node, &candidate);
    memset(child, 0, sizeof *child);
    child->items_first = worker->items.size;
    made = push_child_intent(worker, source, node, candidate.attribute, extra, child) &&
           build_child_transactions(worker, source, node, &candidate, counted, child);
    if (counted)
        for (size_t i = 0; i < touched; i++) worker->support_of[worker->touched[i]] = 0;
    else
        for (size_t i = 0; i < extra; i++) worker->support_of[worker->closure[i]] = 0;
    return made;
}

void sparse_truncate_to(sparse_worker *worker, const sparse_node *node)
{
    worker->intents.size = node->intent_first;
    worker->transactions.size = node->transaction_first;
    worker->items.size = node->items_first;
}

/* FCbO's pruning: a candidate whose attribute failed below an ancestor, with a witness still outside
 * this node's intent, fails here too (its extent only shrank) and costs no test; the others are
 * tested, and each new failure is recorded for the subtree (undone when the node is left). */
static void test_candidates(sparse_worker *worker, const sparse_node *node, size_t first, size_t count)
{
    for (size_t c = first; c < first + count; c++) {
        sparse_candidate *candidate = &CANDIDATE(worker, c);
        uint32_t known = worker->witness_of[candidate->attribute], *entry;
        if (((c - first) & 63) == 63 && cancelled_inside_node(worker)) return;
        if (known && !parac_bitset_test(worker->in_intent, known - 1)) {
            candidate->witness = known;
            continue;
        }
        candidate->witness = prefix_witness(worker, node, candidate);
        if (!candidate->witness || !sparse_array_reserve(worker, &worker->undo, 1)) continue;
        entry = (uint32_t *)worker->undo.data + 2 * worker->undo.size++;
        entry[0] = candidate->attribute;
        entry[1] = known;
        worker->witness_of[candidate->attribute] = candidate->witness;
    }
}

static void undo_witnesses(sparse_worker *worker, size_t mark)
{
    while (worker->undo.size > mark) {
        const uint32_t *entry = (const uint32_t *)worker->undo.data + 2 * --worker->undo.size;
        worker->witness_of[entry[0]] = entry[1];
    }
}

/* Sets or clears in in_intent the child's attributes that its parent (in source's arrays) lacks. Both intents ascending; read at each call, since the arrays move when they grow. */
static void mark_new_attributes(sparse_worker *worker, const sparse_worker *source, const sparse_node *parent,
                                const sparse_node *child, int set)
{
    const uint32_t *old = INTENTS(source) + parent->intent_first, *new = INTENTS(worker) + child->intent_first;
    size_t i = 0, old_length = parent->intent_length;
    for (size_t k = 0; k < child->intent_length; k++) {
        while (i < old_length && old[i] < new[k]) i++;
        if (i < old_length && old[i] == new[k]) continue;
        if (set) parac_bitset_set(worker->in_intent, new[k]);
        else parac_bitset_clear_bit(worker->in_intent, new[k]);
    }
}

void sparse_mark_intent(sparse_worker *worker, const sparse_worker *source, const sparse_node *node, int set)
{
    const uint32_t *intent = INTENTS(source) + node->intent_first;
    for (size_t k = 0; k < node->intent_length; k++) {
        if (set) parac_bitset_set(worker->in_intent, intent[k]);
        else parac_bitset_clear_bit(worker->in_intent, intent[k]);
    }
}

void sparse_expand_child(sparse_worker *worker, const sparse_worker *source, const sparse_node *parent,
                         const sparse_node *child)
{
    mark_new_attributes(worker, source, parent, child, 1);
    sparse_expand(worker, child);
    mark_new_attributes(worker, source, parent, child, 0);
}

size_t sparse_open_children(sparse_worker *worker, const sparse_node *node, sparse_children *children)
{
    memset(children, 0, sizeof *children);
    children->candidates_mark = worker->candidates.size;
    children->occurrences_mark = worker->occurrences.size;
    children->undo_mark = worker->undo.size;
    children->first = worker->candidates.size;
    sparse_emit(worker, INTENTS(worker) + node->intent_first, node->intent_length);
    if (stopped(worker)) return 0;
    children->count = node->transaction_count ? deliver_occurrences(worker, node) : 0;
    children->share = node->weight / (children->count + 1);
    credit_progress(worker, node->weight - children->count * children->share);
    /* every candidate is tested before any child is expanded, so each child inherits every failure */
    test_candidates(worker, node, children->first, children->count);
    return children->count;
}

void sparse_close_children(sparse_worker *worker, const sparse_children *children)
{
    undo_witnesses(worker, children->undo_mark);
    worker->candidates.size = children->candidates_mark;
    worker->occurrences.size = children->occurrences_mark;
}

void sparse_skip_child(sparse_worker *worker, uint64_t share) { credit_progress(worker, share); }

void sparse_expand(sparse_worker *worker, const sparse_node *node)
{
    sparse_children children;
    sparse_open_children(worker, node, &children);
    for (size_t c = 0; c < children.count && !stopped(worker); c++) {
        sparse_node child;
        if (CANDIDATE(worker, children.first + c).witness ||
            !sparse_make_child(worker, worker, node, children.first + c, &child)) {
            credit_progress(worker, children.share);
            continue;
        }
        child.weight = children.share;
        if (!worker->spawn || !worker->spawn(worker, &child))
            sparse_expand_child(worker, worker, node, &child);
        sparse_truncate_to(worker, &child);
    }
    sparse_close_children(worker, &children);
}

/* ---- the entry point ----------------------------------------------------------------------------- */

int fca_sparse_suits(const parac_fca_context *context) { return context->objects <= UINT32_MAX; }

static parac_status search_serial(const fca_search *search, const sparse_rows *rows, parac_fca_concepts *concepts,
                                  uint64_t *count, parac_error *error)
{
    sparse_worker worker;
    sparse_node root;
    parac_status status = sparse_worker_init(&worker, search, concepts != NULL, error);
    if (status == PARAC_OK && sparse_make_root(&worker, rows, &root)) {
        sparse_mark_intent(&worker, &worker, &root, 1);
        sparse_expand(&worker, &root);
    }
    if (status == PARAC_OK && worker.status != PARAC_OK) {
        status = worker.status;
        if (error) *error = worker.error;
    }
    if (status == PARAC_OK && concepts) status = fca_concepts_take(concepts, worker.concepts, error);
    if (status == PARAC_OK) *count = worker.count;
    sparse_worker_destroy(&worker);
    return status;
}

/* The concept with an empty extent and every search attribute, which the search itself never
 * visits (least_support >= 1): a concept when min_support is 0 and no object has them all. */
static parac_status add_empty_extent_concept(const fca_search *search, parac_fca_concepts *concepts, uint64_t *count,
                                             parac_error *error)
{
    sparse_worker worker;
    uint32_t *all;
    parac_status status;
    if (search->min_support > 0 || search->objects == 0 || !search->full_intent_has_empty_extent) return PARAC_OK;
    ++*count;
    if (!concepts) return PARAC_OK;
    status = sparse_worker_init(&worker, search, 1, error);
    all = malloc((search->attributes + 1) * sizeof *all);
    if (status == PARAC_OK && !all) status = parac_fail_no_memory(error, "bottom concept", search->attributes * 4);
    if (status == PARAC_OK) {
        for (size_t s = 0; s < search->attributes; s++) all[s] = (uint32_t)s;
        sparse_emit(&worker, all, search->attributes);
        status = worker.status;
        if (status != PARAC_OK && error) *error = worker.error;
    }
    if (status == PARAC_OK) status = fca_concepts_take(concepts, worker.concepts, error);
    free(all);
    sparse_worker_destroy(&worker);
    return status;
}

parac_status fca_sparse_search(const parac_fca_context *context, fca_search *search, int threads,
                               parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    sparse_rows rows;
    parac_status status;
    if (!fca_sparse_suits(context))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: the sparse search takes at most %llu objects",
                          (unsigned long long)UINT32_MAX);
    status = sparse_rows_create(context, search, threads, &rows, error);
    if (status != PARAC_OK) return status;
    /* no object has every search attribute: the full intent's extent is empty */
    search->full_intent_has_empty_extent = 1;
    for (size_t o = 0; o < rows.objects; o++)
        if (rows.offsets[o + 1] - rows.offsets[o] == search->attributes) search->full_intent_has_empty_extent = 0;
    *count = 0;
    if (threads <= 1) status = search_serial(search, &rows, concepts, count, error);
    else status = sparse_search_parallel(search, &rows, threads, concepts, count, error);
    sparse_rows_destroy(&rows);
    if (status == PARAC_OK) status = add_empty_extent_concept(search, concepts, count, error);
    return status;
}
