/* cuda/launch.cuh — the launch helper of one-thread-per-item kernels (dbscan's, and any module's
 * kernel that maps thread i to item i): the grid from the item count, the launch on the caller's
 * stream and its error check, written once. (gemm's work-item kernels have their own:
 * gemm/gemm_launch.cuh, since their grids come from a schedule, not an item count.) */
#ifndef PARAC_CUDA_LAUNCH_CUH
#define PARAC_CUDA_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "cuda/cuda_check.h"

/* Runs kernel(args...) with ceil(items / threads) blocks of `threads` on `stream`; nothing for 0
 * items (a grid of 0 blocks is a launch error). The kernel returns at once for i >= items. */
template <typename... Params, typename... Args>
static inline parac_status parac_cuda_launch_items(void (*kernel)(Params...), size_t items, unsigned threads,
                                                   cudaStream_t stream, parac_error *error, Args... args)
{
    parac_status status = PARAC_OK;
    if (items == 0) return PARAC_OK;
    kernel<<<(unsigned)((items + threads - 1) / threads), threads, 0, stream>>>(args...);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

#endif
