/* fca/fcbo_steal.c — FCbO on all cores with a work-stealing deque per thread
 * (PARAC_FCA_CPU_WORK_STEALING).
 *
 * Why another scheduler: the OpenMP-task strategies (fcbo_omp.c) put every
 * spawned node in the runtime's one task queue and decide to spawn from one
 * global pending counter, so all 16 threads hit the same lock and the same
 * cache line at every spawn and every task start, and a thread that runs out
 * of work takes whatever task is queued, not the largest one. Here:
 *   - each thread owns a deque (own lock, own cache lines); the owner pushes
 *     and pops at the tail (newest first: the node it just left, still in
 *     cache, and a depth-first order that keeps the deque short);
 *   - an idle thread steals the oldest half of a victim's deque (oldest =
 *     closest to the root = the largest subtrees), starting at a random
 *     victim, so one steal feeds it for a long time;
 *   - spawn decisions are local and depend on the node: a child is copied
 *     out only when it has >= SMALLEST_SPAWNED_TAIL attributes left (a
 *     shorter tail is a tiny subtree: cheaper to expand than to copy), and
 *     only while the deque holds fewer than ALWAYS_KEEP tasks, or some thread
 *     is idle and the deque holds fewer than SPAWN_LIMIT. With every thread
 *     busy a worker keeps a couple of nodes to be stolen and copies nothing else.
 * Each thread has its own fcbo_worker (scratch stack, results): a thread only
 * ever expands one node at a time (spawning never runs anything inline), so no
 * worker is shared. Termination: `outstanding` counts tasks pushed and not yet
 * finished (the root included); a thread with nothing to pop or steal leaves
 * when it reaches zero.
 *
 * PARAC_FCA_CPU_ON_DEMAND (round 5) uses the same deques and thieves but copies
 * a node only when some thread is idle: every thread recurses in place and
 * keeps, per level of its current task, the children it has not started yet
 * (frames[]); while the idle counter is nonzero and its deque is empty, it
 * copies the pending child nearest the root (the largest subtree it holds)
 * into its deque and skips it. With every thread busy a node costs the serial
 * path plus a relaxed load of `idle` and a few stores to thread-own memory:
 * no copies, no malloc, no lock (work_stealing keeps ALWAYS_KEEP copies queued
 * all the time, and each of them may be a small subtree).
 */
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fcbo_tree.h"

#define CACHE_LINE 64
#define DEQUE_CAPACITY 64      /* ring size; at most 2 * SPAWN_LIMIT tasks are ever queued (see steal_half) */
#define SPAWN_LIMIT 8          /* queued tasks per thread while some thread is idle */
#define ALWAYS_KEEP 2          /* queued tasks per thread even when every thread is busy */
#define SMALLEST_SPAWNED_TAIL 3

typedef struct steal_deque {
    _Alignas(CACHE_LINE) omp_lock_t lock;
    task_bundle *items[DEQUE_CAPACITY]; /* ring: oldest at first, newest at first + count - 1 */
    size_t first;
    atomic_size_t count;                /* read without the lock to skip empty victims */
} steal_deque;

/* One level of an ON_DEMAND task: its node's children, children[next..count) not started yet. */
typedef struct steal_frame {
    fcbo_node **children;
    size_t count, next;
} steal_frame;

typedef struct steal_thread {
    _Alignas(CACHE_LINE) fcbo_worker worker;
    steal_frame *frames; /* ON_DEMAND: levels of the current task, own cache lines (attributes + 1) */
    size_t depth;        /* live frames; written per node, so kept off the deque's lines thieves read */
    steal_deque deque;
    uint64_t random;  /* victim choice */
    int index;
    int worker_ready;
    struct steal_state *state;
} steal_thread;

typedef struct steal_state {
    const fca_search *search;
    steal_thread *threads;
    int thread_count;
    int on_demand;                                /* PARAC_FCA_CPU_ON_DEMAND */
    _Alignas(CACHE_LINE) atomic_long outstanding; /* tasks pushed and not finished */
    _Alignas(CACHE_LINE) atomic_int idle;         /* threads looking for work */
} steal_state;

/* Owner side: 1 when queued (the deque had room). */
static int deque_push(steal_deque *deque, task_bundle *bundle)
{
    size_t count;
    omp_set_lock(&deque->lock);
    count = atomic_load_explicit(&deque->count, memory_order_relaxed);
    if (count < DEQUE_CAPACITY) {
        deque->items[(deque->first + count) % DEQUE_CAPACITY] = bundle;
        atomic_store_explicit(&deque->count, count + 1, memory_order_relaxed);
    }
    omp_unset_lock(&deque->lock);
    return count < DEQUE_CAPACITY;
}

/* Owner side: the newest task, or NULL. */
static task_bundle *deque_pop_newest(steal_deque *deque)
{
    task_bundle *bundle = NULL;
    size_t count;
    if (atomic_load_explicit(&deque->count, memory_order_relaxed) == 0) return NULL;
    omp_set_lock(&deque->lock);
    count = atomic_load_explicit(&deque->count, memory_order_relaxed);
    if (count) {
        bundle = deque->items[(deque->first + count - 1) % DEQUE_CAPACITY];
        atomic_store_explicit(&deque->count, count - 1, memory_order_relaxed);
    }
    omp_unset_lock(&deque->lock);
    return bundle;
}

/* Thief side: moves the oldest half (rounded up) of victim's tasks to taken[]; returns how many. */
static size_t deque_steal_half(steal_deque *victim, task_bundle **taken)
{
    size_t count, half;
    if (atomic_load_explicit(&victim->count, memory_order_relaxed) == 0) return 0;
    omp_set_lock(&victim->lock);
    count = atomic_load_explicit(&victim->count, memory_order_relaxed);
    half = (count + 1) / 2;
    for (size_t i = 0; i < half; i++) taken[i] = victim->items[(victim->first + i) % DEQUE_CAPACITY];
    victim->first = (victim->first + half) % DEQUE_CAPACITY;
    atomic_store_explicit(&victim->count, count - half, memory_order_relaxed);
    omp_unset_lock(&victim->lock);
    return half;
}

/* The spawn hook of every worker: queue the child on the own deque when it is worth it. */
static int steal_spawn(fcbo_worker *worker, const fcbo_node *child)
{
    steal_thread *self = worker->spawn_data;
    steal_state *state = self->state;
    size_t queued = atomic_load_explicit(&self->deque.count, memory_order_relaxed);
    task_bundle *bundle;
    if (child->next_attribute + SMALLEST_SPAWNED_TAIL > state->search->attributes) return 0;
    if (queued >= SPAWN_LIMIT) return 0;
    if (queued >= ALWAYS_KEEP && atomic_load_explicit(&state->idle, memory_order_relaxed) == 0) return 0;
    bundle = fcbo_copy_node(state->search, child);
    if (!bundle) return 0; /* no memory for a copy: expand in place */
    atomic_fetch_add_explicit(&state->outstanding, 1, memory_order_relaxed);
    if (deque_push(&self->deque, bundle)) return 1;
    atomic_fetch_sub_explicit(&state->outstanding, 1, memory_order_relaxed);
    free(bundle);
    return 0;
}

/* ON_DEMAND, some thread idle: unless the own deque already holds a task, copy the pending child
 * nearest the root (longest tail, largest subtree) into it; the frame then skips that child. */
static void share_shallowest(steal_thread *self)
{
    const fca_search *search = self->state->search;
    if (atomic_load_explicit(&self->deque.count, memory_order_relaxed) != 0) return;
    for (size_t d = 0; d < self->depth; d++) {
        steal_frame *frame = &self->frames[d];
        task_bundle *bundle;
        /* later siblings have shorter tails; a deeper frame may still hold a longer one */
        if (frame->next >= frame->count ||
            frame->children[frame->next]->next_attribute + SMALLEST_SPAWNED_TAIL > search->attributes)
            continue;
        bundle = fcbo_copy_node(search, frame->children[frame->next]);
        if (!bundle) return; /* no memory for a copy: the owner expands it */
        atomic_fetch_add_explicit(&self->state->outstanding, 1, memory_order_relaxed);
        if (!deque_push(&self->deque, bundle)) {
            atomic_fetch_sub_explicit(&self->state->outstanding, 1, memory_order_relaxed);
            free(bundle);
            return;
        }
        frame->next++;
        return;
    }
}

/* fcbo_expand in place, the children of each level kept in a frame that share_shallowest can take from. */
static void expand_on_demand(steal_thread *self, const fcbo_node *node)
{
    fcbo_worker *worker = &self->worker;
    fcbo_stack_mark mark = fcbo_stack_save(&worker->stack);
    fcbo_node **children = NULL;
    size_t count = fcbo_open_node(worker, node, &children);
    steal_frame *frame;
    if (count > 0) {
        frame = &self->frames[self->depth++]; /* depth <= attributes: next_attribute grows along a path */
        frame->children = children;
        frame->count = count;
        frame->next = 0;
        while (frame->next < frame->count) {
            const fcbo_node *child = children[frame->next++];
            if (atomic_load_explicit(&self->state->idle, memory_order_relaxed) != 0) share_shallowest(self);
            expand_on_demand(self, child);
        }
        self->depth--;
    }
    fcbo_stack_restore(&worker->stack, mark);
}

static void expand_task(steal_thread *self, const fcbo_node *node)
{
    if (self->state->on_demand) expand_on_demand(self, node);
    else fcbo_expand(&self->worker, node);
}

static void run_bundle(steal_thread *self, task_bundle *bundle)
{
    expand_task(self, &bundle->node);
    free(bundle);
    atomic_fetch_sub_explicit(&self->state->outstanding, 1, memory_order_release);
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* Tries every other thread once from a random start; runs the first stolen task, queues the rest. */
static int steal_and_run(steal_thread *self)
{
    steal_state *state = self->state;
    task_bundle *taken[DEQUE_CAPACITY];
    int start = (int)(next_random(&self->random) % (uint64_t)state->thread_count);
    for (int k = 0; k < state->thread_count; k++) {
        int victim = (start + k) % state->thread_count;
        size_t count;
        if (victim == self->index) continue;
        count = deque_steal_half(&state->threads[victim].deque, taken);
        if (!count) continue;
        for (size_t i = 1; i < count; i++)
            if (!deque_push(&self->deque, taken[i])) run_bundle(self, taken[i]); /* cannot happen: see DEQUE_CAPACITY */
        atomic_fetch_sub_explicit(&state->idle, 1, memory_order_relaxed);
        run_bundle(self, taken[0]);
        atomic_fetch_add_explicit(&state->idle, 1, memory_order_relaxed);
        return 1;
    }
    return 0;
}

/* A thread's life: its own deque first, then steals, until no task is outstanding. */
static void thread_loop(steal_thread *self)
{
    steal_state *state = self->state;
    atomic_fetch_add_explicit(&state->idle, 1, memory_order_relaxed);
    for (;;) {
        task_bundle *bundle = deque_pop_newest(&self->deque);
        if (bundle) {
            atomic_fetch_sub_explicit(&state->idle, 1, memory_order_relaxed);
            run_bundle(self, bundle);
            atomic_fetch_add_explicit(&state->idle, 1, memory_order_relaxed);
            continue;
        }
        if (steal_and_run(self)) continue;
        if (atomic_load_explicit(&state->outstanding, memory_order_acquire) == 0) break;
        sched_yield();
    }
    atomic_fetch_sub_explicit(&state->idle, 1, memory_order_relaxed);
}

/* Thread 0 expands the root itself (its subtree feeds the deques); everyone then loops. */
static void run_thread(steal_state *state, int index)
{
    steal_thread *self = &state->threads[index];
    if (index == 0) {
        fcbo_node root;
        if (self->worker_ready && fcbo_make_root(&self->worker, &root)) expand_task(self, &root);
        atomic_fetch_sub_explicit(&state->outstanding, 1, memory_order_release);
    }
    thread_loop(self);
}

static parac_status init_threads(steal_state *state, int store, parac_error *error)
{
    parac_status status = PARAC_OK;
    for (int t = 0; t < state->thread_count; t++) {
        steal_thread *self = &state->threads[t];
        size_t frame_bytes = (state->search->attributes + 1) * sizeof(steal_frame);
        parac_status made = fcbo_worker_init(&self->worker, state->search, store, error);
        if (made == PARAC_OK && state->on_demand) {
            /* own cache lines: written at every node */
            self->frames = aligned_alloc(CACHE_LINE, (frame_bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
            if (!self->frames) made = parac_fail_no_memory(error, "FCbO frames", frame_bytes);
        }
        omp_init_lock(&self->deque.lock);
        atomic_init(&self->deque.count, 0);
        self->random = 0x9e3779b97f4a7c15ULL * (uint64_t)(t + 1);
        self->index = t;
        self->state = state;
        self->worker_ready = made == PARAC_OK;
        self->worker.spawn = state->on_demand ? NULL : steal_spawn;
        self->worker.spawn_data = self;
        if (made != PARAC_OK && status == PARAC_OK) status = made;
    }
    return status;
}

/* Sums counts, gathers concepts and the first failure; frees everything. */
static parac_status finish_threads(steal_state *state, parac_status status, parac_fca_concepts *concepts,
                                   uint64_t *count, parac_error *error)
{
    uint64_t total = 0;
    for (int t = 0; t < state->thread_count; t++) {
        steal_thread *self = &state->threads[t];
        total += self->worker.count;
        if (status == PARAC_OK && self->worker.status != PARAC_OK) {
            status = self->worker.status;
            if (error) *error = self->worker.error;
        }
        if (status == PARAC_OK && concepts) status = fca_concepts_take(concepts, self->worker.concepts, error);
        fcbo_worker_destroy(&self->worker);
        free(self->frames);
        omp_destroy_lock(&self->deque.lock);
    }
    *count = total;
    return status;
}

parac_status fca_fcbo_steal(const fca_search *search, int threads, int on_demand, parac_fca_concepts *concepts,
                            uint64_t *count, parac_error *error)
{
    steal_state state;
    parac_status status;
    size_t bytes = (size_t)threads * sizeof(steal_thread);
    memset(&state, 0, sizeof state);
    state.search = search;
    state.thread_count = threads;
    state.on_demand = on_demand;
    state.threads = aligned_alloc(CACHE_LINE, (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
    if (!state.threads) return parac_fail_no_memory(error, "FCbO work-stealing threads", bytes);
    memset(state.threads, 0, bytes);
    atomic_init(&state.outstanding, 1); /* the root */
    atomic_init(&state.idle, 0);
    status = init_threads(&state, concepts != NULL, error);
    if (status == PARAC_OK) {
#pragma omp parallel num_threads(threads) default(none) shared(state)
        {
            /* the runtime may give fewer threads: the missing ones' deques stay empty, never stolen from */
            int index = omp_get_thread_num();
            if (index < state.thread_count) run_thread(&state, index);
        }
    }
    status = finish_threads(&state, status, concepts, count, error);
    free(state.threads);
    return status;
}
