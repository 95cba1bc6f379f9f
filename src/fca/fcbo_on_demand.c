/* fca/fcbo_on_demand.c — FCbO on all cores, a node copied out only when a thread is idle
 * (PARAC_FCA_CPU_ON_DEMAND, the dense CPU default).
 *
 * The threads and their deques are steal_team.h's; this file is the decision of when to copy. Every
 * thread recurses in place like the serial path and keeps, per level of its current task, the
 * children it has not started yet (frames). Before each child it reads the team's idle counter; while
 * it is nonzero and the thread's own deque is empty, the thread copies the pending child nearest the
 * root (the largest subtree it holds) into its deque and skips it. With every thread busy a node
 * costs the serial path plus a relaxed load of `idle` and a few stores to thread-own memory: no
 * copies, no malloc, no lock. Why not copy ahead: the work-stealing variant, which kept 2 copies
 * queued at all times and each of them whatever child came next (often a small subtree), lost on
 * every case measured (dev/fca/03_work_stealing.c, docs/fca.md run F: 8.9x / 9.2x one thread on
 * 16 cores against this one's 14.3x / 12.7x).
 */
#include <stdlib.h>

#include "core/error.h"
#include "fca/steal_team.h"

/* One level of a task: its node's children, children[next..count) not started yet. */
typedef struct on_demand_frame {
    fcbo_node **children;
    size_t count, next;
} on_demand_frame;

/* A thread's levels, on their own cache lines: written at every node, kept off the deque's lines
 * that thieves read. */
typedef struct on_demand_path {
    _Alignas(STEAL_CACHE_LINE) on_demand_frame *frames; /* attributes + 1 (next_attribute grows along a path) */
    size_t depth;                                        /* live frames */
} on_demand_path;

/* Some thread idle: unless the own deque already holds a task, copy the pending child nearest the
 * root (longest tail, largest subtree) into it; the frame then skips that child. */
static void share_shallowest(steal_thread *self, on_demand_path *path)
{
    const fca_search *search = self->team->search;
    if (steal_queued(self) != 0) return;
    for (size_t d = 0; d < path->depth; d++) {
        on_demand_frame *frame = &path->frames[d];
        /* later siblings have shorter tails; a deeper frame may still hold a longer one */
        if (frame->next >= frame->count ||
            frame->children[frame->next]->next_attribute + STEAL_SMALLEST_TAIL > search->attributes)
            continue;
        if (steal_team_queue(self, frame->children[frame->next])) frame->next++;
        return; /* queued, or no memory or room for it: the owner expands it */
    }
}

/* fcbo_expand in place, the children of each level kept in a frame that share_shallowest can take from. */
static void expand_on_demand(steal_thread *self, on_demand_path *path, const fcbo_node *node)
{
    fcbo_worker *worker = &self->worker;
    fcbo_stack_mark mark = fcbo_stack_save(&worker->stack);
    fcbo_node **children = NULL;
    size_t count = fcbo_open_node(worker, node, &children);
    on_demand_frame *frame;
    if (count > 0) {
        frame = &path->frames[path->depth++];
        frame->children = children;
        frame->count = count;
        frame->next = 0;
        while (frame->next < frame->count) {
            const fcbo_node *child = children[frame->next++];
            if (steal_idle_threads(self->team) != 0) share_shallowest(self, path);
            expand_on_demand(self, path, child);
        }
        path->depth--;
    }
    fcbo_stack_restore(&worker->stack, mark);
}

static void expand_task(steal_thread *self, const fcbo_node *node)
{
    on_demand_path *paths = self->team->policy->data;
    expand_on_demand(self, &paths[self->index], node);
}

static void free_paths(on_demand_path *paths, int threads)
{
    if (!paths) return;
    for (int t = 0; t < threads; t++) free(paths[t].frames);
    free(paths);
}

static parac_status make_paths(const fca_search *search, int threads, on_demand_path **made, parac_error *error)
{
    size_t bytes = (size_t)threads * sizeof(on_demand_path); /* a multiple of the alignment */
    size_t frame_bytes = (search->attributes + 1) * sizeof(on_demand_frame);
    size_t rounded = (frame_bytes + STEAL_CACHE_LINE - 1) / STEAL_CACHE_LINE * STEAL_CACHE_LINE;
    on_demand_path *paths = aligned_alloc(STEAL_CACHE_LINE, bytes);
    int complete = 1;
    if (!paths) return parac_fail_no_memory(error, "FCbO frames", bytes);
    for (int t = 0; t < threads; t++) {
        paths[t].depth = 0;
        paths[t].frames = aligned_alloc(STEAL_CACHE_LINE, rounded); /* own cache lines */
        if (!paths[t].frames) complete = 0;
    }
    if (!complete) {
        free_paths(paths, threads);
        return parac_fail_no_memory(error, "FCbO frames", frame_bytes);
    }
    *made = paths;
    return PARAC_OK;
}

parac_status fca_fcbo_on_demand(const fca_search *search, int threads, parac_fca_concepts *concepts,
                                uint64_t *count, parac_error *error)
{
    on_demand_path *paths = NULL;
    steal_policy policy = {expand_task, NULL};
    parac_status status = make_paths(search, threads, &paths, error);
    if (status != PARAC_OK) return status;
    policy.data = paths;
    status = steal_team_run(search, threads, &policy, concepts, count, error);
    free_paths(paths, threads);
    return status;
}
