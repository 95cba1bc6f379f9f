/* dbscan/dbscan_cuda_index.cuh — index build: bounds, cell keys, the gather into cell order, the cell
 * table and key table (dbscan_cpu.c: build_index).
 * Included by dbscan_cuda_index.cu alone: the kernels are static to the file that launches them
 * (the library is built without relocatable device code). */
#ifndef PARAC_DBSCAN_CUDA_INDEX_CUH
#define PARAC_DBSCAN_CUDA_INDEX_CUH

#include "dbscan/dbscan_cuda_grid.cuh"

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


#endif
