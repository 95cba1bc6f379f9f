/* birch/speculative.c — validated speculation (speculative.h): windows, the
 * in-order commit, drift bookkeeping. The CPU speculator is in
 * speculate_cpu.c, the parallel commit in parallel_commit.c; the state and
 * inline checks both commits share are in speculative_window.h. */
#include "birch/speculative.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "birch/speculate_math.h"
#include "birch/speculative_window.h"
#include "core/error.h"
#include "core/timer.h"

/* The first window is short (an empty or young tree splits every few points);
 * windows double while they end without a split, and restart from twice the
 * points a split window committed, so wasted descents stay below the useful ones. */
#define FIRST_WINDOW 256
#define MIN_WINDOW 32

static void state_free(window_state *state)
{
    free(state->snapshot_mean), free(state->drift), free(state->nodes), free(state->snapshot_entries);
    free(state->up_slot), free(state->leaf_slot), free(state->runner_up), free(state->path);
    birch_phase_free(&state->phase);
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
        free(state->nodes); /* reset by every window: nothing to keep; realloc would not keep the alignment */
        state->nodes = aligned_alloc(NODE_DRIFT_BYTES, nodes * sizeof(node_drift));
        if (!state->nodes) return parac_fail_no_memory(error, "speculative window", nodes * sizeof(node_drift));
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
    /* each node's entries only: the slots past them are never read (entries created in the window are
     * skipped, track_move), and copying every slot wrote slots x dims doubles a node: 1.3 GB resident
     * for 3 points of 3 M dimensions (2026-12-05) */
    for (size_t v = 0; v < nodes; v++) {
        size_t first = v * (size_t)tree->slots * tree->dims;
        memcpy(state->snapshot_mean + first, tree->mean + first, (size_t)tree->entry_count[v] * tree->dims * sizeof(double));
    }
    memset(state->nodes, 0, nodes * sizeof(node_drift));
    memcpy(state->snapshot_entries, tree->entry_count, nodes * sizeof(int32_t));
    for (size_t v = 0; v < nodes; v++)
        for (int32_t k = 0; k < tree->entry_count[v]; k++) {
            size_t slot = v * (size_t)tree->slots + (size_t)k;
            if (tree->child[slot] >= 0) state->up_slot[tree->child[slot]] = (int32_t)slot;
        }
    return PARAC_OK;
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
    if (slot >= 0 && speculation_holds(state, tree, x, state->runner_up + i, (size_t)slot, 0, dims) &&
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
parac_status birch_commit_point(window_state *state, birch_tree *tree, const double *x, size_t i,
                                birch_speculative_stats *stats, int *split, parac_error *error)
{
    if (tree->dims == 2) return commit_point_in(state, tree, x, i, stats, split, error, 2);
    return commit_point_in(state, tree, x, i, stats, split, error, tree->dims);
}

/* Commits the window's points in input order; *committed = points done
 * (fewer than the window when a split ended it). */
parac_status birch_commit_window(window_state *state, birch_tree *tree, const double *points, size_t *committed,
                                 birch_speculative_stats *stats, parac_error *error)
{
    size_t i, dims = tree->dims;
    int split = 0;
    for (i = 0; i < state->points && !split; i++) {
        parac_status status = birch_commit_point(state, tree, points + i * dims, i, stats, &split, error);
        if (status != PARAC_OK) return status;
    }
    *committed = i;
    return PARAC_OK;
}

/* Each window starts by copying the tree (begin_window: nodes x slots x dims means), and a split ends
 * it. Where splits come every few points (a tiny threshold: every point its own subcluster) windows of
 * a few points each copied the whole tree: 1 M uniform 2-D points at threshold 1e-100 ran past 60 s,
 * most of it in that copy. So when a split window's committed descents (points x height) cost
 * SERIAL_RUN_RATIO times less than its copy (nodes), the next nodes / height points, as much work as one
 * copy, go in serially (birch_tree_insert: the serial tree, as speculation always gives), and then
 * windows resume. The ratio leaves the windows alone where they win something: deep trees of a small
 * branching factor with windows of hundreds of points (the tests' branching 3). */
#define SERIAL_RUN_RATIO 8
static size_t serial_run_after(const birch_tree *tree, size_t committed, size_t left)
{
    size_t height = birch_tree_height(tree), nodes = (size_t)tree->node_count, run;
    if (committed * height * SERIAL_RUN_RATIO >= nodes) return 0;
    run = nodes / height > MIN_WINDOW ? nodes / height : MIN_WINDOW;
    return run < left ? run : left;
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
            status = birch_commit_window_parallel(&state, tree, batch, commit.threads, &committed, stats, error);
        else if (status == PARAC_OK)
            status = birch_commit_window(&state, tree, batch, &committed, stats, error);
        stats->speculate_seconds += speculated - started;
        stats->commit_seconds += parac_now_seconds() - speculated;
        stats->windows++, stats->speculated += n;
        start += committed;
        if (committed < n) {
            size_t run = serial_run_after(tree, committed, count - start);
            if (status == PARAC_OK && run) {
                status = birch_tree_insert_points(tree, points + start * tree->dims, run, error);
                stats->serial += run;
                start += run;
            }
            window = committed * 2 < MIN_WINDOW ? MIN_WINDOW : committed * 2;
        } else {
            window *= 2;
        }
        if (window > max_window) window = max_window;
    }
    state_free(&state);
    return status;
}

size_t birch_speculation_range(size_t n, int r, int ranges) { return n * (size_t)r / (size_t)ranges; }
