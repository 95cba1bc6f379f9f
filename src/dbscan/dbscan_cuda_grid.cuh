/* dbscan/dbscan_cuda_grid.cuh — what every kernel reads: launch shape, the device twins of dbscan_grid.c,
 * the sorted points and cell table (grid_view), the exact squared distance and stencil rows.
 * Included by every file of the CUDA path (through dbscan_cuda_run.cuh), each compiled on its own
 * (no relocatable device code): its helpers are static, so each file keeps its own copy, and the
 * non-template ones are [[maybe_unused]], since a file that calls none of them (dbscan_cuda.cu)
 * would otherwise get nvcc's warning #177, an error under PARAC_WERROR. Templates need neither. */
#ifndef PARAC_DBSCAN_CUDA_GRID_CUH
#define PARAC_DBSCAN_CUDA_GRID_CUH

#include <stdint.h>

#include "dbscan/dbscan_grid.h"
#include "dbscan/dbscan_internal.h"

#define THREADS 256
/* Neighbour lists (fused) hold min_samples - 2 entries: only for
 * 3 <= min_samples <= MAX_LIST_SLOTS + 2 (4 bytes each per point). */
#define MAX_LIST_SLOTS 8
#define NO_INDEX 0xffffffffu

/* Where the fused variants keep each non-core point's neighbours (found by the
 * core pass, read again by the border pass instead of a second stencil walk).
 * A non-core point has at most min_samples - 2 neighbours besides itself. */
struct neighbour_lists {
    uint32_t *near;       /* n x slots sorted positions; NULL = not kept */
    uint8_t *near_count;  /* n */
    uint32_t slots;
};

#define LIST_OVERFLOW 0xffu /* near_count of a core point whose union walks the stencil (the sparse
                               variant, dbscan_cuda_core.cuh) */

/* phase_done calls per slab: upload, index, core, union, border, download (relabel once more). */
#define GPU_PHASES 7

[[maybe_unused]] static unsigned blocks_for(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

/* ---------------------------------------------------------------- device twins of dbscan_grid.c */

[[maybe_unused]] __device__ static uint64_t grid_cell(const dbscan_grid_plan &plan, int k, double value)
{
    double position = __ddiv_rn(__dsub_rn(value, plan.origin[k]), plan.side);
    if (!(position > 0)) return 0; /* clamped before the cast, as dbscan_grid_cell */
    if (position >= (double)plan.extent[k]) return plan.extent[k] - 1;
    return (uint64_t)position;
}

[[maybe_unused]] __device__ static void key_cell(const dbscan_grid_plan &plan, uint64_t key, uint64_t *cell)
{
    for (int k = plan.dims - 1; k >= 0; k--) {
        cell[k] = key % plan.extent[k];
        key /= plan.extent[k];
    }
}

[[maybe_unused]] __device__ static int row_keys(const dbscan_grid_plan &plan, const uint64_t *cell, int row,
                                                uint64_t *first, uint64_t *last)
{
    uint64_t key = 0;
    int last_dim = plan.dims - 1;
    int64_t low, high;
    for (int k = 0; k < last_dim; k++) {
        int64_t c = (int64_t)cell[k] + plan.row_prefix[row][k];
        if (c < 0 || c >= (int64_t)plan.extent[k]) return 0;
        key = key * plan.extent[k] + (uint64_t)c;
    }
    low = (int64_t)cell[last_dim] - plan.row_half_width[row];
    high = (int64_t)cell[last_dim] + plan.row_half_width[row];
    if (low < 0) low = 0;
    if (high >= (int64_t)plan.extent[last_dim]) high = (int64_t)plan.extent[last_dim] - 1;
    *first = key * plan.extent[last_dim] + (uint64_t)low;
    *last = key * plan.extent[last_dim] + (uint64_t)high;
    return 1;
}

[[maybe_unused]] __device__ static uint32_t lower_bound_key(const uint64_t *keys, uint32_t count, uint64_t key)
{
    uint32_t low = 0, high = count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (keys[middle] < key) low = middle + 1;
        else high = middle;
    }
    return low;
}

/* What every neighbour kernel reads: the sorted points and the cell table. */
template <typename T>
struct grid_view {
    dbscan_grid_plan plan;
    const T *xs;                 /* dim x n, sorted order */
    size_t n, dim;
    double scale;                /* dbscan_distance_scale(eps): differences are compared scaled */
    double eps2;                 /* (eps * scale)^2 */
    uint32_t cells;
    const uint64_t *cell_key;    /* cells */
    const uint32_t *cell_start;  /* cells + 1 */
    const uint32_t *cell_of;     /* n: cell of each sorted point */
    const uint32_t *key_start;   /* key space + 1: first sorted point with key >= k; NULL = binary search */
};

/* Squared distance between sorted points p and q (dbscan_distance_squared):
 * scaled differences summed in coordinate order, no FMA. */
template <typename T>
__device__ static double distance_squared(const grid_view<T> &view, uint32_t p, uint32_t q)
{
    double sum = 0.0;
    for (size_t k = 0; k < view.dim; k++) {
        double difference =
            __dmul_rn(__dsub_rn((double)view.xs[k * view.n + p], (double)view.xs[k * view.n + q]), view.scale);
        sum = __dadd_rn(sum, __dmul_rn(difference, difference));
    }
    return sum;
}

/* The cells [first, end) of stencil row `row` around `coordinates`; 0 when empty. */
template <typename T>
__device__ static int row_cells(const grid_view<T> &view, const uint64_t *coordinates, int row, uint32_t *first,
                                uint32_t *end)
{
    uint64_t first_key, last_key;
    uint32_t first_cell, end_cell;
    if (view.plan.dims == 0) {
        *first = 0;
        *end = view.cells;
        return 1;
    }
    if (!row_keys(view.plan, coordinates, row, &first_key, &last_key)) return 0;
    if (view.key_start) { /* two table reads; the row's cells are those of its first and last points */
        uint32_t begin_point = view.key_start[first_key], end_point = view.key_start[last_key + 1];
        if (begin_point >= end_point) return 0;
        *first = view.cell_of[begin_point];
        *end = view.cell_of[end_point - 1] + 1;
        return 1;
    }
    first_cell = lower_bound_key(view.cell_key, view.cells, first_key);
    end_cell = first_cell;
    while (end_cell < view.cells && view.cell_key[end_cell] <= last_key) end_cell++; /* a row spans <= 5 keys */
    *first = first_cell;
    *end = end_cell;
    return first_cell < end_cell;
}

/* The point range [begin, end) of stencil row `row`; 0 when empty. */
template <typename T>
__device__ static int row_range(const grid_view<T> &view, const uint64_t *coordinates, int row, uint32_t *begin,
                                uint32_t *end)
{
    uint32_t first_cell, end_cell;
    if (view.key_start && view.plan.dims > 0) {
        uint64_t first_key, last_key;
        if (!row_keys(view.plan, coordinates, row, &first_key, &last_key)) return 0;
        *begin = view.key_start[first_key];
        *end = view.key_start[last_key + 1];
        return *begin < *end;
    }
    if (!row_cells(view, coordinates, row, &first_cell, &end_cell)) return 0;
    *begin = view.cell_start[first_cell];
    *end = view.cell_start[end_cell];
    return 1;
}

template <typename T>
__device__ static void cell_coordinates(const grid_view<T> &view, uint32_t p, uint64_t *coordinates)
{
    if (view.plan.dims > 0) key_cell(view.plan, view.cell_key[view.cell_of[p]], coordinates);
}


#endif
