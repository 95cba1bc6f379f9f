/* dbscan/dbscan_cuda.cu — exact DBSCAN on one GPU, byte-identical to dbscan_cpu.c.
 *
 * Kernels (the CPU twin of each is named in its comment; one thread per point
 * unless noted, points visited in cell order so neighbouring threads read the
 * same cells):
 *   point_bounds      min/max of the grid coordinates (dbscan_cpu.c: point_bounds)
 *   cell_keys         cell key per point, identity permutation (build_index)
 *   gather_sorted     points copied in cell order, structure of arrays (build_index)
 *   cell_of_points    one thread per cell: the cell index of each of its points
 *   dense_cells       one thread per cell: >= min_samples points and diagonal <= eps (cell_is_within_eps)
 *   count_neighbours  core flag, early exit at min_samples (point_is_core)
 *   link_dense        points of a dense cell hang under its first point (join_core_points)
 *   union_core_pairs  atomicCAS union of core pairs, each pair from its lower point (join_sparse_cell)
 *   assign_roots      root per point; border points take their lowest-index core neighbour (assign_roots)
 *   min_index_of_root / mark_first / write_labels   canonical renumbering without a sort
 *                     (dbscan_canonical_labels: cluster id = rank of its lowest original index)
 * Sort, run-length encoding and scans are CUB, through cuda/cub_wrappers.h.
 *
 * Variants (parac_dbscan_gpu_variant, docs/dbscan.md): classic = fine cells
 * and a binary search per stencil row; table = fine cells and a direct
 * key -> first-point table (scatter_cell_counts + exclusive sum); coarse =
 * cells of side ~eps (3^g stencil) with the table. Same kernels throughout:
 * row_cells/row_range read the table when grid_view.key_start is set.
 * sparse (round 5) = coarse cells; count_neighbours_sparse walks the whole
 * stencil once and leaves each point the pairs its union must join
 * (union_from_lists), so only overflowed points walk again
 * (union_listed_walkers); 32-bit keys when they fit (cell_keys<T, uint32_t>, CUB u32
 * sort, mark_cell_starts/cells_from_starts instead of run-length encoding);
 * min_index by atomicMin inside the border pass (assign_roots_listed).
 *
 * Exactness: every squared distance is summed in coordinate order with
 * __dsub_rn/__dmul_rn/__dadd_rn, so nvcc cannot fuse into an FMA and each
 * value equals the CPU's bit for bit. float32 points stay float32 on the
 * device and are widened per distance, as on the CPU.
 *
 * Memory (3-D float32): the peak is the sort, about 48 bytes per point (input
 * copy 12, keys 2 x 8, permutation 2 x 4, CUB's alternate buffers); after it
 * the working set is about 45 bytes per point. No neighbour lists.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/timer.h"
#include "cuda/context.h"
#include "cuda/cub_wrappers.h"
#include "cuda/cuda_check.h"
#include "cuda/union_find.cuh"
#include "dbscan/dbscan_grid.h"
#include "dbscan/dbscan_internal.h"
#include "dbscan/dbscan_slabs.h"

#define THREADS 256
/* Neighbour lists (fused) hold min_samples - 2 entries: only for
 * 3 <= min_samples <= MAX_LIST_SLOTS + 2 (4 bytes each per point). */
#define MAX_LIST_SLOTS 8
#define NO_INDEX 0xffffffffu

/* phase_done calls per slab: upload, index, core, union, border, download (relabel once more). */
#define GPU_PHASES 7

static unsigned blocks_for(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

/* ---------------------------------------------------------------- device twins of dbscan_grid.c */

__device__ static uint64_t grid_cell(const dbscan_grid_plan &plan, int k, double value)
{
    double position = __ddiv_rn(__dsub_rn(value, plan.origin[k]), plan.side);
    if (!(position > 0)) return 0; /* clamped before the cast, as dbscan_grid_cell */
    if (position >= (double)plan.extent[k]) return plan.extent[k] - 1;
    return (uint64_t)position;
}

__device__ static void key_cell(const dbscan_grid_plan &plan, uint64_t key, uint64_t *cell)
{
    for (int k = plan.dims - 1; k >= 0; k--) {
        cell[k] = key % plan.extent[k];
        key /= plan.extent[k];
    }
}

__device__ static int row_keys(const dbscan_grid_plan &plan, const uint64_t *cell, int row, uint64_t *first,
                               uint64_t *last)
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

__device__ static uint32_t lower_bound_key(const uint64_t *keys, uint32_t count, uint64_t key)
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

/* ---------------------------------------------------------------- kernels: index */

/* Doubles as order-preserving unsigned integers, so atomicMin/Max work on them. */
__device__ static unsigned long long ordered_bits(double value)
{
    unsigned long long bits = (unsigned long long)__double_as_longlong(value);
    return (bits >> 63) ? ~bits : bits | 0x8000000000000000ull;
}

static double from_ordered_bits(unsigned long long bits)
{
    unsigned long long raw = (bits >> 63) ? bits & 0x7fffffffffffffffull : ~bits;
    double value;
    memcpy(&value, &raw, sizeof value);
    return value;
}

template <typename T>
__global__ static void point_bounds(const T *raw, size_t n, size_t dim, int dims, unsigned long long *low,
                                    unsigned long long *high)
{
    unsigned long long lo[DBSCAN_GRID_MAX_DIMS] = {~0ull, ~0ull, ~0ull}, hi[DBSCAN_GRID_MAX_DIMS] = {0, 0, 0};
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        for (int k = 0; k < dims; k++) {
            unsigned long long bits = ordered_bits((double)raw[i * dim + k]);
            lo[k] = bits < lo[k] ? bits : lo[k];
            hi[k] = bits > hi[k] ? bits : hi[k];
        }
    for (int k = 0; k < dims; k++) {
        for (int offset = 16; offset > 0; offset /= 2) {
            unsigned long long other_lo = __shfl_down_sync(0xffffffffu, lo[k], offset);
            unsigned long long other_hi = __shfl_down_sync(0xffffffffu, hi[k], offset);
            lo[k] = other_lo < lo[k] ? other_lo : lo[k];
            hi[k] = other_hi > hi[k] ? other_hi : hi[k];
        }
        if ((threadIdx.x & 31) == 0) {
            atomicMin(&low[k], lo[k]);
            atomicMax(&high[k], hi[k]);
        }
    }
}

/* Cell key and identity permutation per point. Key is uint64_t, or uint32_t for the SPARSE index
 * when the key space fits 32 bits (half the sort traffic; the caller checks plan.key_bits <= 32). */
template <typename T, typename Key>
__global__ static void cell_keys(const T *raw, size_t n, size_t dim, dbscan_grid_plan plan, Key *keys,
                                 uint32_t *order)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    uint64_t key = 0;
    if (i >= n) return;
    for (int k = 0; k < plan.dims; k++) key = key * plan.extent[k] + grid_cell(plan, k, (double)raw[i * dim + k]);
    keys[i] = (Key)key;
    order[i] = (uint32_t)i;
}

template <typename T>
__global__ static void gather_sorted(const T *raw, const uint32_t *order, size_t n, size_t dim, T *xs)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (size_t k = 0; k < dim; k++) xs[k * n + i] = raw[(size_t)order[i] * dim + k];
}

/* One thread per cell: the table entry of its key holds its point count (zero elsewhere);
 * the exclusive sum over the key space then turns counts into first positions. */
__global__ static void scatter_cell_counts(const uint64_t *cell_key, const uint32_t *cell_start, uint32_t cells,
                                           uint32_t *key_start)
{
    uint32_t cell = blockIdx.x * blockDim.x + threadIdx.x;
    if (cell < cells) key_start[cell_key[cell]] = cell_start[cell + 1] - cell_start[cell];
}

__global__ static void cell_of_points(const uint32_t *cell_start, uint32_t cells, uint32_t *cell_of)
{
    uint32_t cell = blockIdx.x * blockDim.x + threadIdx.x;
    if (cell >= cells) return;
    for (uint32_t p = cell_start[cell]; p < cell_start[cell + 1]; p++) cell_of[p] = cell;
}

/* 1 where a sorted position starts a new cell. */
__device__ static uint32_t starts_cell(const uint32_t *keys, size_t i) { return i == 0 || keys[i] != keys[i - 1]; }

__global__ static void mark_cell_starts(const uint32_t *keys, size_t n, uint32_t *starts)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) starts[i] = starts_cell(keys, i);
}

/* One thread: cells = starts before the last point + whether it starts one. */
__global__ static void count_cells(const uint32_t *keys, const uint32_t *starts_before, size_t n, uint32_t *cells)
{
    *cells = starts_before[n - 1] + starts_cell(keys, n - 1);
}

/* cell_of in place from the exclusive sum of the starts; a cell's first point
 * writes its start and key (the cell table without run-length encoding). */
__global__ static void cells_from_starts(const uint32_t *keys, size_t n, uint32_t *cell_of, uint32_t *cell_start,
                                         uint64_t *cell_key)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    uint32_t starts, cell;
    if (i >= n) return;
    starts = starts_cell(keys, i);
    cell = cell_of[i] + starts - 1;
    cell_of[i] = cell;
    if (starts) {
        cell_start[cell] = (uint32_t)i;
        cell_key[cell] = keys[i];
    }
    if (i == n - 1) cell_start[cell + 1] = (uint32_t)n;
}

/* ---------------------------------------------------------------- kernels: core, union, border */

/* Squared bounding-box diagonal of the sorted points [begin, end), in the
 * distance's own rounding: every pair inside is at most this far apart, bit
 * for bit (each rounded step is monotone), so <= eps2 means "all neighbours". */
template <typename T>
__device__ static double cell_diagonal_squared(const grid_view<T> &view, uint32_t begin, uint32_t end)
{
    double diagonal = 0.0;
    for (size_t k = 0; k < view.dim; k++) {
        const T *column = view.xs + k * view.n;
        double lo = (double)column[begin], hi = lo, extent;
        for (uint32_t i = begin + 1; i < end; i++) {
            double value = (double)column[i];
            lo = value < lo ? value : lo;
            hi = value > hi ? value : hi;
        }
        extent = __dmul_rn(__dsub_rn(hi, lo), view.scale);
        diagonal = __dadd_rn(diagonal, __dmul_rn(extent, extent));
    }
    return diagonal;
}

/* One thread per cell; the same bounding-box test as cell_is_within_eps. */
template <typename T>
__global__ static void dense_cells(grid_view<T> view, size_t min_samples, uint8_t *dense)
{
    uint32_t cell = blockIdx.x * blockDim.x + threadIdx.x, begin, end;
    if (cell >= view.cells) return;
    begin = view.cell_start[cell];
    end = view.cell_start[cell + 1];
    dense[cell] = 0;
    if (end - begin < min_samples) return;
    dense[cell] = cell_diagonal_squared(view, begin, end) <= view.eps2;
}

/* Where the fused variants keep each non-core point's neighbours (found by the
 * core pass, read again by the border pass instead of a second stencil walk).
 * A non-core point has at most min_samples - 2 neighbours besides itself. */
struct neighbour_lists {
    uint32_t *near;       /* n x slots sorted positions; NULL = not kept */
    uint8_t *near_count;  /* n */
    uint32_t slots;
};

/* Core flag with early exit at min_samples; with lists, a non-core point also
 * leaves its neighbours behind. A store skipped for want of a slot means the
 * point is core (its own distance 0 is still to come), so no list overflows. */
template <typename T>
__global__ static void count_neighbours(grid_view<T> view, size_t min_samples, const uint8_t *dense, uint8_t *core,
                                        neighbour_lists lists)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, begin, end, stored = 0;
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    size_t neighbours = 0;
    if (p >= view.n) return;
    if (dense[view.cell_of[p]]) {
        core[p] = 1;
        return;
    }
    cell_coordinates(view, p, coordinates);
    for (int row = 0; row < view.plan.row_count; row++) {
        if (!row_range(view, coordinates, row, &begin, &end)) continue;
        for (uint32_t q = begin; q < end; q++) {
            if (distance_squared(view, p, q) > view.eps2) continue;
            if (++neighbours >= min_samples) {
                core[p] = 1;
                return;
            }
            if (lists.near && q != p && stored < lists.slots) lists.near[(size_t)p * lists.slots + stored++] = q;
        }
    }
    core[p] = 0;
    if (lists.near) lists.near_count[p] = (uint8_t)stored;
}

/* Brute force (one cell) with the fused variants: the block stages `tile`
 * points at a time in shared memory (dim x tile, dynamic) and every thread
 * compares its point with them, leaving at min_samples; the block stops
 * loading tiles once all its threads are done. Same sums as count_neighbours. */
template <typename T>
__global__ static void count_neighbours_tiled(grid_view<T> view, size_t min_samples, const uint8_t *dense,
                                              uint8_t *core, neighbour_lists lists, uint32_t tile)
{
    extern __shared__ unsigned char shared_bytes[];
    T *staged = (T *)shared_bytes;
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, stored = 0;
    size_t neighbours = 0;
    int active = p < view.n && !dense[0];
    if (p < view.n && dense[0]) core[p] = 1;
    for (uint32_t base = 0; base < view.n && __syncthreads_or(active); base += tile) {
        uint32_t count = view.n - base < tile ? (uint32_t)(view.n - base) : tile;
        for (uint32_t i = threadIdx.x; i < count * view.dim; i += blockDim.x)
            staged[(i / count) * tile + i % count] = view.xs[(i / count) * view.n + base + i % count];
        __syncthreads();
        for (uint32_t j = 0; active && j < count; j++) {
            double sum = 0.0;
            for (size_t k = 0; k < view.dim; k++) {
                double difference =
                    __dmul_rn(__dsub_rn((double)view.xs[k * view.n + p], (double)staged[k * tile + j]), view.scale);
                sum = __dadd_rn(sum, __dmul_rn(difference, difference));
            }
            if (sum > view.eps2) continue;
            if (++neighbours >= min_samples) {
                core[p] = 1;
                active = 0;
            } else if (lists.near && base + j != p && stored < lists.slots) {
                lists.near[(size_t)p * lists.slots + stored++] = base + j;
            }
        }
        __syncthreads();
    }
    if (!active) return;
    core[p] = 0;
    if (lists.near) lists.near_count[p] = (uint8_t)stored;
}

__global__ static void link_dense(const uint32_t *cell_of, const uint32_t *cell_start, const uint8_t *dense,
                                  size_t n, uint32_t *parent)
{
    size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (p >= n) return;
    parent[p] = dense[cell_of[p]] ? cell_start[cell_of[p]] : (uint32_t)p;
}

/* Joins core point p to dense cell `cell` when any of its points is within eps. */
template <typename T>
__device__ static void join_dense_cell(const grid_view<T> &view, uint32_t p, uint32_t cell, uint32_t *parent)
{
    uint32_t first = view.cell_start[cell];
    if (gpu_union_find_root(parent, p) == gpu_union_find_root(parent, first)) return;
    for (uint32_t q = first; q < view.cell_start[cell + 1]; q++)
        if (distance_squared(view, p, q) <= view.eps2) {
            gpu_union_find_join(parent, p, first);
            return;
        }
}

/* Every core pair within eps is joined at least once (dbscan_cpu.c:
 * join_dense_cell / join_sparse_cell, seen from each point):
 *   sparse-sparse: from the lower sorted position;
 *   sparse-dense:  the sparse point scans the dense cell, stopping at the first hit;
 *   dense-dense:   the points of the lower cell scan the higher one;
 *   inside a dense cell: nothing, link_dense made it one set. */
template <typename T>
__device__ static void union_point_pairs(const grid_view<T> &view, const uint8_t *dense, const uint8_t *core,
                                         uint32_t p, uint32_t *parent)
{
    uint32_t first_cell, end_cell, own_cell;
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    int own_dense;
    own_cell = view.cell_of[p];
    own_dense = dense[own_cell];
    cell_coordinates(view, p, coordinates);
    for (int row = 0; row < view.plan.row_count; row++) {
        if (!row_cells(view, coordinates, row, &first_cell, &end_cell)) continue;
        for (uint32_t cell = first_cell; cell < end_cell; cell++) {
            if (dense[cell]) {
                if (cell > own_cell || (cell != own_cell && !own_dense)) join_dense_cell(view, p, cell, parent);
                continue;
            }
            if (own_dense) continue;
            for (uint32_t q = view.cell_start[cell] > p + 1 ? view.cell_start[cell] : p + 1;
                 q < view.cell_start[cell + 1]; q++)
                if (core[q] && distance_squared(view, p, q) <= view.eps2)
                    gpu_union_find_join(parent, p, q);
        }
    }
}

template <typename T>
__global__ static void union_core_pairs(grid_view<T> view, const uint8_t *dense, const uint8_t *core,
                                        uint32_t *parent)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < view.n && core[p]) union_point_pairs(view, dense, core, p, parent);
}

/* root_of[original index] = the set root of the point, of its lowest-index
 * core neighbour for a border point, NO_INDEX for noise. */
template <typename T>
__global__ static void assign_roots(grid_view<T> view, const uint8_t *core, const uint32_t *order,
                                    uint32_t *parent, uint32_t *root_of, uint8_t *core_by_index)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, begin, end, best = NO_INDEX, best_position = 0;
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    if (p >= view.n) return;
    core_by_index[order[p]] = core[p];
    if (core[p]) {
        root_of[order[p]] = gpu_union_find_root(parent, p);
        return;
    }
    cell_coordinates(view, p, coordinates);
    for (int row = 0; row < view.plan.row_count; row++) {
        if (!row_range(view, coordinates, row, &begin, &end)) continue;
        for (uint32_t q = begin; q < end; q++)
            if (core[q] && order[q] < best && distance_squared(view, p, q) <= view.eps2) {
                best = order[q];
                best_position = q;
            }
    }
    root_of[order[p]] = best == NO_INDEX ? NO_INDEX : gpu_union_find_root(parent, best_position);
}

/* ---------------------------------------------------------------- kernels: fused variants
 *
 * A *compact* cell has its bounding-box diagonal <= eps, so its core points
 * are pairwise neighbours: one set before any union (link_compact). Between
 * cells the union then needs only one core pair within eps per pair of cells,
 * found with an early exit and skipped when both are already in one set. Fine
 * cells (side eps/sqrt(g), d <= 3) are compact up to rounding; single-point
 * cells always are. Border points read the neighbour lists the core pass kept. */

/* One thread per cell: dense (all core) and compact flags. */
template <typename T>
__global__ static void compact_cells(grid_view<T> view, size_t min_samples, uint8_t *dense, uint8_t *compact)
{
    uint32_t cell = blockIdx.x * blockDim.x + threadIdx.x, begin, end;
    int within;
    if (cell >= view.cells) return;
    begin = view.cell_start[cell];
    end = view.cell_start[cell + 1];
    within = end - begin < 2 || cell_diagonal_squared(view, begin, end) <= view.eps2;
    compact[cell] = (uint8_t)within;
    dense[cell] = (uint8_t)(within && end - begin >= min_samples);
}

/* One thread per cell: its first core point, NO_INDEX when it has none. */
__global__ static void first_core_of_cells(const uint32_t *cell_start, const uint8_t *core, uint32_t cells,
                                           uint32_t *first_core)
{
    uint32_t cell = blockIdx.x * blockDim.x + threadIdx.x, p;
    if (cell >= cells) return;
    for (p = cell_start[cell]; p < cell_start[cell + 1] && !core[p]; p++) {
    }
    first_core[cell] = p < cell_start[cell + 1] ? p : NO_INDEX;
}

/* Core points of a compact cell hang under its first core point. */
__global__ static void link_compact(const uint32_t *cell_of, const uint8_t *compact, const uint8_t *core,
                                    const uint32_t *first_core, size_t n, uint32_t *parent)
{
    size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (p >= n) return;
    parent[p] = core[p] && compact[cell_of[p]] ? first_core[cell_of[p]] : (uint32_t)p;
}

/* Joins core point p to compact cell `cell` at its first core point within eps. */
template <typename T>
__device__ static void join_compact_cell(const grid_view<T> &view, const uint8_t *core, const uint32_t *first_core,
                                         uint32_t p, uint32_t cell, uint32_t *parent)
{
    uint32_t first = first_core[cell];
    if (first == NO_INDEX || gpu_union_find_root(parent, p) == gpu_union_find_root(parent, first)) return;
    for (uint32_t q = first; q < view.cell_start[cell + 1]; q++)
        if (core[q] && distance_squared(view, p, q) <= view.eps2) {
            gpu_union_find_join(parent, p, first);
            return;
        }
}

/* Every core pair within eps is joined (cells A = p's, B = q's):
 *   A == B compact: link_compact did it;     A == B loose: pairs from the lower position;
 *   both compact: p in the lower cell scans B; one compact: the loose cell's points scan it;
 *   both loose: pairs from the lower position. */
template <typename T>
__global__ static void union_compact(grid_view<T> view, const uint8_t *compact, const uint8_t *core,
                                     const uint32_t *first_core, uint32_t *parent)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, first_cell, end_cell, own_cell;
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    int own_compact;
    if (p >= view.n || !core[p]) return;
    own_cell = view.cell_of[p];
    own_compact = compact[own_cell];
    cell_coordinates(view, p, coordinates);
    for (int row = 0; row < view.plan.row_count; row++) {
        if (!row_cells(view, coordinates, row, &first_cell, &end_cell)) continue;
        for (uint32_t cell = first_cell; cell < end_cell; cell++) {
            if (compact[cell]) {
                if (cell > own_cell || (cell != own_cell && !own_compact))
                    join_compact_cell(view, core, first_core, p, cell, parent);
                continue;
            }
            if (own_compact) continue;
            for (uint32_t q = view.cell_start[cell] > p + 1 ? view.cell_start[cell] : p + 1;
                 q < view.cell_start[cell + 1]; q++)
                if (core[q] && distance_squared(view, p, q) <= view.eps2)
                    gpu_union_find_join(parent, p, q);
        }
    }
}

/* assign_roots from the kept lists: no stencil walk for non-core points. With
 * min_index (SPARSE), also min_index[root] = lowest original index of the
 * cluster (min_index_of_root's work, done here in sorted order, where a
 * point's root is a nearby position, instead of in index order, where it is anywhere). */
__global__ static void assign_roots_listed(size_t n, const uint8_t *core, const uint32_t *order, uint32_t *parent,
                                           neighbour_lists lists, uint32_t *root_of, uint8_t *core_by_index,
                                           uint32_t *min_index)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, best = NO_INDEX, best_position = 0, root = NO_INDEX;
    if (p >= n) return;
    core_by_index[order[p]] = core[p];
    if (core[p]) {
        root = gpu_union_find_root(parent, p);
    } else {
        for (uint32_t k = 0; k < lists.near_count[p]; k++) {
            uint32_t q = lists.near[(size_t)p * lists.slots + k];
            if (core[q] && order[q] < best) {
                best = order[q];
                best_position = q;
            }
        }
        if (best != NO_INDEX) root = gpu_union_find_root(parent, best_position);
    }
    root_of[order[p]] = root;
    if (min_index && root != NO_INDEX) atomicMin(&min_index[root], order[p]);
}

/* ---------------------------------------------------------------- kernels: the sparse variant
 *
 * On sparse data (a few neighbours per point) the union's stencil walk costs
 * as much as the core pass's, so the core pass does both walks' work once: it
 * walks the whole stencil (no early exit) and keeps in the point's list
 *   - a non-core point: all its neighbours but itself (at most min_samples - 2),
 *     read by the border pass (assign_roots_listed), as before;
 *   - a core point: the neighbours the union must join from it, those at a
 *     later sorted position or in a dense cell (so each sparse pair is listed
 *     once, by its lower point, and a sparse-dense pair by the sparse point,
 *     the rule union_point_pairs follows).
 * A core point with more of them than slots is marked LIST_OVERFLOW (and stops
 * walking); so is every point of a dense cell. The union then reads the lists
 * and walks the stencil (union_point_pairs) only for the overflowed points,
 * gathered into a work list so the few walkers share warps. */

#define LIST_OVERFLOW 0xffu /* near_count of a core point whose union walks the stencil */

/* Keeps the listed neighbours a core point must join: later ones and dense-cell ones. */
__device__ static uint32_t keep_joinable(uint32_t *list, uint32_t stored, uint32_t p, const uint8_t *dense,
                                         const uint32_t *cell_of)
{
    uint32_t kept = 0;
    for (uint32_t k = 0; k < stored; k++) {
        uint32_t q = list[k];
        if (q > p || dense[cell_of[q]]) list[kept++] = q;
    }
    return kept;
}

/* Core flag (p is core when it has >= min_samples - 1 neighbours besides itself)
 * and the list described above. A non-core point stores its k-th other
 * neighbour only while k <= min_samples - 2 <= slots, so it always has room. */
template <typename T>
__global__ static void count_neighbours_sparse(grid_view<T> view, size_t min_samples, const uint8_t *dense,
                                               uint8_t *core, neighbour_lists lists)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, begin, end, stored = 0, others = 0, *list;
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    int is_core = min_samples <= 1, overflow = 0;
    if (p >= view.n) return;
    list = lists.near + (size_t)p * lists.slots;
    if (dense[view.cell_of[p]]) {
        core[p] = 1;
        lists.near_count[p] = LIST_OVERFLOW;
        return;
    }
    cell_coordinates(view, p, coordinates);
    for (int row = 0; row < view.plan.row_count && !overflow; row++) {
        if (!row_range(view, coordinates, row, &begin, &end)) continue;
        for (uint32_t q = begin; q < end; q++) {
            if (q == p || distance_squared(view, p, q) > view.eps2) continue;
            others++;
            if (!is_core && (size_t)others + 1 < min_samples) {
                list[stored++] = q;
                continue;
            }
            if (!is_core) {
                is_core = 1;
                stored = keep_joinable(list, stored, p, dense, view.cell_of);
            }
            if (q < p && !dense[view.cell_of[q]]) continue;
            if (stored == lists.slots) {
                overflow = 1;
                break;
            }
            list[stored++] = q;
        }
    }
    core[p] = (uint8_t)is_core;
    lists.near_count[p] = overflow ? (uint8_t)LIST_OVERFLOW : (uint8_t)stored;
}

/* Joins each listed core point to its listed core neighbours, carrying its root
 * from one link to the next instead of finding it again. */
__global__ static void union_from_lists(size_t n, const uint8_t *core, neighbour_lists lists, uint32_t *parent)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, count, root;
    if (p >= n || !core[p]) return;
    count = lists.near_count[p];
    if (count == LIST_OVERFLOW) return;
    root = p;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t q = lists.near[(size_t)p * lists.slots + k];
        if (core[q]) root = gpu_union_find_join(parent, root, q);
    }
}

/* counter[0] += overflowed points (one atomic per block). */
__global__ static void count_overflowed(const uint8_t *near_count, size_t n, uint32_t *counter)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    int overflowed = __syncthreads_count(i < n && near_count[i] == LIST_OVERFLOW);
    if (threadIdx.x == 0 && overflowed) atomicAdd(counter, (uint32_t)overflowed);
}

/* Appends the overflowed points to `work` (one atomic per warp; order within the list does not matter:
 * the union's roots are the sets' lowest positions whatever the order of links). */
__global__ static void list_overflowed(const uint8_t *near_count, size_t n, uint32_t *work, uint32_t *counter)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int overflowed = i < n && near_count[i] == LIST_OVERFLOW;
    unsigned ballot = __ballot_sync(0xffffffffu, overflowed);
    uint32_t base = 0;
    if (lane == 0 && ballot) base = atomicAdd(counter, (uint32_t)__popc(ballot));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (overflowed) work[base + (uint32_t)__popc(ballot & ((1u << lane) - 1u))] = (uint32_t)i;
}

/* union_core_pairs for the points of the work list. */
template <typename T>
__global__ static void union_listed_walkers(grid_view<T> view, const uint8_t *dense, const uint8_t *core,
                                            const uint32_t *work, uint32_t count, uint32_t *parent)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && core[work[i]]) union_point_pairs(view, dense, core, work[i], parent);
}

/* ---------------------------------------------------------------- kernels: canonical labels */

__global__ static void min_index_of_root(const uint32_t *root_of, size_t n, uint32_t *min_index)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && root_of[i] != NO_INDEX) atomicMin(&min_index[root_of[i]], (uint32_t)i);
}

/* first[i] = 1 when point i is the lowest index of its cluster. */
__global__ static void mark_first(const uint32_t *root_of, const uint32_t *min_index, size_t n, uint32_t *first)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) first[i] = root_of[i] != NO_INDEX && min_index[root_of[i]] == (uint32_t)i;
}

/* After the exclusive sum, rank[i] is the id of the cluster whose lowest index is i. */
__global__ static void write_labels(const uint32_t *root_of, const uint32_t *min_index, const uint32_t *rank,
                                    size_t n, int32_t *labels)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    labels[i] = root_of[i] == NO_INDEX ? PARAC_DBSCAN_NOISE : (int32_t)rank[min_index[root_of[i]]];
}

/* Slabs: the sorted positions in root_of become the slab's point indices. */
__global__ static void positions_to_indices(const uint32_t *order, size_t n, uint32_t *root_of)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && root_of[i] != NO_INDEX) root_of[i] = order[root_of[i]];
}

/* counts[0] += core points, counts[1] += noise points. */
__global__ static void count_outcomes(const uint8_t *core_by_index, const int32_t *labels, size_t n,
                                      unsigned long long *counts)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    int core = __syncthreads_count(i < n && core_by_index[i]);
    int noise = __syncthreads_count(i < n && labels[i] == PARAC_DBSCAN_NOISE);
    if (threadIdx.x == 0) {
        atomicAdd(&counts[0], (unsigned long long)core);
        atomicAdd(&counts[1], (unsigned long long)noise);
    }
}

/* ---------------------------------------------------------------- host side */

typedef struct gpu_run {
    parac_cuda_context context;
    int has_context;
    size_t n, dim;
    double eps;
    size_t min_samples;
    int use_grid;
    dbscan_gpu_recipe recipe;         /* as asked (every slab starts from it) */
    parac_dbscan_gpu_variant variant; /* as resolved by choose_plan: CLASSIC, TABLE or COARSE */
    dbscan_grid_plan plan;
    void *raw;              /* input copy, row-major, until the gather */
    void *xs;               /* sorted points, dim x n */
    uint64_t *keys;         /* sorted cell keys, until the cell table exists */
    uint32_t *keys32;       /* SPARSE, keys of <= 32 bits: the same, narrower (keys stays NULL) */
    uint32_t *order;        /* sorted position -> original index */
    uint32_t cells;
    uint64_t *cell_key;
    uint32_t *cell_start;
    uint32_t *cell_of;
    uint32_t *key_start;    /* direct key table (key space + 1), NULL when binary search is used */
    uint8_t *dense, *core;
    uint32_t *parent;
    int fused;              /* TABLE_FUSED / COARSE_FUSED: compact-cell union */
    int keep_lists;         /* fused and SPARSE: neighbour lists for the border pass */
    int sparse;             /* SPARSE: the lists also carry the union's pairs (count_neighbours_sparse) */
    uint8_t *compact;       /* fused: cells */
    uint32_t *first_core;   /* fused: cells */
    neighbour_lists lists;  /* fused, when min_samples is small and memory allows; else near == NULL */
    double mark;
    parac_progress_gate *progress; /* the caller's: phases (GPU_PHASES per slab) counted between launches */
    uint64_t phases_done;
    parac_dbscan_info slab_info; /* slabs: the phase times of one slab, summed into *total_info */
    parac_dbscan_info *total_info;
} gpu_run;

#define RELEASE(run, field)                            \
    do {                                               \
        parac_cuda_free(&(run)->context, (run)->field); \
        (run)->field = NULL;                           \
    } while (0)

static void release_all(gpu_run *run)
{
    RELEASE(run, raw);
    RELEASE(run, xs);
    RELEASE(run, keys);
    RELEASE(run, keys32);
    RELEASE(run, order);
    RELEASE(run, cell_key);
    RELEASE(run, cell_start);
    RELEASE(run, cell_of);
    RELEASE(run, key_start);
    RELEASE(run, dense);
    RELEASE(run, core);
    RELEASE(run, parent);
    RELEASE(run, compact);
    RELEASE(run, first_core);
    RELEASE(run, lists.near);
    RELEASE(run, lists.near_count);
}

/* What only the stencil walks read: the border pass from lists needs none of it. */
static void release_walk_buffers(gpu_run *run)
{
    RELEASE(run, xs);
    RELEASE(run, cell_key);
    RELEASE(run, cell_start);
    RELEASE(run, cell_of);
    RELEASE(run, key_start);
    RELEASE(run, dense);
    RELEASE(run, compact);
    RELEASE(run, first_core);
}

static parac_status take(gpu_run *run, void **pointer, size_t bytes, parac_error *error)
{
    return parac_cuda_alloc(&run->context, pointer, bytes, error);
}

/* Seconds since the last phase mark, after the stream drains; then the
 * progress checkpoint between kernel launches (PARAC_ERR_CANCELLED when the
 * callback asks to stop; the caller's fail path frees the device memory). */
static parac_status phase_done(gpu_run *run, double *seconds, parac_error *error)
{
    parac_status status = parac_cuda_synchronize(&run->context, error);
    double now = parac_now_seconds();
    *seconds = now - run->mark;
    run->mark = now;
    run->phases_done++;
    if (status == PARAC_OK && parac_progress_gate_add(run->progress, 1))
        status = parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
    return status;
}

template <typename T>
static parac_status upload_points(gpu_run *run, const T *points, parac_error *error)
{
    parac_status status = PARAC_OK;
    PARAC_TRY(take(run, &run->raw, run->n * run->dim * sizeof(T), error));
    PARAC_TRY(parac_cuda_upload(&run->context, run->raw, points, run->n * run->dim * sizeof(T), error));
fail:
    return status;
}

/* Sparse data (under half a point per fine cell of the bounding box) gains from
 * coarse cells: 3^g stencil cells instead of 5^g. Dense data keeps fine cells,
 * whose dense-cell shortcut saves the pairwise work. */
#define COARSE_BELOW_OCCUPANCY 0.5

static int lists_fit(const gpu_run *run) { return run->min_samples >= 3 && run->min_samples - 2 <= MAX_LIST_SLOTS; }

/* SPARSE keeps max(min_samples - 2, 4) slots: with 4, at 3.35 expected neighbours per point
 * (100 M uniform 3-D points, eps 0.002) about 6.5 % of the core points overflow (Poisson estimate). */
#define SPARSE_MIN_SLOTS 4
static int sparse_lists_fit(const gpu_run *run) { return run->min_samples <= MAX_LIST_SLOTS + 2; }
static uint32_t sparse_slots(const gpu_run *run)
{
    return run->min_samples > SPARSE_MIN_SLOTS + 2 ? (uint32_t)(run->min_samples - 2) : SPARSE_MIN_SLOTS;
}

static parac_status choose_plan(gpu_run *run, int dims, const double *low, const double *high, parac_error *error)
{
    parac_status status = PARAC_OK;
    run->variant = run->recipe.cells;
    run->fused = run->recipe.fused;
    run->sparse = run->recipe.sparse;
    run->keep_lists = run->recipe.keep_lists;
    PARAC_TRY(dbscan_grid_plan_build(&run->plan, dims, low, high, run->eps, error));
    if (dims == 0) {
        run->variant = PARAC_DBSCAN_GPU_CLASSIC; /* one cell: nothing to look up */
        return PARAC_OK;
    }
    if (run->variant == PARAC_DBSCAN_GPU_AUTO) {
        int sparse = (double)run->n < COARSE_BELOW_OCCUPANCY * (double)dbscan_grid_key_space(&run->plan);
        run->variant = sparse ? PARAC_DBSCAN_GPU_COARSE : PARAC_DBSCAN_GPU_TABLE;
        /* SPARSE where its lists apply, else COARSE: docs/dbscan.md, "auto" */
        run->sparse = sparse && sparse_lists_fit(run);
        run->keep_lists = run->sparse;
    }
    if (run->variant == PARAC_DBSCAN_GPU_COARSE)
        PARAC_TRY(dbscan_grid_plan_build_coarse(&run->plan, dims, low, high, run->eps, error));
fail:
    return status;
}

/* The direct table costs 4 bytes per key: only when the key space is at most
 * 8 keys per point (32 bytes per point) and fits CUB's 32-bit counts. */
static int wants_key_table(const gpu_run *run)
{
    uint64_t keys = dbscan_grid_key_space(&run->plan) + 1;
    return run->variant != PARAC_DBSCAN_GPU_CLASSIC && run->plan.dims > 0 &&
           keys <= 8 * (uint64_t)run->n + (1u << 22) && keys < (1ull << 31);
}

/* key_start[k] = first sorted point whose key is >= k, built from the cell
 * table. Out of device memory, the run keeps binary search instead. */
static parac_status build_key_table(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t keys = (size_t)dbscan_grid_key_space(&run->plan) + 1;
    if (!wants_key_table(run)) return PARAC_OK;
    status = take(run, (void **)&run->key_start, keys * sizeof(uint32_t), error);
    if (status == PARAC_ERR_NO_MEMORY) {
        parac_error_clear(error);
        run->key_start = NULL;
        return PARAC_OK;
    }
    PARAC_TRY(status);
    PARAC_TRY(parac_cuda_memset(&run->context, run->key_start, 0, keys * sizeof(uint32_t), error));
    scatter_cell_counts<<<blocks_for(run->cells), THREADS, 0, (cudaStream_t)run->context.stream>>>(
        run->cell_key, run->cell_start, run->cells, run->key_start);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, run->key_start, run->key_start, keys, error));
fail:
    return status;
}

template <typename T>
static parac_status build_plan(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    int dims = run->use_grid ? (int)(run->dim < DBSCAN_GRID_MAX_DIMS ? run->dim : DBSCAN_GRID_MAX_DIMS) : 0;
    unsigned long long *bounds = NULL, host[2 * DBSCAN_GRID_MAX_DIMS];
    double low[DBSCAN_GRID_MAX_DIMS] = {0, 0, 0}, high[DBSCAN_GRID_MAX_DIMS] = {0, 0, 0};
    unsigned blocks = blocks_for(run->n);
    if (dims > 0) {
        PARAC_TRY(take(run, (void **)&bounds, sizeof host, error));
        PARAC_TRY(parac_cuda_memset(&run->context, bounds, 0xff, sizeof host / 2, error));
        PARAC_TRY(parac_cuda_memset(&run->context, bounds + DBSCAN_GRID_MAX_DIMS, 0, sizeof host / 2, error));
        if (blocks > 4096) blocks = 4096;
        point_bounds<T><<<blocks, THREADS, 0, (cudaStream_t)run->context.stream>>>(
            (const T *)run->raw, run->n, run->dim, dims, bounds, bounds + DBSCAN_GRID_MAX_DIMS);
        PARAC_CUDA_TRY_LAUNCH();
        PARAC_TRY(parac_cuda_download(&run->context, host, bounds, sizeof host, error));
        for (int k = 0; k < dims; k++) {
            low[k] = from_ordered_bits(host[k]);
            high[k] = from_ordered_bits(host[DBSCAN_GRID_MAX_DIMS + k]);
        }
    }
    PARAC_TRY(choose_plan(run, dims, low, high, error));
fail:
    parac_cuda_free(&run->context, bounds);
    return status;
}

static int sorts_32_bit_keys(const gpu_run *run)
{
    return run->sparse && run->plan.dims > 0 && run->plan.key_bits > 0 && run->plan.key_bits <= 32;
}

/* sort_points for SPARSE with keys of <= 32 bits: keys32 instead of keys. */
template <typename T>
static parac_status sort_points_32(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint32_t *keys_in = NULL, *order_in = NULL;
    PARAC_TRY(take(run, (void **)&keys_in, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&order_in, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&run->keys32, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&run->order, n * sizeof(uint32_t), error));
    cell_keys<T, uint32_t><<<blocks_for(n), THREADS, 0, stream>>>((const T *)run->raw, n, run->dim, run->plan,
                                                                   keys_in, order_in);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cub_sort_pairs_u32_u32(&run->context, keys_in, run->keys32, order_in, run->order, n,
                                           run->plan.key_bits, error));
fail:
    parac_cuda_free(&run->context, keys_in);
    parac_cuda_free(&run->context, order_in);
    return status;
}

/* Keys, sort, sorted copy of the points. */
template <typename T>
static parac_status sort_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint64_t *keys_in = NULL;
    uint32_t *order_in = NULL;
    if (sorts_32_bit_keys(run)) {
        PARAC_TRY(sort_points_32<T>(run, error));
        goto gather;
    }
    PARAC_TRY(take(run, (void **)&keys_in, n * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&order_in, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&run->keys, n * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&run->order, n * sizeof(uint32_t), error));
    cell_keys<T, uint64_t><<<blocks_for(n), THREADS, 0, stream>>>((const T *)run->raw, n, run->dim, run->plan,
                                                                   keys_in, order_in);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cub_sort_pairs_u64_u32(&run->context, keys_in, run->keys, order_in, run->order, n,
                                           run->plan.key_bits > 0 ? run->plan.key_bits : 1, error));
    parac_cuda_free(&run->context, keys_in);
    parac_cuda_free(&run->context, order_in);
    keys_in = NULL;
    order_in = NULL;
gather:
    PARAC_TRY(take(run, &run->xs, n * run->dim * sizeof(T), error));
    gather_sorted<T><<<blocks_for(n), THREADS, 0, stream>>>((const T *)run->raw, run->order, n, run->dim, (T *)run->xs);
    PARAC_CUDA_TRY_LAUNCH();
    RELEASE(run, raw);
fail:
    parac_cuda_free(&run->context, keys_in);
    parac_cuda_free(&run->context, order_in);
    return status;
}

/* build_cells from 32-bit keys: cell starts flagged, summed, scattered (three passes, no run-length encoding). */
static parac_status build_cells_32(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint32_t *cells = NULL, host_cells = 0;
    PARAC_TRY(take(run, (void **)&run->cell_of, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&cells, sizeof(uint32_t), error));
    mark_cell_starts<<<blocks_for(n), THREADS, 0, stream>>>(run->keys32, n, run->cell_of);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, run->cell_of, run->cell_of, n, error));
    count_cells<<<1, 1, 0, stream>>>(run->keys32, run->cell_of, n, cells);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(&run->context, &host_cells, cells, sizeof host_cells, error));
    run->cells = host_cells;
    PARAC_TRY(take(run, (void **)&run->cell_key, ((size_t)host_cells + 1) * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&run->cell_start, ((size_t)host_cells + 1) * sizeof(uint32_t), error));
    cells_from_starts<<<blocks_for(n), THREADS, 0, stream>>>(run->keys32, n, run->cell_of, run->cell_start,
                                                             run->cell_key);
    PARAC_CUDA_TRY_LAUNCH();
    RELEASE(run, keys32);
    PARAC_TRY(build_key_table(run, error));
fail:
    parac_cuda_free(&run->context, cells);
    return status;
}

/* Cell table from the sorted keys: unique keys, starts (exclusive sum of run lengths), cell of each point. */
static parac_status build_cells(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t n = run->n, cells = 0;
    uint64_t *unique = NULL;
    uint32_t *lengths = NULL, total = (uint32_t)n;
    if (run->keys32) return build_cells_32(run, error);
    PARAC_TRY(take(run, (void **)&unique, n * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&lengths, (n + 1) * sizeof(uint32_t), error));
    PARAC_TRY(parac_cub_run_length_encode_u64(&run->context, run->keys, unique, lengths, n, &cells, error));
    run->cells = (uint32_t)cells;
    PARAC_TRY(take(run, (void **)&run->cell_key, (cells + 1) * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&run->cell_start, (cells + 1) * sizeof(uint32_t), error));
    PARAC_CUDA_TRY(cudaMemcpyAsync(run->cell_key, unique, cells * sizeof(uint64_t), cudaMemcpyDeviceToDevice,
                                   (cudaStream_t)run->context.stream));
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, lengths, run->cell_start, cells, error));
    PARAC_TRY(parac_cuda_upload(&run->context, run->cell_start + cells, &total, sizeof total, error));
    parac_cuda_free(&run->context, unique);
    parac_cuda_free(&run->context, lengths);
    unique = NULL;
    lengths = NULL;
    RELEASE(run, keys);
    PARAC_TRY(build_key_table(run, error));
    PARAC_TRY(take(run, (void **)&run->cell_of, n * sizeof(uint32_t), error));
    cell_of_points<<<blocks_for(cells), THREADS, 0, (cudaStream_t)run->context.stream>>>(run->cell_start, run->cells,
                                                                                        run->cell_of);
    PARAC_CUDA_TRY_LAUNCH();
    /* `total` lives on this stack frame: the upload must finish before we return. */
    PARAC_TRY(parac_cuda_synchronize(&run->context, error));
fail:
    parac_cuda_free(&run->context, unique);
    parac_cuda_free(&run->context, lengths);
    return status;
}

template <typename T>
static grid_view<T> view_of(const gpu_run *run)
{
    grid_view<T> view;
    view.plan = run->plan;
    view.xs = (const T *)run->xs;
    view.n = run->n;
    view.dim = run->dim;
    view.scale = dbscan_distance_scale(run->eps);
    view.eps2 = dbscan_scaled_eps_squared(run->eps, view.scale);
    view.cells = run->cells;
    view.cell_key = run->cell_key;
    view.cell_start = run->cell_start;
    view.cell_of = run->cell_of;
    view.key_start = run->key_start;
    return view;
}

/* The listing variants keep min_samples - 2 neighbours per point when
 * lists_fit(); otherwise, or out of memory, the border pass walks the stencil
 * as the other variants do. */

static parac_status take_neighbour_lists(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    if (!run->keep_lists || !(run->sparse ? sparse_lists_fit(run) : lists_fit(run))) return PARAC_OK;
    run->lists.slots = run->sparse ? sparse_slots(run) : (uint32_t)(run->min_samples - 2);
    status = take(run, (void **)&run->lists.near_count, run->n, error);
    if (status == PARAC_OK)
        status = take(run, (void **)&run->lists.near, run->n * run->lists.slots * sizeof(uint32_t), error);
    if (status == PARAC_ERR_NO_MEMORY) { /* the border pass walks the stencil instead */
        parac_error_clear(error);
        RELEASE(run, lists.near);
        RELEASE(run, lists.near_count);
        return PARAC_OK;
    }
    return status;
}

/* Points per shared-memory tile of the brute-force count (at most THREADS, within
 * 40 KiB, so no opt-in is needed); 0 when even 32 points do not fit. */
static uint32_t tile_points(size_t dim, size_t bytes_per_value)
{
    size_t fit = (40u << 10) / (dim * bytes_per_value);
    if (fit < 32) return 0;
    return fit < THREADS ? (uint32_t)fit : THREADS;
}

template <typename T>
static parac_status mark_core_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    grid_view<T> view = view_of<T>(run);
    PARAC_TRY(take(run, (void **)&run->dense, run->cells + 1, error));
    PARAC_TRY(take(run, (void **)&run->core, run->n, error));
    PARAC_TRY(take_neighbour_lists(run, error));
    if (run->fused) {
        PARAC_TRY(take(run, (void **)&run->compact, run->cells + 1, error));
        compact_cells<T><<<blocks_for(run->cells), THREADS, 0, stream>>>(view, run->min_samples, run->dense,
                                                                         run->compact);
    } else {
        dense_cells<T><<<blocks_for(run->cells), THREADS, 0, stream>>>(view, run->min_samples, run->dense);
    }
    PARAC_CUDA_TRY_LAUNCH();
    if (run->sparse && run->lists.near) {
        count_neighbours_sparse<T><<<blocks_for(run->n), THREADS, 0, stream>>>(view, run->min_samples, run->dense,
                                                                               run->core, run->lists);
    } else if (run->fused && run->plan.dims == 0 && tile_points(run->dim, sizeof(T)) > 0) {
        uint32_t tile = tile_points(run->dim, sizeof(T));
        count_neighbours_tiled<T><<<blocks_for(run->n), THREADS, tile * run->dim * sizeof(T), stream>>>(
            view, run->min_samples, run->dense, run->core, run->lists, tile);
    } else {
        count_neighbours<T><<<blocks_for(run->n), THREADS, 0, stream>>>(view, run->min_samples, run->dense,
                                                                        run->core, run->lists);
    }
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* Fused union: compact cells become one set each, then one pair per pair of cells. */
template <typename T>
static parac_status join_compact_cells(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    PARAC_TRY(take(run, (void **)&run->first_core, (run->cells + 1) * sizeof(uint32_t), error));
    first_core_of_cells<<<blocks_for(run->cells), THREADS, 0, stream>>>(run->cell_start, run->core, run->cells,
                                                                        run->first_core);
    PARAC_CUDA_TRY_LAUNCH();
    link_compact<<<blocks_for(run->n), THREADS, 0, stream>>>(run->cell_of, run->compact, run->core, run->first_core,
                                                             run->n, run->parent);
    PARAC_CUDA_TRY_LAUNCH();
    union_compact<T><<<blocks_for(run->n), THREADS, 0, stream>>>(view_of<T>(run), run->compact, run->core,
                                                                 run->first_core, run->parent);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* SPARSE union: pairs from the lists, then the stencil walk for the overflowed points only. */
template <typename T>
static parac_status join_listed_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    uint32_t *counter = NULL, *work = NULL, walkers = 0;
    union_from_lists<<<blocks_for(run->n), THREADS, 0, stream>>>(run->n, run->core, run->lists, run->parent);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(take(run, (void **)&counter, sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_memset(&run->context, counter, 0, sizeof(uint32_t), error));
    count_overflowed<<<blocks_for(run->n), THREADS, 0, stream>>>(run->lists.near_count, run->n, counter);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(&run->context, &walkers, counter, sizeof walkers, error));
    if (walkers > 0) {
        PARAC_TRY(take(run, (void **)&work, (size_t)walkers * sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_memset(&run->context, counter, 0, sizeof(uint32_t), error));
        list_overflowed<<<blocks_for(run->n), THREADS, 0, stream>>>(run->lists.near_count, run->n, work, counter);
        PARAC_CUDA_TRY_LAUNCH();
        union_listed_walkers<T><<<blocks_for(walkers), THREADS, 0, stream>>>(view_of<T>(run), run->dense, run->core,
                                                                             work, walkers, run->parent);
        PARAC_CUDA_TRY_LAUNCH();
    }
fail:
    parac_cuda_free(&run->context, counter);
    parac_cuda_free(&run->context, work);
    return status;
}

template <typename T>
static parac_status join_core_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    PARAC_TRY(take(run, (void **)&run->parent, run->n * sizeof(uint32_t), error));
    if (run->fused) return join_compact_cells<T>(run, error);
    if (run->sparse && run->lists.near) {
        link_dense<<<blocks_for(run->n), THREADS, 0, stream>>>(run->cell_of, run->cell_start, run->dense, run->n,
                                                               run->parent);
        PARAC_CUDA_TRY_LAUNCH();
        return join_listed_points<T>(run, error);
    }
    link_dense<<<blocks_for(run->n), THREADS, 0, stream>>>(run->cell_of, run->cell_start, run->dense, run->n,
                                                           run->parent);
    PARAC_CUDA_TRY_LAUNCH();
    union_core_pairs<T><<<blocks_for(run->n), THREADS, 0, stream>>>(view_of<T>(run), run->dense, run->core,
                                                                    run->parent);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* root_of / core_by_index by original index (assign_roots): from the lists when kept. */
template <typename T>
static parac_status assign_all_roots(gpu_run *run, uint32_t *root_of, uint8_t *core_by_index, uint32_t *min_index,
                                     parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    if (run->sparse && run->lists.near) release_walk_buffers(run); /* lower peak: the lists are all it reads */
    if (run->lists.near)
        assign_roots_listed<<<blocks_for(run->n), THREADS, 0, stream>>>(run->n, run->core, run->order, run->parent,
                                                                        run->lists, root_of, core_by_index,
                                                                        min_index);
    else
        assign_roots<T><<<blocks_for(run->n), THREADS, 0, stream>>>(view_of<T>(run), run->core, run->order,
                                                                    run->parent, root_of, core_by_index);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* One slab's answer for dbscan_slabs_cluster: roots as the slab's own point indices. */
template <typename T>
static parac_status finish_slab(gpu_run *run, uint32_t *root, uint8_t *core, parac_dbscan_info *info,
                                parac_error *error)
{
    parac_status status = PARAC_OK;
    uint32_t *root_of = NULL;
    uint8_t *core_by_index = NULL;
    PARAC_TRY(take(run, (void **)&root_of, run->n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&core_by_index, run->n, error));
    PARAC_TRY(assign_all_roots<T>(run, root_of, core_by_index, NULL, error));
    positions_to_indices<<<blocks_for(run->n), THREADS, 0, (cudaStream_t)run->context.stream>>>(run->order, run->n,
                                                                                               root_of);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(phase_done(run, &info->seconds_border, error));
    PARAC_TRY(parac_cuda_download(&run->context, root, root_of, run->n * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_download(&run->context, core, core_by_index, run->n, error));
    PARAC_TRY(phase_done(run, &info->seconds_download, error));
fail:
    parac_cuda_free(&run->context, root_of);
    parac_cuda_free(&run->context, core_by_index);
    return status;
}

/* Border assignment, then the canonical labels; downloads labels and core mask. */
template <typename T>
static parac_status finish_labels(gpu_run *run, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                  parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint32_t *root_of = NULL, *min_index = NULL, *rank = NULL, last_rank = 0, last_first = 0;
    unsigned long long *counts = NULL, host_counts[2] = {0, 0};
    uint8_t *core_by_index = NULL;
    int32_t *device_labels = NULL;
    int fused_min = run->sparse && run->lists.near; /* the border pass computes min_index too */
    PARAC_TRY(take(run, (void **)&root_of, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&core_by_index, n, error));
    if (fused_min) {
        release_walk_buffers(run); /* lower peak: the border pass reads only the lists */
        PARAC_TRY(take(run, (void **)&min_index, n * sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_memset(&run->context, min_index, 0xff, n * sizeof(uint32_t), error));
    }
    PARAC_TRY(assign_all_roots<T>(run, root_of, core_by_index, min_index, error));
    PARAC_TRY(phase_done(run, &info->seconds_border, error));
    release_all(run); /* only root_of, core_by_index (and min_index) are needed from here */
    if (!fused_min) {
        PARAC_TRY(take(run, (void **)&min_index, n * sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_memset(&run->context, min_index, 0xff, n * sizeof(uint32_t), error));
        min_index_of_root<<<blocks_for(n), THREADS, 0, stream>>>(root_of, n, min_index);
        PARAC_CUDA_TRY_LAUNCH();
    }
    PARAC_TRY(take(run, (void **)&rank, n * sizeof(uint32_t), error));
    mark_first<<<blocks_for(n), THREADS, 0, stream>>>(root_of, min_index, n, rank);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(&run->context, &last_first, rank + n - 1, sizeof last_first, error));
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, rank, rank, n, error));
    PARAC_TRY(parac_cuda_download(&run->context, &last_rank, rank + n - 1, sizeof last_rank, error));
    info->clusters = (size_t)last_rank + last_first;
    PARAC_TRY(take(run, (void **)&device_labels, n * sizeof(int32_t), error));
    write_labels<<<blocks_for(n), THREADS, 0, stream>>>(root_of, min_index, rank, n, device_labels);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(take(run, (void **)&counts, sizeof host_counts, error));
    PARAC_TRY(parac_cuda_memset(&run->context, counts, 0, sizeof host_counts, error));
    count_outcomes<<<blocks_for(n), THREADS, 0, stream>>>(core_by_index, device_labels, n, counts);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(&run->context, host_counts, counts, sizeof host_counts, error));
    info->core = (size_t)host_counts[0];
    info->noise = (size_t)host_counts[1];
    info->border = n - info->core - info->noise;
    PARAC_TRY(phase_done(run, &info->seconds_relabel, error));
    PARAC_TRY(parac_cuda_download(&run->context, labels, device_labels, n * sizeof(int32_t), error));
    if (core_mask) PARAC_TRY(parac_cuda_download(&run->context, core_mask, core_by_index, n, error));
fail:
    parac_cuda_free(&run->context, root_of);
    parac_cuda_free(&run->context, min_index);
    parac_cuda_free(&run->context, rank);
    parac_cuda_free(&run->context, core_by_index);
    parac_cuda_free(&run->context, device_labels);
    parac_cuda_free(&run->context, counts);
    return status;
}

static parac_dbscan_gpu_variant variant_ran(const gpu_run *run)
{
    if (run->sparse) return PARAC_DBSCAN_GPU_SPARSE;
    if (run->fused)
        return run->variant == PARAC_DBSCAN_GPU_COARSE ? PARAC_DBSCAN_GPU_COARSE_FUSED : PARAC_DBSCAN_GPU_TABLE_FUSED;
    return run->variant; /* a lab recipe (dev/dbscan/) reports its cells */
}

/* Upload, index, core flags and union: everything before the border pass. */
template <typename T>
static parac_status cluster_core_points(gpu_run *run, const T *points, parac_dbscan_info *info, parac_error *error)
{
    parac_status status = PARAC_OK;
    run->mark = parac_now_seconds();
    PARAC_TRY(upload_points<T>(run, points, error));
    PARAC_TRY(phase_done(run, &info->seconds_upload, error));
    PARAC_TRY(build_plan<T>(run, error));
    PARAC_TRY(sort_points<T>(run, error));
    PARAC_TRY(build_cells(run, error));
    info->gpu_key_table = run->key_start != NULL;
    PARAC_TRY(phase_done(run, &info->seconds_index, error));
    PARAC_TRY(mark_core_points<T>(run, error));
    PARAC_TRY(phase_done(run, &info->seconds_core, error));
    PARAC_TRY(join_core_points<T>(run, error));
    PARAC_TRY(phase_done(run, &info->seconds_union, error));
    info->cells = run->cells;
    info->gpu_variant = variant_ran(run);
fail:
    return status;
}

template <typename T>
static parac_status run_phases(gpu_run *run, const T *points, int32_t *labels, uint8_t *core_mask,
                               parac_dbscan_info *info, parac_error *error)
{
    parac_status status = PARAC_OK;
    PARAC_TRY(cluster_core_points<T>(run, points, info, error));
    PARAC_TRY(finish_labels<T>(run, labels, core_mask, info, error));
    PARAC_TRY(phase_done(run, &info->seconds_download, error));
    info->gpu_slabs = 1;
fail:
    return status;
}

/* High-water mark of the device pool during the run (it includes CUB's temp storage). */
static void reset_peak(gpu_run *run)
{
    uint64_t zero = 0;
    cudaMemPoolSetAttribute((cudaMemPool_t)run->context.pool, cudaMemPoolAttrUsedMemHigh, &zero);
}

static uint64_t read_peak(gpu_run *run)
{
    uint64_t peak = 0;
    if (cudaMemPoolGetAttribute((cudaMemPool_t)run->context.pool, cudaMemPoolAttrUsedMemHigh, &peak) != cudaSuccess)
        return 0;
    return (uint64_t)peak;
}

/* ---------------------------------------------------------------- slabs (dbscan_slabs.h) */

static void add_phase_times(parac_dbscan_info *total, const parac_dbscan_info *slab)
{
    total->seconds_upload += slab->seconds_upload;
    total->seconds_index += slab->seconds_index;
    total->seconds_core += slab->seconds_core;
    total->seconds_union += slab->seconds_union;
    total->seconds_border += slab->seconds_border;
    total->seconds_download += slab->seconds_download;
    total->cells += slab->cells;
    total->gpu_variant = slab->gpu_variant;
    total->gpu_key_table = slab->gpu_key_table;
}

/* dbscan_slab_solver: one slab through the whole-input phases, then its roots. */
static parac_status solve_slab(void *context, const dbscan_points *slab, uint32_t *root, uint8_t *core,
                               parac_error *error)
{
    gpu_run *run = (gpu_run *)context;
    parac_status status;
    release_all(run);
    memset(&run->lists, 0, sizeof run->lists);
    memset(&run->slab_info, 0, sizeof run->slab_info);
    run->n = slab->count;
    run->cells = 0;
    if (slab->f32) {
        status = cluster_core_points<float>(run, slab->f32, &run->slab_info, error);
        if (status == PARAC_OK) status = finish_slab<float>(run, root, core, &run->slab_info, error);
    } else {
        status = cluster_core_points<double>(run, slab->f64, &run->slab_info, error);
        if (status == PARAC_OK) status = finish_slab<double>(run, root, core, &run->slab_info, error);
    }
    release_all(run);
    if (status == PARAC_OK) add_phase_times(run->total_info, &run->slab_info);
    return status;
}

/* Device bytes one point may need at the peak (an upper bound, so slabs err small):
 * input and sorted copies, keys and permutation twice, CUB scratch, key table, lists. */
static size_t bytes_per_point(const dbscan_points *points)
{
    size_t value = points->f32 ? sizeof(float) : sizeof(double);
    return 2 * points->dim * value + 96 + 4 * MAX_LIST_SLOTS + 1;
}

/* Slabs the budget asks for: max_device_bytes, else 90% of the free memory. */
static parac_status slabs_wanted(gpu_run *run, const dbscan_points *points, const parac_dbscan_options *options,
                                 size_t *wanted, parac_error *error)
{
    size_t budget = options->max_device_bytes, total = 0;
    double need;
    if (budget == 0) {
        parac_status status = parac_cuda_memory_info(&run->context, &budget, &total, error);
        if (status != PARAC_OK) return status;
        budget = budget / 10 * 9;
    }
    need = (double)points->count * (double)bytes_per_point(points) / (double)(budget > 0 ? budget : 1);
    *wanted = need > 1 ? (size_t)need + 1 : 1;
    if (options->min_gpu_slabs > *wanted) *wanted = options->min_gpu_slabs;
    return PARAC_OK;
}

/* Slabs until they fit: twice as many after each out-of-memory; NO_MEMORY once the points cut no finer. */
static parac_status run_sliced(gpu_run *run, const dbscan_points *points, size_t wanted, size_t tried,
                               int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error)
{
    for (;;) {
        dbscan_slabs slabs;
        double started = parac_now_seconds(), device_seconds;
        parac_status status = dbscan_slabs_plan(points, run->eps, wanted, &slabs, error);
        if (status != PARAC_OK) return status;
        if (slabs.slabs <= tried) {
            dbscan_slabs_free(&slabs);
            return parac_fail(error, PARAC_ERR_NO_MEMORY,
                              "dbscan: %zu points do not fit in device memory even in %zu slabs", points->count,
                              tried);
        }
        run->total_info = info;
        parac_progress_gate_set_total(run->progress, run->phases_done + GPU_PHASES * (uint64_t)slabs.slabs);
        status = dbscan_slabs_cluster(points, &slabs, solve_slab, run, labels, core_mask, info, error);
        device_seconds = info->seconds_upload + info->seconds_index + info->seconds_core + info->seconds_union +
                         info->seconds_border + info->seconds_download;
        info->seconds_relabel = parac_now_seconds() - started - device_seconds; /* plan, gather, host merge */
        tried = slabs.slabs;
        dbscan_slabs_free(&slabs);
        info->gpu_slabs = tried;
        if (status != PARAC_ERR_NO_MEMORY) return status;
        parac_error_clear(error);
        memset(info, 0, sizeof *info);
        wanted = 2 * tried;
    }
}

static parac_status run_whole(gpu_run *run, const dbscan_points *points, int32_t *labels, uint8_t *core_mask,
                              parac_dbscan_info *info, parac_error *error)
{
    parac_status status = points->f32 ? run_phases<float>(run, points->f32, labels, core_mask, info, error)
                                      : run_phases<double>(run, points->f64, labels, core_mask, info, error);
    release_all(run);
    return status;
}

/* One pass when the budget allows it, else (or when it runs out of memory) slabs. */
static parac_status run_fitting(gpu_run *run, const dbscan_points *points, const parac_dbscan_options *options,
                                int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error)
{
    size_t wanted = 1;
    parac_status status = slabs_wanted(run, points, options, &wanted, error);
    if (status != PARAC_OK) return status;
    if (wanted <= 1) {
        status = run_whole(run, points, labels, core_mask, info, error);
        if (status != PARAC_ERR_NO_MEMORY) return status;
        parac_error_clear(error);
        memset(info, 0, sizeof *info);
        wanted = 2;
    }
    return run_sliced(run, points, wanted, 1, labels, core_mask, info, error);
}

extern "C" dbscan_gpu_recipe dbscan_gpu_recipe_of(parac_dbscan_gpu_variant variant)
{
    dbscan_gpu_recipe recipe = {variant, 0, 0, 0};
    if (variant == PARAC_DBSCAN_GPU_TABLE_FUSED || variant == PARAC_DBSCAN_GPU_COARSE_FUSED) {
        recipe.cells = variant == PARAC_DBSCAN_GPU_TABLE_FUSED ? PARAC_DBSCAN_GPU_TABLE : PARAC_DBSCAN_GPU_COARSE;
        recipe.fused = recipe.keep_lists = 1;
    } else if (variant == PARAC_DBSCAN_GPU_SPARSE) {
        recipe.cells = PARAC_DBSCAN_GPU_COARSE;
        recipe.keep_lists = recipe.sparse = 1;
    }
    return recipe;
}

extern "C" parac_status dbscan_cuda(const dbscan_points *points, const parac_dbscan_options *options, int use_grid,
                                    parac_progress_gate *progress, int32_t *labels, uint8_t *core_mask,
                                    parac_dbscan_info *info, parac_error *error)
{
    dbscan_gpu_recipe recipe = dbscan_gpu_recipe_of(options->gpu_variant);
    return dbscan_cuda_recipe(points, options, &recipe, use_grid, progress, labels, core_mask, info, error);
}

extern "C" parac_status dbscan_cuda_recipe(const dbscan_points *points, const parac_dbscan_options *options,
                                           const dbscan_gpu_recipe *recipe, int use_grid, parac_progress_gate *progress,
                                           int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                           parac_error *error)
{
    gpu_run *run;
    parac_status status;
    if (points->count == 0) return PARAC_OK;
    run = (gpu_run *)calloc(1, sizeof(gpu_run));
    if (!run) return parac_fail_no_memory(error, "dbscan GPU state", sizeof(gpu_run));
    run->n = points->count;
    run->dim = points->dim;
    run->eps = options->eps;
    run->min_samples = options->min_samples;
    run->use_grid = use_grid;
    run->recipe = *recipe;
    run->progress = progress;
    parac_progress_gate_set_total(progress, GPU_PHASES);
    status = parac_cuda_context_create(options->exec.cuda_device, &run->context, error);
    if (status == PARAC_OK) {
        run->has_context = 1;
        reset_peak(run);
        status = run_fitting(run, points, options, labels, core_mask, info, error);
        release_all(run);
        info->device_bytes = read_peak(run);
        parac_cuda_context_destroy(&run->context);
    }
    free(run);
    return status;
}
