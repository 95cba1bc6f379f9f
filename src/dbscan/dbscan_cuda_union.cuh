/* dbscan/dbscan_cuda_union.cuh — union: dense and compact cells linked under one point, core pairs joined
 * with the GPU union-find (cuda/union_find.cuh; dbscan_cpu.c: join_core_points), from the
 * stencil, from compact cells, or from the sparse variant's lists.
 * Included by dbscan_cuda_clusters.cu alone: the kernels are static to the file that launches them
 * (the library is built without relocatable device code). */
#ifndef PARAC_DBSCAN_CUDA_UNION_CUH
#define PARAC_DBSCAN_CUDA_UNION_CUH

#include "cuda/union_find.cuh"
#include "dbscan/dbscan_cuda_grid.cuh"

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

/* SPARSE: each core point joins the core points of the list count_neighbours_sparse left it;
 * an overflowed point joins nothing here (union_listed_walkers walks its stencil). */
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


#endif
