/* birch/batch.h — batched insertion, shared by the parallel CPU and CUDA paths.
 *
 * One batch: (1) every point descends, in parallel, to its closest leaf entry
 * of the tree as it stands; (2) points are grouped by entry (ascending slot,
 * input order inside a slot) and each entry absorbs its points one by one
 * while the radius test passes (entries in parallel, each sequential, so no
 * atomics and no races); (3) birch_batch_apply writes the new entries, merges
 * each entry's absorbed CF into its ancestors (ascending slot order) and
 * inserts the rejected points serially, with splits — the split phase.
 * Steps 1–2 run on the CPU (birch_batch_absorb_cpu) or the GPU; both fill a
 * birch_batch_result with bit-identical numbers, so the trees are identical.
 */
#ifndef PARAC_BIRCH_BATCH_H
#define PARAC_BIRCH_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "birch/cf_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct birch_batch_result {
    size_t capacity;        /* points per batch the buffers hold */
    size_t dims;
    size_t segment_count;   /* distinct target entries */
    int32_t *segment_slot;  /* ascending */
    int64_t *entry_count;   /* the entry after absorbing */
    double *entry_mean;     /* segment * dims */
    double *entry_ssd;
    int64_t *delta_count;   /* the CF of the points it absorbed */
    double *delta_mean;
    double *delta_ssd;
    uint8_t *absorbed;      /* per point of the batch */
    /* CPU scratch */
    int32_t *point_slot;
    int32_t *sorted_points;
    int32_t *slot_start;
    size_t slot_start_capacity;
} birch_batch_result;

parac_status birch_batch_result_init(birch_batch_result *result, size_t capacity, size_t dims, parac_error *error);
void birch_batch_result_free(birch_batch_result *result);

/* Steps 1–2 on the CPU for points[count×dims] (row-major), count <= capacity. */
parac_status birch_batch_absorb_cpu(const birch_tree *tree, const double *points, size_t count, int threads,
                                    birch_batch_result *result, parac_error *error);

/* Step 3. */
parac_status birch_batch_apply(birch_tree *tree, const double *points, size_t count, const birch_batch_result *result,
                               parac_error *error);

/* Inserts count points batch by batch on the CPU. */
parac_status birch_insert_batched_cpu(birch_tree *tree, const double *points, size_t count, size_t batch_size,
                                      int threads, parac_error *error);

#ifdef __cplusplus
}
#endif

#endif
