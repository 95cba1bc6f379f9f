/* birch/parallel_commit.c — the parallel commit of a speculation window
 * (speculative.h, variant speculative-parallel): phases that group the
 * window's points by root entry, check the root choices in a pre-pass and
 * commit the root's subtrees in parallel; the state and the per-point checks
 * are shared with the in-order commit (speculative_window.h).
 * Data written on every point by one task and read by another lives on cache
 * lines of its own (grouped point copies, node records, counters, paths): on
 * 16 cores, shared lines cost more than the work (docs/birch.md, round 6).
 * This file holds the root pre-pass, the subtree commit and the phase loop, which share a dozen
 * inline accessors on the hot path; the phase storage and the grouping by root entry are in
 * parallel_commit_grouping.c, the records both read and write (root_task, birch_reroute) in
 * parallel_commit.h. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "birch/parallel_commit.h"
#include "birch/speculate_math.h"
#include "birch/speculative.h"
#include "birch/speculative_window.h"
#include "core/error.h"
#include "core/range_offsets.h"
#include "core/timer.h"

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
/* The root checks' slices of a phase (over its points, taken dynamically:
 * a core that runs slow at times on a shared host then holds up nobody). */
#define CHECK_CHUNKS 64

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

/* The next reroute at or after r that task k takes (reroute_count if none). */
static inline size_t next_reroute_to(const phase_state *phase, int32_t k, size_t r)
{
    if (phase->tasks[k].incoming == 0) return phase->reroute_count;
    while (r < phase->reroute_count && phase->reroutes[r].to != k) r++;
    return r;
}

/* Does task k's next point in input order come from reroute r rather than
 * from its own position b? (Both walks merge the two in input order.) */
static inline int reroute_comes_first(const phase_state *phase, const root_task *task, size_t r, size_t b)
{
    return r < phase->reroute_count && (b >= task->end || phase->reroutes[r].index < (size_t)phase->order[b]);
}

/* Where task k stands at window index i: its first own position and first
 * reroute at or after i, the last reroute to it before i (SIZE_MAX if none),
 * and whether its last point before i is that reroute (else its own position
 * just before `position`, if any). */
typedef struct task_cursor {
    size_t position, reroute, reroute_before;
    int last_is_reroute;
} task_cursor;

static task_cursor task_cursor_at(const phase_state *phase, int32_t k, size_t i)
{
    const root_task *task = &phase->tasks[k];
    task_cursor at = {first_at_or_after(phase->order, task->first, task->end, i), next_reroute_to(phase, k, 0),
                      SIZE_MAX, 0};
    for (; at.reroute < phase->reroute_count && phase->reroutes[at.reroute].index < i;
         at.reroute = next_reroute_to(phase, k, at.reroute + 1))
        at.reroute_before = at.reroute;
    at.last_is_reroute = at.reroute_before != SIZE_MAX &&
                         (at.position == task->first ||
                          phase->reroutes[at.reroute_before].index > (size_t)phase->order[at.position - 1]);
    return at;
}

/* Root entry k absorbs its points of the phase in input order, with the
 * serial arithmetic: its CF after each point, the squared distance each point
 * sees, and the entry's largest drift. This recurrence is sequential per
 * entry, and the largest entry's bounds the loop: square roots stay out of it
 * (the bound is monotone, so the largest drift is the bound of the largest
 * squared move; the distances' bounds are taken in the parallel root checks).
 * Points rerouted to k are absorbed at their place in input order (their CF
 * kept in the reroute); a position whose point moved away keeps the CF as it
 * was, so that a lookup landing on it still finds k's state at that time.
 * resume: SIZE_MAX runs the phase from its start; a window index resumes
 * there, from the state after k's last point before it (a reroute changed
 * k's sequence from that point on). */
static inline void prepass_entry_in(window_state *state, const birch_tree *tree, int32_t k, size_t resume,
                                    size_t dims)
{
    phase_state *phase = &state->phase;
    root_task *task = &phase->tasks[k];
    size_t slot = (size_t)tree->root * (size_t)tree->slots + (size_t)k;
    const double *mean = tree->mean + slot * dims;
    int64_t count = tree->count[slot];
    double ssd = tree->ssd[slot], largest = squared_move(state, slot, mean, dims);
    size_t r = next_reroute_to(phase, k, 0), b = task->first;
    if (resume != SIZE_MAX) {
        task_cursor at = task_cursor_at(phase, k, resume);
        b = at.position, r = at.reroute;
        if (at.last_is_reroute) {
            const birch_reroute *moved = &phase->reroutes[at.reroute_before];
            count = moved->after_count, ssd = moved->after_ssd, largest = moved->after_largest;
            mean = phase->reroute_mean + at.reroute_before * dims;
        } else if (b > task->first) {
            count = phase->after_count[b - 1], ssd = phase->after_ssd[b - 1], largest = phase->after_largest[b - 1];
            mean = phase->after_mean + (b - 1) * dims;
        }
    }
    for (;;) {
        int incoming = reroute_comes_first(phase, task, r, b);
        size_t at = incoming ? phase->reroutes[r].position : b;
        const double *x = phase->grouped_x + at * dims;
        double *next, distance, moved, new_ssd;
        if (!incoming && b >= task->end) break;
        if (!incoming && phase->grouped_leaf[b] == MOVED_AWAY) {
            phase->after_count[b] = count, phase->after_ssd[b] = ssd, phase->after_largest[b] = largest;
            memcpy(phase->after_mean + b * dims, mean, dims * sizeof(double));
            mean = phase->after_mean + b * dims;
            b++;
            continue;
        }
        next = incoming ? phase->reroute_mean + r * dims : phase->after_mean + b * dims;
        distance = birch_squared_distance_strided(x, 1, mean, dims);
        /* birch_ssd_with_point's operations, its distance shared with the check */
        new_ssd = BIRCH_ADD(ssd, BIRCH_MUL(distance, BIRCH_DIV((double)count, (double)(count + 1))));
        memcpy(next, mean, dims * sizeof(double));
        birch_absorb_point(&count, next, &ssd, new_ssd, x, 1, dims);
        moved = squared_move(state, slot, next, dims);
        if (moved > largest) largest = moved;
        if (incoming) {
            birch_reroute *in = &phase->reroutes[r];
            in->after_count = count, in->after_ssd = ssd, in->after_largest = largest;
            r = next_reroute_to(phase, k, r + 1);
        } else {
            phase->upper[b] = distance;
            phase->after_count[b] = count, phase->after_ssd[b] = ssd, phase->after_largest[b] = largest;
            b++;
        }
        mean = next;
    }
    phase->max_drift[k] = birch_distance_upper(largest, state->slack);
}

static void prepass_entry(window_state *state, const birch_tree *tree, int32_t k, size_t resume)
{
    if (tree->dims == 2) prepass_entry_in(state, tree, k, resume, 2);
    else prepass_entry_in(state, tree, k, resume, tree->dims);
}

/* Root entry k's mean just before window point i (of the phase): after its
 * last point before i (its own or one rerouted to it), or as the phase began. */
static const double *root_mean_before(const window_state *state, const birch_tree *tree, int32_t k, size_t i)
{
    const phase_state *phase = &state->phase;
    task_cursor at = task_cursor_at(phase, k, i);
    if (at.last_is_reroute) return phase->reroute_mean + at.reroute_before * tree->dims;
    if (at.position > phase->tasks[k].first) return phase->after_mean + (at.position - 1) * tree->dims;
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

/* The serial closest_entry of the root for point i (x) on the entries'
 * states at its time: the first entry at the smallest distance. */
static int32_t root_choice_serial(const window_state *state, const birch_tree *tree, const double *x, size_t i)
{
    int32_t best = 0;
    double best_distance = INFINITY;
    for (int32_t f = 0; f < tree->entry_count[tree->root]; f++) {
        double d = birch_squared_distance_strided(x, 1, root_mean_before(state, tree, f, i), tree->dims);
        if (d < best_distance) best_distance = d, best = f;
    }
    return best;
}

/* What a round of root checks must look at: round 0 checks every point of
 * the phase; after a point was rerouted from entry `moved_from` to
 * `moved_to`, only the points after it (`after`) can have changed, and of
 * those, points of other entries that passed already need only be compared
 * with the two entries whose CF sequences changed. */
typedef struct check_round {
    size_t after;       /* window index of the last reroute (SIZE_MAX: round 0) */
    int32_t moved_from, moved_to;
    double moved_drift; /* the larger of the two changed entries' largest drifts */
    double first_drift, second_drift; /* the largest drifts of the root entries in the phase */
    int32_t loudest;    /* whose is first_drift */
} check_round;

/* The full check of point i (position b) of entry k's group. Cheap test
 * first: its entry as it is then, every other entry at its largest drift of
 * the phase; when that fails, the exact comparison. */
static int root_check_full(const window_state *state, const birch_tree *tree, const check_round *round, int32_t k,
                           size_t b, size_t i)
{
    const phase_state *phase = &state->phase;
    double others = k == round->loudest ? round->second_drift : round->first_drift;
    return birch_distance_upper(phase->upper[b], state->slack) + others < phase->grouped_runner_up[b] ||
           root_choice_exact(state, tree, phase->grouped_x + b * tree->dims, i, k);
}

/* Point i (position b) of entry k passed against every entry; does entry f,
 * whose CF sequence changed, now beat k? (The exact comparison; ties go to
 * the first entry.) */
static int beaten_by(const window_state *state, const birch_tree *tree, int32_t k, size_t b, size_t i, int32_t f)
{
    const phase_state *phase = &state->phase;
    double d = birch_squared_distance_strided(phase->grouped_x + b * tree->dims, 1, root_mean_before(state, tree, f, i),
                                              tree->dims);
    return d < phase->upper[b] || (d == phase->upper[b] && f < k);
}

/* The earliest point among the phase's flat positions [begin, end) (the
 * tasks' points laid end to end, each task's in input order) whose serial
 * root choice differs from the one it is grouped by (to if none); each
 * checked point's verdict goes to root_ok for the next round. Over points,
 * not root entries: the largest entry's points no longer bound the loop. */
static size_t first_root_failure(window_state *state, const birch_tree *tree, size_t begin, size_t end, size_t to,
                                 const check_round *round)
{
    phase_state *phase = &state->phase;
    size_t fail = to, u = begin;
    for (int32_t k = 0; u < end; k++) {
        const root_task *task = &phase->tasks[k];
        size_t segment_end = task->flat_end < end ? task->flat_end : end, b;
        int changed = k == round->moved_from || k == round->moved_to;
        if (u >= task->flat_end) continue;
        b = task->end - (task->flat_end - u);
        if (round->after != SIZE_MAX) { /* earlier points keep their verdict */
            size_t later = first_at_or_after(phase->order, b, task->end - (task->flat_end - segment_end),
                                             round->after + 1);
            u += later - b, b = later;
        }
        for (; u < segment_end; u++, b++) {
            size_t i = (size_t)phase->order[b];
            int ok;
            if (phase->grouped_leaf[b] == MOVED_AWAY) continue; /* its serial root choice was taken */
            if (round->after == SIZE_MAX || changed || !phase->root_ok[b])
                ok = root_check_full(state, tree, round, k, b, i);
            else /* cheap test against the two changed entries' drifts alone, else exact */
                ok = birch_distance_upper(phase->upper[b], state->slack) + round->moved_drift <
                         phase->grouped_runner_up[b] ||
                     (!beaten_by(state, tree, k, b, i, round->moved_from) &&
                      !beaten_by(state, tree, k, b, i, round->moved_to));
            phase->root_ok[b] = (uint8_t)ok;
            if (!ok && i < fail) fail = i;
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

/* The serial insertion of x below the subtree's top inside a task, its moves
 * recorded; 0 (nothing changed) when it would split a node. */
static inline int insert_in_subtree(window_state *state, birch_tree *tree, int32_t top, const double *x, int32_t *path,
                                    size_t *new_entries, size_t dims)
{
    size_t levels;
    int fresh;
    if (!birch_tree_insert_below(tree, top, x, path, &levels, &fresh)) return 0;
    for (size_t l = 0; l < levels; l++) track_move(state, tree, (size_t)path[l], dims);
    *new_entries += (size_t)fresh;
    return 1;
}

/* Root entry k's points before `limit` commit inside its subtree, in input
 * order, as the serial insertion would; stops before a point that would
 * split. Points rerouted to k join in input order (inserted serially: their
 * speculated leaf lies in another subtree); positions whose point moved away
 * are passed over. Records the root entry's CF after the last committed point. */
static inline size_t commit_subtree_in(window_state *state, birch_tree *tree, int32_t k, size_t limit, size_t dims)
{
    phase_state *phase = &state->phase;
    root_task *task = &phase->tasks[k];
    int32_t top = tree->child[(size_t)tree->root * (size_t)tree->slots + (size_t)k];
    int32_t *path = phase->paths + (size_t)k * path_stride(state->height);
    /* counted locally: neighbouring tasks' records share cache lines */
    size_t b = task->first, r = next_reroute_to(phase, k, 0), stop = SIZE_MAX, direct = 0, serial = 0;
    size_t new_entries = 0;
    task->last_index = SIZE_MAX;
    for (;;) {
        int incoming = reroute_comes_first(phase, task, r, b);
        size_t i, slot;
        const double *x;
        if (incoming) {
            const birch_reroute *moved = &phase->reroutes[r];
            if (moved->index >= limit) break;
            if (!insert_in_subtree(state, tree, top, phase->grouped_x + moved->position * dims, path, &new_entries,
                                   dims)) {
                stop = moved->index;
                break;
            }
            serial++;
            task->last_index = moved->index, task->last_count = moved->after_count, task->last_ssd = moved->after_ssd;
            task->last_mean = phase->reroute_mean + r * dims;
            r = next_reroute_to(phase, k, r + 1);
            continue;
        }
        if (b >= task->end) break;
        i = (size_t)phase->order[b];
        if (i >= limit) break;
        if (phase->grouped_leaf[b] == MOVED_AWAY) { /* committed by the task it moved to */
            b++;
            continue;
        }
        slot = (size_t)phase->grouped_leaf[b];
        x = phase->grouped_x + b * dims;
        if (speculation_holds(state, tree, x, phase->grouped_runner_up + b, slot, 1, dims) &&
            absorb_along_path(state, tree, x, slot, top, dims))
            direct++;
        else if (insert_in_subtree(state, tree, top, x, path, &new_entries, dims))
            serial++;
        else {
            stop = i;
            break;
        }
        task->last_index = i, task->last_count = phase->after_count[b], task->last_ssd = phase->after_ssd[b];
        task->last_mean = phase->after_mean + b * dims;
        b++;
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
        size_t slot = root_first + (size_t)k;
        if (task->last_index == SIZE_MAX) continue;
        tree->count[slot] = task->last_count, tree->ssd[slot] = task->last_ssd;
        memcpy(tree->mean + slot * dims, task->last_mean, dims * sizeof(double));
        tree->leaf_entries += task->new_entries;
        stats->direct += task->direct, stats->serial += task->serial;
        track_move(state, tree, slot, dims);
    }
    for (size_t r = 0; r < phase->reroute_count; r++) { /* the moves end with the phase */
        phase->grouped_leaf[phase->reroutes[r].position] = phase->reroutes[r].leaf;
        phase->tasks[phase->reroutes[r].to].incoming = 0;
    }
    phase->reroute_count = 0;
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
    return task->last_index != SIZE_MAX && task->last_index > stop;
}

/* Root entry k's commit of the phase, its subtree saved first (to redo it). */
static void commit_task(window_state *state, birch_tree *tree, int32_t k, size_t fail)
{
    phase_state *phase = &state->phase;
    if (phase->tasks[k].end > phase->tasks[k].first || next_reroute_to(phase, k, 0) < phase->reroute_count)
        move_subtree(state, tree, k, 1); /* else nothing to redo */
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

/* Window point i failed its root check: its serial root choice differs from
 * the speculation. It moves to the task of that choice; both tasks'
 * pre-passes must then be resumed at i (their CF sequences changed from i
 * on; nothing before i did, so every earlier check still holds). Refused
 * (0) when the phase holds MAX_REROUTES already: the phase then stops at i
 * as before. */
static int reroute_point(window_state *state, const birch_tree *tree, size_t i)
{
    phase_state *phase = &state->phase;
    int32_t from = phase->root_entry[i], to;
    const root_task *task = &phase->tasks[from];
    size_t b;
    birch_reroute *moved;
    if (phase->reroute_count == MAX_REROUTES ||
        (phase->reroute_count > 0 && phase->reroutes[phase->reroute_count - 1].index >= i))
        return 0; /* (failures come in input order: each is after the reroutes before it) */
    b = first_at_or_after(phase->order, task->first, task->end, i);
    to = root_choice_serial(state, tree, phase->grouped_x + b * tree->dims, i);
    if (to == from) return 0;
    moved = &phase->reroutes[phase->reroute_count++];
    moved->index = i, moved->position = b, moved->from = from, moved->to = to, moved->leaf = phase->grouped_leaf[b];
    phase->grouped_leaf[b] = MOVED_AWAY;
    phase->tasks[to].incoming++;
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
    size_t stop = to, round_fail[2] = {to, to};
    int rerouted = 0;
    double started;
    birch_select_phase_points(phase, m, from, to);
    order_by_size(phase, m);
    started = parac_now_seconds();
    /* Between the loops, what every thread needs next (the largest drifts, the
       stop point) is small, and each thread derives it itself from the loop's
       results instead of waiting for one thread's `single`. */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        check_round round = {SIZE_MAX, -1, -1, 0.0, 0.0, 0.0, 0};
        size_t phase_end, fail;
        int redone_here = 0, owned = m <= omp_get_num_threads(), parity = 0;
        FOR_EACH_ROOT_ENTRY(owned, m, phase->by_size, k, prepass_entry(state, tree, k, SIZE_MAX));
        /* root checks; a failure is rerouted (one thread), the two changed
           pre-passes resumed at it (two threads) and the points after it
           checked again, until none fails or a reroute is refused.
           round_fail alternates: a slow thread may still read this round's
           while the next one's is reset. */
        for (;; parity ^= 1) {
            size_t mine = to;
            largest_drifts(phase, m, &round.first_drift, &round.second_drift, &round.loudest);
            if (round.moved_from >= 0)
                round.moved_drift = phase->max_drift[round.moved_from] > phase->max_drift[round.moved_to]
                                        ? phase->max_drift[round.moved_from]
                                        : phase->max_drift[round.moved_to];
#pragma omp for schedule(dynamic, 1) nowait
            for (int c = 0; c < CHECK_CHUNKS; c++) {
                size_t total = m > 0 ? phase->tasks[m - 1].flat_end : 0;
                size_t found = first_root_failure(state, tree, total * (size_t)c / CHECK_CHUNKS,
                                                  total * (size_t)(c + 1) / CHECK_CHUNKS, to, &round);
                if (found < mine) mine = found;
            }
#pragma omp critical(birch_root_failure)
            if (mine < round_fail[parity]) round_fail[parity] = mine;
#pragma omp barrier
            fail = round_fail[parity];
            if (fail == to) break;
#pragma omp single
            {
                rerouted = reroute_point(state, tree, fail);
                round_fail[parity ^ 1] = to;
            }
            if (!rerouted) break;
            round.after = fail;
            round.moved_from = phase->reroutes[phase->reroute_count - 1].from;
            round.moved_to = phase->reroutes[phase->reroute_count - 1].to;
#pragma omp for schedule(static, 1)
            for (int e = 0; e < 2; e++) prepass_entry(state, tree, e ? round.moved_to : round.moved_from, fail);
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
    for (size_t r = 0; r < phase->reroute_count; r++) stats->rerouted += phase->reroutes[r].index < stop;
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
    status = birch_phase_reserve(&state->phase, tree, n, state->height, threads, error);
    if (status != PARAC_OK) return status;
    birch_map_root_entries(state, tree, points, threads);
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
