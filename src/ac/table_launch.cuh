/* ac/table_launch.cuh — the one launch helper of the table kernels (table_gpu.cu).
 *
 * Every table kernel is a grid-stride loop over items (valid-set words, or table slots with a
 * warp each), so the grid is capped at the blocks the device holds at once (the occupancy of the
 * kernel on every multiprocessor) whatever the item count: huge tables need no launch-size limit,
 * small ones get one block per 256 lanes of work. One resident wave walks the items in order (warp
 * w takes items w, w + W, w + 2W, ...), so a round that wipes out stops after the first items past
 * the emptied domain's slots, not after whole later waves of blocks have started. */
#ifndef PARAC_AC_TABLE_LAUNCH_CUH
#define PARAC_AC_TABLE_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/context.h"
#include "cuda/cuda_check.h"

#define TABLE_THREADS 256
#define TABLE_WARP 32

/* Runs kernel(args...) over `items` items of `lanes_per_item` threads each (1, or TABLE_WARP for
 * a warp per item) on the context's stream; nothing for 0 items. */
template <typename... Params, typename... Args>
static inline parac_status table_launch(void (*kernel)(Params...), uint64_t items, unsigned lanes_per_item,
                                        const parac_cuda_context *context, parac_error *error, Args... args)
{
    parac_status status = PARAC_OK;
    uint64_t blocks = (items * lanes_per_item + TABLE_THREADS - 1) / TABLE_THREADS, cap = 1024;
    int resident = 0;
    if (items == 0) return PARAC_OK;
    PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, TABLE_THREADS, 0));
    if (context->multiprocessors > 0 && resident > 0) cap = (uint64_t)context->multiprocessors * (uint64_t)resident;
    if (blocks > cap) blocks = cap;
    kernel<<<(unsigned)blocks, TABLE_THREADS, 0, (cudaStream_t)context->stream>>>(args...);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

#endif
