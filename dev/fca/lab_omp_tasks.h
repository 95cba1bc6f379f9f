/* dev/fca/lab_omp_tasks.h — FCbO on all cores with OpenMP tasks: the scheduler of the lab's
 * 01_shared_pool.c and 02_per_thread.c (fca/fcbo_omp.c until issue 20 moved it here).
 *
 * Load balancing is dynamic: a worker expanding a node hands a child to the
 * task pool only while fewer than SPAWN_PER_THREAD tasks per thread are
 * waiting; otherwise it expands the child itself. Idle threads take waiting
 * tasks (the runtime's work stealing), so deep, lopsided subtrees get split
 * wherever they occur, not only at the top levels. A task copies its node
 * (extent, intent and the failed sets it may still read) and borrows a worker
 * (scratch stack + result buffer) from a pool, so a task run inline at a
 * scheduling point never shares scratch with the one it interrupted.
 *
 * Two ways of finding a task's worker (omp_tasks_search's per_thread):
 *   0 (SHARED_POOL) — the first version: tasks borrow a worker from a locked
 *                     pool, the pending counter shares a cache line with the lock.
 *   1 (PER_THREAD)  — one worker per thread, cache-line aligned, taken by thread
 *                     number without a lock. Safe because tasks are tied: a task
 *                     run inline at a scheduling point sits above the interrupted
 *                     one on the same C stack, so it uses the worker's scratch
 *                     stack strictly LIFO. The pending counter has its own line.
 */
#ifndef PARAC_LAB_OMP_TASKS_H
#define PARAC_LAB_OMP_TASKS_H

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fcbo_tree.h"

#define SPAWN_PER_THREAD 4
#define SMALLEST_SPAWNED_TAIL 3 /* children with fewer attributes left are expanded in place */

#define CACHE_LINE 64

typedef struct parallel_state {
    const fca_search *search;
    int store;
    int spawn_limit;
    int per_thread;       /* 02_per_thread.c: workers[thread], no lock */
    int pending;          /* 01_shared_pool.c: tasks created and not yet started (atomic) */
    int *pending_counter; /* &pending, or a counter alone on its cache line */
    omp_lock_t lock;      /* guards the worker lists */
    fcbo_worker **all;    /* every worker created */
    fcbo_worker **idle;
    size_t all_count, idle_count, capacity;
    int out_of_memory;
} parallel_state;

static fcbo_worker *acquire_worker(parallel_state *state);
static void release_worker(parallel_state *state, fcbo_worker *worker);

static void run_bundle(parallel_state *state, task_bundle *bundle)
{
    fcbo_worker *worker;
    int *pending = state->pending_counter;
#pragma omp atomic
    (*pending)--;
    worker = acquire_worker(state);
    if (worker) {
        fcbo_expand(worker, &bundle->node);
        release_worker(state, worker);
    }
    free(bundle);
}

static int spawn_child(fcbo_worker *worker, const fcbo_node *child)
{
    parallel_state *state = worker->spawn_data;
    task_bundle *bundle;
    int *counter = state->pending_counter, pending;
#pragma omp atomic read
    pending = *counter;
    if (pending >= state->spawn_limit || child->next_attribute + SMALLEST_SPAWNED_TAIL > state->search->attributes)
        return 0;
    bundle = fcbo_copy_node(state->search, child);
    if (!bundle) return 0; /* no memory for a copy: expand in place */
#pragma omp atomic
    (*counter)++;
    /* state is this function's local: the task must take its own copy (firstprivate), since it
       may run after spawn_child returned; shared(state) read a dead stack slot (ThreadSanitizer,
       clang/libomp: a race with the next call's write, then a crash in run_bundle; latent with gcc,
       where the slot usually still held the same pointer). */
#pragma omp task firstprivate(bundle, state) default(none)
    run_bundle(state, bundle);
    return 1;
}

/* Workers sit on their own cache lines: their counters change at every concept. */
static fcbo_worker *allocate_worker(void)
{
    size_t bytes = (sizeof(fcbo_worker) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    return aligned_alloc(CACHE_LINE, bytes);
}

static fcbo_worker *create_worker(parallel_state *state)
{
    fcbo_worker *worker = allocate_worker();
    parac_error error;
    if (state->all_count == state->capacity) {
        size_t capacity = state->capacity ? state->capacity * 2 : 64;
        fcbo_worker **all = realloc(state->all, capacity * sizeof *all);
        fcbo_worker **idle = all ? realloc(state->idle, capacity * sizeof *idle) : NULL;
        if (all) state->all = all;
        if (idle) state->idle = idle;
        if (!all || !idle) { free(worker); return NULL; }
        state->capacity = capacity;
    }
    if (!worker) return NULL;
    if (fcbo_worker_init(worker, state->search, state->store, &error) != PARAC_OK) {
        fcbo_worker_destroy(worker);
        free(worker);
        return NULL;
    }
    worker->spawn = spawn_child;
    worker->spawn_data = state;
    state->all[state->all_count++] = worker;
    return worker;
}

static fcbo_worker *acquire_worker(parallel_state *state)
{
    fcbo_worker *worker;
    if (state->per_thread) return state->all[omp_get_thread_num()]; /* NULL when its creation failed */
    omp_set_lock(&state->lock);
    worker = state->idle_count ? state->idle[--state->idle_count] : create_worker(state);
    if (!worker) state->out_of_memory = 1;
    omp_unset_lock(&state->lock);
    return worker;
}

static void release_worker(parallel_state *state, fcbo_worker *worker)
{
    if (state->per_thread) return;
    omp_set_lock(&state->lock);
    state->idle[state->idle_count++] = worker;
    omp_unset_lock(&state->lock);
}

/* Sums counts, gathers concepts and the first failure; frees the workers. */
static parac_status collect(parallel_state *state, parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    parac_status status = state->out_of_memory ? parac_fail_no_memory(error, "FCbO workers", 0) : PARAC_OK;
    uint64_t total = 0;
    for (size_t i = 0; i < state->all_count; i++) {
        fcbo_worker *worker = state->all[i];
        total += worker->count;
        if (status == PARAC_OK && worker->status != PARAC_OK) {
            status = worker->status;
            if (error) *error = worker->error;
        }
        if (!worker) continue;
        if (status == PARAC_OK && concepts) status = fca_concepts_take(concepts, worker->concepts, error);
        fcbo_worker_destroy(worker);
        free(worker);
    }
    *count = total;
    return status;
}

/* PER_THREAD: one worker per thread made up front (a NULL slot marks a failed one). */
static void create_thread_workers(parallel_state *state, int threads)
{
    state->all = calloc((size_t)threads, sizeof *state->all);
    if (!state->all) { state->out_of_memory = 1; return; }
    state->all_count = state->capacity = (size_t)threads;
    for (int t = 0; t < threads; t++) {
        fcbo_worker *worker = allocate_worker();
        parac_error ignored;
        if (worker && fcbo_worker_init(worker, state->search, state->store, &ignored) != PARAC_OK) {
            fcbo_worker_destroy(worker);
            free(worker);
            worker = NULL;
        }
        if (!worker) { state->out_of_memory = 1; continue; }
        worker->spawn = spawn_child;
        worker->spawn_data = state;
        state->all[t] = worker;
    }
}

static parac_status omp_tasks_search(const fca_search *search, int threads, int per_thread,
                                     parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    parallel_state state;
    parac_status status;
    int *alone = aligned_alloc(CACHE_LINE, CACHE_LINE);
    memset(&state, 0, sizeof state);
    state.search = search;
    state.store = concepts != NULL;
    state.spawn_limit = SPAWN_PER_THREAD * threads;
    state.per_thread = per_thread && alone;
    state.pending_counter = state.per_thread ? alone : &state.pending;
    *state.pending_counter = 0;
    omp_init_lock(&state.lock);
    if (state.per_thread) create_thread_workers(&state, threads);
    if (!state.out_of_memory) {
#pragma omp parallel num_threads(threads) default(none) shared(state)
#pragma omp single
        {
            fcbo_worker *worker = acquire_worker(&state);
            fcbo_node root;
            if (worker) {
                if (fcbo_make_root(worker, &root)) fcbo_expand(worker, &root);
                release_worker(&state, worker);
            }
        }
    }
    status = collect(&state, concepts, count, error);
    omp_destroy_lock(&state.lock);
    free(alone);
    free(state.all);
    free(state.idle);
    return status;
}

#endif
