/* gemm/gemm_wgmma.cu — TF32 tile kernels on Hopper warpgroup MMA (variant WGMMA).
 *
 * Design: a block computes one BM x BN C tile (the plan's tile) with BM/64
 * warpgroups; warpgroup w owns rows 64w..64w+63 and issues
 * wgmma.mma_async.m64nBNk8.f32.tf32.tf32 with both operands in shared memory.
 * tf32 wgmma only reads K-major operands, so the plan packs A and B for this
 * variant as 32-wide k blocks with one 128-byte row per M (N) index, 16-byte
 * chunks XOR-swizzled by row % 8 (gemm_pack.cu packed_index): a stage is one
 * contiguous chunk of the panel, copied verbatim by 16-byte cp.async into a
 * 1024-byte-aligned buffer, where it is exactly the 128B-swizzle layout the
 * descriptors name (SBO = 1024 bytes between 8-row groups, LBO unused; the k8
 * steps inside the 128-byte row advance the start address by 32 bytes).
 * Pipeline: STAGES buffers, LOOKAHEAD = STAGES - 2 stages in flight, one
 * wgmma group kept in flight (wait_group 1), so the buffer refilled at step s
 * (that of step s - 2) is no longer read by any warpgroup once the barrier of
 * step s is passed. cp.async writes go through the generic proxy and wgmma
 * reads through the async proxy: every thread fences (fence.proxy.async)
 * after its copies land and before the barrier.
 * Compiled for sm_90a only in the code path guarded by
 * __CUDA_ARCH_FEAT_SM90_ALL; other images hold a stub, and
 * gemm_wgmma_supported asks the loaded image at run time.
 */
#include <cuda_runtime.h>

#include <stdint.h>

#include "core/error.h"
#include "cuda/context.h"
#include "cuda/cuda_check.h"
#include "gemm/gemm_internal.h"
#include "gemm/gemm_kernels.cuh"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_wgmma.cuh"

#define WG_STAGES 4
#define WG_LOOKAHEAD (WG_STAGES - 2)

template <int BM, int BN> struct wg_shape {
    static constexpr int WARPGROUPS = BM / 64, THREADS = WARPGROUPS * 128;
    static constexpr int A_STAGE = WG_BK * BM, B_STAGE = WG_BK * BN; /* floats; multiples of 256 (1 KiB) */
    static constexpr size_t SMEM = (size_t)WG_STAGES * (A_STAGE + B_STAGE) * sizeof(float) + 1024; /* + alignment */
};

__global__ void wgmma_probe(int *supported)
{
#ifdef GEMM_WGMMA_ENABLED
    *supported = 1;
#else
    *supported = 0;
#endif
}

#ifdef GEMM_WGMMA_ENABLED
/* Stage `step` of work item w: BM x 32 of A and BN x 32 of B, contiguous in the swizzled panels. */
template <int BM, int BN>
static __device__ __forceinline__ void wg_load(const gemm_args &g, const gemm_work_item &w, int step, int steps,
                                               float *a_shared, float *b_shared)
{
    typedef wg_shape<BM, BN> S;
    if (step < steps) {
        int sub_steps = g.tile_k / WG_BK;
        int64_t k_offset = (int64_t)g.k_list[w.list_begin + step / sub_steps] * g.tile_k + (step % sub_steps) * WG_BK;
        const float *a_src = g.packed_a + ((int64_t)w.tile_row * g.padded_k + k_offset) * BM;
        const float *b_src = g.packed_b + ((int64_t)w.tile_col * g.padded_k + k_offset) * BN;
        float *a_stage = a_shared + (step % WG_STAGES) * S::A_STAGE, *b_stage = b_shared + (step % WG_STAGES) * S::B_STAGE;
#pragma unroll 4
        for (int i = threadIdx.x; i < S::A_STAGE / 4; i += S::THREADS) cp_async16(a_stage + i * 4, a_src + i * 4);
#pragma unroll 4
        for (int i = threadIdx.x; i < S::B_STAGE / 4; i += S::THREADS) cp_async16(b_stage + i * 4, b_src + i * 4);
    }
    cp_async_commit(); /* empty groups keep the wait counts uniform */
}

template <int BM, int BN>
static __device__ void wgmma_work_item(const gemm_args &g, const gemm_work_item &w, float *shared)
{
    typedef wg_shape<BM, BN> S;
    float *a_shared = shared, *b_shared = shared + WG_STAGES * S::A_STAGE;
    int warpgroup = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    int steps = (w.list_end - w.list_begin) * (g.tile_k / WG_BK);
    float acc[BN / 2];
#pragma unroll
    for (int j = 0; j < BN / 2; j++) acc[j] = 0.0f;
    for (int s = 0; s < WG_LOOKAHEAD; s++) wg_load<BM, BN>(g, w, s, steps, a_shared, b_shared);
    for (int step = 0; step < steps; step++) {
        cp_async_wait<WG_LOOKAHEAD - 1>();
        fence_proxy_async(); /* my copies of stage `step` are visible to the async proxy */
        __syncthreads();     /* everyone's are; wgmma of step - 2 finished in every warpgroup */
        wg_load<BM, BN>(g, w, step + WG_LOOKAHEAD, steps, a_shared, b_shared);
        const float *a_stage = a_shared + (step % WG_STAGES) * S::A_STAGE + warpgroup * 64 * WG_BK;
        const float *b_stage = b_shared + (step % WG_STAGES) * S::B_STAGE;
        uint64_t desc_a = smem_descriptor(a_stage), desc_b = smem_descriptor(b_stage);
        wgmma_fence();
#pragma unroll
        for (int k8 = 0; k8 < WG_BK / 8; k8++) wgmma_k8<BN>(acc, desc_a + 2 * k8, desc_b + 2 * k8); /* +32 bytes */
        wgmma_commit();
        wgmma_wait<1>();
    }
    wgmma_wait<0>();
    cp_async_wait<0>();
    __syncthreads(); /* the next work item may refill every stage */
    int64_t tile_row0 = (int64_t)w.tile_row * BM, tile_col0 = (int64_t)w.tile_col * BN;
#pragma unroll
    for (int j = 0; j < BN / 2; j++) {
        int r = warpgroup * 64 + warp * 16 + lane / 4 + 8 * ((j / 2) % 2), c = (j / 4) * 8 + (lane % 4) * 2 + j % 2;
        if (w.partial_slot >= 0) g.partials[((int64_t)w.partial_slot * BM + r) * BN + c] = acc[j];
        else store_value(g, tile_row0 + r, tile_col0 + c, acc[j]);
    }
}

#endif

template <int BM, int BN>
__global__ void __launch_bounds__(wg_shape<BM, BN>::THREADS) wgmma_static(gemm_args g)
{
#ifdef GEMM_WGMMA_ENABLED
    extern __shared__ __align__(1024) float raw_shared[];
    wgmma_work_item<BM, BN>(g, g.items[blockIdx.x], aligned_shared(raw_shared));
#endif
}

template <int BM, int BN>
__global__ void __launch_bounds__(wg_shape<BM, BN>::THREADS) wgmma_dynamic(gemm_args g)
{
#ifdef GEMM_WGMMA_ENABLED
    extern __shared__ __align__(1024) float raw_shared[];
    __shared__ int next_item;
    float *shared = aligned_shared(raw_shared);
    for (int item; (item = gemm_next_queued_item(g, &next_item)) >= 0;) wgmma_work_item<BM, BN>(g, g.items[item], shared);
#endif
}

parac_status gemm_wgmma_supported(parac_cuda_context *context, int *supported, parac_error *error)
{
    parac_status status = PARAC_OK;
    int *flag = NULL;
    *supported = 0;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&flag, sizeof *flag, error));
    PARAC_CUDA_TRY(cudaMemsetAsync(flag, 0, sizeof *flag, (cudaStream_t)context->stream));
    wgmma_probe<<<1, 1, 0, (cudaStream_t)context->stream>>>(flag);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(context, supported, flag, sizeof *flag, error));
fail:
    parac_cuda_free(context, flag);
    return status;
}

template <int BM, int BN>
static parac_status wgmma_launch_shape(const gemm_args &g, int dynamic, int multiprocessors, cudaStream_t stream,
                                       parac_error *error)
{
    typedef wg_shape<BM, BN> S;
    gemm_grid grid = gemm_items_grid(g, dynamic, S::THREADS, S::SMEM, multiprocessors, stream);
    if (!dynamic) return gemm_launch_items(wgmma_static<BM, BN>, grid, error, g);
    return gemm_launch_items(wgmma_dynamic<BM, BN>, grid, error, g);
}

parac_status gemm_wgmma_launch(const gemm_args &g, int tile_m, int tile_n, int dynamic, int multiprocessors,
                               cudaStream_t stream, parac_error *error)
{
    if (tile_m == 128 && tile_n == 128) return wgmma_launch_shape<128, 128>(g, dynamic, multiprocessors, stream, error);
    if (tile_m == 128) return wgmma_launch_shape<128, 64>(g, dynamic, multiprocessors, stream, error);
    if (tile_n == 128) return wgmma_launch_shape<64, 128>(g, dynamic, multiprocessors, stream, error);
    return wgmma_launch_shape<64, 64>(g, dynamic, multiprocessors, stream, error);
}
