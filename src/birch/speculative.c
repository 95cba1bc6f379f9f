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

typedef struct window_state {
    size_t height, dims, points, slot_capacity, node_capacity, point_capacity, margin_capacity;
    double slack;
    double *drift;            /* per slot: bound on how far its mean moved since the window began */
    double *node_drift;       /* per node: the largest drift of its entries */
    int32_t *snapshot_entries;/* per node: entries when the window began (later ones are compared exactly) */
    int32_t *up_slot;         /* per node: the entry of its parent that points to it */
    int32_t *leaf_slot;       /* per point of the window: speculated leaf slot */
    double *margins;          /* level * points + point */
    int32_t *path;            /* height slots of a serial insertion */
    double *saved;            /* (height + 1) × dims means before a move */
} window_state;

static void state_free(window_state *state)
{
    free(state->drift), free(state->node_drift), free(state->snapshot_entries), free(state->up_slot);
    free(state->leaf_slot), free(state->margins), free(state->path), free(state->saved);
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
    size_t nodes = (size_t)tree->node_count, slots = nodes * (size_t)tree->slots;
    size_t margins = points * state->height;
    if (state->slot_capacity < slots) {
        GROW(drift, double, slots);
        state->slot_capacity = slots;
    }
    if (state->node_capacity < nodes) {
        GROW(node_drift, double, nodes);
        GROW(snapshot_entries, int32_t, nodes);
        GROW(up_slot, int32_t, nodes);
        GROW(path, int32_t, nodes + 1); /* height <= nodes */
        GROW(saved, double, (nodes + 2) * tree->dims);
        state->node_capacity = nodes;
    }
    if (state->point_capacity < points) {
        GROW(leaf_slot, int32_t, points);
        state->point_capacity = points;
    }
    if (state->margin_capacity < margins) {
        GROW(margins, double, margins);
        state->margin_capacity = margins;
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

/* A new window on the tree as it stands: no drift, entry counts remembered. */
static parac_status begin_window(window_state *state, const birch_tree *tree, size_t points, parac_error *error)
{
    size_t nodes = (size_t)tree->node_count;
    parac_status status;
    state->height = birch_tree_height(tree);
    state->dims = tree->dims;
    state->points = points;
    state->slack = birch_margin_slack(tree->dims);
    status = state_reserve(state, tree, points, error);
    if (status != PARAC_OK) return status;
    memset(state->drift, 0, nodes * (size_t)tree->slots * sizeof(double));
    memset(state->node_drift, 0, nodes * sizeof(double));
    memcpy(state->snapshot_entries, tree->entry_count, nodes * sizeof(int32_t));
    for (size_t v = 0; v < nodes; v++)
        for (int32_t k = 0; k < tree->entry_count[v]; k++) {
            size_t slot = v * (size_t)tree->slots + (size_t)k;
            if (tree->child[slot] >= 0) state->up_slot[tree->child[slot]] = (int32_t)slot;
        }
    return PARAC_OK;
}

/* Adds how far the mean of `slot` moved from `old_mean` to its drift. Entries
 * created in this window are skipped: they are always compared exactly. */
static void track_move(window_state *state, const birch_tree *tree, size_t slot, const double *old_mean)
{
    size_t node = slot / (size_t)tree->slots, dims = tree->dims;
    double moved = 0.0;
    if ((int32_t)(slot % (size_t)tree->slots) >= state->snapshot_entries[node]) return;
    for (size_t j = 0; j < dims; j++) {
        double delta = tree->mean[slot * dims + j] - old_mean[j];
        moved += delta * delta;
    }
    state->drift[slot] += sqrt(moved) * (1.0 + state->slack) + 1e-300;
    if (state->drift[slot] > state->node_drift[node]) state->node_drift[node] = state->drift[slot];
}

/* The serial absorption of x by `slot` (given new_ssd), with its drift recorded. */
static void absorb_tracked(window_state *state, birch_tree *tree, size_t slot, const double *x, double new_ssd)
{
    double *old_mean = state->saved, *mean = tree->mean + slot * tree->dims;
    memcpy(old_mean, mean, tree->dims * sizeof(double));
    birch_absorb_point(&tree->count[slot], mean, &tree->ssd[slot], new_ssd, x, 1, tree->dims);
    track_move(state, tree, slot, old_mean);
}

/* Would the serial descent of point i (of the window) reach its speculated leaf slot? */
static int speculation_holds(const window_state *state, const birch_tree *tree, const double *x, size_t i,
                             size_t slot)
{
    size_t leaf = slot / (size_t)tree->slots, dims = tree->dims;
    int32_t node = (int32_t)leaf;
    for (size_t level = state->height; level-- > 0; node = tree->parent[node])
        if (!(2.0 * state->node_drift[node] < state->margins[level * state->points + i])) return 0;
    if (tree->entry_count[leaf] > state->snapshot_entries[leaf]) {
        /* Entries added after the speculation come last: they win only when strictly closer. */
        double chosen = birch_squared_distance_strided(x, 1, tree->mean + slot * dims, dims);
        for (int32_t k = state->snapshot_entries[leaf]; k < tree->entry_count[leaf]; k++)
            if (birch_squared_distance_strided(x, 1, tree->mean + (leaf * (size_t)tree->slots + (size_t)k) * dims, dims) <
                chosen)
                return 0;
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
    size_t dims = tree->dims, levels = birch_tree_descend_path(tree, x, 1, state->path);
    double *saved = state->saved + dims; /* saved[0..dims) is absorb_tracked's */
    parac_status status;
    for (size_t l = 0; l < levels; l++)
        memcpy(saved + l * dims, tree->mean + (size_t)state->path[l] * dims, dims * sizeof(double));
    status = birch_tree_insert(tree, x, 1, error);
    if (status != PARAC_OK) return status;
    *split = tree->node_count != nodes;
    for (size_t l = 0; !*split && l < levels; l++) track_move(state, tree, (size_t)state->path[l], saved + l * dims);
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
            status = speculate(context, tree, batch, n, state.height, state.leaf_slot, state.margins, error);
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
                                 int32_t *leaf_slot, double *margins, parac_error *error)
{
    int threads = parac_threads_resolve(*(const int *)context);
    (void)height, (void)error;
#pragma omp parallel for schedule(static, 128) num_threads(threads) if (n >= 512)
    for (size_t i = 0; i < n; i++)
        leaf_slot[i] = birch_descend_margins(tree->root, tree->slots, tree->dims, tree->entry_count, tree->child,
                                             tree->mean, points + i * tree->dims, 1, margins + i, n);
    return PARAC_OK;
}
