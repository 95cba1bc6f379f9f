/* birch/ward_requery.h — the Ward chain's repeated queries of one cluster, answered from what its
 * earlier query found.
 *
 * The chain (ward.c) asks again for the nearest cluster of each element it falls back to after a
 * merge, and its bottom element is asked after nearly every merge. On a threshold far below the
 * data's spread (a subcluster per point) that bottom is a large cluster, whose Ward neighbourhood
 * spans thousands of small clusters: in 300,000 uniform 2-D points, 17% of the queries came from
 * clusters of 256 to 4,096 points and read 90% of the tree's clusters.
 *
 * So a cluster asked twice at the same chain position (whose first query was expensive: ward.c
 * decides) keeps its k nearest (by the tree) and from
 * then on the clusters that merges have changed since: the answer is the least of those still as
 * they were when measured, provided it is not above the k-th nearest of the build (every cluster
 * not kept and unchanged since is above that one). Each distance is birch_ward_squared of the
 * same two unchanged clusters, so the answer is the tree's, bit for bit; when the proof fails, the
 * chain queries the tree again and the cluster keeps its new k nearest.
 */
#ifndef PARAC_BIRCH_WARD_REQUERY_H
#define PARAC_BIRCH_WARD_REQUERY_H

#include <stddef.h>
#include <stdint.h>

#include "birch/ward.h"
#include "birch/ward_tree.h"

/* The centroid space as the kept answers read it. */
typedef struct ward_history {
    const double *centers;
    const int64_t *size;      /* 0: merged away */
    size_t dims;
    const size_t *changed_at; /* merges done when each cluster last changed (0: never) */
    const birch_merge *merges; /* merges[j].b: the cluster merge j changed (it keeps the larger id) */
    size_t step;              /* merges done */
} ward_history;

typedef struct ward_requery ward_requery;

/* Kept answers for the chain's first `depth` positions; NULL when out of memory. */
ward_requery *ward_requery_new(size_t depth);
void ward_requery_free(ward_requery *requery);

typedef enum ward_requery_result {
    WARD_REQUERY_ANSWERED, /* *answer is the nearest live cluster other than x */
    WARD_REQUERY_ASK_ONE,  /* query the tree for the nearest */
    WARD_REQUERY_ASK_K     /* query the tree for the WARD_REQUERY_K nearest and ward_requery_keep them */
} ward_requery_result;

#define WARD_REQUERY_K 32

/* The nearest cluster of x, the chain's element at `position`, if what was kept proves it. */
ward_requery_result ward_requery_answer(ward_requery *requery, const ward_history *history, size_t position,
                                        size_t x, ward_candidate *answer);

/* Keeps x's nearest from the tree, ascending, as of history->step: the k least (k <= WARD_REQUERY_K)
 * or, when count < k, every live cluster other than x. */
void ward_requery_keep(ward_requery *requery, const ward_history *history, size_t position, size_t x,
                       const ward_candidate *nearest, size_t count, size_t k);

#endif
