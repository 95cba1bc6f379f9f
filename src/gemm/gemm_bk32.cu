/* gemm/gemm_bk32.cu — launches the fp32 BK32 kernels (gemm_ffma_bk32.cuh) for the plan's tiles.
 *
 * One instantiation per tile shape, schedule and operand source: B packed or in place
 * (g.b_direct), A packed or in place (g.a_direct). Kept apart from gemm_cuda.cu so that these
 * 40 kernels compile in parallel with the other variants. */
#include <cuda_runtime.h>

#include "core/error.h"
#include "cuda/cuda_check.h"
#include "gemm/gemm_ffma_bk32.cuh"
#include "gemm/gemm_kernels.cuh"

/* Static: one block per work item. Dynamic: as many blocks as are resident at once (capped by the
 * item count) pulling items from the queue, whose counter starts at 0. All of the unified L1/shared
 * array goes to shared memory: 2 blocks of 96 KiB must fit at 128x128. */
template <int BM, int BN, bool DIRECT_B, bool DIRECT_A>
static parac_status launch_shape(const gemm_args &g, int dynamic, int multiprocessors, cudaStream_t stream, parac_error *error)
{
    typedef bk32_shape<BM, BN, DIRECT_A> S;
    void (*kernel)(gemm_args) = dynamic ? bk32_dynamic<BM, BN, DIRECT_B, DIRECT_A> : bk32_static<BM, BN, DIRECT_B, DIRECT_A>;
    int per_sm = 0;
    long long blocks = g.item_count;
    parac_status status = PARAC_OK;
    if (g.item_count == 0) return PARAC_OK;
    PARAC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
    PARAC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, (int)cudaSharedmemCarveoutMaxShared));
    if (dynamic) {
        PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::THREADS, S::SMEM));
        if (per_sm < 1) per_sm = 1;
        if ((long long)per_sm * multiprocessors < blocks) blocks = (long long)per_sm * multiprocessors;
        PARAC_CUDA_TRY(cudaMemsetAsync(g.counter, 0, sizeof(unsigned int), stream));
    }
    kernel<<<(unsigned)blocks, S::THREADS, S::SMEM, stream>>>(g);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

template <int BM, int BN>
static parac_status launch_sources(const gemm_args &g, int dynamic, int multiprocessors, cudaStream_t stream, parac_error *error)
{
    if (g.a_direct)
        return g.b_direct ? launch_shape<BM, BN, true, true>(g, dynamic, multiprocessors, stream, error)
                          : launch_shape<BM, BN, false, true>(g, dynamic, multiprocessors, stream, error);
    return g.b_direct ? launch_shape<BM, BN, true, false>(g, dynamic, multiprocessors, stream, error)
                      : launch_shape<BM, BN, false, false>(g, dynamic, multiprocessors, stream, error);
}

parac_status gemm_bk32_launch(const gemm_args &g, int tile_m, int tile_n, int dynamic, int multiprocessors,
                              cudaStream_t stream, parac_error *error)
{
    if (tile_m == 64 && tile_n == 256) return launch_sources<64, 256>(g, dynamic, multiprocessors, stream, error);
    if (tile_m == 128 && tile_n == 128) return launch_sources<128, 128>(g, dynamic, multiprocessors, stream, error);
    if (tile_m == 128) return launch_sources<128, 64>(g, dynamic, multiprocessors, stream, error);
    if (tile_n == 128) return launch_sources<64, 128>(g, dynamic, multiprocessors, stream, error);
    return launch_sources<64, 64>(g, dynamic, multiprocessors, stream, error);
}
