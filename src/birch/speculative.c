/* birch/speculative.c — validated speculation (speculative.h): windows, the
 * in-order commit, drift bookkeeping, and the CPU speculator. */
#include "birch/speculative.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "birch/speculate_math.h"
#include "core/error.h"
#include "core/threads.h"

/* The first window is short (an empty or young tree splits every few points);
 * windows double while they end without a split, and restart from twice the
 * points a split window committed, so wasted descents stay below the useful ones. */
#define FIRST_WINDOW 256
#define MIN_WINDOW 32
/* Entries per node whose drift is tracked one by one and which are compared
 * exactly (the ones that moved most: young subclusters); the node's other
 * entries share one drift bound. */
#define LOUD 4

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
} window_state;

static void state_free(window_state *state)
{
    free(state->snapshot_mean), free(state->drift), free(state->quiet_drift), free(state->loud);
    free(state->loud_count), free(state->snapshot_entries), free(state->up_slot), free(state->leaf_slot);
    free(state->runner_up), free(state->path);
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
static void track_move(window_state *state, const birch_tree *tree, size_t slot)
{
    size_t node = slot / (size_t)tree->slots, dims = tree->dims;
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
static void absorb_tracked(window_state *state, birch_tree *tree, size_t slot, const double *x, double new_ssd)
{
    birch_absorb_point(&tree->count[slot], tree->mean + slot * tree->dims, &tree->ssd[slot], new_ssd, x, 1, tree->dims);
    track_move(state, tree, slot);
}

/* Would the serial closest_entry of `node` still pick `chosen` for x, given
 * the runner-up bound of the speculation? Quiet entries by the triangle
 * inequality, loud and new entries by the serial comparison itself (the
 * first of equal distances wins). */
static int choice_holds(const window_state *state, const birch_tree *tree, const double *x, int32_t node,
                        size_t chosen, double runner_up)
{
    size_t dims = tree->dims, first = (size_t)node * (size_t)tree->slots;
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

/* Would the serial descent of point i (of the window) reach its speculated leaf slot? */
static int speculation_holds(const window_state *state, const birch_tree *tree, const double *x, size_t i,
                             size_t slot)
{
    int32_t node = (int32_t)(slot / (size_t)tree->slots);
    for (size_t level = state->height; level-- > 0;) {
        if (!choice_holds(state, tree, x, node, slot, state->runner_up[level * state->points + i])) return 0;
        if (level > 0) slot = (size_t)state->up_slot[node], node = tree->parent[node];
    }
    return 1;
}

/* The serial insertion's work for a point that reaches `slot` and fits there:
 * absorb it in the leaf entry and in every entry above. 0 if it does not fit. */
static int absorb_along_path(window_state *state, birch_tree *tree, const double *x, size_t slot)
{
    size_t dims = tree->dims;
    double new_ssd = birch_ssd_with_point(tree->count[slot], tree->mean + slot * dims, tree->ssd[slot], x, 1, dims);
    if (!birch_radius_fits(new_ssd, tree->count[slot] + 1, tree->threshold_squared)) return 0;
    absorb_tracked(state, tree, slot, x, new_ssd);
    for (int32_t node = (int32_t)(slot / (size_t)tree->slots); tree->parent[node] >= 0; node = tree->parent[node]) {
        size_t up = (size_t)state->up_slot[node];
        absorb_tracked(state, tree, up, x,
                       birch_ssd_with_point(tree->count[up], tree->mean + up * dims, tree->ssd[up], x, 1, dims));
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
    for (size_t l = 0; !*split && l < levels; l++) track_move(state, tree, (size_t)state->path[l]);
    return PARAC_OK;
}

/* Commits the window's points in input order; *committed = points done
 * (fewer than the window when a split ended it). */
static parac_status commit_window(window_state *state, birch_tree *tree, const double *points, size_t *committed,
                                  birch_speculative_stats *stats, parac_error *error)
{
    size_t i, dims = tree->dims;
    int split = 0;
    for (i = 0; i < state->points && !split; i++) {
        const double *x = points + i * dims;
        int32_t slot = state->leaf_slot[i];
        parac_status status;
        if (slot >= 0 && speculation_holds(state, tree, x, i, (size_t)slot) &&
            absorb_along_path(state, tree, x, (size_t)slot)) {
            stats->direct++;
            continue;
        }
        stats->serial++;
        status = insert_tracked(state, tree, x, &split, error);
        if (status != PARAC_OK) return status;
    }
    *committed = i;
    return PARAC_OK;
}

parac_status birch_insert_speculative(birch_tree *tree, const double *points, size_t count, size_t max_window,
                                      birch_speculate_fn speculate, void *context, birch_speculative_stats *stats,
                                      parac_error *error)
{
    window_state state;
    birch_speculative_stats local = {0, 0, 0, 0};
    size_t start = 0, window = max_window < FIRST_WINDOW ? max_window : FIRST_WINDOW;
    parac_status status = PARAC_OK;
    if (!stats) stats = &local;
    memset(&state, 0, sizeof state);
    while (status == PARAC_OK && start < count) {
        size_t n = count - start < window ? count - start : window, committed = 0;
        const double *batch = points + start * tree->dims;
        status = begin_window(&state, tree, n, error);
        if (status == PARAC_OK)
            status = speculate(context, tree, batch, n, state.height, state.leaf_slot, state.runner_up, error);
        if (status == PARAC_OK) status = commit_window(&state, tree, batch, &committed, stats, error);
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
#pragma omp parallel for schedule(static, 128) num_threads(threads) if (n >= 512)
    for (size_t i = 0; i < n; i++)
        leaf_slot[i] = birch_descend_speculative(tree->root, tree->slots, tree->dims, tree->entry_count, tree->child,
                                             tree->mean, points + i * tree->dims, 1, runner_up + i, n);
    return PARAC_OK;
}
