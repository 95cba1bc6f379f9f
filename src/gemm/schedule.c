/* gemm/schedule.c — the two schedules of the tile-kernel DAG.
 *
 * Static: C tiles in a swizzled order — bands of GEMM_SWIZZLE_GROUP tile rows,
 * column by column inside a band — so the blocks running at one time share A
 * rows and B columns in L2; one GPU block per work item, k ascending.
 * Dynamic: the same work items sorted longest first (stable), pulled by
 * persistent workers from an atomic counter, so a few heavy C tiles (power-law
 * sparsity) start early instead of finishing last. The items, and therefore
 * the results, are the same in both: only who runs what and when differs.
 */
#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "gemm/gemm_internal.h"

/* Position p of the swizzled order -> C tile index (row * tiles_n + col). */
static int64_t swizzled_tile(int64_t p, int64_t tiles_m, int64_t tiles_n)
{
    int64_t band_tiles = (int64_t)GEMM_SWIZZLE_GROUP * tiles_n;
    int64_t band = p / band_tiles, inside = p % band_tiles;
    int64_t band_rows = tiles_m - band * GEMM_SWIZZLE_GROUP;
    if (band_rows > GEMM_SWIZZLE_GROUP) band_rows = GEMM_SWIZZLE_GROUP;
    return (band * GEMM_SWIZZLE_GROUP + inside % band_rows) * tiles_n + inside / band_rows;
}

static double work_imbalance(const parac_gemm_plan *plan)
{
    int64_t c_tiles = plan->tiles_m * plan->tiles_n;
    double mean = (double)plan->c_offsets[c_tiles] / (double)c_tiles, variance = 0.0;
    for (int64_t t = 0; t < c_tiles; t++) {
        double d = (double)(plan->c_offsets[t + 1] - plan->c_offsets[t]) - mean;
        variance += d * d;
    }
    return mean > 0.0 ? sqrt(variance / (double)c_tiles) / mean : 0.0;
}

static int64_t segments_of(const parac_gemm_plan *plan, int64_t tile)
{
    int64_t length = plan->c_offsets[tile + 1] - plan->c_offsets[tile];
    return length < plan->split_k ? (length > 0 ? length : 1) : plan->split_k;
}

static void add_items_of_tile(parac_gemm_plan *plan, int64_t tile)
{
    int64_t begin = plan->c_offsets[tile], length = plan->c_offsets[tile + 1] - begin;
    int64_t segments = segments_of(plan, tile);
    int32_t row = (int32_t)(tile / plan->tiles_n), col = (int32_t)(tile % plan->tiles_n);
    if (segments > 1) {
        gemm_reduce_item *r = &plan->reductions[plan->reduction_count++];
        r->tile_row = row;
        r->tile_col = col;
        r->first_slot = (int32_t)plan->partial_slots;
        r->slot_count = (int32_t)segments;
    }
    for (int64_t s = 0; s < segments; s++) {
        gemm_work_item *w = &plan->items[plan->item_count++];
        w->tile_row = row;
        w->tile_col = col;
        w->list_begin = (int32_t)(begin + length * s / segments);
        w->list_end = (int32_t)(begin + length * (s + 1) / segments);
        w->partial_slot = segments > 1 ? (int32_t)plan->partial_slots++ : -1;
        w->padding = 0;
    }
}

/* Stable longest-first order by counting sort on the list length (no global state needed). */
static void build_dynamic_order(parac_gemm_plan *plan, int32_t max_length)
{
    int64_t *start = calloc((size_t)max_length + 2, sizeof *start);
    if (!start) { /* fall back to the static order: still correct, only less balanced */
        for (int64_t i = 0; i < plan->item_count; i++) plan->dynamic_order[i] = (int32_t)i;
        return;
    }
    for (int64_t i = 0; i < plan->item_count; i++)
        start[max_length - (plan->items[i].list_end - plan->items[i].list_begin) + 1]++;
    for (int32_t l = 1; l <= max_length + 1; l++) start[l] += start[l - 1];
    for (int64_t i = 0; i < plan->item_count; i++)
        plan->dynamic_order[start[max_length - (plan->items[i].list_end - plan->items[i].list_begin)]++] = (int32_t)i;
    free(start);
}

parac_status gemm_schedule_build(parac_gemm_plan *plan, parac_error *error)
{
    int64_t c_tiles = plan->tiles_m * plan->tiles_n, item_total = 0, split_tiles = 0;
    int32_t max_length = 0;
    for (int64_t t = 0; t < c_tiles; t++) {
        int64_t segments = segments_of(plan, t);
        item_total += segments;
        split_tiles += segments > 1;
    }
    if (item_total > INT32_MAX) return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: more than 2^31 work items");
    plan->items = malloc((size_t)item_total * sizeof *plan->items);
    plan->dynamic_order = malloc((size_t)item_total * sizeof *plan->dynamic_order);
    plan->reductions = malloc((size_t)(split_tiles ? split_tiles : 1) * sizeof *plan->reductions);
    if (!plan->items || !plan->dynamic_order || !plan->reductions)
        return parac_fail_no_memory(error, "gemm work items", (size_t)item_total * 28);
    for (int64_t p = 0; p < c_tiles; p++) add_items_of_tile(plan, swizzled_tile(p, plan->tiles_m, plan->tiles_n));
    for (int64_t i = 0; i < plan->item_count; i++) {
        int32_t length = plan->items[i].list_end - plan->items[i].list_begin;
        if (length > max_length) max_length = length;
    }
    build_dynamic_order(plan, max_length);
    plan->info.work_imbalance = work_imbalance(plan);
    plan->schedule = plan->options.schedule;
    if (plan->schedule == PARAC_GEMM_SCHEDULE_AUTO)
        plan->schedule = plan->info.work_imbalance > 0.25 ? PARAC_GEMM_SCHEDULE_DYNAMIC : PARAC_GEMM_SCHEDULE_STATIC;
    return PARAC_OK;
}
