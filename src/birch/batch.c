/* birch/batch.c — batched insertion on the CPU (OpenMP) and the split phase. */
#include "birch/batch.h"

#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "core/error.h"
#include "core/threads.h"

parac_status birch_batch_result_init(birch_batch_result *result, size_t capacity, size_t dims, parac_error *error)
{
    memset(result, 0, sizeof *result);
    result->capacity = capacity, result->dims = dims;
    result->segment_slot = malloc(capacity * sizeof(int32_t));
    result->entry_count = malloc(capacity * sizeof(int64_t));
    result->entry_mean = malloc(capacity * dims * sizeof(double));
    result->entry_ssd = malloc(capacity * sizeof(double));
    result->delta_count = malloc(capacity * sizeof(int64_t));
    result->delta_mean = malloc(capacity * dims * sizeof(double));
    result->delta_ssd = malloc(capacity * sizeof(double));
    result->absorbed = malloc(capacity);
    result->point_slot = malloc(capacity * sizeof(int32_t));
    result->sorted_points = malloc(capacity * sizeof(int32_t));
    if (!result->segment_slot || !result->entry_count || !result->entry_mean || !result->entry_ssd ||
        !result->delta_count || !result->delta_mean || !result->delta_ssd || !result->absorbed ||
        !result->point_slot || !result->sorted_points) {
        birch_batch_result_free(result);
        return parac_fail_no_memory(error, "BIRCH batch", (unsigned long long)(capacity * (dims * 16 + 64)));
    }
    return PARAC_OK;
}

void birch_batch_result_free(birch_batch_result *result)
{
    free(result->segment_slot), free(result->entry_count), free(result->entry_mean), free(result->entry_ssd);
    free(result->delta_count), free(result->delta_mean), free(result->delta_ssd), free(result->absorbed);
    free(result->point_slot), free(result->sorted_points), free(result->slot_start);
    memset(result, 0, sizeof *result);
}

/* Counting sort of the batch's points by target slot (stable), giving the
 * segments. Points of an empty tree (slot -1) are left out: rejected. */
static parac_status group_by_slot(const birch_tree *tree, size_t count, birch_batch_result *result,
                                  parac_error *error)
{
    size_t slots = (size_t)tree->node_count * (size_t)tree->slots + 1, placed = 0;
    if (result->slot_start_capacity < slots) {
        int32_t *grown = realloc(result->slot_start, slots * sizeof(int32_t));
        if (!grown) return parac_fail_no_memory(error, "BIRCH batch slots", slots * sizeof(int32_t));
        result->slot_start = grown, result->slot_start_capacity = slots;
    }
    memset(result->slot_start, 0, slots * sizeof(int32_t));
    for (size_t i = 0; i < count; i++)
        if (result->point_slot[i] >= 0) result->slot_start[result->point_slot[i] + 1]++;
    result->segment_count = 0;
    for (size_t s = 0; s + 1 < slots; s++) {
        if (result->slot_start[s + 1] > 0) result->segment_slot[result->segment_count++] = (int32_t)s;
        result->slot_start[s + 1] += result->slot_start[s];
    }
    for (size_t i = 0; i < count; i++)
        if (result->point_slot[i] >= 0) result->sorted_points[result->slot_start[result->point_slot[i]]++] = (int32_t)i, placed++;
    (void)placed;
    return PARAC_OK;
}

/* One entry absorbs its points in input order while they fit. */
static void absorb_segment(const birch_tree *tree, const double *points, birch_batch_result *result,
                           size_t segment, size_t begin, size_t end)
{
    size_t dims = tree->dims, slot = (size_t)result->segment_slot[segment];
    int64_t *n = &result->entry_count[segment], *delta_n = &result->delta_count[segment];
    double *mean = result->entry_mean + segment * dims, *delta_mean = result->delta_mean + segment * dims;
    double *ssd = &result->entry_ssd[segment], *delta_ssd = &result->delta_ssd[segment];
    *n = tree->count[slot], *ssd = tree->ssd[slot], *delta_n = 0, *delta_ssd = 0.0;
    memcpy(mean, tree->mean + slot * dims, dims * sizeof(double));
    memset(delta_mean, 0, dims * sizeof(double));
    for (size_t p = begin; p < end; p++) {
        size_t point = (size_t)result->sorted_points[p];
        const double *x = points + point * dims;
        double new_ssd = birch_ssd_with_point(*n, mean, *ssd, x, 1, dims);
        result->absorbed[point] = (uint8_t)birch_radius_fits(new_ssd, *n + 1, tree->threshold_squared);
        if (!result->absorbed[point]) continue;
        birch_absorb_point(n, mean, ssd, new_ssd, x, 1, dims);
        birch_absorb_point(delta_n, delta_mean, delta_ssd, birch_ssd_with_point(*delta_n, delta_mean, *delta_ssd, x, 1, dims),
                           x, 1, dims);
    }
}

parac_status birch_batch_absorb_cpu(const birch_tree *tree, const double *points, size_t count, int threads,
                                    birch_batch_result *result, parac_error *error)
{
    parac_status status;
    threads = parac_threads_resolve(threads);
#pragma omp parallel for schedule(static, 256) num_threads(threads)
    for (size_t i = 0; i < count; i++) {
        result->point_slot[i] = birch_tree_descend(tree, points + i * tree->dims, 1);
        result->absorbed[i] = 0;
    }
    status = group_by_slot(tree, count, result, error);
    if (status != PARAC_OK) return status;
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
    for (size_t s = 0; s < result->segment_count; s++) {
        size_t slot = (size_t)result->segment_slot[s];
        size_t begin = slot == 0 ? 0 : (size_t)result->slot_start[slot - 1];
        absorb_segment(tree, points, result, s, begin, (size_t)result->slot_start[slot]);
    }
    return PARAC_OK;
}

parac_status birch_batch_apply(birch_tree *tree, const double *points, size_t count, const birch_batch_result *result,
                               parac_error *error)
{
    size_t dims = tree->dims;
    for (size_t s = 0; s < result->segment_count; s++) {
        size_t slot = (size_t)result->segment_slot[s];
        tree->count[slot] = result->entry_count[s];
        tree->ssd[slot] = result->entry_ssd[s];
        memcpy(tree->mean + slot * dims, result->entry_mean + s * dims, dims * sizeof(double));
    }
    for (size_t s = 0; s < result->segment_count; s++)
        if (result->delta_count[s] > 0)
            birch_tree_add_to_ancestors(tree, (int32_t)((size_t)result->segment_slot[s] / (size_t)tree->slots),
                                        result->delta_count[s], result->delta_mean + s * dims, result->delta_ssd[s]);
    for (size_t i = 0; i < count; i++) {
        if (result->absorbed[i]) continue;
        parac_status status = birch_tree_insert(tree, points + i * dims, 1, error);
        if (status != PARAC_OK) return status;
    }
    return PARAC_OK;
}

parac_status birch_insert_batched_cpu(birch_tree *tree, const double *points, size_t count, size_t batch_size,
                                      int threads, parac_error *error)
{
    birch_batch_result result;
    size_t capacity = batch_size < count ? batch_size : count;
    parac_status status;
    if (count == 0) return PARAC_OK;
    status = birch_batch_result_init(&result, capacity, tree->dims, error);
    for (size_t start = 0; status == PARAC_OK && start < count; start += batch_size) {
        size_t n = count - start < batch_size ? count - start : batch_size;
        const double *batch = points + start * tree->dims;
        status = birch_batch_absorb_cpu(tree, batch, n, threads, &result, error);
        if (status == PARAC_OK) status = birch_batch_apply(tree, batch, n, &result, error);
    }
    birch_batch_result_free(&result);
    return status;
}
