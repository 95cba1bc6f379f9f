/* fca/fcbo_serial.c — FCbO (Outrata & Vychodil 2012) on one thread.
 *
 * Close-by-One visits concept (A, B) and tries each attribute j >= y not in
 * B: C = A ∩ {j}', D = C'. The child is new (canonical) when D adds no
 * attribute before j. FCbO's improvement: when the test fails, D is kept as
 * N_j and handed to every later child; a descendant that would add j again
 * can skip the closure altogether when N_j ∩ Y_j ⊆ B (it would fail too).
 * Children are expanded after all of the node's attributes were tried
 * (breadth first per node), so they inherit every failure found there.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "fca/fcbo_tree.h"

struct fcbo_stack_block {
    fcbo_stack_block *previous;
    size_t capacity, used;
    parac_word words[];
};

#define FCBO_BLOCK_WORDS ((size_t)1 << 17) /* 1 MiB */

parac_word *fcbo_stack_alloc(fcbo_stack *stack, size_t words)
{
    fcbo_stack_block *top = stack->top, *block;
    if (top && top->capacity - top->used >= words) {
        parac_word *result = top->words + top->used;
        top->used += words;
        return result;
    }
    block = stack->spare;
    if (block && block->capacity >= words) stack->spare = NULL;
    else {
        size_t capacity = words > FCBO_BLOCK_WORDS ? words : FCBO_BLOCK_WORDS;
        block = malloc(sizeof *block + capacity * sizeof(parac_word));
        if (!block) return NULL;
        block->capacity = capacity;
    }
    block->previous = top;
    block->used = words;
    stack->top = block;
    return block->words;
}

fcbo_stack_mark fcbo_stack_save(const fcbo_stack *stack)
{
    fcbo_stack_mark mark = {stack->top, stack->top ? stack->top->used : 0};
    return mark;
}

void fcbo_stack_restore(fcbo_stack *stack, fcbo_stack_mark mark)
{
    while (stack->top != mark.block) {
        fcbo_stack_block *block = stack->top;
        stack->top = block->previous;
        if (!stack->spare || stack->spare->capacity < block->capacity) {
            free(stack->spare);
            stack->spare = block;
        } else {
            free(block);
        }
    }
    if (mark.block) mark.block->used = mark.used;
}

parac_status fcbo_worker_init(fcbo_worker *worker, const fca_search *search, int store, parac_error *error)
{
    parac_status status;
    memset(worker, 0, sizeof *worker);
    worker->search = search;
    worker->original_intent = malloc(search->original_words * sizeof(parac_word));
    if (!worker->original_intent) return parac_fail_no_memory(error, "intent", search->original_words * 8);
    if (store) {
        worker->concepts = malloc(sizeof *worker->concepts);
        if (!worker->concepts) return parac_fail_no_memory(error, "concepts", 64);
        status = fca_concepts_init_worker(worker->concepts, search, error);
        if (status != PARAC_OK) return status;
    }
    return PARAC_OK;
}

void fcbo_worker_destroy(fcbo_worker *worker)
{
    fcbo_stack_restore(&worker->stack, (fcbo_stack_mark){NULL, 0});
    free(worker->stack.spare);
    free(worker->original_intent);
    if (worker->concepts) fca_concepts_release(worker->concepts);
    free(worker->concepts);
    memset(worker, 0, sizeof *worker);
}

static void fail_no_memory(fcbo_worker *worker, const char *what)
{
    if (worker->status == PARAC_OK) worker->status = parac_fail_no_memory(&worker->error, what, 0);
}

void fcbo_emit(fcbo_worker *worker, const parac_word *intent)
{
    worker->count++;
    if (!worker->concepts || worker->status != PARAC_OK) return;
    fca_search_original_intent(worker->search, intent, worker->original_intent);
    if (fca_concepts_append(worker->concepts, worker->original_intent, &worker->error) != PARAC_OK)
        worker->status = worker->error.status;
}

/* N_j ∩ Y_j ⊆ B: the failed set of j adds nothing before j to B, so j may still be canonical. */
static int failed_set_allows(const parac_word *failed_j, const parac_word *intent, size_t j)
{
    size_t full = j / 64, rest = j % 64;
    for (size_t w = 0; w < full; w++)
        if (failed_j[w] & ~intent[w]) return 0;
    return !rest || !(failed_j[full] & ~intent[full] & (((parac_word)1 << rest) - 1));
}

/* C = A ∩ {j}' over A's nonzero words; returns |C|. */
static size_t intersect_column(const fca_search *search, const fcbo_node *node, size_t j, fcbo_node *child)
{
    const parac_word *column = search->columns + j * search->object_words;
    size_t support = 0, kept = 0;
    for (size_t i = 0; i < node->nonzero_count; i++) {
        uint32_t w = node->nonzero_words[i];
        parac_word bits = node->extent[w] & column[w];
        if (bits) {
            child->extent[w] = bits;
            child->nonzero_words[kept++] = w;
            support += (size_t)__builtin_popcountll(bits);
        }
    }
    child->nonzero_count = kept;
    return support;
}

/* D = C' as the AND of C's rows; stops once D is down to B ∪ {j}, its floor. */
static void close_extent(const fca_search *search, const fcbo_node *child, const parac_word *floor, parac_word *intent)
{
    size_t words = search->attribute_words;
    parac_bitset_zero(intent, words);
    parac_bitset_fill(intent, search->attributes);
    for (size_t i = 0; i < child->nonzero_count; i++) {
        uint32_t w = child->nonzero_words[i];
        for (parac_word bits = child->extent[w]; bits; bits &= bits - 1) {
            const parac_word *row = search->rows + ((size_t)w * 64 + (size_t)__builtin_ctzll(bits)) * words;
            int at_floor = 1;
            for (size_t k = 0; k < words; k++) {
                intent[k] &= row[k];
                at_floor &= intent[k] == floor[k];
            }
            if (at_floor) return;
        }
    }
}

static fcbo_node *new_child(fcbo_worker *worker)
{
    const fca_search *search = worker->search;
    size_t words = search->object_words + fcbo_words_for(search->object_words, sizeof(uint32_t)) +
                   2 * search->attribute_words;
    parac_word *memory = fcbo_stack_alloc(&worker->stack, words + fcbo_words_for(1, sizeof(fcbo_node)));
    fcbo_node *child = (fcbo_node *)memory;
    if (!memory) return NULL;
    memory += fcbo_words_for(1, sizeof(fcbo_node));
    child->extent = memory;
    child->intent = memory + search->object_words;
    child->nonzero_words = (uint32_t *)(child->intent + 2 * search->attribute_words);
    return child;
}

static int cancelled_inside_node(fcbo_worker *worker); /* with the progress credits, below */

size_t fcbo_generate_children(fcbo_worker *worker, const fcbo_node *node, parac_word *failed, fcbo_node **children)
{
    const fca_search *search = worker->search;
    size_t words = search->attribute_words, count = 0;
    for (size_t j = node->next_attribute; j < search->attributes; j++) {
        fcbo_stack_mark mark;
        fcbo_node *child;
        parac_word *floor;
        if ((j & 63) == 63 && cancelled_inside_node(worker)) return count;
        if (parac_bitset_test(node->intent, j) || !failed_set_allows(node->failed + j * words, node->intent, j))
            continue;
        mark = fcbo_stack_save(&worker->stack);
        child = new_child(worker);
        if (!child) { fail_no_memory(worker, "FCbO search stack"); return count; }
        floor = child->intent + words; /* B ∪ {j}, scratch */
        if (intersect_column(search, node, j, child) < search->min_support) {
            fcbo_stack_restore(&worker->stack, mark);
            continue;
        }
        parac_bitset_copy(floor, node->intent, words);
        parac_bitset_set(floor, j);
        close_extent(search, child, floor, child->intent);
        if (parac_bitset_equal_prefix(child->intent, node->intent, j)) {
            child->next_attribute = j + 1;
            children[count++] = child;
        } else {
            parac_bitset_copy(failed + j * words, child->intent, words);
            fcbo_stack_restore(&worker->stack, mark);
        }
    }
    return count;
}

/* Progress: a node's weight is its subtree's share of the search (the root holds FCA_PROGRESS_TOTAL).
 * Opening a node splits its weight among its children by a guess of their subtree sizes (below) and
 * credits the rest, so the credits add up to the total exactly whichever thread expands which node in
 * whatever order, and done/total grows with the part of the tree finished. Credits gather in the
 * worker and go to the shared gate every few hundred nodes or 20 ms (parac_progress_credit), which is
 * also where a cancel is seen: the worker then fails with PARAC_ERR_CANCELLED and every search path
 * unwinds as after a failure. --device auto projects the run's length from done/total
 * (device_handover.h), so the split should follow the work. */

static void credit_progress(fcbo_worker *worker, uint64_t credit)
{
    parac_progress_gate *gate = worker->search->progress;
    if (gate && parac_progress_credit_add(gate, &worker->progress, credit) && worker->status == PARAC_OK)
        worker->status = parac_fail(&worker->error, PARAC_ERR_CANCELLED, "fca: cancelled");
}

/* Inside a node with many candidates (tens of thousands of attributes): the gate is visited every
 * PARAC_PROGRESS_CREDIT_NS, so a cancel is seen then and not only after the node. */
static int cancelled_inside_node(fcbo_worker *worker)
{
    parac_progress_gate *gate = worker->search->progress;
    if (!gate || !parac_progress_credit_poll(gate, &worker->progress)) return 0;
    if (worker->status == PARAC_OK) worker->status = parac_fail(&worker->error, PARAC_ERR_CANCELLED, "fca: cancelled");
    return 1;
}

/* A child's subtree, guessed from the two things that bound it: the attributes it may still add
 * (after its attribute j, not in its intent) and its extent's size; m^2.5 for the smaller m of the two.
 * Measured on the root's children with their subtrees counted (the weight fraction done against the
 * fraction of concepts found, child by child in search order, over the middle 90 % of the search):
 * equal shares made a random 300 x 80 context (density 0.35) look up to 3.3x longer than it was, since
 * its first children, with the most attributes left, hold most of the tree; m^2.5 0.87-1.06x there,
 * vote 0.18-1x (equal: 0.24-1.48x), mushroom 0.13-1x (0.21-1.31x): rare attributes there have tiny
 * extents, caught by the extent's part. Errors that make a run look shorter only delay a handover to
 * the GPU by a report or two; ones that make it look longer send short runs there. */
static double subtree_guess(const fca_search *search, const fcbo_node *child)
{
    size_t attributes = search->attributes, next = child->next_attribute, words = search->attribute_words;
    size_t in_intent = 0, support = 0, left, smaller;
    for (size_t w = next / 64; w < words && next < attributes; w++) {
        parac_word bits = child->intent[w];
        if (w == next / 64) bits &= ~(parac_word)0 << (next % 64);
        in_intent += (size_t)__builtin_popcountll(bits);
    }
    left = next < attributes ? attributes - next - in_intent : 0;
    for (size_t i = 0; i < child->nonzero_count; i++)
        support += (size_t)__builtin_popcountll(child->extent[child->nonzero_words[i]]);
    smaller = left < support ? left : support;
    return 1.0 + (double)smaller * (double)smaller * sqrt((double)smaller);
}

/* Gives each child its share of node's weight (subtree_guess; 0 when no gate takes progress) and
 * returns what the node keeps. */
static uint64_t share_weight(const fca_search *search, const fcbo_node *node, fcbo_node **children, size_t count)
{
    double sum = 1.0; /* the node itself counts as one concept */
    uint64_t given = 0;
    for (size_t i = 0; i < count; i++) {
        children[i]->weight = search->progress ? (uint64_t)subtree_guess(search, children[i]) : 0;
        sum += (double)children[i]->weight;
    }
    for (size_t i = 0; i < count; i++) {
        uint64_t share = (uint64_t)((double)node->weight * ((double)children[i]->weight / sum));
        if (share > node->weight - given) share = node->weight - given; /* rounding never overdraws */
        children[i]->weight = share;
        given += share;
    }
    return node->weight - given;
}

size_t fcbo_open_node(fcbo_worker *worker, const fcbo_node *node, fcbo_node ***children_out)
{
    const fca_search *search = worker->search;
    size_t n = search->attributes, words = search->attribute_words, y = node->next_attribute, count;
    parac_word *failed;
    fcbo_node **children;
    fcbo_emit(worker, node->intent);
    if (y >= n || worker->status != PARAC_OK || parac_bitset_popcount(node->intent, words) == n) {
        credit_progress(worker, node->weight);
        return 0;
    }
    failed = fcbo_stack_alloc(&worker->stack, n * words);
    children = (fcbo_node **)fcbo_stack_alloc(&worker->stack, fcbo_words_for(n - y, sizeof(fcbo_node *)));
    if (!failed || !children) {
        fail_no_memory(worker, "FCbO search stack");
        return 0;
    }
    memcpy(failed + y * words, node->failed + y * words, (n - y) * words * sizeof *failed);
    count = fcbo_generate_children(worker, node, failed, children);
    for (size_t i = 0; i < count; i++) children[i]->failed = failed;
    credit_progress(worker, share_weight(search, node, children, count));
    if (worker->status != PARAC_OK) return 0; /* cancelled: the children stay unexpanded */
    *children_out = children;
    return count;
}

void fcbo_expand(fcbo_worker *worker, const fcbo_node *node)
{
    fcbo_stack_mark mark = fcbo_stack_save(&worker->stack);
    fcbo_node **children = NULL;
    size_t count = fcbo_open_node(worker, node, &children);
    for (size_t i = 0; i < count; i++) {
        if (worker->spawn && worker->spawn(worker, children[i])) continue;
        fcbo_expand(worker, children[i]);
    }
    fcbo_stack_restore(&worker->stack, mark);
}

task_bundle *fcbo_copy_node(const fca_search *search, const fcbo_node *child)
{
    size_t object_words = search->object_words, words = search->attribute_words, n = search->attributes;
    size_t list_words = fcbo_words_for(object_words, sizeof(uint32_t));
    size_t y = child->next_attribute;
    task_bundle *bundle = malloc(sizeof *bundle + (object_words + list_words + words + n * words) * sizeof(parac_word));
    if (!bundle) return NULL;
    bundle->node.extent = bundle->words;
    bundle->node.nonzero_words = (uint32_t *)(bundle->words + object_words);
    bundle->node.intent = bundle->words + object_words + list_words;
    bundle->node.failed = bundle->node.intent + words;
    bundle->node.next_attribute = y;
    bundle->node.weight = child->weight;
    bundle->node.nonzero_count = child->nonzero_count;
    for (size_t i = 0; i < child->nonzero_count; i++) {
        uint32_t w = child->nonzero_words[i];
        bundle->node.nonzero_words[i] = w;
        bundle->node.extent[w] = child->extent[w];
    }
    memcpy(bundle->node.intent, child->intent, words * sizeof(parac_word));
    memcpy(bundle->node.failed + y * words, child->failed + y * words, (n - y) * words * sizeof(parac_word));
    return bundle;
}

int fcbo_make_root(fcbo_worker *worker, fcbo_node *root)
{
    const fca_search *search = worker->search;
    size_t n = search->attributes, words = search->attribute_words, object_words = search->object_words;
    parac_word *memory = fcbo_stack_alloc(&worker->stack, object_words + fcbo_words_for(object_words, 4) + words +
                                                             (n ? n : 1) * words);
    if (!memory) { fail_no_memory(worker, "FCbO root"); return 0; }
    root->extent = memory;
    root->nonzero_words = (uint32_t *)(memory + object_words);
    root->intent = memory + object_words + fcbo_words_for(object_words, 4);
    root->failed = root->intent + words;
    root->next_attribute = 0;
    root->weight = FCA_PROGRESS_TOTAL;
    memset(root->failed, 0, (n ? n : 1) * words * sizeof(parac_word));
    fca_search_root(search, root->extent, root->intent);
    root->nonzero_count = 0;
    for (size_t w = 0; w < object_words; w++)
        if (root->extent[w]) root->nonzero_words[root->nonzero_count++] = (uint32_t)w;
    return search->objects >= search->min_support;
}

parac_status fca_fcbo_serial(const fca_search *search, parac_fca_concepts *concepts, uint64_t *count,
                             parac_error *error)
{
    fcbo_worker worker;
    fcbo_node root;
    parac_status status = fcbo_worker_init(&worker, search, concepts != NULL, error);
    if (status == PARAC_OK && fcbo_make_root(&worker, &root)) fcbo_expand(&worker, &root);
    if (status == PARAC_OK && worker.status != PARAC_OK) {
        status = worker.status;
        if (error) *error = worker.error;
    }
    if (status == PARAC_OK && concepts) status = fca_concepts_take(concepts, worker.concepts, error);
    if (status == PARAC_OK) *count = worker.count;
    fcbo_worker_destroy(&worker);
    return status;
}
