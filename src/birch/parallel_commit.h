/* birch/parallel_commit.h — what the parallel commit's files share (parallel_commit.c: the
 * pre-pass, the subtree commit and the phase loop; parallel_commit_grouping.c: the phase's
 * storage and the grouping of the window's points by root entry): the per-root-entry task
 * record and the record of a point rerouted to another task inside its phase. */
#ifndef PARAC_BIRCH_PARALLEL_COMMIT_H
#define PARAC_BIRCH_PARALLEL_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "birch/speculative_window.h"

/* The parallel commit's bookkeeping (see birch_commit_window_parallel). */
struct root_task {
    size_t window_first, window_end;  /* its points of the window: order[window_first..window_end) */
    size_t first, end;                /* of them, the phase's: order[first..end), input order */
    size_t done;                      /* of them committed (or passed over: moved to another task) */
    size_t incoming;                  /* points of the phase rerouted to it */
    size_t last_index;                /* window index of its last committed point, SIZE_MAX if none */
    int64_t last_count;               /* the root entry's CF after it */
    double last_ssd;
    const double *last_mean;
    size_t stop;                      /* window index of its first point that would split a node, or SIZE_MAX */
    size_t flat_end;                  /* end of its phase points when the tasks' are laid end to end */
    size_t nodes_first, nodes_end;    /* its subtree's nodes: subtree_nodes[nodes_first..nodes_end) */
    size_t direct, serial, new_entries;
};

/* A root failure handled inside its phase: window point `index`, grouped at
 * `position` of task `from` (its speculation), goes to task `to` (the serial
 * root choice at its time). Task `from` passes over the position; task `to`
 * takes the point in input order, records its root entry's CF after it, and
 * inserts it serially below its subtree's top. Phase-local: the position's
 * grouped_leaf is restored when the phase ends. */
struct birch_reroute {
    size_t index, position;
    int32_t from, to, leaf;
    int64_t after_count;
    double after_ssd, after_largest;
};

/* grouped_leaf of a position whose point moved to another task. */
#define MOVED_AWAY INT32_MIN
/* Reroutes a phase may take before its next root failure stops it as before
 * (1 M bench blobs: about 2 a phase; the uniform squares of birch.birch reach
 * it, so the stop after it is tested too). */
#define MAX_REROUTES 16

/* Each task's insertion path on cache lines of its own (written by every serial insertion). */
static inline size_t path_stride(size_t height) { return (height + 15) / 16 * 16; }

/* First position in order[low..high) holding a point >= i (order ascends there). */
static inline size_t first_at_or_after(const int32_t *order, size_t low, size_t high, size_t i)
{
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if ((size_t)order[middle] < i) low = middle + 1;
        else high = middle;
    }
    return low;
}

/* The phase's storage for `points` window points, `height` levels and `threads` threads (grown, kept
 * between windows; birch_phase_free frees it). */
parac_status birch_phase_reserve(phase_state *phase, const birch_tree *tree, size_t points, size_t height, int threads,
                                 parac_error *error);
void birch_select_phase_points(phase_state *phase, int32_t m, size_t from, size_t to);
void birch_map_root_entries(window_state *state, const birch_tree *tree, const double *points, int threads);

#endif
