/* birch/parallel_commit.c — the parallel commit of a speculation window
 * (speculative.h, variant speculative-parallel): phases that group the
 * window's points by root entry, check the root choices in a pre-pass and
 * commit the root's subtrees in parallel; the state and the per-point checks
 * are shared with the in-order commit (speculative_window.h).
 * Data written on every point by one task and read by another lives on cache
 * lines of its own (grouped point copies, node records, counters, paths): on
 * 16 cores, shared lines cost more than the work (docs/birch.md, round 6). */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "birch/speculate_math.h"
#include "birch/speculative.h"
#include "birch/speculative_window.h"
#include "core/error.h"
#include "core/range_offsets.h"
#include "core/timer.h"

/* ---- The parallel commit: one task per root entry (speculative.h) ---- */

/* The parallel commit's bookkeeping (see birch_commit_window_parallel). */
struct root_task {
    size_t window_first, window_end;  /* its points of the window: order[window_first..window_end) */
    size_t first, end;                /* of them, the phase's: order[first..end), input order */
    size_t done;                      /* of them committed */
    size_t stop;                      /* window index of its first point that would split a node, or SIZE_MAX */
    size_t flat_end;                  /* end of its phase points when the tasks' are laid end to end */
    size_t nodes_first, nodes_end;    /* its subtree's nodes: subtree_nodes[nodes_first..nodes_end) */
    size_t direct, serial, new_entries;
};

void birch_phase_free(phase_state *phase)
{
    free(phase->root_entry), free(phase->top), free(phase->subtree_nodes), free(phase->order), free(phase->upper), free(phase->after_count);
    free(phase->after_ssd), free(phase->after_mean), free(phase->max_drift), free(phase->tasks), free(phase->by_size);
    free(phase->paths), free(phase->saved_count), free(phase->saved_ssd), free(phase->saved_mean);
    free(phase->saved_drift), free(phase->saved_entries), free(phase->saved_nodes), free(phase->range_counts);
    free(phase->group_first);
    free(phase->slot_top), free(phase->grouped_x), free(phase->grouped_runner_up), free(phase->grouped_leaf);
}

/* Windows shorter than this commit in input order: a phase's fixed costs
 * (grouping, pre-pass, saving the subtrees) would outweigh the gain. */
#define PHASE_MIN_POINTS 512
/* A phase that committed fewer points than SHORT_PHASE before its stop is
 * followed by SERIAL_RUN points committed in input order. */
#define SHORT_PHASE 64
#define SERIAL_RUN 128
/* After a stop, the next phase looks ahead STOP_HORIZON times what the
 * stopped phase committed: a longer look-ahead wastes pre-pass work past the
 * next stop, a shorter one costs phases (each a few barriers on every core).
 * 1 M bench blobs: 432 phases at 2, 387 at 8, 375 unbounded, with the same
 * one-thread commit time. */
#define STOP_HORIZON 8
/* Phases looking ahead fewer points run on one thread (same result). */
#define PARALLEL_PHASE_MIN 1024
/* The root checks' slices of a phase (over its points, taken dynamically:
 * a core that runs slow at times on a shared host then holds up nobody). */
#define CHECK_CHUNKS 64

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
/* Each task's insertion path on cache lines of its own (written by every serial insertion). */
static size_t path_stride(size_t height) { return (height + 15) / 16 * 16; }

static parac_status phase_reserve(phase_state *phase, const birch_tree *tree, size_t points, size_t height,
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
        PHASE_GROW(after_mean, double, points * dims);
        PHASE_GROW(grouped_x, double, points * dims);
        PHASE_GROW(grouped_leaf, int32_t, points);
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

/* First position in order[low..high) holding a point >= i (order ascends there). */
static size_t first_at_or_after(const int32_t *order, size_t low, size_t high, size_t i)
{
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if ((size_t)order[middle] < i) low = middle + 1;
        else high = middle;
    }
    return low;
}

/* Each root entry's points of [from, to): a range of its window group, found
 * by binary search instead of regrouping the points every phase (serial work
 * per point that every phase repeated). */
static void select_phase_points(phase_state *phase, int32_t m, size_t from, size_t to)
{
    size_t flat = 0;
    for (int32_t k = 0; k < m; k++) {
        root_task *task = &phase->tasks[k];
        task->first = first_at_or_after(phase->order, task->window_first, task->window_end, from);
        task->end = first_at_or_after(phase->order, task->first, task->window_end, to);
        flat += task->end - task->first;
        task->flat_end = flat;
    }
}

/* top[] for every node and the root entry of every point's speculation
 * (fixed for the window: a split ends it), the points grouped by it. */
static void map_root_entries(window_state *state, const birch_tree *tree, const double *points, int threads)
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

/* The squared distance of `mean` from slot's mean when the window began
 * (birch_distance_upper of it bounds the drift, as track_move). */
static inline double squared_move(const window_state *state, size_t slot, const double *mean, size_t dims)
{
    double moved = 0.0;
    for (size_t j = 0; j < dims; j++) {
        double delta = mean[j] - state->snapshot_mean[slot * dims + j];
        moved += delta * delta;
    }
    return moved;
}

/* Root entry k absorbs its points of the phase in input order, with the
 * serial arithmetic: its CF after each point, the squared distance each point
 * sees, and the entry's largest drift. This recurrence is sequential per
 * entry, and the largest entry's bounds the loop: square roots stay out of it
 * (the bound is monotone, so the largest drift is the bound of the largest
 * squared move; the distances' bounds are taken in the parallel root checks). */
static inline void prepass_entry_in(window_state *state, const birch_tree *tree, int32_t k,
                                    size_t dims)
{
    phase_state *phase = &state->phase;
    root_task *task = &phase->tasks[k];
    size_t slot = (size_t)tree->root * (size_t)tree->slots + (size_t)k;
    const double *mean = tree->mean + slot * dims;
    int64_t count = tree->count[slot];
    double ssd = tree->ssd[slot], largest = squared_move(state, slot, mean, dims);
    for (size_t b = task->first; b < task->end; b++) {
        const double *x = phase->grouped_x + b * dims;
        double *next = phase->after_mean + b * dims;
        double distance = birch_squared_distance_strided(x, 1, mean, dims), moved;
        /* birch_ssd_with_point's operations, its distance shared with the check */
        double new_ssd = BIRCH_ADD(ssd, BIRCH_MUL(distance, BIRCH_DIV((double)count, (double)(count + 1))));
        phase->upper[b] = distance;
        memcpy(next, mean, dims * sizeof(double));
        birch_absorb_point(&count, next, &ssd, new_ssd, x, 1, dims);
        phase->after_count[b] = count, phase->after_ssd[b] = ssd;
        moved = squared_move(state, slot, next, dims);
        if (moved > largest) largest = moved;
        mean = next;
    }
    phase->max_drift[k] = birch_distance_upper(largest, state->slack);
}

static void prepass_entry(window_state *state, const birch_tree *tree, int32_t k)
{
    if (tree->dims == 2) prepass_entry_in(state, tree, k, 2);
    else prepass_entry_in(state, tree, k, tree->dims);
}

/* Root entry k's mean just before window point i (of the phase): after its
 * last point before i, or as the phase began. */
static const double *root_mean_before(const window_state *state, const birch_tree *tree, int32_t k, size_t i)
{
    const phase_state *phase = &state->phase;
    size_t low = first_at_or_after(phase->order, phase->tasks[k].first, phase->tasks[k].end, i);
    if (low > phase->tasks[k].first) return phase->after_mean + (low - 1) * tree->dims;
    return tree->mean + ((size_t)tree->root * (size_t)tree->slots + (size_t)k) * tree->dims;
}

/* The serial closest_entry of the root for point i (x, speculated entry e),
 * evaluated exactly on the entries' states at its time: does it pick e?
 * (Valid while every earlier point of the phase passed.) */
static int root_choice_exact(const window_state *state, const birch_tree *tree, const double *x, size_t i, int32_t e)
{
    double own = birch_squared_distance_strided(x, 1, root_mean_before(state, tree, e, i), tree->dims);
    for (int32_t f = 0; f < tree->entry_count[tree->root]; f++) {
        double d;
        if (f == e) continue;
        d = birch_squared_distance_strided(x, 1, root_mean_before(state, tree, f, i), tree->dims);
        if (d < own || (d == own && f < e)) return 0; /* ties go to the first entry */
    }
    return 1;
}

/* The earliest point among the phase's flat positions [begin, end) (the
 * tasks' points laid end to end, each task's in input order) whose serial
 * root choice differs from its speculation (to if none). Cheap test first:
 * its chosen entry as it is then, every other entry at its largest drift of
 * the phase; when that fails, the exact comparison. Over points, not root
 * entries: the largest entry's points no longer bound the loop. */
static size_t first_root_failure(const window_state *state, const birch_tree *tree, size_t begin, size_t end,
                                 size_t to, double first_drift, double second_drift, int32_t loudest)
{
    const phase_state *phase = &state->phase;
    size_t fail = to, u = begin;
    for (int32_t k = 0; u < end; k++) {
        const root_task *task = &phase->tasks[k];
        size_t segment_end = task->flat_end < end ? task->flat_end : end;
        double others = k == loudest ? second_drift : first_drift;
        if (u >= task->flat_end) continue;
        for (; u < segment_end; u++) {
            size_t b = task->end - (task->flat_end - u), i = (size_t)phase->order[b];
            if (!(birch_distance_upper(phase->upper[b], state->slack) + others < phase->grouped_runner_up[b]) &&
                /* level 0: the root */
                !root_choice_exact(state, tree, phase->grouped_x + b * tree->dims, i, k)) {
                if (i < fail) fail = i;
                break; /* the task's later points come later in input order */
            }
        }
        u = segment_end;
    }
    return fail;
}

/* The two largest drifts of the root entries and whose the largest is. */
static void largest_drifts(const phase_state *phase, int32_t m, double *first, double *second, int32_t *loudest)
{
    *first = *second = 0.0, *loudest = 0;
    for (int32_t k = 0; k < m; k++) {
        double drift = phase->max_drift[k];
        if (drift > *first) *second = *first, *first = drift, *loudest = k;
        else if (drift > *second) *second = drift;
    }
}

/* Root entry k's points before `limit` commit inside its subtree, in input
 * order, as the serial insertion would; stops before a point that would split. */
static inline size_t commit_subtree_in(window_state *state, birch_tree *tree, int32_t k, size_t limit, size_t dims)
{
    phase_state *phase = &state->phase;
    root_task *task = &phase->tasks[k];
    int32_t top = tree->child[(size_t)tree->root * (size_t)tree->slots + (size_t)k];
    int32_t *path = phase->paths + (size_t)k * path_stride(state->height);
    /* counted locally: neighbouring tasks' records share cache lines */
    size_t b, stop = SIZE_MAX, direct = 0, serial = 0, new_entries = 0;
    for (b = task->first; b < task->end; b++) {
        size_t i = (size_t)phase->order[b], levels, slot = (size_t)phase->grouped_leaf[b];
        const double *x = phase->grouped_x + b * dims;
        int fresh;
        if (i >= limit) break;
        if (speculation_holds(state, tree, x, phase->grouped_runner_up + b, slot, 1, dims) &&
            absorb_along_path(state, tree, x, slot, top, dims)) {
            direct++;
            continue;
        }
        if (!birch_tree_insert_below(tree, top, x, path, &levels, &fresh)) {
            stop = i;
            break;
        }
        for (size_t l = 0; l < levels; l++) track_move(state, tree, (size_t)path[l], dims);
        serial++, new_entries += (size_t)fresh;
    }
    task->done = b - task->first;
    task->direct = direct, task->serial = serial, task->new_entries = new_entries;
    return stop;
}

/* Commits root entry k's points before `limit`; returns the point before
 * which it stopped for a split (SIZE_MAX if none). The caller stores it:
 * the redo loop runs while other threads still read the first commits' stops. */
static size_t commit_subtree(window_state *state, birch_tree *tree, int32_t k, size_t limit)
{
    if (tree->dims == 2) return commit_subtree_in(state, tree, k, limit, 2);
    return commit_subtree_in(state, tree, k, limit, tree->dims);
}

/* One field of a subtree between the tree (or window state) and the phase's saved copy. */
static void move_field(void *live, void *saved, size_t bytes, int save)
{
    if (save) memcpy(saved, live, bytes);
    else memcpy(live, saved, bytes);
}

/* Root entry k's subtree: save = 1 remembers it as the phase begins, save = 0 puts it back
 * (to redo its commit). */
static void move_subtree(window_state *state, birch_tree *tree, int32_t k, int save)
{
    phase_state *phase = &state->phase;
    size_t dims = tree->dims;
    for (size_t n = phase->tasks[k].nodes_first; n < phase->tasks[k].nodes_end; n++) {
        size_t v = (size_t)phase->subtree_nodes[n], first = v * (size_t)tree->slots, entries;
        move_field(&tree->entry_count[v], &phase->saved_entries[v], sizeof tree->entry_count[v], save);
        entries = (size_t)tree->entry_count[v];
        move_field(tree->count + first, phase->saved_count + first, entries * sizeof(int64_t), save);
        move_field(tree->ssd + first, phase->saved_ssd + first, entries * sizeof(double), save);
        move_field(tree->mean + first * dims, phase->saved_mean + first * dims, entries * dims * sizeof(double), save);
        move_field(state->drift + first, phase->saved_drift + first, entries * sizeof(double), save);
        move_field(&state->nodes[v], &phase->saved_nodes[v], sizeof state->nodes[v], save);
    }
}

/* Root entries by falling point count (ties: lower index first), so the
 * largest subtree starts first under dynamic scheduling. */
static void order_by_size(phase_state *phase, int32_t m)
{
    for (int32_t k = 0; k < m; k++) {
        int32_t j = k;
        size_t size = phase->tasks[k].end - phase->tasks[k].first;
        for (; j > 0; j--) {
            const root_task *before = &phase->tasks[phase->by_size[j - 1]];
            if (before->end - before->first >= size) break;
            phase->by_size[j] = phase->by_size[j - 1];
        }
        phase->by_size[j] = k;
    }
}

/* The root entries take their CF after their last committed point; their
 * moves are recorded for the serial commit of the stop point. */
static void finish_phase(window_state *state, birch_tree *tree, int32_t m, birch_speculative_stats *stats)
{
    phase_state *phase = &state->phase;
    size_t dims = tree->dims, root_first = (size_t)tree->root * (size_t)tree->slots;
    for (int32_t k = 0; k < m; k++) {
        const root_task *task = &phase->tasks[k];
        size_t slot = root_first + (size_t)k, last = task->first + task->done - 1;
        if (task->done == 0) continue;
        tree->count[slot] = phase->after_count[last], tree->ssd[slot] = phase->after_ssd[last];
        memcpy(tree->mean + slot * dims, phase->after_mean + last * dims, dims * sizeof(double));
        tree->leaf_entries += task->new_entries;
        stats->direct += task->direct, stats->serial += task->serial;
        track_move(state, tree, slot, dims);
    }
}

/* The phase's stop point: limit or an earlier point that would split a node. */
static size_t phase_stop(const phase_state *phase, int32_t m, size_t limit)
{
    size_t stop = limit;
    for (int32_t k = 0; k < m; k++)
        if (phase->tasks[k].stop < stop) stop = phase->tasks[k].stop;
    return stop;
}

/* Did root entry k's commit run past `stop` (so that it must be redone up to it)? */
static int ran_past(const phase_state *phase, int32_t k, size_t stop)
{
    const root_task *task = &phase->tasks[k];
    return task->done > 0 && (size_t)phase->order[task->first + task->done - 1] > stop;
}

/* Root entry k's commit of the phase, its subtree saved first (to redo it). */
static void commit_task(window_state *state, birch_tree *tree, int32_t k, size_t fail)
{
    phase_state *phase = &state->phase;
    if (phase->tasks[k].end > phase->tasks[k].first) move_subtree(state, tree, k, 1); /* else nothing to redo */
    phase->tasks[k].stop = commit_subtree(state, tree, k, fail);
}

/* Root entry k's commit again, up to the phase's stop point, if it ran past it; 1 if redone. */
static int redo_task(window_state *state, birch_tree *tree, int32_t k, size_t stop)
{
    if (!ran_past(&state->phase, k, stop)) return 0;
    move_subtree(state, tree, k, 0);
    (void)commit_subtree(state, tree, k, stop);
    return 1;
}

/* Runs `body` for every root entry k of the phase, then waits for the team.
 * When the team has a thread per root entry (owned), thread k takes entry k:
 * the same subtree in every loop, phase and window, so its data stays in
 * that core's cache (the grouping gathers group k there too); otherwise the
 * entries go largest first under schedule(runtime). */
#define FOR_EACH_ROOT_ENTRY(owned, m, by_size, k, body)                                   \
    do {                                                                                  \
        if (owned) {                                                                      \
            int32_t k = (int32_t)omp_get_thread_num();                                    \
            if (k < (m)) body;                                                            \
            _Pragma("omp barrier")                                                        \
        } else {                                                                          \
            _Pragma("omp for schedule(runtime)")                                          \
            for (int32_t t_ = 0; t_ < (m); t_++) {                                        \
                int32_t k = (by_size)[t_];                                                \
                body;                                                                     \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* One phase over points [from, to): pre-pass, root checks, subtree commits
 * before the first root failure, redo of the subtrees that ran past an
 * earlier split; returns the stop point (to when none). One parallel region:
 * the root checks run over dynamic slices of the phase's points; the other
 * loops give thread k root entry k when the team has a thread per entry
 * (FOR_EACH_ROOT_ENTRY; measured 5-8 % off the phases on 16 cores, run L),
 * else take the entries largest first with schedule(runtime), dynamic,1
 * unless the caller set another (omp_set_schedule / OMP_SCHEDULE). Every
 * loop's iterations are independent, so the schedule never changes the result. */
static size_t run_phase(window_state *state, birch_tree *tree, size_t from, size_t to, int threads,
                        birch_speculative_stats *stats)
{
    phase_state *phase = &state->phase;
    int32_t m = tree->entry_count[tree->root], redo = 0;
    size_t fail = to, stop = to;
    double started;
    select_phase_points(phase, m, from, to);
    order_by_size(phase, m);
    started = parac_now_seconds();
    /* Between the loops, what every thread needs next (the largest drifts, the
       stop point) is small, and each thread derives it itself from the loop's
       results instead of waiting for one thread's `single`: three barriers a
       phase fewer. */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        double first_drift, second_drift;
        int32_t loudest;
        size_t phase_end;
        int redone_here = 0, owned = m <= omp_get_num_threads();
        FOR_EACH_ROOT_ENTRY(owned, m, phase->by_size, k, prepass_entry(state, tree, k));
        largest_drifts(phase, m, &first_drift, &second_drift, &loudest);
#pragma omp for schedule(dynamic, 1) reduction(min : fail)
        for (int c = 0; c < CHECK_CHUNKS; c++) {
            size_t total = m > 0 ? phase->tasks[m - 1].flat_end : 0;
            size_t found = first_root_failure(state, tree, total * (size_t)c / CHECK_CHUNKS,
                                              total * (size_t)(c + 1) / CHECK_CHUNKS, to, first_drift, second_drift,
                                              loudest);
            if (found < fail) fail = found;
        }
        FOR_EACH_ROOT_ENTRY(owned, m, phase->by_size, k, commit_task(state, tree, k, fail));
        phase_end = phase_stop(phase, m, fail);
        FOR_EACH_ROOT_ENTRY(owned, m, phase->by_size, k, redone_here += redo_task(state, tree, k, phase_end));
#pragma omp atomic
        redo += redone_here;
#pragma omp master
        stop = phase_end;
    }
    stats->parallel_seconds += parac_now_seconds() - started;
    stats->redone += (size_t)redo;
    if (m > 0) stats->critical += phase->tasks[phase->by_size[0]].done;
    finish_phase(state, tree, m, stats);
    return stop;
}

/* birch_commit_window with the parallel commit: phases of subtree-parallel commits,
 * each ended by a stop point that commits alone (a split ends the window).
 * A phase looks ahead `horizon` points: its pre-pass is redone after every
 * stop point, and a shorter look-ahead also bounds the drifts more tightly;
 * it doubles after a phase without a stop and shrinks to STOP_HORIZON times
 * what a stopped phase committed. */
parac_status birch_commit_window_parallel(window_state *state, birch_tree *tree, const double *points, int threads,
                                          size_t *committed, birch_speculative_stats *stats, parac_error *error)
{
    size_t next = 0, n = state->points, horizon = n;
    int split = 0;
    parac_status status = PARAC_OK;
    if (state->height < 2 || n < PHASE_MIN_POINTS)
        return birch_commit_window(state, tree, points, committed, stats, error);
    if (threads < 1) threads = 1;
    status = phase_reserve(&state->phase, tree, n, state->height, threads, error);
    if (status != PARAC_OK) return status;
    map_root_entries(state, tree, points, threads);
    while (status == PARAC_OK && next < n && !split) {
        size_t from = next, to = n - next < horizon ? n : next + horizon;
        int team = to - from >= PARALLEL_PHASE_MIN ? threads : 1; /* a short phase is not worth the barriers */
        next = run_phase(state, tree, from, to, team, stats);
        stats->phases++;
        if (next < to) {
            status = birch_commit_point(state, tree, points + next * tree->dims, next, stats, &split, error);
            stats->stops++, next++;
            horizon = STOP_HORIZON * (next - from) < PHASE_MIN_POINTS ? PHASE_MIN_POINTS : STOP_HORIZON * (next - from);
            /* after a short phase, a run in input order: a pre-pass then costs at
               most a few absorptions per committed point however dense the stops */
            for (size_t run = 0; next - from < SHORT_PHASE && run < SERIAL_RUN && next < n && !split &&
                                 status == PARAC_OK; run++, next++)
                status = birch_commit_point(state, tree, points + next * tree->dims, next, stats, &split, error);
        } else horizon *= 2;
    }
    *committed = next;
    return status;
}
