/* birch/speculative_window.h — internal to the speculative insertion: the
 * window's state (snapshot, drift bounds, the parallel commit's phase state)
 * and the inline drift tracking and checks that both the in-order commit
 * (speculative.c) and the parallel commit (parallel_commit.c) run per point. */
#ifndef PARAC_BIRCH_SPECULATIVE_WINDOW_H
#define PARAC_BIRCH_SPECULATIVE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "birch/cf_math.h"
#include "birch/cf_tree.h"
#include "birch/speculate_math.h"
#include "birch/speculative.h"

/* Entries per node whose drift is tracked one by one and which are compared
 * exactly (the ones that moved most: young subclusters); the node's other
 * entries share one drift bound. */
#define LOUD 4

/* A node's drift bookkeeping, alone on a cache line: the parallel commit's
 * subtree tasks update their nodes' records on every absorption, and records
 * packed side by side (three node-indexed arrays, 4 to 16 nodes a line) made
 * each such write evict its neighbours' records from the other cores. */
#define NODE_DRIFT_BYTES 64
typedef struct node_drift {
    double quiet;         /* bound on the drift of its entries outside `loud`: birch_distance_upper(quiet_squared) */
    double quiet_squared; /* the largest squared move among them (0: none moved yet, and quiet is 0) */
    int32_t loud_count;
    int32_t loud[LOUD];   /* slots compared exactly */
    char padding[NODE_DRIFT_BYTES - 2 * sizeof(double) - (1 + LOUD) * sizeof(int32_t)];
} node_drift;
_Static_assert(sizeof(node_drift) == NODE_DRIFT_BYTES, "one node's record per cache line");

/* The parallel commit's bookkeeping per root entry (parallel_commit.c). */
typedef struct root_task root_task;
/* A phase's point moved to the root entry its serial insertion chooses (parallel_commit.c). */
typedef struct birch_reroute birch_reroute;

typedef struct phase_state {
    size_t point_capacity, node_capacity, slot_capacity, task_capacity, path_capacity, range_capacity;
    size_t bound_capacity;
    int32_t *root_entry;  /* per window point: the root entry (index) its speculation passes through */
    int32_t *top;         /* per node: the root entry above it (-1 for the root) */
    int32_t *slot_top;    /* per slot: top[] of its node (a table: no division per point) */
    int32_t *subtree_nodes; /* nodes grouped by root entry */
    int32_t *order;       /* the phase's points grouped by root entry, input order within a group */
    /* per order position, copies of the point's data: a task then streams its
     * group's points instead of gathering them from lines that the
     * speculation left in every core's cache */
    double *grouped_x;         /* × dims */
    double *grouped_runner_up; /* level * points + position */
    int32_t *grouped_leaf;
    double *upper;        /* per order position: its squared distance to its root entry then */
    int64_t *after_count; /* per order position: the root entry's CF once the point is absorbed */
    double *after_ssd, *after_mean;
    double *after_largest; /* per order position: its root entry's largest squared move so far in the phase */
    double *max_drift;    /* per root entry: largest drift from the window's snapshot during the phase */
    root_task *tasks;     /* per root entry */
    int32_t *by_size;     /* root entries, most points first */
    int32_t *paths;       /* per root entry: `height` slots of a serial insertion */
    size_t *range_counts; /* per (thread's point range, root entry): the grouping's counts, then offsets */
    size_t *group_first;  /* per root entry (+1): where its group begins in order[] */
    /* points of the phase whose serial root choice differs from their
       speculation, each moved to its serial root entry's task (input order) */
    birch_reroute *reroutes;
    double *reroute_mean; /* per reroute × dims: its new root entry's mean once it absorbed the point */
    size_t reroute_count;
    uint8_t *root_ok;     /* per order position: its root check's verdict in the phase's last round */
    /* the subtrees as the phase began, to redo a commit that ran past the stop point */
    int64_t *saved_count;
    double *saved_ssd, *saved_mean, *saved_drift;
    int32_t *saved_entries;
    node_drift *saved_nodes;
} phase_state;

typedef struct window_state {
    size_t height, points, slot_capacity, node_capacity, point_capacity, bound_capacity;
    double slack;
    double *snapshot_mean;     /* per slot × dims: means when the window began */
    double *drift;             /* per slot: squared distance of its mean from the snapshot */
    node_drift *nodes;         /* per node, cache-line aligned */
    int32_t *snapshot_entries; /* per node: entries when the window began (later ones are compared exactly) */
    int32_t *up_slot;          /* per node: the entry of its parent that points to it */
    int32_t *leaf_slot;        /* per point of the window: speculated leaf slot */
    double *runner_up;         /* level * points + point: runner-up distance bound */
    int32_t *path;             /* height slots of a serial insertion */
    phase_state phase;         /* parallel commit only */
} window_state;

/* Keeps the node's LOUD largest movers in `loud`; an entry pushed out hands its
 * move to the node's quiet bound (which never decreases within a window).
 * Moves are compared squared: the bound is monotone, so the quiet bound of the
 * largest squared move is the largest bound, and the square root is taken only
 * when the quiet bound grows (once per absorption, it was the commit's second
 * square root per point). */
static inline void classify_move(window_state *state, size_t node, int32_t slot, double moved)
{
    node_drift *record = &state->nodes[node];
    int32_t *loud = record->loud, *count = &record->loud_count, smallest = 0;
    for (int32_t j = 0; j < *count; j++) {
        if (loud[j] == slot) return;
        if (state->drift[loud[j]] < state->drift[loud[smallest]]) smallest = j;
    }
    if (*count < LOUD) {
        loud[(*count)++] = slot;
        return;
    }
    if (moved > state->drift[loud[smallest]]) {
        double pushed_out = state->drift[loud[smallest]];
        loud[smallest] = slot;
        moved = pushed_out;
    }
    if (moved > record->quiet_squared) {
        record->quiet_squared = moved;
        record->quiet = birch_distance_upper(moved, state->slack);
    }
}

/* Records how far the mean of `slot` now lies from where it was when the
 * window began (the displacement itself, not the sum of the steps: random
 * steps mostly cancel), squared. Entries created in this window are skipped:
 * they are always compared exactly. */
static inline void track_move(window_state *state, const birch_tree *tree, size_t slot, size_t dims)
{
    size_t node = slot / (size_t)tree->slots;
    double moved = 0.0;
    if ((int32_t)(slot % (size_t)tree->slots) >= state->snapshot_entries[node]) return;
    for (size_t j = 0; j < dims; j++) {
        double delta = tree->mean[slot * dims + j] - state->snapshot_mean[slot * dims + j];
        moved += delta * delta;
    }
    state->drift[slot] = moved;
    classify_move(state, node, (int32_t)slot, moved);
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
    const node_drift *record = &state->nodes[node];
    const int32_t *loud = record->loud;
    if (!(birch_distance_upper(distance, state->slack) + record->quiet < runner_up)) return 0;
    for (int32_t j = 0; j < record->loud_count; j++) {
        size_t other = (size_t)loud[j];
        double d = other == chosen ? distance : birch_squared_distance_strided(x, 1, tree->mean + other * dims, dims);
        if (d < distance || (d == distance && other < chosen)) return 0;
    }
    for (int32_t k = state->snapshot_entries[node]; k < tree->entry_count[node]; k++)
        if (birch_squared_distance_strided(x, 1, tree->mean + (first + (size_t)k) * dims, dims) < distance) return 0;
    return 1;
}

/* Would the serial descent of a window point x reach its speculated leaf
 * slot? runner_up points to its level-0 bound, level l's lying l * points
 * further (window_state's runner_up, or the parallel commit's grouped copy).
 * Levels below min_level are not checked (the parallel commit checks the
 * root level in its pre-pass). */
static inline int speculation_holds(const window_state *state, const birch_tree *tree, const double *x,
                                    const double *runner_up, size_t slot, size_t min_level, size_t dims)
{
    int32_t node = (int32_t)(slot / (size_t)tree->slots);
    for (size_t level = state->height; level-- > min_level;) {
        if (!choice_holds(state, tree, x, node, slot, runner_up[level * state->points], dims)) return 0;
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

/* speculative.c: commits window point i (x) as the serial insertion would; *split = 1 after a split. */
parac_status birch_commit_point(window_state *state, birch_tree *tree, const double *x, size_t i,
                                birch_speculative_stats *stats, int *split, parac_error *error);
/* speculative.c: the in-order commit of the window; *committed = points done. */
parac_status birch_commit_window(window_state *state, birch_tree *tree, const double *points, size_t *committed,
                                 birch_speculative_stats *stats, parac_error *error);
/* parallel_commit.c: the window's commit in phases, parallel over the root's subtrees. */
parac_status birch_commit_window_parallel(window_state *state, birch_tree *tree, const double *points, int threads,
                                          size_t *committed, birch_speculative_stats *stats, parac_error *error);
/* parallel_commit.c: frees the phase state's buffers. */
void birch_phase_free(phase_state *phase);

#endif
