/* parac/birch.h — BIRCH clustering (CF tree, Ward global step, labels), also streamed.
 *
 * What it computes (scikit-learn's Birch, same parameters, same order):
 *   1. Points are inserted one by one into a CF tree. Each node holds at most
 *      `branching_factor` entries; a point descends to the closest entry
 *      (Euclidean distance to the entry's centroid) at every level and is
 *      absorbed by the closest leaf entry when that entry's radius
 *      (root-mean-square distance of its points to their mean) stays
 *      <= threshold; otherwise it starts a new entry. An overflowing node is
 *      split around its two farthest entries, entries keeping their order.
 *   2. The leaf entries ("subclusters", in leaf-chain order) are grouped by
 *      agglomerative clustering with Ward linkage into n_clusters clusters
 *      (n_clusters = 0 keeps each subcluster as a cluster; fewer subclusters
 *      than n_clusters: each subcluster is a cluster and
 *      parac_birch_too_few_subclusters() says so).
 *   3. A point's label is the cluster of its nearest subcluster centroid.
 *
 * Cluster labels are canonical: clusters are numbered 0, 1, ... in the order
 * in which they first appear along the subcluster order, so every device and
 * thread count gives the same bytes (scikit-learn numbers them differently;
 * the partition is the same).
 *
 * Insertion modes (options.batch_size):
 *   0   serial: exactly scikit-learn's insertion order and decisions (on the CPU).
 *   B>0 batched: points go in windows of at most B, each point descending in
 *       parallel (CPU threads or the GPU) to its closest leaf entry. Four
 *       schemes (options.variant):
 *       SPECULATIVE: every point of a window descends in parallel
 *         on the tree as the window began, recording at each level how much
 *         closer its chosen entry is than the runner-up; then, in input order,
 *         a point whose path no earlier point of the window could have changed
 *         by that much (drift of the entries' means is tracked, new leaf
 *         entries are compared exactly) is absorbed directly, every other point
 *         is inserted by the serial algorithm, and a node split ends the window.
 *         The tree is therefore exactly the serial one: same bytes as
 *         batch_size 0, for every B, device and thread count.
 *       SEGMENTED: each point is absorbed by the closest leaf entry of the
 *         tree as the batch began (entries in parallel, each in input order);
 *         the rest are inserted serially. Faster on many cores, but the
 *         subclusters differ from the serial ones (ARI ~0.84 against the
 *         serial labels on overlapping blobs, docs/birch.md).
 *       (HYBRID, speculative for the first batches then segmented, was removed:
 *         it was no better than segmented; it lives in dev/birch/01_hybrid.cu.)
 *       SPECULATIVE_PARALLEL (default): SPECULATIVE with its in-order commit split
 *         over the root's subtrees (points through different root entries
 *         touch disjoint subtrees; the root entries' CFs are computed ahead,
 *         and a point whose root choice cannot be proven or that would split
 *         a node commits alone). Same bytes as batch_size 0.
 *       Every variant's result depends on neither device nor thread count.
 *
 * Streaming: call parac_birch_partial_fit once per chunk (scikit-learn's
 * partial_fit): the tree persists across calls, batches never cross a call.
 * Serial and speculative: any chunking gives the tree of a single call;
 * segmented: chunks that are multiples of B do.
 *
 * Memory: the model owns its tree; every array passed in or out is
 * caller-owned. Nothing is printed; failures return a status and fill *error.
 */
#ifndef PARAC_BIRCH_H
#define PARAC_BIRCH_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PARAC_BIRCH_DEFAULT_BATCH 8192

/* How batched insertion (batch_size > 0) resolves conflicts within a batch. */
typedef enum parac_birch_variant {
    PARAC_BIRCH_SPECULATIVE = 0, /* validated speculation: exactly the serial tree */
    PARAC_BIRCH_SEGMENTED = 1,   /* stale-tree absorption per entry: approximate, fewer serial steps */
    PARAC_BIRCH_REMOVED_HYBRID = 2, /* removed (no better than SEGMENTED, docs/birch.md): now
                                       dev/birch/01_hybrid.cu; refused with INVALID_ARGUMENT. The
                                       number stays reserved */
    PARAC_BIRCH_SPECULATIVE_PARALLEL = 3 /* speculative with the commit parallel over the root's
                                            subtrees: exactly the serial tree as well (the default
                                            of parac_birch_options_init) */
} parac_birch_variant;

/* "speculative" / "segmented" / "speculative-parallel"; "hybrid" for the removed value (so a caller
 * naming it is told where it went); NULL for an unknown value. */
const char *parac_birch_variant_name(parac_birch_variant variant);
/* The variant named `name`; INVALID_ARGUMENT (naming the choices) otherwise. */
parac_status parac_birch_variant_parse(const char *name, parac_birch_variant *variant, parac_error *error);

typedef struct parac_birch_options {
    double threshold;     /* >= PARAC_BIRCH_MIN_THRESHOLD, finite: largest radius a subcluster may reach
                             (sklearn default 0.5) */
    int branching_factor; /* >= 2: most entries per node (sklearn default 50) */
    int n_clusters;       /* >= 0: clusters of the global step; 0 keeps the subclusters */
    size_t batch_size;    /* 0: serial (scikit-learn's order); B > 0: batched, see above */
    parac_exec exec;      /* device and threads (the serial mode builds its tree on one CPU thread) */
    parac_birch_variant variant; /* batched scheme, see above (ignored when batch_size is 0) */
} parac_birch_options;

/* scikit-learn's defaults (threshold 0.5, branching 50, 3 clusters), batched
 * with PARAC_BIRCH_DEFAULT_BATCH and the speculative-parallel variant, automatic
 * device, all cores. */
void parac_birch_options_init(parac_birch_options *options);

typedef struct parac_birch parac_birch; /* a CF tree and, after the global step, its clusters */

/* A model for points of `dims` coordinates. Fails with INVALID_ARGUMENT for a
 * bad option or dims == 0, NO_DEVICE when CUDA is asked for and unusable. */
parac_status parac_birch_create(const parac_birch_options *options, size_t dims, parac_birch **model,
                                parac_error *error);
void parac_birch_destroy(parac_birch *model); /* NULL is accepted */

/* Supported magnitudes. Every distance, radius and Ward height is a sum of
 * squared coordinate differences in double: with |coordinates| <= 1e100 no
 * square, sum or count-weighted sum can overflow (or become NaN), and with
 * threshold >= 1e-100 the squared threshold stays a normal double. Points
 * beyond the range fail with INVALID_ARGUMENT rather than give wrong clusters;
 * scale such data first (the clusters do not change under scaling, with the
 * threshold scaled alike). */
#define PARAC_BIRCH_MAX_COORDINATE 1e100
#define PARAC_BIRCH_MIN_THRESHOLD 1e-100

/* Inserts count points (row-major count×dims; caller-owned, only read).
 * Non-finite coordinates and coordinates beyond +-PARAC_BIRCH_MAX_COORDINATE
 * fail with INVALID_ARGUMENT naming the row (counted from the first point
 * ever inserted), before anything is inserted. Invalidates a previous global
 * step. Progress goes to options.exec.progress (points of this call); when it
 * asks to stop, the call returns PARAC_ERR_CANCELLED having inserted a prefix
 * of the points (whole batches; parac_birch_points_seen counts them). */
parac_status parac_birch_partial_fit(parac_birch *model, const double *points, size_t count, parac_error *error);

/* The global step (Ward clustering of the subcluster centroids). Needed before
 * the cluster queries and predict; cheap to call again. NO_MEMORY/UNSUPPORTED
 * when the subclusters are too many for the Ward distance matrix. On the CPU
 * progress goes to options.exec.progress (merges done of subclusters - 1);
 * when it asks to stop, the call returns PARAC_ERR_CANCELLED with no global
 * state (the tree is kept: call it again). */
parac_status parac_birch_global_step(parac_birch *model, parac_error *error);

/* What batched insertion did so far (all partial_fit calls; zeros for the
 * serial mode and the segmented variant, whose work is not split this way). */
typedef struct parac_birch_insert_stats {
    size_t windows;           /* speculation windows */
    size_t speculated;        /* parallel descents (>= points: a split wastes the rest of its window) */
    size_t direct;            /* points committed from their speculation */
    size_t serial;            /* points committed by the serial insertion */
    size_t phases;            /* SPECULATIVE_PARALLEL: parallel commit phases */
    size_t stop_points;       /* SPECULATIVE_PARALLEL: points committed alone between phases */
    size_t redone;            /* SPECULATIVE_PARALLEL: subtree commits redone past an earlier stop */
    size_t rerouted;          /* SPECULATIVE_PARALLEL: points moved in their phase to the root entry chosen serially */
    size_t critical_points;   /* SPECULATIVE_PARALLEL: sum over phases of the largest subtree's points */
    double commit_parallel_seconds; /* SPECULATIVE_PARALLEL: of commit_seconds, in the parallel loops */
    double speculate_seconds; /* wall time of the descents (GPU transfers included) */
    double commit_seconds;    /* wall time of the commits */
} parac_birch_insert_stats;

void parac_birch_get_insert_stats(const parac_birch *model, parac_birch_insert_stats *stats);

size_t parac_birch_dims(const parac_birch *model);
size_t parac_birch_points_seen(const parac_birch *model);
size_t parac_birch_subcluster_count(const parac_birch *model);
size_t parac_birch_cluster_count(const parac_birch *model);         /* after the global step */
int parac_birch_too_few_subclusters(const parac_birch *model);     /* 1: fewer subclusters than n_clusters */
parac_device parac_birch_device_used(const parac_birch *model);    /* CPU or CUDA */

/* Subclusters in leaf-chain order (scikit-learn's subcluster_centers_ order):
 * centers (m×dims), counts (m) and, after the global step, cluster (m). Any
 * output pointer may be NULL. */
parac_status parac_birch_subclusters(const parac_birch *model, double *centers, int64_t *counts, int32_t *cluster,
                                     parac_error *error);

/* Cluster centres (clusters×dims): count-weighted means of their subclusters. */
parac_status parac_birch_cluster_centers(const parac_birch *model, double *centers, parac_error *error);

/* Labels count points with the cluster of their nearest subcluster centroid
 * (ties: the first subcluster). subcluster (may be NULL) receives the index of
 * that subcluster. Needs the global step. The points are checked as in
 * partial_fit (INVALID_ARGUMENT for non-finite or too large coordinates). */
parac_status parac_birch_predict(parac_birch *model, const double *points, size_t count, int32_t *labels,
                                 int32_t *subcluster, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
