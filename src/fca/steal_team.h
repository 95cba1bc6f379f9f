/* fca/steal_team.h — threads that share one FCbO search through a deque each.
 *
 * The scheduler under PARAC_FCA_CPU_ON_DEMAND (fcbo_on_demand.c), kept apart from the decision of
 * *when* to copy a node out, which is the policy's: the lab's work-stealing variant
 * (dev/fca/03_work_stealing.c) runs on this same team with another decision, so the two differ in
 * that decision alone. What the team does:
 *   - each thread owns a deque (own lock, own cache lines); the owner pushes and pops at the tail
 *     (newest first: the node it just left, still in cache, and a depth-first order that keeps the
 *     deque short);
 *   - an idle thread steals the oldest half of a victim's deque (oldest = closest to the root = the
 *     largest subtrees), starting at a random victim, so one steal feeds it for a long time;
 *   - each thread has its own fcbo_worker (scratch stack, results): a thread only ever expands one
 *     task at a time (queueing never runs anything inline), so no worker is shared;
 *   - termination: `outstanding` counts tasks queued and not yet finished (the root included); a
 *     thread with nothing to pop or steal leaves when it reaches zero (it yields while it waits, so
 *     a busy machine loses little to the spinning).
 */
#ifndef PARAC_FCA_STEAL_TEAM_H
#define PARAC_FCA_STEAL_TEAM_H

#include <omp.h>
#include <stdatomic.h>

#include "fca/fcbo_tree.h"

#define STEAL_CACHE_LINE 64
#define STEAL_DEQUE_CAPACITY 64 /* ring size: a policy queues a few tasks (on_demand 1, the lab's work
                                   stealing 8) and a thief adds at most half of a victim's, so it never
                                   fills (steal_and_run runs a task inline if it ever did) */
#define STEAL_SMALLEST_TAIL 3   /* a child with fewer attributes left is a tiny subtree: cheaper to expand
                                   in place than to copy, so no policy queues one */

typedef struct steal_deque {
    _Alignas(STEAL_CACHE_LINE) omp_lock_t lock;
    task_bundle *items[STEAL_DEQUE_CAPACITY]; /* ring: oldest at first, newest at first + count - 1 */
    size_t first;
    atomic_size_t count;                      /* read without the lock to skip empty victims */
} steal_deque;

typedef struct steal_team steal_team;

typedef struct steal_thread {
    _Alignas(STEAL_CACHE_LINE) fcbo_worker worker;
    steal_deque deque;
    uint64_t random; /* victim choice */
    int index;       /* 0 .. thread_count - 1 */
    int worker_ready;
    steal_team *team;
} steal_thread;

/* How a thread expands the node of one task (the root included): it may queue nodes it meets with
 * steal_team_queue. data is the policy's own state. */
typedef struct steal_policy {
    void (*expand)(steal_thread *self, const fcbo_node *node);
    void *data;
} steal_policy;

struct steal_team {
    const fca_search *search;
    steal_thread *threads;
    int thread_count;
    const steal_policy *policy;
    _Alignas(STEAL_CACHE_LINE) atomic_long outstanding; /* tasks queued and not finished */
    _Alignas(STEAL_CACHE_LINE) atomic_int idle;         /* threads looking for work */
};

/* Tasks waiting in the thread's own deque (a relaxed read: a hint, exact for the owner's pushes). */
static inline size_t steal_queued(const steal_thread *self)
{
    return atomic_load_explicit(&self->deque.count, memory_order_relaxed);
}

/* Threads looking for work now (a relaxed read of a line that changes only when one starts or stops). */
static inline int steal_idle_threads(const steal_team *team)
{
    return atomic_load_explicit(&team->idle, memory_order_relaxed);
}

/* Copies node into the thread's deque for any thread to take; 1 when queued, 0 when there was no
 * memory for the copy or no room (the caller then expands the node itself). */
int steal_team_queue(steal_thread *self, const fcbo_node *node);

/* Runs the search on `threads` threads under policy: thread 0 expands the root, every thread then
 * pops its own deque and steals until no task is outstanding. Counts, and gathers concepts when
 * concepts is not NULL (in no particular order). */
parac_status steal_team_run(const fca_search *search, int threads, const steal_policy *policy,
                            parac_fca_concepts *concepts, uint64_t *count, parac_error *error);

#endif
