/* birch/subcluster_features.h — a model's subclusters as whole CFs, to merge trees (parac-mpi birch).
 *
 * Internal (not in include/parac): the public API inserts points only. A CF is (count, mean, sum of
 * squared deviations from the mean), cf_math.h's form; CFs are additive, so the subclusters of
 * trees built on disjoint parts of the data can be inserted into one tree as entries.
 * Implemented in birch.c (the model's struct lives there).
 */
#ifndef PARAC_BIRCH_SUBCLUSTER_FEATURES_H
#define PARAC_BIRCH_SUBCLUSTER_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include <parac/birch.h>

/* The subclusters in leaf-chain order (parac_birch_subclusters' order): means (m x dims), counts
 * and ssd (m), m = parac_birch_subcluster_count. Any output may be NULL. */
void birch_model_leaf_features(const parac_birch *model, double *means, int64_t *counts, double *ssd);

/* Inserts m CFs, in order, into the model's tree (birch_tree_insert_cf: each merges into its
 * closest subcluster when the merged radius stays <= threshold, else becomes a subcluster), on the
 * host. The CFs must come from models of the same dims. points_seen grows by their counts; a
 * previous global step is dropped. INVALID_ARGUMENT for a count < 1; NO_MEMORY. */
parac_status birch_model_insert_features(parac_birch *model, const double *means, const int64_t *counts,
                                         const double *ssd, size_t m, parac_error *error);

#endif
