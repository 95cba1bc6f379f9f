/* gemm/gemm_wgmma.cu — TF32 tile kernels on Hopper warpgroup MMA (variant WGMMA).
 *
 * Design: a block computes one BM x BN C tile (the plan's tile) with BM/64
 * warpgroups; warpgroup w owns rows 64w..64w+63 and issues
 * wgmma.mma_async.m64nBNk8.f32.tf32.tf32 with both operands in shared memory.
 * tf32 wgmma only reads K-major operands, so the plan packs A and B for this
 * variant as 32-wide k blocks with one 128-byte row per M (N) index, 16-byte
 * chunks XOR-swizzled by row % 8 (gemm_cuda.cu packed_index): a stage is one
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

#define WG_BK 32        /* k per stage: one 128-byte swizzle row of tf32 */
#define WG_STAGES 4
#define WG_LOOKAHEAD (WG_STAGES - 2)

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMM_WGMMA_ENABLED 1
#endif

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
/* 128B-swizzle K-major descriptor: start >> 4, LBO 1 (unused), SBO 1024 >> 4, mode 1. */
static __device__ __forceinline__ uint64_t smem_descriptor(const float *p)
{
    uint64_t address = (uint64_t)(unsigned)__cvta_generic_to_shared(p);
    return ((address & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}
static __device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
static __device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> static __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
static __device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

static __device__ __forceinline__ void wgmma_n64(float *d, uint64_t desc_a, uint64_t desc_b)
{
    asm volatile("{\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, 1, 1, 1;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(desc_a), "l"(desc_b));
}

static __device__ __forceinline__ void wgmma_n128(float *d, uint64_t desc_a, uint64_t desc_b)
{
    asm volatile("{\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, 1, 1, 1;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(desc_a), "l"(desc_b));
}

template <int BN> static __device__ __forceinline__ void wgmma_k8(float *d, uint64_t desc_a, uint64_t desc_b)
{
    if (BN == 128) wgmma_n128(d, desc_a, desc_b);
    else wgmma_n64(d, desc_a, desc_b);
}

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

/* 1 KiB-aligned start of the dynamic shared memory (the swizzle atoms need it). */
static __device__ __forceinline__ float *aligned_shared(float *raw)
{
    unsigned address = (unsigned)__cvta_generic_to_shared(raw);
    return raw + ((1024 - (address & 1023)) & 1023) / sizeof(float);
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
    for (;;) {
        __syncthreads(); /* everyone has read next_item */
        if (threadIdx.x == 0) next_item = (int)atomicAdd(g.counter, 1u);
        __syncthreads();
        int position = next_item;
        if (position >= g.item_count) return;
        wgmma_work_item<BM, BN>(g, g.items[g.order[position]], shared);
    }
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
    parac_status status = PARAC_OK;
    int per_sm = 0;
    if (!dynamic) {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(wgmma_static<BM, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
        wgmma_static<BM, BN><<<g.item_count, S::THREADS, S::SMEM, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    } else {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(wgmma_dynamic<BM, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
        PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, wgmma_dynamic<BM, BN>, S::THREADS, S::SMEM));
        long long blocks = (long long)(per_sm < 1 ? 1 : per_sm) * multiprocessors;
        if (blocks > g.item_count) blocks = g.item_count;
        PARAC_CUDA_TRY(cudaMemsetAsync(g.counter, 0, sizeof(unsigned int), stream));
        wgmma_dynamic<BM, BN><<<(unsigned)blocks, S::THREADS, S::SMEM, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    }
fail:
    return status;
}

parac_status gemm_wgmma_launch(const gemm_args &g, int tile_m, int tile_n, int dynamic, int multiprocessors,
                               cudaStream_t stream, parac_error *error)
{
    if (tile_m == 128 && tile_n == 128) return wgmma_launch_shape<128, 128>(g, dynamic, multiprocessors, stream, error);
    if (tile_m == 128) return wgmma_launch_shape<128, 64>(g, dynamic, multiprocessors, stream, error);
    if (tile_n == 128) return wgmma_launch_shape<64, 128>(g, dynamic, multiprocessors, stream, error);
    return wgmma_launch_shape<64, 64>(g, dynamic, multiprocessors, stream, error);
}
