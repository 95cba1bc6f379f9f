/* cuda/launch.cuh — kernel launches with their error check, written once: parac_cuda_launch_grid for a
 * grid the caller sized (fca's resident grids, birch's tiled kernels), parac_cuda_launch_items for
 * one-thread-per-item kernels (dbscan's, birch's, and any module's kernel that maps thread i to item
 * i: the grid from the item count). (gemm's work-item kernels have their own, gemm/gemm_launch.cuh,
 * since their grids come from a schedule and they pull work from a queue.) */
#ifndef PARAC_CUDA_LAUNCH_CUH
#define PARAC_CUDA_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "cuda/cuda_check.h"

/* Runs kernel(args...) on blocks x threads with shared_bytes of dynamic shared memory on `stream`;
 * a launch error (a bad configuration) comes back as a status at once. */
template <typename... Params, typename... Args>
static inline parac_status parac_cuda_launch_grid(void (*kernel)(Params...), dim3 blocks, unsigned threads,
                                                  size_t shared_bytes, cudaStream_t stream, parac_error *error,
                                                  Args... args)
{
    parac_status status = PARAC_OK;
    kernel<<<blocks, threads, shared_bytes, stream>>>(args...);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* Runs kernel(args...) with ceil(items / threads) blocks of `threads` on `stream` (shared_bytes of
 * dynamic shared memory each); nothing for 0 items (a grid of 0 blocks is a launch error). The
 * kernel returns at once for i >= items. */
template <typename... Params, typename... Args>
static inline parac_status parac_cuda_launch_items_shared(void (*kernel)(Params...), size_t items, unsigned threads,
                                                          size_t shared_bytes, cudaStream_t stream, parac_error *error,
                                                          Args... args)
{
    if (items == 0) return PARAC_OK;
    return parac_cuda_launch_grid(kernel, dim3((unsigned)((items + threads - 1) / threads)), threads, shared_bytes,
                                  stream, error, args...);
}

/* parac_cuda_launch_items_shared without dynamic shared memory. */
template <typename... Params, typename... Args>
static inline parac_status parac_cuda_launch_items(void (*kernel)(Params...), size_t items, unsigned threads,
                                                   cudaStream_t stream, parac_error *error, Args... args)
{
    return parac_cuda_launch_items_shared(kernel, items, threads, 0, stream, error, args...);
}

#endif
