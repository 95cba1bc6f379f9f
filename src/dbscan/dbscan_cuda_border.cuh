/* dbscan/dbscan_cuda_border.cuh — border and labels: each point's root (a border point takes its
 * lowest-index core neighbour's; dbscan_cpu.c: assign_roots), from the stencil or the kept
 * lists, then the canonical renumbering (dbscan_canonical_labels) and the counts.
 * Included by dbscan_cuda_clusters.cu alone: the kernels are static to the file that launches them
 * (the library is built without relocatable device code). */
#ifndef PARAC_DBSCAN_CUDA_BORDER_CUH
#define PARAC_DBSCAN_CUDA_BORDER_CUH

#include "cuda/union_find.cuh"
#include "dbscan/dbscan_cuda_grid.cuh"

/* *any = 1 when some point is core (the caller zeroes it). */
__global__ static void find_any_core(const uint8_t *core, size_t n, unsigned int *any)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (__syncthreads_or(i < n && core[i]) && threadIdx.x == 0) atomicOr(any, 1u);
}

/* root_of[original index] = the set root of the point, of its lowest-index
 * core neighbour for a border point, NO_INDEX for noise. Without any core point
 * (min_samples beyond every stencil) no point walks its stencil: each walk would
 * read every candidate's core flag, nearly every pair at an eps spanning the data. */
template <typename T>
__global__ static void assign_roots(grid_view<T> view, const uint8_t *core, const uint32_t *order,
                                    uint32_t *parent, uint32_t *root_of, uint8_t *core_by_index, int any_core)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x, begin, end, best = NO_INDEX, best_position = 0;
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    if (p >= view.n) return;
    core_by_index[order[p]] = core[p];
    if (core[p]) {
        root_of[order[p]] = gpu_union_find_root(parent, p);
        return;
    }
    if (!any_core) {
        root_of[order[p]] = NO_INDEX;
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


#endif
