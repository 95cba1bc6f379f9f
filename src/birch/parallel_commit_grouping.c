/* birch/parallel_commit_grouping.c — the parallel commit's setup of a window and of each phase
 * (parallel_commit.h): the phase storage (grown as needed, counters and paths on cache lines of
 * their own), each node's root entry, the window's points grouped by root entry (copied to
 * cache lines of their own group, in parallel for long windows), and each task's points of a
 * phase found by binary search in its group. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "birch/parallel_commit.h"
#include "core/error.h"
#include "core/range_offsets.h"

void birch_phase_free(phase_state *phase)
{
    free(phase->root_entry), free(phase->top), free(phase->subtree_nodes), free(phase->order), free(phase->upper), free(phase->after_count);
    free(phase->after_ssd), free(phase->after_mean), free(phase->max_drift), free(phase->tasks), free(phase->by_size);
    free(phase->paths), free(phase->saved_count), free(phase->saved_ssd), free(phase->saved_mean);
    free(phase->saved_drift), free(phase->saved_entries), free(phase->saved_nodes), free(phase->range_counts);
    free(phase->group_first);
    free(phase->slot_top), free(phase->grouped_x), free(phase->grouped_runner_up), free(phase->grouped_leaf);
    free(phase->reroutes), free(phase->reroute_mean), free(phase->root_ok), free(phase->after_largest);
}

#define PHASE_GROW(field, type, need)                                                                 \
    do {                                                                                              \
        type *grown = realloc(phase->field, (need) * sizeof(type));                                   \
        if (!grown) return parac_fail_no_memory(error, "parallel commit", (need) * sizeof(type));     \
        phase->field = grown;                                                                         \
    } while (0)

/* Counters of one thread's point range, a cache line apart from the next
 * range's: every point increments one, and ranges sharing lines made the
 * parallel grouping as slow as the serial one. */
static size_t range_stride(size_t entries) { return (entries + 7) / 8 * 8 + 8; }

parac_status birch_phase_reserve(phase_state *phase, const birch_tree *tree, size_t points, size_t height,
                                  int threads, parac_error *error)
{
    size_t nodes = (size_t)tree->node_count, slots = nodes * (size_t)tree->slots, tasks = (size_t)tree->slots;
    size_t dims = tree->dims;
    if (phase->point_capacity < points) {
        PHASE_GROW(root_entry, int32_t, points);
        PHASE_GROW(order, int32_t, points);
        PHASE_GROW(upper, double, points);
        PHASE_GROW(after_count, int64_t, points);
        PHASE_GROW(after_ssd, double, points);
        PHASE_GROW(after_largest, double, points);
        PHASE_GROW(after_mean, double, points * dims);
        PHASE_GROW(grouped_x, double, points * dims);
        PHASE_GROW(grouped_leaf, int32_t, points);
        PHASE_GROW(root_ok, uint8_t, points);
        phase->point_capacity = points;
    }
    if (phase->node_capacity < nodes) {
        PHASE_GROW(top, int32_t, nodes);
        PHASE_GROW(subtree_nodes, int32_t, nodes);
        PHASE_GROW(saved_entries, int32_t, nodes);
        PHASE_GROW(saved_nodes, node_drift, nodes);
        phase->node_capacity = nodes;
    }
    if (phase->slot_capacity < slots) {
        PHASE_GROW(saved_count, int64_t, slots);
        PHASE_GROW(slot_top, int32_t, slots);
        PHASE_GROW(saved_ssd, double, slots);
        PHASE_GROW(saved_mean, double, slots * dims);
        PHASE_GROW(saved_drift, double, slots);
        phase->slot_capacity = slots;
    }
    if (phase->task_capacity < tasks) {
        PHASE_GROW(tasks, root_task, tasks);
        PHASE_GROW(max_drift, double, tasks);
        PHASE_GROW(by_size, int32_t, tasks);
        PHASE_GROW(group_first, size_t, tasks + 1);
        phase->task_capacity = tasks;
    }
    if (phase->path_capacity < tasks * path_stride(height)) {
        PHASE_GROW(paths, int32_t, tasks * path_stride(height));
        phase->path_capacity = tasks * path_stride(height);
    }
    if (phase->bound_capacity < points * height) {
        PHASE_GROW(grouped_runner_up, double, points * height);
        phase->bound_capacity = points * height;
    }
    if (!phase->reroutes) { /* dims are the tree's for the whole insertion */
        PHASE_GROW(reroutes, birch_reroute, MAX_REROUTES);
        PHASE_GROW(reroute_mean, double, MAX_REROUTES * dims);
        phase->reroute_count = 0;
    }
    if (phase->range_capacity < range_stride(tasks) * (size_t)threads) {
        PHASE_GROW(range_counts, size_t, range_stride(tasks) * (size_t)threads);
        phase->range_capacity = range_stride(tasks) * (size_t)threads;
    }
    return PARAC_OK;
}
#undef PHASE_GROW

/* subtree_nodes: the non-root nodes grouped by the root entry above them. */
static void group_subtree_nodes(phase_state *phase, const birch_tree *tree)
{
    int32_t m = tree->entry_count[tree->root];
    size_t offset = 0;
    for (int32_t k = 0; k < m; k++) phase->tasks[k].nodes_first = 0;
    for (int32_t v = 0; v < tree->node_count; v++)
        if (phase->top[v] >= 0) phase->tasks[phase->top[v]].nodes_first++;
    for (int32_t k = 0; k < m; k++) {
        size_t size = phase->tasks[k].nodes_first;
        phase->tasks[k].nodes_first = phase->tasks[k].nodes_end = offset;
        offset += size;
    }
    for (int32_t v = 0; v < tree->node_count; v++)
        if (phase->top[v] >= 0) phase->subtree_nodes[phase->tasks[phase->top[v]].nodes_end++] = v;
}

/* Windows with fewer points group them on one thread. */
#define PARALLEL_GROUPING_MIN 4096

/* One window point's data to order position `at` (grouped_x, grouped_runner_up, grouped_leaf). */
static inline void copy_to_group(window_state *state, const double *points, size_t dims, size_t i, size_t at)
{
    phase_state *phase = &state->phase;
    size_t n = state->points;
    phase->order[at] = (int32_t)i;
    phase->grouped_leaf[at] = state->leaf_slot[i];
    for (size_t j = 0; j < dims; j++) phase->grouped_x[at * dims + j] = points[i * dims + j];
    for (size_t level = 0; level < state->height; level++)
        phase->grouped_runner_up[level * n + at] = state->runner_up[level * n + i];
}

/* Group k's data in order position order (order[] already sorted). */
static void gather_group(window_state *state, const double *points, size_t dims, int32_t k)
{
    phase_state *phase = &state->phase;
    size_t at = phase->tasks[k].window_first, end = phase->tasks[k].window_end;
    if (dims == 2)
        for (; at < end; at++) copy_to_group(state, points, 2, (size_t)phase->order[at], at);
    else
        for (; at < end; at++) copy_to_group(state, points, dims, (size_t)phase->order[at], at);
}

/* The root entry of every window point's speculation, and the points grouped
 * by it, input order within a group, with their data copied in that order: a
 * parallel stable counting sort (core/range_offsets.h), so the order is the
 * same for any thread count. It runs once per window: done serially it was
 * serial work per point. Each thread sorts one range of points
 * (birch_speculation_range). */
static void group_by_root_entry(window_state *state, const birch_tree *tree, const double *points, int threads)
{
    phase_state *phase = &state->phase;
    int32_t m = tree->entry_count[tree->root];
    size_t n = state->points, dims = tree->dims;
#pragma omp parallel num_threads(threads) if (threads > 1 && n >= PARALLEL_GROUPING_MIN)
    {
        int r = omp_get_thread_num(), ranges = omp_get_num_threads();
        size_t begin = birch_speculation_range(n, r, ranges), end = birch_speculation_range(n, r + 1, ranges);
        size_t stride = range_stride((size_t)m), *mine = phase->range_counts + (size_t)r * stride;
        memset(mine, 0, (size_t)m * sizeof(size_t));
        for (size_t i = begin; i < end; i++) {
            int32_t k = phase->slot_top[state->leaf_slot[i]];
            phase->root_entry[i] = k;
            mine[k]++;
        }
#pragma omp barrier
#pragma omp single
        {
            parac_range_counts_to_offsets(phase->range_counts, (size_t)m, ranges, stride, phase->group_first);
            for (int32_t k = 0; k < m; k++) {
                phase->tasks[k].window_first = phase->group_first[k];
                phase->tasks[k].window_end = phase->group_first[k + 1];
            }
        }
        if (m <= ranges) { /* a thread per root entry (run_phase's owned loops): thread k gathers group k */
            for (size_t i = begin; i < end; i++) phase->order[mine[phase->root_entry[i]]++] = (int32_t)i;
#pragma omp barrier
            if (r < m) gather_group(state, points, dims, r);
        } else if (dims == 2)
            for (size_t i = begin; i < end; i++) copy_to_group(state, points, 2, i, mine[phase->root_entry[i]]++);
        else
            for (size_t i = begin; i < end; i++) copy_to_group(state, points, dims, i, mine[phase->root_entry[i]]++);
    }
}

/* Each root entry's points of [from, to): a range of its window group, found
 * by binary search instead of regrouping the points every phase (serial work
 * per point that every phase repeated). */
void birch_select_phase_points(phase_state *phase, int32_t m, size_t from, size_t to)
{
    size_t flat = 0;
    for (int32_t k = 0; k < m; k++) {
        root_task *task = &phase->tasks[k];
        task->first = first_at_or_after(phase->order, task->window_first, task->window_end, from);
        task->end = first_at_or_after(phase->order, task->first, task->window_end, to);
        task->incoming = 0;
        flat += task->end - task->first;
        task->flat_end = flat;
    }
}

/* top[] for every node and the root entry of every point's speculation
 * (fixed for the window: a split ends it), the points grouped by it. */
void birch_map_root_entries(window_state *state, const birch_tree *tree, const double *points, int threads)
{
    phase_state *phase = &state->phase;
    size_t root_first = (size_t)tree->root * (size_t)tree->slots;
    for (int32_t v = 0; v < tree->node_count; v++) {
        int32_t below_root = v;
        if (v == tree->root) {
            phase->top[v] = -1;
            continue;
        }
        while (tree->parent[below_root] != tree->root) below_root = tree->parent[below_root];
        phase->top[v] = (int32_t)((size_t)state->up_slot[below_root] - root_first);
    }
    for (int32_t v = 0; v < tree->node_count; v++) {
        int32_t *node_slots = phase->slot_top + (size_t)v * (size_t)tree->slots;
        for (int32_t k = 0; k < tree->slots; k++) node_slots[k] = phase->top[v];
    }
    group_subtree_nodes(phase, tree);
    group_by_root_entry(state, tree, points, threads);
}
