/* gemm/gemm_launch.cuh — the one launch helper of gemm's work-item kernels, and the dynamic
 * queue's pull (included by gemm_cuda.cu, gemm_wgmma.cu, gemm_wgmma_tma.cu and dev/gemm/).
 *
 * Every tile kernel family (base FFMA and mma.sync, N256, BK32, wgmma, wgmma_tma) runs its work
 * items either one block per item (the static, swizzled order) or in resident blocks: as many
 * as fit on the GPU at once (occupancy x SMs, at most one per item), pulling items from the
 * plan's queue (dynamic) or striding the static order (wgmma_tma). gemm_launch_items is that
 * grid computation, the shared-memory attributes, the queue counter's reset, the launch on the
 * plan's stream and its error check, written once. */
#ifndef PARAC_GEMM_LAUNCH_CUH
#define PARAC_GEMM_LAUNCH_CUH

#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "gemm/gemm_kernels.cuh"

/* How a work-item kernel is launched. */
typedef struct gemm_grid {
    int resident;             /* 1: occupancy-sized grid; 0: one block per item */
    unsigned int *counter;    /* the queue's counter, zeroed before the launch; NULL: none */
    int threads;
    size_t shared_bytes;      /* dynamic shared memory per block */
    int max_shared_carveout;  /* 1: the whole unified L1/shared array as shared memory */
    int item_count;
    int multiprocessors;
    cudaStream_t stream;
} gemm_grid;

/* The grid of a kernel that runs g's items: resident (the queue, counter zeroed) when dynamic,
 * else one block per item. */
static inline gemm_grid gemm_items_grid(const gemm_args &g, int dynamic, int threads, size_t shared_bytes,
                                        int multiprocessors, cudaStream_t stream)
{
    gemm_grid grid = {dynamic, dynamic ? g.counter : NULL, threads, shared_bytes, 0, g.item_count, multiprocessors,
                      stream};
    return grid;
}

template <typename... Params, typename... Args>
static parac_status gemm_launch_items(void (*kernel)(Params...), const gemm_grid &grid, parac_error *error,
                                      Args... args)
{
    parac_status status = PARAC_OK;
    long long blocks = grid.item_count;
    int per_sm = 0;
    if (grid.item_count == 0) return PARAC_OK;
    PARAC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)grid.shared_bytes));
    if (grid.max_shared_carveout)
        PARAC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            (int)cudaSharedmemCarveoutMaxShared));
    if (grid.resident) {
        PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, grid.threads, grid.shared_bytes));
        blocks = (long long)(per_sm < 1 ? 1 : per_sm) * grid.multiprocessors;
        if (blocks > grid.item_count) blocks = grid.item_count;
    }
    if (grid.counter) PARAC_CUDA_TRY(cudaMemsetAsync(grid.counter, 0, sizeof(unsigned int), grid.stream));
    kernel<<<(unsigned)blocks, grid.threads, grid.shared_bytes, grid.stream>>>(args...);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* The next item of the dynamic queue (longest first) for the whole block, -1 when it is empty.
 * next_item is a __shared__ int of the caller; every thread of the block calls this. */
static __device__ __forceinline__ int gemm_next_queued_item(const gemm_args &g, int *next_item)
{
    __syncthreads(); /* everyone has read the last value */
    if (threadIdx.x == 0) *next_item = (int)atomicAdd(g.counter, 1u);
    __syncthreads();
    return *next_item < g.item_count ? g.order[*next_item] : -1;
}

#endif
