/* dbscan/dbscan_cuda_core.cuh — core counting: dense / compact cells, the core flag with early exit
 * (dbscan_cpu.c: point_is_core), the neighbour lists kept for later passes (fused, sparse).
 * Included by dbscan_cuda_cores.cu alone: the kernels are static to the file that launches them
 * (the library is built without relocatable device code). */
#ifndef PARAC_DBSCAN_CUDA_CORE_CUH
#define PARAC_DBSCAN_CUDA_CORE_CUH

#include <limits.h>

#include "dbscan/dbscan_cuda_grid.cuh"

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

/* Above this min_samples a point without lists first counts its stencil's candidates, so that it
 * can stop once too few are left (dbscan_cpu.c: point_is_core): `--min-samples 10^12`, or a large
 * fraction of n at an eps spanning the data, compared nearly every pair. Below it the walk is as
 * before (a point reaches min_samples or is a non-core point that walks everything anyway). */
#define DBSCAN_GPU_REACH_MIN 32

/* Candidates in p's stencil minus min_samples: how many may still miss before p cannot be core;
 * negative when it cannot be core at all. */
template <typename T>
__device__ static long long misses_allowed(const grid_view<T> &view, const uint64_t *coordinates, size_t min_samples)
{
    uint32_t begin, end;
    long long candidates = 0;
    for (int row = 0; row < view.plan.row_count; row++)
        if (row_range(view, coordinates, row, &begin, &end)) candidates += end - begin;
    return candidates - (long long)(min_samples < (size_t)LLONG_MAX ? min_samples : LLONG_MAX);
}

/* Core flag with early exit at min_samples, or (large min_samples, no lists) once the candidates
 * left cannot reach it; with lists, a non-core point also leaves its neighbours behind. A store
 * skipped for want of a slot means the point is core (its own distance 0 is still to come), so no
 * list overflows. */
template <typename T>
__global__ static void count_neighbours(grid_view<T> view, size_t min_samples, const uint8_t *dense, uint8_t *core,
                                        neighbour_lists lists)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, begin, end, stored = 0;
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    size_t neighbours = 0;
    long long misses_left = LLONG_MAX;
    if (p >= view.n) return;
    if (dense[view.cell_of[p]]) {
        core[p] = 1;
        return;
    }
    cell_coordinates(view, p, coordinates);
    if (!lists.near && min_samples > DBSCAN_GPU_REACH_MIN) misses_left = misses_allowed(view, coordinates, min_samples);
    for (int row = 0; row < view.plan.row_count && misses_left >= 0; row++) {
        if (!row_range(view, coordinates, row, &begin, &end)) continue;
        for (uint32_t q = begin; q < end; q++) {
            if (distance_squared(view, p, q) > view.eps2) {
                if (--misses_left < 0) break;
                continue;
            }
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
    /* every point is a candidate: see count_neighbours */
    long long misses_left = !lists.near && min_samples > DBSCAN_GPU_REACH_MIN
                                ? (long long)view.n - (long long)(min_samples < view.n ? min_samples : view.n + 1)
                                : LLONG_MAX;
    if (p < view.n && dense[0]) core[p] = 1;
    if (active && misses_left < 0) core[p] = 0, active = 0;
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
            if (sum > view.eps2) {
                if (--misses_left < 0) core[p] = 0, active = 0;
                continue;
            }
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

#endif
