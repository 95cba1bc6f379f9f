/* birch/speculative.h — batched insertion by validated speculation.
 *
 * The classic way to make a parallel execution equal the sequential one:
 * speculate in parallel, validate in order, redo what failed.
 *   1. Speculate (parallel, CPU threads or GPU): every point of a window
 *      descends on the tree as the window began and records its leaf slot
 *      and, per level, its margin (speculate_math.h).
 *   2. Commit (in input order, one thread): a point is valid when, on every
 *      node of its path, no entry has drifted (moved its mean) by half the
 *      margin since the window began, and no leaf entry created since then is
 *      closer. A valid point is absorbed along its path exactly as the serial
 *      insertion would (same arithmetic, same order); any other point, and a
 *      valid one that does not fit its leaf entry, goes through the serial
 *      insertion (birch_tree_insert). Entry drifts are summed as points move
 *      the means. A node split ends the window: the next window speculates
 *      on the new tree.
 * Every step keeps the tree equal to the serial one, so the result is the
 * serial tree, bit for bit, whatever the window size, device or threads.
 * Cost: the parallel descents plus an O(depth × dims) commit per point, plus
 * a serial insertion for the few invalid points.
 *
 * Parallel commit (variant speculative-parallel): points that pass through
 * different entries of the root change disjoint subtrees, so a window's
 * points are grouped by their speculated root entry and each group commits in
 * input order inside its own subtree, the groups in parallel. What they share
 * is decided up front: a root entry absorbs every point that passes through
 * it, so its CF sequence over the window is fixed once the root choices are;
 * a pre-pass computes it, checks each point's root choice against the other
 * entries' largest drift over the window (conservative), and marks the first
 * failure. A group stops before a point that would split a node. Everything
 * before the earliest stop commits in parallel (groups that ran past it are
 * restored and redone), the stop point commits alone as in the serial
 * commit, and the next phase starts after it. The tree stays the serial one.
 */
#ifndef PARAC_BIRCH_SPECULATIVE_H
#define PARAC_BIRCH_SPECULATIVE_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "birch/cf_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Step 1 for n row-major points on `tree` (height levels): leaf_slot[i] and
 * margins[level * n + i]. `context` is the speculator's own (threads, GPU). */
typedef parac_status (*birch_speculate_fn)(void *context, const birch_tree *tree, const double *points, size_t n,
                                           size_t height, int32_t *leaf_slot, double *margins, parac_error *error);

/* The CPU speculator (speculate_cpu.c); context points to an int thread count (0 = all cores). */
parac_status birch_speculate_cpu(void *context, const birch_tree *tree, const double *points, size_t n, size_t height,
                                 int32_t *leaf_slot, double *margins, parac_error *error);

/* The first point of range r of `ranges` over a window of n points: the CPU
 * speculator's chunks and the parallel commit's grouping ranges. */
size_t birch_speculation_range(size_t n, int r, int ranges);

/* Levels from the root to the leaves (the tree is height-balanced). */
size_t birch_tree_height(const birch_tree *tree);

typedef struct birch_speculative_stats {
    size_t windows;   /* speculation rounds */
    size_t direct;    /* points committed from their speculation */
    size_t serial;    /* points inserted by the serial algorithm */
    size_t speculated;/* descents done in step 1 (>= points: a split wastes the window's rest) */
    size_t phases;    /* parallel commit phases (parallel commit only) */
    size_t stops;     /* stop points committed alone between phases (parallel commit only) */
    size_t redone;    /* subtree commits redone because another subtree stopped earlier */
    size_t rerouted;  /* points moved within their phase to the root entry their serial insertion chose */
    size_t critical;  /* sum over phases of the largest subtree's points (the commit's critical path) */
    double parallel_seconds; /* of commit_seconds: in the parallel loops (pre-pass and subtree commits) */
    double speculate_seconds, commit_seconds;
} birch_speculative_stats;

/* How the commit runs: commit_threads 0 = in input order on one thread (the
 * original scheme); >= 1 = the parallel commit over the root's subtrees on
 * that many threads (1 runs the same phases on one thread). */
typedef struct birch_commit_mode {
    int parallel;
    int threads;
} birch_commit_mode;

/* Inserts count row-major points with windows of at most max_window points.
 * stats (may be NULL) is added to. */
parac_status birch_insert_speculative(birch_tree *tree, const double *points, size_t count, size_t max_window,
                                      birch_speculate_fn speculate, void *context, birch_commit_mode commit,
                                      birch_speculative_stats *stats, parac_error *error);

#ifdef __cplusplus
}
#endif

#endif
