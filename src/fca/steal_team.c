/* fca/steal_team.c — the deques, the thieves and the termination of steal_team.h. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/steal_team.h"

/* Owner side: 1 when queued (the deque had room). */
static int deque_push(steal_deque *deque, task_bundle *bundle)
{
    size_t count;
    omp_set_lock(&deque->lock);
    count = atomic_load_explicit(&deque->count, memory_order_relaxed);
    if (count < STEAL_DEQUE_CAPACITY) {
        deque->items[(deque->first + count) % STEAL_DEQUE_CAPACITY] = bundle;
        atomic_store_explicit(&deque->count, count + 1, memory_order_relaxed);
    }
    omp_unset_lock(&deque->lock);
    return count < STEAL_DEQUE_CAPACITY;
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
        bundle = deque->items[(deque->first + count - 1) % STEAL_DEQUE_CAPACITY];
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
    for (size_t i = 0; i < half; i++) taken[i] = victim->items[(victim->first + i) % STEAL_DEQUE_CAPACITY];
    victim->first = (victim->first + half) % STEAL_DEQUE_CAPACITY;
    atomic_store_explicit(&victim->count, count - half, memory_order_relaxed);
    omp_unset_lock(&victim->lock);
    return half;
}

int steal_team_queue(steal_thread *self, const fcbo_node *node)
{
    steal_team *team = self->team;
    task_bundle *bundle = fcbo_copy_node(team->search, node);
    if (!bundle) return 0; /* no memory for a copy: the caller expands it */
    atomic_fetch_add_explicit(&team->outstanding, 1, memory_order_relaxed);
    if (deque_push(&self->deque, bundle)) return 1;
    atomic_fetch_sub_explicit(&team->outstanding, 1, memory_order_relaxed);
    free(bundle);
    return 0;
}

static void run_bundle(steal_thread *self, task_bundle *bundle)
{
    self->team->policy->expand(self, &bundle->node);
    free(bundle);
    atomic_fetch_sub_explicit(&self->team->outstanding, 1, memory_order_release);
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
    steal_team *team = self->team;
    task_bundle *taken[STEAL_DEQUE_CAPACITY];
    int start = (int)(next_random(&self->random) % (uint64_t)team->thread_count);
    for (int k = 0; k < team->thread_count; k++) {
        int victim = (start + k) % team->thread_count;
        size_t count;
        if (victim == self->index) continue;
        count = deque_steal_half(&team->threads[victim].deque, taken);
        if (!count) continue;
        for (size_t i = 1; i < count; i++)
            if (!deque_push(&self->deque, taken[i])) run_bundle(self, taken[i]); /* cannot happen: see STEAL_DEQUE_CAPACITY */
        atomic_fetch_sub_explicit(&team->idle, 1, memory_order_relaxed);
        run_bundle(self, taken[0]);
        atomic_fetch_add_explicit(&team->idle, 1, memory_order_relaxed);
        return 1;
    }
    return 0;
}

/* A thread's life: its own deque first, then steals, until no task is outstanding. */
static void thread_loop(steal_thread *self)
{
    steal_team *team = self->team;
    atomic_fetch_add_explicit(&team->idle, 1, memory_order_relaxed);
    for (;;) {
        task_bundle *bundle = deque_pop_newest(&self->deque);
        if (bundle) {
            atomic_fetch_sub_explicit(&team->idle, 1, memory_order_relaxed);
            run_bundle(self, bundle);
            atomic_fetch_add_explicit(&team->idle, 1, memory_order_relaxed);
            continue;
        }
        if (steal_and_run(self)) continue;
        if (atomic_load_explicit(&team->outstanding, memory_order_acquire) == 0) break;
        sched_yield();
    }
    atomic_fetch_sub_explicit(&team->idle, 1, memory_order_relaxed);
}

/* Thread 0 expands the root itself (its subtree feeds the deques); everyone then loops. */
static void run_thread(steal_team *team, int index)
{
    steal_thread *self = &team->threads[index];
    if (index == 0) {
        fcbo_node root;
        if (self->worker_ready && fcbo_make_root(&self->worker, &root)) team->policy->expand(self, &root);
        atomic_fetch_sub_explicit(&team->outstanding, 1, memory_order_release);
    }
    thread_loop(self);
}

static parac_status init_threads(steal_team *team, int store, parac_error *error)
{
    parac_status status = PARAC_OK;
    for (int t = 0; t < team->thread_count; t++) {
        steal_thread *self = &team->threads[t];
        parac_status made = fcbo_worker_init(&self->worker, team->search, store, error);
        omp_init_lock(&self->deque.lock);
        atomic_init(&self->deque.count, 0);
        self->random = 0x9e3779b97f4a7c15ULL * (uint64_t)(t + 1);
        self->index = t;
        self->team = team;
        self->worker_ready = made == PARAC_OK;
        if (made != PARAC_OK && status == PARAC_OK) status = made;
    }
    return status;
}

/* Sums counts, gathers concepts and the first failure; frees everything. */
static parac_status finish_threads(steal_team *team, parac_status status, parac_fca_concepts *concepts,
                                   uint64_t *count, parac_error *error)
{
    uint64_t total = 0;
    for (int t = 0; t < team->thread_count; t++) {
        steal_thread *self = &team->threads[t];
        total += self->worker.count;
        if (status == PARAC_OK && self->worker.status != PARAC_OK) {
            status = self->worker.status;
            if (error) *error = self->worker.error;
        }
        if (status == PARAC_OK && concepts) status = fca_concepts_take(concepts, self->worker.concepts, error);
        fcbo_worker_destroy(&self->worker);
        omp_destroy_lock(&self->deque.lock);
    }
    *count = total;
    return status;
}

parac_status steal_team_run(const fca_search *search, int threads, const steal_policy *policy,
                            parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    steal_team team;
    parac_status status;
    size_t bytes = (size_t)threads * sizeof(steal_thread);
    memset(&team, 0, sizeof team);
    team.search = search;
    team.thread_count = threads;
    team.policy = policy;
    team.threads = aligned_alloc(STEAL_CACHE_LINE, (bytes + STEAL_CACHE_LINE - 1) / STEAL_CACHE_LINE * STEAL_CACHE_LINE);
    if (!team.threads) return parac_fail_no_memory(error, "FCbO work-stealing threads", bytes);
    memset(team.threads, 0, bytes);
    atomic_init(&team.outstanding, 1); /* the root */
    atomic_init(&team.idle, 0);
    status = init_threads(&team, concepts != NULL, error);
    if (status == PARAC_OK) {
#pragma omp parallel num_threads(threads) default(none) shared(team)
        {
            /* the runtime may give fewer threads: the missing ones' deques stay empty, never stolen from */
            int index = omp_get_thread_num();
            if (index < team.thread_count) run_thread(&team, index);
        }
    }
    status = finish_threads(&team, status, concepts, count, error);
    free(team.threads);
    return status;
}
