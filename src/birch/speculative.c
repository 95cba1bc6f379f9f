/* birch/speculative.c — validated speculation (speculative.h): windows, the
 * in-order commit, drift bookkeeping, and the CPU speculator. */
#include "birch/speculative.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "birch/speculate_math.h"
#include "core/error.h"
#include "core/threads.h"
#include "core/timer.h"

/* The first window is short (an empty or young tree splits every few points);
 * windows double while they end without a split, and restart from twice the
 * points a split window committed, so wasted descents stay below the useful ones. */
#define FIRST_WINDOW 256
#define MIN_WINDOW 32
/* Entries per node whose drift is tracked one by one and which are compared
 * exactly (the ones that moved most: young subclusters); the node's other
 * entries share one drift bound. */
#define LOUD 4

/* The parallel commit's bookkeeping (see commit_window_parallel). */
typedef struct root_task {
    size_t window_first, window_end;  /* its points of the window: order[window_first..window_end) */
    size_t first, end;                /* of them, the phase's: order[first..end), input order */
    size_t done;                      /* of them committed */
    size_t stop;                      /* window index of its first point that would split a node, or SIZE_MAX */
    size_t fail;                      /* window index of its first point whose root choice fails (pre-pass) */
    size_t nodes_first, nodes_end;    /* its subtree's nodes: subtree_nodes[nodes_first..nodes_end) */
    size_t direct, serial, new_entries;
} root_task;

typedef struct phase_state {
    size_t point_capacity, node_capacity, slot_capacity, task_capacity, path_capacity;
    int32_t *root_entry;  /* per window point: the root entry (index) its speculation passes through */
    int32_t *top;         /* per node: the root entry above it (-1 for the root) */
    int32_t *subtree_nodes; /* nodes grouped by root entry */
    int32_t *order;       /* the phase's points grouped by root entry, input order within a group */
    double *upper;        /* per order position: upper bound of its distance to its root entry then */
    int64_t *after_count; /* per order position: the root entry's CF once the point is absorbed */
    double *after_ssd, *after_mean;
    double *max_drift;    /* per root entry: largest drift from the window's snapshot during the phase */
    root_task *tasks;     /* per root entry */
    int32_t *by_size;     /* root entries, most points first */
    int32_t *redo;        /* root entries whose commit ran past the phase's stop point */
    int32_t *paths;       /* per root entry: `height` slots of a serial insertion */
    /* the subtrees as the phase began, to redo a commit that ran past the stop point */
    int64_t *saved_count;
    double *saved_ssd, *saved_mean, *saved_drift, *saved_quiet;
    int32_t *saved_entries, *saved_loud, *saved_loud_count;
} phase_state;

typedef struct window_state {
    size_t height, points, slot_capacity, node_capacity, point_capacity, bound_capacity;
    double slack;
    double *snapshot_mean;     /* per slot × dims: means when the window began */
    double *drift;             /* per slot: how far its mean lies from the snapshot (bound) */
    double *quiet_drift;       /* per node: bound on the drift of its entries outside `loud` */
    int32_t *loud;             /* per node × LOUD: slots compared exactly */
    int32_t *loud_count;       /* per node */
    int32_t *snapshot_entries; /* per node: entries when the window began (later ones are compared exactly) */
    int32_t *up_slot;          /* per node: the entry of its parent that points to it */
    int32_t *leaf_slot;        /* per point of the window: speculated leaf slot */
    double *runner_up;         /* level * points + point: runner-up distance bound */
    int32_t *path;             /* height slots of a serial insertion */
    phase_state phase;         /* parallel commit only */
} window_state;

static void phase_free(phase_state *phase)
{
    free(phase->root_entry), free(phase->top), free(phase->subtree_nodes), free(phase->order), free(phase->upper), free(phase->after_count);
    free(phase->after_ssd), free(phase->after_mean), free(phase->max_drift), free(phase->tasks), free(phase->by_size);
    free(phase->redo), free(phase->paths), free(phase->saved_count), free(phase->saved_ssd), free(phase->saved_mean);
    free(phase->saved_drift), free(phase->saved_quiet), free(phase->saved_entries), free(phase->saved_loud);
    free(phase->saved_loud_count);
}

static void state_free(window_state *state)
{
    free(state->snapshot_mean), free(state->drift), free(state->quiet_drift), free(state->loud);
    free(state->loud_count), free(state->snapshot_entries), free(state->up_slot), free(state->leaf_slot);
    free(state->runner_up), free(state->path);
    phase_free(&state->phase);
    memset(state, 0, sizeof *state);
}

#define GROW(field, type, need)                                                                   \
    do {                                                                                          \
        type *grown = realloc(state->field, (need) * sizeof(type));                               \
        if (!grown) return parac_fail_no_memory(error, "speculative window", (need) * sizeof(type)); \
        state->field = grown;                                                                     \
    } while (0)

static parac_status state_reserve(window_state *state, const birch_tree *tree, size_t points, parac_error *error)
{
    size_t nodes = (size_t)tree->node_count, slots = nodes * (size_t)tree->slots, bounds = points * state->height;
    if (state->slot_capacity < slots) {
        GROW(snapshot_mean, double, slots * tree->dims);
        GROW(drift, double, slots);
        state->slot_capacity = slots;
    }
    if (state->node_capacity < nodes) {
        GROW(quiet_drift, double, nodes);
        GROW(loud, int32_t, nodes * LOUD);
        GROW(loud_count, int32_t, nodes);
        GROW(snapshot_entries, int32_t, nodes);
        GROW(up_slot, int32_t, nodes);
        GROW(path, int32_t, nodes + 1); /* height <= nodes */
        state->node_capacity = nodes;
    }
    if (state->point_capacity < points) {
        GROW(leaf_slot, int32_t, points);
        state->point_capacity = points;
    }
    if (state->bound_capacity < bounds) {
        GROW(runner_up, double, bounds);
        state->bound_capacity = bounds;
    }
    return PARAC_OK;
}
#undef GROW

size_t birch_tree_height(const birch_tree *tree)
{
    size_t height = 1;
    for (int32_t node = tree->root; !tree->is_leaf[node]; node = tree->child[(size_t)node * (size_t)tree->slots])
        height++;
    return height;
}

/* A new window on the tree as it stands: no drift, means and entry counts remembered. */
static parac_status begin_window(window_state *state, const birch_tree *tree, size_t points, parac_error *error)
{
    size_t nodes = (size_t)tree->node_count;
    parac_status status;
    state->height = birch_tree_height(tree);
    state->points = points;
    state->slack = birch_margin_slack(tree->dims);
    status = state_reserve(state, tree, points, error);
    if (status != PARAC_OK) return status;
    memcpy(state->snapshot_mean, tree->mean, nodes * (size_t)tree->slots * tree->dims * sizeof(double));
    memset(state->quiet_drift, 0, nodes * sizeof(double));
    memset(state->loud_count, 0, nodes * sizeof(int32_t));
    memcpy(state->snapshot_entries, tree->entry_count, nodes * sizeof(int32_t));
    for (size_t v = 0; v < nodes; v++)
        for (int32_t k = 0; k < tree->entry_count[v]; k++) {
            size_t slot = v * (size_t)tree->slots + (size_t)k;
            if (tree->child[slot] >= 0) state->up_slot[tree->child[slot]] = (int32_t)slot;
        }
    return PARAC_OK;
}

/* Keeps the node's LOUD largest movers in `loud`; an entry pushed out hands its
 * drift to the node's quiet bound (which never decreases within a window). */
static void classify_move(window_state *state, size_t node, int32_t slot, double drift)
{
    int32_t *loud = state->loud + node * LOUD, *count = &state->loud_count[node], smallest = 0;
    for (int32_t j = 0; j < *count; j++) {
        if (loud[j] == slot) return;
        if (state->drift[loud[j]] < state->drift[loud[smallest]]) smallest = j;
    }
    if (*count < LOUD) {
        loud[(*count)++] = slot;
        return;
    }
    if (drift > state->drift[loud[smallest]]) {
        double pushed_out = state->drift[loud[smallest]];
        loud[smallest] = slot;
        drift = pushed_out;
    }
    if (drift > state->quiet_drift[node]) state->quiet_drift[node] = drift;
}

/* Records how far the mean of `slot` now lies from where it was when the
 * window began (the displacement itself, not the sum of the steps: random
 * steps mostly cancel). Entries created in this window are skipped: they are
 * always compared exactly. */
static inline void track_move(window_state *state, const birch_tree *tree, size_t slot, size_t dims)
{
    size_t node = slot / (size_t)tree->slots;
    double moved = 0.0;
    if ((int32_t)(slot % (size_t)tree->slots) >= state->snapshot_entries[node]) return;
    for (size_t j = 0; j < dims; j++) {
        double delta = tree->mean[slot * dims + j] - state->snapshot_mean[slot * dims + j];
        moved += delta * delta;
    }
    state->drift[slot] = birch_distance_upper(moved, state->slack);
    classify_move(state, node, (int32_t)slot, state->drift[slot]);
}

/* The serial absorption of x by `slot` (given new_ssd), with its drift recorded. */
static inline void absorb_tracked(window_state *state, birch_tree *tree, size_t slot, const double *x,
                                  double new_ssd, size_t dims)
{
    birch_absorb_point(&tree->count[slot], tree->mean + slot * dims, &tree->ssd[slot], new_ssd, x, 1, dims);
    track_move(state, tree, slot, dims);
}

/* Would the serial closest_entry of `node` still pick `chosen` for x, given
 * the runner-up bound of the speculation? Quiet entries by the triangle
 * inequality, loud and new entries by the serial comparison itself (the
 * first of equal distances wins). */
static inline int choice_holds(const window_state *state, const birch_tree *tree, const double *x, int32_t node,
                               size_t chosen, double runner_up, size_t dims)
{
    size_t first = (size_t)node * (size_t)tree->slots;
    double distance = birch_squared_distance_strided(x, 1, tree->mean + chosen * dims, dims);
    const int32_t *loud = state->loud + (size_t)node * LOUD;
    if (!(birch_distance_upper(distance, state->slack) + state->quiet_drift[node] < runner_up)) return 0;
    for (int32_t j = 0; j < state->loud_count[node]; j++) {
        size_t other = (size_t)loud[j];
        double d = other == chosen ? distance : birch_squared_distance_strided(x, 1, tree->mean + other * dims, dims);
        if (d < distance || (d == distance && other < chosen)) return 0;
    }
    for (int32_t k = state->snapshot_entries[node]; k < tree->entry_count[node]; k++)
        if (birch_squared_distance_strided(x, 1, tree->mean + (first + (size_t)k) * dims, dims) < distance) return 0;
    return 1;
}

/* Would the serial descent of point i (of the window) reach its speculated
 * leaf slot? Levels below min_level are not checked (the parallel commit
 * checks the root level in its pre-pass). */
static inline int speculation_holds(const window_state *state, const birch_tree *tree, const double *x, size_t i,
                                    size_t slot, size_t min_level, size_t dims)
{
    int32_t node = (int32_t)(slot / (size_t)tree->slots);
    for (size_t level = state->height; level-- > min_level;) {
        if (!choice_holds(state, tree, x, node, slot, state->runner_up[level * state->points + i], dims)) return 0;
        if (level > 0) slot = (size_t)state->up_slot[node], node = tree->parent[node];
    }
    return 1;
}

/* The serial insertion's work for a point that reaches `slot` and fits there:
 * absorb it in the leaf entry and in every entry above, up to the entries of
 * node `top` (the root, or a subtree's top in the parallel commit). 0 if it
 * does not fit. */
static inline int absorb_along_path(window_state *state, birch_tree *tree, const double *x, size_t slot,
                                    int32_t top, size_t dims)
{
    double new_ssd = birch_ssd_with_point(tree->count[slot], tree->mean + slot * dims, tree->ssd[slot], x, 1, dims);
    if (!birch_radius_fits(new_ssd, tree->count[slot] + 1, tree->threshold_squared)) return 0;
    absorb_tracked(state, tree, slot, x, new_ssd, dims);
    for (int32_t node = (int32_t)(slot / (size_t)tree->slots); node != top; node = tree->parent[node]) {
        size_t up = (size_t)state->up_slot[node];
        absorb_tracked(state, tree, up, x,
                       birch_ssd_with_point(tree->count[up], tree->mean + up * dims, tree->ssd[up], x, 1, dims), dims);
    }
    return 1;
}

/* birch_tree_insert with the moves of the entries on its path recorded;
 * *split = 1 when the tree's shape changed (the window must end). */
static parac_status insert_tracked(window_state *state, birch_tree *tree, const double *x, int *split,
                                   parac_error *error)
{
    int32_t nodes = tree->node_count;
    size_t levels = birch_tree_descend_path(tree, x, 1, state->path);
    parac_status status = birch_tree_insert(tree, x, 1, error);
    if (status != PARAC_OK) return status;
    *split = tree->node_count != nodes;
    for (size_t l = 0; !*split && l < levels; l++) track_move(state, tree, (size_t)state->path[l], tree->dims);
    return PARAC_OK;
}

/* Commits point i of the window (x) as the serial insertion would; *split = 1
 * when it split a node. */
static inline parac_status commit_point_in(window_state *state, birch_tree *tree, const double *x, size_t i,
                                           birch_speculative_stats *stats, int *split, parac_error *error, size_t dims)
{
    int32_t slot = state->leaf_slot[i];
    if (slot >= 0 && speculation_holds(state, tree, x, i, (size_t)slot, 0, dims) &&
        absorb_along_path(state, tree, x, (size_t)slot, tree->root, dims)) {
        stats->direct++;
        return PARAC_OK;
    }
    stats->serial++;
    return insert_tracked(state, tree, x, split, error);
}

/* dims passed as a constant for 2-D points (here and in the parallel
 * commit's dispatchers): the inlined coordinate loops unroll, the same
 * operations giving the same bits. */
static parac_status commit_point(window_state *state, birch_tree *tree, const double *x, size_t i,
                                 birch_speculative_stats *stats, int *split, parac_error *error)
{
    if (tree->dims == 2) return commit_point_in(state, tree, x, i, stats, split, error, 2);
    return commit_point_in(state, tree, x, i, stats, split, error, tree->dims);
}

/* Commits the window's points in input order; *committed = points done
 * (fewer than the window when a split ended it). */
static parac_status commit_window(window_state *state, birch_tree *tree, const double *points, size_t *committed,
                                  birch_speculative_stats *stats, parac_error *error)
{
    size_t i, dims = tree->dims;
    int split = 0;
    for (i = 0; i < state->points && !split; i++) {
        parac_status status = commit_point(state, tree, points + i * dims, i, stats, &split, error);
        if (status != PARAC_OK) return status;
    }
    *committed = i;
    return PARAC_OK;
}

/* ---- The parallel commit: one task per root entry (speculative.h) ---- */

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

#define PHASE_GROW(field, type, need)                                                                 \
    do {                                                                                              \
        type *grown = realloc(phase->field, (need) * sizeof(type));                                   \
        if (!grown) return parac_fail_no_memory(error, "parallel commit", (need) * sizeof(type));     \
        phase->field = grown;                                                                         \
    } while (0)

static parac_status phase_reserve(phase_state *phase, const birch_tree *tree, size_t points, size_t height,
                                  parac_error *error)
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
        phase->point_capacity = points;
    }
    if (phase->node_capacity < nodes) {
        PHASE_GROW(top, int32_t, nodes);
        PHASE_GROW(subtree_nodes, int32_t, nodes);
        PHASE_GROW(saved_entries, int32_t, nodes);
        PHASE_GROW(saved_quiet, double, nodes);
        PHASE_GROW(saved_loud, int32_t, nodes * LOUD);
        PHASE_GROW(saved_loud_count, int32_t, nodes);
        phase->node_capacity = nodes;
    }
    if (phase->slot_capacity < slots) {
        PHASE_GROW(saved_count, int64_t, slots);
        PHASE_GROW(saved_ssd, double, slots);
        PHASE_GROW(saved_mean, double, slots * dims);
        PHASE_GROW(saved_drift, double, slots);
        phase->slot_capacity = slots;
    }
    if (phase->task_capacity < tasks) {
        PHASE_GROW(tasks, root_task, tasks);
        PHASE_GROW(max_drift, double, tasks);
        PHASE_GROW(by_size, int32_t, tasks);
        PHASE_GROW(redo, int32_t, tasks);
        phase->task_capacity = tasks;
    }
    if (phase->path_capacity < tasks * height) {
        PHASE_GROW(paths, int32_t, tasks * height);
        phase->path_capacity = tasks * height;
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

/* The window's points grouped by root entry, input order within a group
 * (counting sort); a phase takes a range of each group (select_phase_points). */
static void group_by_root_entry(phase_state *phase, int32_t m, size_t n)
{
    size_t offset = 0;
    for (int32_t k = 0; k < m; k++) phase->tasks[k].window_first = 0;
    for (size_t i = 0; i < n; i++) phase->tasks[phase->root_entry[i]].window_first++;
    for (int32_t k = 0; k < m; k++) {
        size_t size = phase->tasks[k].window_first;
        phase->tasks[k].window_first = phase->tasks[k].window_end = offset;
        offset += size;
    }
    for (size_t i = 0; i < n; i++) phase->order[phase->tasks[phase->root_entry[i]].window_end++] = (int32_t)i;
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
    for (int32_t k = 0; k < m; k++) {
        root_task *task = &phase->tasks[k];
        task->first = first_at_or_after(phase->order, task->window_first, task->window_end, from);
        task->end = first_at_or_after(phase->order, task->first, task->window_end, to);
    }
}

/* top[] for every node and the root entry of every point's speculation
 * (fixed for the window: a split ends it), the points grouped by it. */
static void map_root_entries(window_state *state, const birch_tree *tree)
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
    for (size_t i = 0; i < state->points; i++)
        phase->root_entry[i] = phase->top[(size_t)state->leaf_slot[i] / (size_t)tree->slots];
    group_subtree_nodes(phase, tree);
    group_by_root_entry(phase, tree->entry_count[tree->root], state->points);
}

/* How far `mean` lies from slot's mean when the window began (an upper bound, as track_move). */
static double drift_from_snapshot(const window_state *state, size_t slot, const double *mean, size_t dims)
{
    double moved = 0.0;
    for (size_t j = 0; j < dims; j++) {
        double delta = mean[j] - state->snapshot_mean[slot * dims + j];
        moved += delta * delta;
    }
    return birch_distance_upper(moved, state->slack);
}

/* Root entry k absorbs its points of the phase in input order, with the
 * serial arithmetic: its CF after each point, the distance bound each point
 * sees, and the entry's largest drift. */
static inline void prepass_entry_in(window_state *state, const birch_tree *tree, const double *points, int32_t k,
                                    size_t dims)
{
    phase_state *phase = &state->phase;
    root_task *task = &phase->tasks[k];
    size_t slot = (size_t)tree->root * (size_t)tree->slots + (size_t)k;
    const double *mean = tree->mean + slot * dims;
    int64_t count = tree->count[slot];
    double ssd = tree->ssd[slot], largest = drift_from_snapshot(state, slot, mean, dims);
    for (size_t b = task->first; b < task->end; b++) {
        const double *x = points + (size_t)phase->order[b] * dims;
        double *next = phase->after_mean + b * dims;
        double new_ssd = birch_ssd_with_point(count, mean, ssd, x, 1, dims);
        double drift;
        phase->upper[b] = birch_distance_upper(birch_squared_distance_strided(x, 1, mean, dims), state->slack);
        memcpy(next, mean, dims * sizeof(double));
        birch_absorb_point(&count, next, &ssd, new_ssd, x, 1, dims);
        phase->after_count[b] = count, phase->after_ssd[b] = ssd;
        drift = drift_from_snapshot(state, slot, next, dims);
        if (drift > largest) largest = drift;
        mean = next;
    }
    phase->max_drift[k] = largest;
}

static void prepass_entry(window_state *state, const birch_tree *tree, const double *points, int32_t k)
{
    if (tree->dims == 2) prepass_entry_in(state, tree, points, k, 2);
    else prepass_entry_in(state, tree, points, k, tree->dims);
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

/* The serial closest_entry of the root for point i (at order position b,
 * speculated entry e), evaluated exactly on the entries' states at its time:
 * does it pick e? (Valid while every earlier point of the phase passed.) */
static int root_choice_exact(const window_state *state, const birch_tree *tree, const double *points, size_t i,
                             int32_t e)
{
    const double *x = points + i * tree->dims;
    double own = birch_squared_distance_strided(x, 1, root_mean_before(state, tree, e, i), tree->dims);
    for (int32_t f = 0; f < tree->entry_count[tree->root]; f++) {
        double d;
        if (f == e) continue;
        d = birch_squared_distance_strided(x, 1, root_mean_before(state, tree, f, i), tree->dims);
        if (d < own || (d == own && f < e)) return 0; /* ties go to the first entry */
    }
    return 1;
}

/* Root entry k's first point in the phase whose serial root choice differs
 * from its speculation (to if none). Cheap test first: its chosen entry as it
 * is then, every other entry at its largest drift of the phase (`others`);
 * when that fails, the exact comparison. */
static size_t first_root_failure(const window_state *state, const birch_tree *tree, const double *points, int32_t k,
                                 double others, size_t to)
{
    const phase_state *phase = &state->phase;
    for (size_t b = phase->tasks[k].first; b < phase->tasks[k].end; b++) {
        size_t i = (size_t)phase->order[b];
        if (!(phase->upper[b] + others < state->runner_up[i]) && /* runner_up level 0: the root */
            !root_choice_exact(state, tree, points, i, k))
            return i;
    }
    return to;
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

/* The earliest point of the phase whose serial root choice differs from its
 * speculation (to if none). */
static size_t earliest_failure(const phase_state *phase, int32_t m, size_t to)
{
    size_t fail = to;
    for (int32_t k = 0; k < m; k++)
        if (phase->tasks[k].fail < fail) fail = phase->tasks[k].fail;
    return fail;
}

/* Root entry k's points before `limit` commit inside its subtree, in input
 * order, as the serial insertion would; stops before a point that would split. */
static inline void commit_subtree_in(window_state *state, birch_tree *tree, const double *points, int32_t k,
                                     size_t limit, size_t dims)
{
    phase_state *phase = &state->phase;
    root_task *task = &phase->tasks[k];
    int32_t top = tree->child[(size_t)tree->root * (size_t)tree->slots + (size_t)k];
    int32_t *path = phase->paths + (size_t)k * state->height;
    /* counted locally: neighbouring tasks' records share cache lines */
    size_t b, stop = SIZE_MAX, direct = 0, serial = 0, new_entries = 0;
    for (b = task->first; b < task->end; b++) {
        size_t i = (size_t)phase->order[b], levels;
        const double *x = points + i * dims;
        int fresh;
        if (i >= limit) break;
        if (speculation_holds(state, tree, x, i, (size_t)state->leaf_slot[i], 1, dims) &&
            absorb_along_path(state, tree, x, (size_t)state->leaf_slot[i], top, dims)) {
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
    task->done = b - task->first, task->stop = stop;
    task->direct = direct, task->serial = serial, task->new_entries = new_entries;
}

static void commit_subtree(window_state *state, birch_tree *tree, const double *points, int32_t k, size_t limit)
{
    if (tree->dims == 2) commit_subtree_in(state, tree, points, k, limit, 2);
    else commit_subtree_in(state, tree, points, k, limit, tree->dims);
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
        move_field(&state->quiet_drift[v], &phase->saved_quiet[v], sizeof state->quiet_drift[v], save);
        move_field(&state->loud_count[v], &phase->saved_loud_count[v], sizeof state->loud_count[v], save);
        move_field(state->loud + v * LOUD, phase->saved_loud + v * LOUD, LOUD * sizeof(int32_t), save);
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

/* The phase's stop point (limit or an earlier point that would split a node)
 * and, in phase->redo, the root entries whose commit ran past it; returns
 * how many. */
static int32_t find_stop(phase_state *phase, int32_t m, size_t limit, size_t *stop)
{
    int32_t redo = 0;
    *stop = limit;
    for (int32_t k = 0; k < m; k++)
        if (phase->tasks[k].stop < *stop) *stop = phase->tasks[k].stop;
    for (int32_t k = 0; k < m; k++) {
        const root_task *task = &phase->tasks[k];
        if (task->done > 0 && (size_t)phase->order[task->first + task->done - 1] > *stop) phase->redo[redo++] = k;
    }
    return redo;
}

/* One phase over points [from, to): grouping, pre-pass, subtree commits before
 * the first root failure, redo of the subtrees that ran past an earlier split;
 * returns the stop point (to when none). One parallel region whose loops take
 * the root entries largest first: schedule(runtime), dynamic,1 unless the
 * caller set another (omp_set_schedule / OMP_SCHEDULE); static,1 keeps a
 * subtree on the same thread from loop to loop and phase to phase (its cache
 * lines stay put). Every loop's iterations are independent, so the schedule
 * never changes the result. */
static size_t run_phase(window_state *state, birch_tree *tree, const double *points, size_t from, size_t to,
                        int threads, birch_speculative_stats *stats)
{
    phase_state *phase = &state->phase;
    int32_t m = tree->entry_count[tree->root], loudest = 0, redo = 0;
    size_t fail = to, stop = to;
    double first_drift = 0.0, second_drift = 0.0, started;
    select_phase_points(phase, m, from, to);
    order_by_size(phase, m);
    started = parac_now_seconds();
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
#pragma omp for schedule(runtime)
        for (int32_t t = 0; t < m; t++) prepass_entry(state, tree, points, phase->by_size[t]);
#pragma omp single
        largest_drifts(phase, m, &first_drift, &second_drift, &loudest);
#pragma omp for schedule(runtime)
        for (int32_t t = 0; t < m; t++) {
            int32_t k = phase->by_size[t];
            phase->tasks[k].fail =
                first_root_failure(state, tree, points, k, k == loudest ? second_drift : first_drift, to);
        }
#pragma omp single
        fail = earliest_failure(phase, m, to);
#pragma omp for schedule(runtime)
        for (int32_t t = 0; t < m; t++) {
            int32_t k = phase->by_size[t];
            if (phase->tasks[k].end > phase->tasks[k].first) move_subtree(state, tree, k, 1); /* else nothing to redo */
            commit_subtree(state, tree, points, k, fail);
        }
#pragma omp single
        redo = find_stop(phase, m, fail, &stop);
#pragma omp for schedule(runtime)
        for (int32_t t = 0; t < redo; t++) {
            move_subtree(state, tree, phase->redo[t], 0);
            commit_subtree(state, tree, points, phase->redo[t], stop);
        }
    }
    stats->parallel_seconds += parac_now_seconds() - started;
    stats->redone += (size_t)redo;
    if (m > 0) stats->critical += phase->tasks[phase->by_size[0]].done;
    finish_phase(state, tree, m, stats);
    return stop;
}

/* commit_window with the parallel commit: phases of subtree-parallel commits,
 * each ended by a stop point that commits alone (a split ends the window).
 * A phase looks ahead `horizon` points: its pre-pass is redone after every
 * stop point, and a shorter look-ahead also bounds the drifts more tightly;
 * it doubles after a phase without a stop and shrinks to STOP_HORIZON times
 * what a stopped phase committed. */
static parac_status commit_window_parallel(window_state *state, birch_tree *tree, const double *points, int threads,
                                           size_t *committed, birch_speculative_stats *stats, parac_error *error)
{
    size_t next = 0, n = state->points, horizon = n;
    int split = 0;
    parac_status status = PARAC_OK;
    if (state->height < 2 || n < PHASE_MIN_POINTS) return commit_window(state, tree, points, committed, stats, error);
    status = phase_reserve(&state->phase, tree, n, state->height, error);
    if (status != PARAC_OK) return status;
    map_root_entries(state, tree);
    while (status == PARAC_OK && next < n && !split) {
        size_t from = next, to = n - next < horizon ? n : next + horizon;
        int team = to - from >= PARALLEL_PHASE_MIN ? threads : 1; /* a short phase is not worth the barriers */
        next = run_phase(state, tree, points, from, to, team, stats);
        stats->phases++;
        if (next < to) {
            status = commit_point(state, tree, points + next * tree->dims, next, stats, &split, error);
            stats->stops++, next++;
            horizon = STOP_HORIZON * (next - from) < PHASE_MIN_POINTS ? PHASE_MIN_POINTS : STOP_HORIZON * (next - from);
            /* after a short phase, a run in input order: a pre-pass then costs at
               most a few absorptions per committed point however dense the stops */
            for (size_t run = 0; next - from < SHORT_PHASE && run < SERIAL_RUN && next < n && !split &&
                                 status == PARAC_OK; run++, next++)
                status = commit_point(state, tree, points + next * tree->dims, next, stats, &split, error);
        } else horizon *= 2;
    }
    *committed = next;
    return status;
}


parac_status birch_insert_speculative(birch_tree *tree, const double *points, size_t count, size_t max_window,
                                      birch_speculate_fn speculate, void *context, birch_commit_mode commit,
                                      birch_speculative_stats *stats, parac_error *error)
{
    window_state state;
    birch_speculative_stats local;
    size_t start = 0, window = max_window < FIRST_WINDOW ? max_window : FIRST_WINDOW;
    parac_status status = PARAC_OK;
    if (!stats) stats = &local;
    memset(&local, 0, sizeof local);
    memset(&state, 0, sizeof state);
    while (status == PARAC_OK && start < count) {
        size_t n = count - start < window ? count - start : window, committed = 0;
        const double *batch = points + start * tree->dims;
        double started = parac_now_seconds(), speculated;
        status = begin_window(&state, tree, n, error);
        if (status == PARAC_OK)
            status = speculate(context, tree, batch, n, state.height, state.leaf_slot, state.runner_up, error);
        speculated = parac_now_seconds();
        if (status == PARAC_OK && commit.parallel)
            status = commit_window_parallel(&state, tree, batch, commit.threads, &committed, stats, error);
        else if (status == PARAC_OK)
            status = commit_window(&state, tree, batch, &committed, stats, error);
        stats->speculate_seconds += speculated - started;
        stats->commit_seconds += parac_now_seconds() - speculated;
        stats->windows++, stats->speculated += n;
        start += committed;
        if (committed < n) window = committed * 2 < MIN_WINDOW ? MIN_WINDOW : committed * 2;
        else window *= 2;
        if (window > max_window) window = max_window;
    }
    state_free(&state);
    return status;
}

parac_status birch_speculate_cpu(void *context, const birch_tree *tree, const double *points, size_t n, size_t height,
                                 int32_t *leaf_slot, double *runner_up, parac_error *error)
{
    int threads = parac_threads_resolve(*(const int *)context);
    (void)height, (void)error;
    /* dims passed as a constant for 2-D points: the inlined descent's
       coordinate loop unrolls (the same operations, so the same bits) */
#pragma omp parallel for schedule(static, 128) num_threads(threads) if (n >= 512)
    for (size_t i = 0; i < n; i++)
        leaf_slot[i] = tree->dims == 2
                           ? birch_descend_speculative(tree->root, tree->slots, 2, tree->entry_count, tree->child,
                                                       tree->mean, points + i * 2, 1, runner_up + i, n)
                           : birch_descend_speculative(tree->root, tree->slots, tree->dims, tree->entry_count,
                                                       tree->child, tree->mean, points + i * tree->dims, 1,
                                                       runner_up + i, n);
    return PARAC_OK;
}
