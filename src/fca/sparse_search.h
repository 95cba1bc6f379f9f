/* fca/sparse_search.h — what the files of the sparse search share: the context by rows of occupied
 * cells (sparse_rows.c), the conditional databases and the worker that expands a node
 * (sparse_search.c), and the hook that hands a node to another thread (sparse_parallel.c).
 *
 * A node is a concept (extent E, intent B) found by FCbO's canonical extension with attribute j;
 * it keeps E as a conditional database: one transaction per group of objects of E whose attributes
 * after j (outside B) agree, with the group's size as weight. Each transaction lists
 *   - its prefix: attributes before j (outside B) that every object of the group has (the
 *     intersection of the group's rows below j): all the canonicity test needs about them;
 *   - its suffix: its attributes after j (outside B), the ones children extend with.
 * Attributes held by fewer than max(min_support, 1) objects of E are dropped everywhere (they can
 * never join an intent of this subtree), and so are transactions with an empty suffix (no child
 * extent contains them). Memory: the cells of the databases on the current path. */
#ifndef PARAC_FCA_SPARSE_SEARCH_H
#define PARAC_FCA_SPARSE_SEARCH_H

#include <stdatomic.h>

#include "core/hash_index.h"
#include "core/progress.h"
#include "fca/fca_internal.h"

/* The context by objects: attributes (search order, ascending) of object o at
 * attributes[offsets[o] .. offsets[o + 1]). */
typedef struct sparse_rows {
    size_t objects;
    size_t *offsets;
    uint32_t *attributes;
    uint64_t *support; /* objects having each search attribute */
} sparse_rows;

/* Built on up to `threads` threads (the same rows whatever the count). */
parac_status sparse_rows_create(const parac_fca_context *context, const fca_search *search, int threads,
                                sparse_rows *rows, parac_error *error);
void sparse_rows_destroy(sparse_rows *rows);

typedef struct sparse_transaction {
    size_t prefix_start, suffix_start; /* in the worker's items */
    uint32_t prefix_length, suffix_length;
    uint64_t weight; /* objects merged into it */
} sparse_transaction;

/* Attribute j's child of a node: its occurrences (transaction indices relative to the node's first). */
typedef struct sparse_candidate {
    uint32_t attribute;
    uint32_t witness; /* 0: canonical; else 1 + an attribute before j in the child's closure */
    size_t occurrence_first, occurrence_count;
    uint64_t support;
} sparse_candidate;

/* A concept and its conditional database, all in the worker's arrays. */
typedef struct sparse_node {
    size_t transaction_first, transaction_count;
    size_t items_first; /* the worker's items from here on belong to this node's transactions */
    size_t intent_first, intent_length; /* ascending search ids in the worker's intents */
    uint64_t weight;                    /* progress units of this subtree */
} sparse_node;

/* A growable array; grows by doubling, elements addressed by index (its data moves when it grows). */
typedef struct sparse_array {
    void *data;
    size_t size, capacity, element_bytes;
} sparse_array;

typedef struct sparse_worker sparse_worker;
/* Hands a child to another thread; 1 when it did (the caller then skips it). */
typedef int (*sparse_spawn_fn)(sparse_worker *worker, const sparse_node *child);

struct sparse_worker {
    const fca_search *search;
    uint64_t least_support; /* max(min_support, 1): no empty extent is searched */
    sparse_array items, transactions, occurrences, candidates, intents;
    uint64_t *support_of;   /* per attribute, zero between uses */
    size_t *cursor_of;      /* per attribute, zero between uses */
    uint32_t *touched;      /* attributes met in the current pass */
    uint32_t *closure;      /* scratch: a child's new intent attributes */
    uint32_t *witness_of;   /* FCbO's N_j, reduced to one witness: 1 + an attribute a before j that some
                               ancestor's child j had in its closure (0: none); j stays non-canonical in
                               every descendant whose intent lacks a */
    parac_word *in_intent;  /* the current node's intent, as a bitset over search ids */
    sparse_array undo;      /* (j, previous witness_of[j]) pairs, restored when a node is left */
    int busy;               /* a node is being expanded (a task nested at a scheduling point gets a
                               worker of its own: witness_of and in_intent describe one path) */
    parac_hash_index merge; /* transactions by suffix while a node's database is built (emptied after) */
    parac_word *search_intent, *original_intent; /* emit scratch */
    uint32_t *original_ids;                      /* emit scratch for stores of id-list records */
    parac_fca_concepts *concepts;                /* NULL: count only */
    uint64_t count;
    parac_status status;
    parac_error error;
    parac_progress_credit progress; /* units finished, not yet handed to search->progress */
    sparse_spawn_fn spawn; /* NULL on one thread */
    void *spawn_data;
    atomic_int *stop;      /* NULL on one thread; set when any worker failed */
};

parac_status sparse_worker_init(sparse_worker *worker, const fca_search *search, int store, parac_error *error);
void sparse_worker_destroy(sparse_worker *worker);
/* Reserves room for `more` elements; 0 (worker status set) when out of memory. */
int sparse_array_reserve(sparse_worker *worker, sparse_array *array, size_t more);
/* Counts the intent (ascending search ids) and stores it in original ids when the worker stores. */
void sparse_emit(sparse_worker *worker, const uint32_t *intent, size_t length);
/* Builds the root (all objects) in the worker's arrays; 0 when there is none (fewer objects than
 * min_support, or out of memory: worker status set). */
int sparse_make_root(sparse_worker *worker, const sparse_rows *rows, sparse_node *root);
/* Emits the node's concept and searches its subtree (children may be spawned). */
void sparse_expand(sparse_worker *worker, const sparse_node *node);

/* A node's children as sparse_open_children leaves them: candidates first .. first + count of the
 * worker that opened the node, delivered and tested (witness 0: canonical), each child's progress
 * share, and the marks sparse_close_children gives the worker's arrays back to. */
typedef struct sparse_children {
    size_t first, count;
    uint64_t share;
    size_t candidates_mark, occurrences_mark, undo_mark;
} sparse_children;
/* Emits the node's concept, credits its own progress share, delivers and tests its candidates
 * (each failure recorded in witness_of for the subtree). Returns how many candidates. */
size_t sparse_open_children(sparse_worker *worker, const sparse_node *node, sparse_children *children);
void sparse_close_children(sparse_worker *worker, const sparse_children *children);
/* Credits the progress share of a child that is not searched (non-canonical). */
void sparse_skip_child(sparse_worker *worker, uint64_t share);
/* The canonical candidate's child of `node`, whose database, intent and candidates are in source's
 * arrays (source may be the worker itself; another worker's are only read), built at the end of the
 * worker's arrays: 1, or 0 when out of memory (worker status set). */
int sparse_make_child(sparse_worker *worker, const sparse_worker *source, const sparse_node *node,
                      size_t candidate_index, sparse_node *child);
/* Searches a child built by sparse_make_child: marks its attributes beyond its parent's (in
 * source's arrays) in in_intent for the subtree. */
void sparse_expand_child(sparse_worker *worker, const sparse_worker *source, const sparse_node *parent,
                         const sparse_node *child);
/* Sets (1) or clears (0) in the worker's in_intent the intent of a node that starts a path (the
 * root, a task), the node in source's arrays. */
void sparse_mark_intent(sparse_worker *worker, const sparse_worker *source, const sparse_node *node, int set);
/* Gives the worker's arrays back to the sizes they had at the node's start. */
void sparse_truncate_to(sparse_worker *worker, const sparse_node *node);

/* The parallel search from the root (sparse_parallel.c); counts and concepts of every thread. */
parac_status sparse_search_parallel(const fca_search *search, const sparse_rows *rows, int threads,
                                    parac_fca_concepts *concepts, uint64_t *count, parac_error *error);

#endif
