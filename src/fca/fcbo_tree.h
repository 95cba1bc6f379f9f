/* fca/fcbo_tree.h — one node of the FCbO search tree and the worker that
 * expands it, shared by the serial path, ON_DEMAND (fcbo_on_demand.c) and the
 * kernel lab's schedulers (dev/fca/). */
#ifndef PARAC_FCA_FCBO_TREE_H
#define PARAC_FCA_FCBO_TREE_H

#include "core/progress.h"
#include "fca/fca_internal.h"

/* A stack of big blocks: nodes take their scratch here and give it back in
 * LIFO order, so a search allocates almost nothing after warming up and
 * pointers never move (blocks are not reallocated). */
typedef struct fcbo_stack_block fcbo_stack_block;
typedef struct fcbo_stack {
    fcbo_stack_block *top;
    fcbo_stack_block *spare;
} fcbo_stack;
typedef struct fcbo_stack_mark {
    fcbo_stack_block *block;
    size_t used;
} fcbo_stack_mark;

/* A concept (extent, intent) whose children are attributes >= next_attribute.
 * Only the extent words listed in nonzero_words are meaningful: the others
 * are zero by definition and never read, which makes extent work
 * proportional to the words in use instead of the object count. failed holds
 * FCbO's sets N_j (attributes x attribute_words); rows < next_attribute are unused. */
typedef struct fcbo_node {
    parac_word *extent;
    uint32_t *nonzero_words;
    size_t nonzero_count;
    parac_word *intent;
    size_t next_attribute;
    parac_word *failed;
    uint64_t weight; /* progress units of this subtree (the root: FCA_PROGRESS_TOTAL) */
} fcbo_node;

typedef struct fcbo_worker fcbo_worker;
/* Hands a child to another thread; returns 1 when it did (the child must be copied). */
typedef int (*fcbo_spawn_fn)(fcbo_worker *worker, const fcbo_node *child);

struct fcbo_worker {
    const fca_search *search;
    fcbo_stack stack;
    parac_fca_concepts *concepts; /* NULL: count only */
    parac_word *original_intent;  /* scratch for mapping intents to original ids */
    uint64_t count;
    parac_status status;          /* first failure (out of memory) */
    parac_error error;
    fcbo_spawn_fn spawn;          /* NULL in the library's searches (ON_DEMAND queues from its own
                                     frames); the kernel lab's schedulers (dev/fca/) set it */
    void *spawn_data;
    parac_progress_credit progress; /* units finished, not yet handed to search->progress */
};

parac_status fcbo_worker_init(fcbo_worker *worker, const fca_search *search, int store, parac_error *error);
void fcbo_worker_destroy(fcbo_worker *worker);

/* Words of scratch for `count` items of `size` bytes. */
static inline size_t fcbo_words_for(size_t count, size_t size) { return (count * size + 7) / 8; }
parac_word *fcbo_stack_alloc(fcbo_stack *stack, size_t words);
fcbo_stack_mark fcbo_stack_save(const fcbo_stack *stack);
void fcbo_stack_restore(fcbo_stack *stack, fcbo_stack_mark mark);

/* Counts the concept (and stores its intent, mapped to original ids, when the worker stores). */
void fcbo_emit(fcbo_worker *worker, const parac_word *intent);
/* Tries every attribute j >= node's next attribute: canonical children go to children[] (their scratch
 * on the worker's stack, their failed pointer not set), failures are recorded in failed. Returns how many. */
size_t fcbo_generate_children(fcbo_worker *worker, const fcbo_node *node, parac_word *failed, fcbo_node **children);

/* fcbo_expand's first half: emits the node's concept and, unless it is a leaf, generates its canonical
 * children on the worker's stack (their failed rows: one shared copy, inherited by every child).
 * Returns how many; 0 for a leaf or when the stack runs out (worker->status says so). The caller
 * restores the stack to a mark saved before the call. */
size_t fcbo_open_node(fcbo_worker *worker, const fcbo_node *node, fcbo_node ***children_out);

/* Emits the node's concept and searches its subtree (children may be spawned). */
void fcbo_expand(fcbo_worker *worker, const fcbo_node *node);

/* A node copied out of its parent's scratch, to be expanded by another thread later. */
typedef struct task_bundle {
    fcbo_node node;
    parac_word words[];
} task_bundle;
/* A self-contained copy of child (malloc'd, free() it): extent, its nonzero word list, intent,
 * failed rows >= next. NULL when out of memory. */
task_bundle *fcbo_copy_node(const fca_search *search, const fcbo_node *child);

/* Builds the root node on the worker's stack; 0 when it fails min_support. */
int fcbo_make_root(fcbo_worker *worker, fcbo_node *root);

#endif
