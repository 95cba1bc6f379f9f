/* gemm/gemm_cuda.cu — the GPU path of the gemm plan.
 *
 * Kernels (each checked against the CPU path by tests/gemm/test_gemm_gpu.c):
 *   (gemm_pack.cu)   packs A and B (one launch) into the plan's k-major tile panels
 *                    or the swizzled wgmma layout, zero-padded, TF32-rounded for tf32;
 *                    only the tiles the plan's masks keep (no kernel reads the others).
 *   ffma_tiles       fp32 FFMA: BMxBN block tile (64/128), 8x8 register tile per
 *                    thread in a 64x32 warp tile, 128-bit cp.async loads of
 *                    contiguous panel chunks into a 4-stage pipeline (BK = 16),
 *                    float4 shared reads without bank conflicts. Every C value
 *                    is fmaf-chained in ascending k: the CPU path's exact bits.
 *   ffma_wide        fp32 FFMA variant WIDE: 8x16 per thread, 64x64 warp tiles,
 *                    BK 32, 3 stages; same fmaf chains, same bits.
 *   n256_static/_dynamic  fp32 FFMA variant N256: base's tile math (ffma_work_item,
 *                    8x8 per thread) on 64x256 C tiles, 256 threads, 2 blocks/SM;
 *                    B cp.async'ed straight from the caller's row-major matrix
 *                    (zero-filled past k and n) instead of packed, when aligned. Since round 5b
 *                    only with pipeline_stages 4 (or tile_k % 32): by default N256 launches
 *                    bk32_static/_dynamic<64, 256> (2 stages of 32 k), same bits.
 *   bk32_static/_dynamic (gemm_ffma_bk32.cuh) fp32 FFMA variant BK32: base's 8x8 thread
 *                    tile with BK 32 x 3 stages, register double-buffered fragments, B in
 *                    place when aligned, float4 epilogue; same fmaf chains, same bits.
 *   ffma_persistent  fp32 FFMA variant PERSISTENT: base's tile math in resident
 *                    blocks that stream work items through one cp.async ring kept
 *                    full across C tiles (next tile's loads overlap the epilogue).
 *   (gemm_wgmma.cu)  TF32 variant WGMMA: Hopper warpgroup MMA (sm_90a).
 *   (gemm_wgmma_tma.cu) TF32 variant WGMMA_TMA: bulk-copy producer warpgroup,
 *                    mbarrier ring, wgmma consumers, persistent blocks.
 *   mma_tf32_tiles   TF32 tensor cores with mma.sync.m16n8k8 (sm_80+), same
 *                    panels and pipeline, shared rows padded by 8 floats so the
 *                    fragment loads are conflict-free. mma.sync rather than
 *                    Hopper wgmma: it is portable to sm_80+, compiles for the
 *                    default sm_90 target (wgmma needs sm_90a), and is a first
 *                    version; wgmma is the next step for the TF32 target.
 *   both kernels run either static (one block per work item, swizzled order)
 *   or dynamic (persistent blocks pull work items, longest first, from an
 *   atomic counter).
 *   reduce_split     sums split-k partial tiles in segment order, then the epilogue.
 * Plus the cuBLAS reference (cublasSgemm / cublasGemmEx FAST_TF32), loaded at first use
 * (cuda/cublas_loader.h): libparac does not link cuBLAS.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "cuda/context.h"
#include "cuda/cublas_loader.h"
#include "cuda/device_facts.h"
#include "cuda/device_guard.cuh"
#include "cuda/cuda_check.h"
#include "gemm/gemm_internal.h"
#include "gemm/gemm_ffma_bk32.cuh"
#include "gemm/gemm_kernels.cuh"
#include "gemm/gemm_pack.h"

#define GEMM_BK 16
#define GEMM_STAGES 4
#define MMA_PAD 8

typedef struct gemm_cuda_state {
    parac_cuda_context context;
    int context_ready;
    char device_name[256];
    int tables_ready;
    gemm_work_item *items;
    int32_t *dynamic_order, *k_list;
    gemm_reduce_item *reductions;
    float *packed_a, *packed_b, *partials;
    unsigned char *a_mask, *b_mask; /* device tile masks for the pack; NULL when that operand is dense */
    unsigned int *counter;
    cudaEvent_t start, stop;
    int events_ready;
    const parac_cublas_api *cublas_api; /* loaded by the first reference call */
    cublasHandle_t cublas;
    int cublas_ready;
    int wgmma_probed, wgmma_ok;
} gemm_cuda_state;

static gemm_cuda_state *state_of(const parac_gemm_plan *plan) { return (gemm_cuda_state *)plan->cuda; }

/* Stage `step` of a work item: BK k rows of its A and B tile panels (contiguous chunks). */
template <int BM, int BN, int THREADS, int A_STRIDE, int B_STRIDE, int BK = GEMM_BK>
__device__ __forceinline__ void load_stage(const gemm_args &g, const gemm_work_item &w, int step, float *a_stage,
                                           float *b_stage)
{
    int sub_steps = g.tile_k / BK;
    int64_t k_offset = (int64_t)g.k_list[w.list_begin + step / sub_steps] * g.tile_k + (step % sub_steps) * BK;
    const float *a_src = g.packed_a + ((int64_t)w.tile_row * g.padded_k + k_offset) * BM;
    const float *b_src = g.packed_b + ((int64_t)w.tile_col * g.padded_k + k_offset) * BN;
#pragma unroll 4
    for (int i = threadIdx.x; i < BK * BM / 4; i += THREADS)
        cp_async16(a_stage + (i / (BM / 4)) * A_STRIDE + (i % (BM / 4)) * 4, a_src + i * 4);
#pragma unroll 4
    for (int i = threadIdx.x; i < BK * BN / 4; i += THREADS)
        cp_async16(b_stage + (i / (BN / 4)) * B_STRIDE + (i % (BN / 4)) * 4, b_src + i * 4);
}

/* N256 stage `step` (64x256 C tile, 256 threads): A's BK x 64 panel chunk is one 16-byte
 * copy per thread; B's BK x 256 block is four per thread, from its panel or (DIRECT_B) in
 * place from the caller's row-major B (g.b_direct; the host checked n, ldb multiples of 4 and
 * a 16-byte aligned base, so a float4 chunk is wholly inside or wholly past n). Rows past k
 * and columns past n are zero-filled: exactly the zeros the pack writes, so the FMA chains
 * see the same operands and give the same bits, without the pack pass over B. */
template <bool DIRECT_B>
__device__ __forceinline__ void n256_load(const gemm_args &g, const gemm_work_item &w, int step, float *a_stage,
                                          float *b_stage)
{
    static_assert(GEMM_BK * 64 / 4 == 256 && GEMM_BK * 256 / 4 == 4 * 256, "N256 loader: 256 threads, BK 16");
    int sub_steps = g.tile_k / GEMM_BK, t = threadIdx.x;
    int64_t k_offset = (int64_t)g.k_list[w.list_begin + step / sub_steps] * g.tile_k + (step % sub_steps) * GEMM_BK;
    cp_async16(a_stage + t * 4, g.packed_a + ((int64_t)w.tile_row * g.padded_k + k_offset) * 64 + t * 4);
    if (!DIRECT_B) {
        const float *b_src = g.packed_b + ((int64_t)w.tile_col * g.padded_k + k_offset) * 256;
#pragma unroll
        for (int q = 0; q < 4; q++) cp_async16(b_stage + (q * 256 + t) * 4, b_src + (q * 256 + t) * 4);
    } else {
        int64_t col = (int64_t)w.tile_col * 256 + (t % 64) * 4;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            int kk = q * 4 + t / 64; /* chunk q * 256 + t: row kk, columns (t % 64) * 4 .. + 3 */
            int64_t row = k_offset + kk;
            int inside = row < g.k && col < g.n;
            cp_async16_zfill(b_stage + kk * 256 + (t % 64) * 4, inside ? g.b_direct + row * g.ldb + col : g.b_direct,
                             inside ? 16 : 0);
        }
    }
}

/* --- fp32 FFMA tile kernel ------------------------------------------------------------ */

template <int BM, int BN> struct ffma_shape {
    static constexpr int WARPS_M = BM / 64, WARPS_N = BN / 32, THREADS = WARPS_M * WARPS_N * 32;
    static constexpr int A_STAGE = GEMM_BK * BM, B_STAGE = GEMM_BK * BN;
    static constexpr size_t SMEM = (size_t)GEMM_STAGES * (A_STAGE + B_STAGE) * sizeof(float);
};

/* One BK-deep stage of the 8x8 register tile: each acc[i][j] gets BK more fmaf in ascending k. */
template <int BM, int BN>
__device__ __forceinline__ void ffma_stage(const float *a_stage, const float *b_stage, int row0, int col0, float (&acc)[8][8])
{
#pragma unroll
    for (int kk = 0; kk < GEMM_BK; kk++) {
        float4 a_lo = *(const float4 *)(a_stage + kk * BM + row0), a_hi = *(const float4 *)(a_stage + kk * BM + row0 + 32);
        float4 b_lo = *(const float4 *)(b_stage + kk * BN + col0), b_hi = *(const float4 *)(b_stage + kk * BN + col0 + 16);
        float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
        float b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++) acc[i][j] = __fmaf_rn(a[i], b[j], acc[i][j]);
    }
}

/* The 8x8 register tile to C (epilogue) or to the item's split-k partial slot. */
template <int BM, int BN>
__device__ __forceinline__ void ffma_store(const gemm_args &g, const gemm_work_item &w, int row0, int col0, const float (&acc)[8][8])
{
    int64_t tile_row0 = (int64_t)w.tile_row * BM, tile_col0 = (int64_t)w.tile_col * BN;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int r = row0 + (i / 4) * 32 + i % 4;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            int c = col0 + (j / 4) * 16 + j % 4;
            if (w.partial_slot >= 0) g.partials[((int64_t)w.partial_slot * BM + r) * BN + c] = acc[i][j];
            else store_value(g, tile_row0 + r, tile_col0 + c, acc[i][j]);
        }
    }
}

/* One pipeline stage of ffma_work_item: base's loader, or N256's (B packed or in place). */
template <int BM, int BN, bool DIRECT_B>
__device__ __forceinline__ void ffma_load(const gemm_args &g, const gemm_work_item &w, int step, float *a_stage, float *b_stage)
{
    if (BM == 64 && BN == 256) n256_load<DIRECT_B>(g, w, step, a_stage, b_stage);
    else load_stage<BM, BN, ffma_shape<BM, BN>::THREADS, BM, BN>(g, w, step, a_stage, b_stage);
}

template <int BM, int BN, bool DIRECT_B = false>
__device__ void ffma_work_item(const gemm_args &g, const gemm_work_item &w, float *shared)
{
    typedef ffma_shape<BM, BN> S;
    float *a_shared = shared, *b_shared = shared + GEMM_STAGES * S::A_STAGE;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row0 = (warp / S::WARPS_N) * 64 + (lane / 4) * 4, col0 = (warp % S::WARPS_N) * 32 + (lane % 4) * 4;
    int steps = (w.list_end - w.list_begin) * (g.tile_k / GEMM_BK);
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;
#pragma unroll
    for (int s = 0; s < GEMM_STAGES - 1; s++) {
        if (s < steps) ffma_load<BM, BN, DIRECT_B>(g, w, s, a_shared + s * S::A_STAGE, b_shared + s * S::B_STAGE);
        cp_async_commit();
    }
    for (int step = 0; step < steps; step++) {
        cp_async_wait<GEMM_STAGES - 2>();
        __syncthreads(); /* stage `step` landed for all; stage step-1 is free to refill */
        int next = step + GEMM_STAGES - 1;
        if (next < steps)
            ffma_load<BM, BN, DIRECT_B>(g, w, next, a_shared + (next % GEMM_STAGES) * S::A_STAGE,
                                        b_shared + (next % GEMM_STAGES) * S::B_STAGE);
        cp_async_commit();
        ffma_stage<BM, BN>(a_shared + (step % GEMM_STAGES) * S::A_STAGE, b_shared + (step % GEMM_STAGES) * S::B_STAGE,
                           row0, col0, acc);
    }
    cp_async_wait<0>();
    __syncthreads(); /* the next work item may refill every stage */
    ffma_store<BM, BN>(g, w, row0, col0, acc);
}

/* --- fp32 FFMA, wide variant ---------------------------------------------------------
 * 8x16 register tile per thread (64x64 warp tile: 8 lane rows x 4 lane columns),
 * BK 32 and 3 stages: 6 float4 shared reads feed 128 FFMAs (8x8: 4 feed 64) and one
 * barrier per 32 k instead of per 16. Each C value is still one fmaf chain in
 * ascending k, so the bits equal the base kernel's and the CPU's. */
#define WIDE_BK 32
#define WIDE_STAGES 3

template <int BM, int BN> struct wide_shape {
    static constexpr int WARPS_M = BM / 64, WARPS_N = BN / 64, THREADS = WARPS_M * WARPS_N * 32;
    static constexpr int A_STAGE = WIDE_BK * BM, B_STAGE = WIDE_BK * BN;
    static constexpr size_t SMEM = (size_t)WIDE_STAGES * (A_STAGE + B_STAGE) * sizeof(float);
};

template <int BM, int BN>
__device__ __forceinline__ void wide_load(const gemm_args &g, const gemm_work_item &w, int step, int steps, float *shared)
{
    typedef wide_shape<BM, BN> S;
    if (step < steps) {
        float *a_stage = shared + (step % WIDE_STAGES) * S::A_STAGE;
        float *b_stage = shared + WIDE_STAGES * S::A_STAGE + (step % WIDE_STAGES) * S::B_STAGE;
        load_stage<BM, BN, S::THREADS, BM, BN, WIDE_BK>(g, w, step, a_stage, b_stage);
    }
    cp_async_commit(); /* an empty group keeps the wait counts uniform */
}

template <int BM, int BN>
__device__ void ffma_wide_work_item(const gemm_args &g, const gemm_work_item &w, float *shared)
{
    typedef wide_shape<BM, BN> S;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row0 = (warp / S::WARPS_N) * 64 + (lane / 4) * 4, col0 = (warp % S::WARPS_N) * 64 + (lane % 4) * 4;
    int steps = (w.list_end - w.list_begin) * (g.tile_k / WIDE_BK);
    float acc[8][16];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 16; j++) acc[i][j] = 0.0f;
    for (int s = 0; s < WIDE_STAGES - 1; s++) wide_load<BM, BN>(g, w, s, steps, shared);
    for (int step = 0; step < steps; step++) {
        cp_async_wait<WIDE_STAGES - 2>();
        __syncthreads(); /* stage `step` landed for all; the stage of step-1 is free */
        wide_load<BM, BN>(g, w, step + WIDE_STAGES - 1, steps, shared);
        const float *a_stage = shared + (step % WIDE_STAGES) * S::A_STAGE;
        const float *b_stage = shared + WIDE_STAGES * S::A_STAGE + (step % WIDE_STAGES) * S::B_STAGE;
#pragma unroll
        for (int kk = 0; kk < WIDE_BK; kk++) {
            float a[8], b[16];
            *(float4 *)&a[0] = *(const float4 *)(a_stage + kk * BM + row0);
            *(float4 *)&a[4] = *(const float4 *)(a_stage + kk * BM + row0 + 32);
#pragma unroll
            for (int q = 0; q < 4; q++) *(float4 *)&b[4 * q] = *(const float4 *)(b_stage + kk * BN + col0 + 16 * q);
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 16; j++) acc[i][j] = __fmaf_rn(a[i], b[j], acc[i][j]);
        }
    }
    cp_async_wait<0>();
    __syncthreads(); /* the next work item may refill every stage */
    int64_t tile_row0 = (int64_t)w.tile_row * BM, tile_col0 = (int64_t)w.tile_col * BN;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int r = row0 + (i / 4) * 32 + i % 4;
#pragma unroll
        for (int j = 0; j < 16; j++) {
            int c = col0 + (j / 4) * 16 + j % 4;
            if (w.partial_slot >= 0) g.partials[((int64_t)w.partial_slot * BM + r) * BN + c] = acc[i][j];
            else store_value(g, tile_row0 + r, tile_col0 + c, acc[i][j]);
        }
    }
}

/* --- fp32 FFMA, persistent variant ----------------------------------------------------
 * One resident block per SM slot (occupancy-sized grid) walks a stream of work items:
 * static = the swizzled order strided by the grid, dynamic = the atomic queue, longest
 * first. Loader and compute share one cp.async ring that never drains between C tiles:
 * the loader runs GEMM_STAGES-1 stages ahead through the stream, so the next C tile's
 * first k stages land while this tile finishes its last FMAs and its epilogue (base
 * drains the pipeline and refills it per item). Every item takes max(steps, 1) stages,
 * an empty C tile one stage without a load, so loader and compute stay in lockstep and
 * the loader is at most GEMM_STAGES-1 items ahead. The per-thread FMA chain (8x8 tile,
 * BK 16, ascending k) is base's (ffma_stage), so the bits are base's and the CPU's. */
#define PERSIST_RING 8 /* dynamic: item indices pulled by the loader, read later by compute */

/* The loader's place in this block's item stream. */
struct stream_cursor {
    int ordinal;  /* how many items of this block came before (-1 before the first) */
    int item;     /* index into g.items; -1 once the stream ended */
    gemm_work_item w;
    int steps;    /* k steps of the item */
    int step;     /* stages of the item issued so far (max(steps, 1) in all) */
};

/* Item `ordinal` of this block for the compute side (the loader pulled it already). */
__device__ __forceinline__ int stream_item(const gemm_args &g, const int *ring, int ordinal)
{
    if (g.order) return ring[ordinal % PERSIST_RING];
    long long position = blockIdx.x + (long long)ordinal * gridDim.x;
    return position < g.item_count ? (int)position : -1;
}

/* The loader takes item `ordinal`: static computes it, dynamic pulls the queue and
 * publishes the index in the ring (the barrier is block-uniform: every thread runs the loader). */
__device__ __forceinline__ int stream_pull(const gemm_args &g, int *ring, int ordinal)
{
    if (!g.order) return stream_item(g, ring, ordinal);
    if (threadIdx.x == 0) {
        unsigned position = atomicAdd(g.counter, 1u);
        ring[ordinal % PERSIST_RING] = position < (unsigned)g.item_count ? g.order[position] : -1;
    }
    __syncthreads();
    return ring[ordinal % PERSIST_RING];
}

/* Issues ring stage `stage` (one commit group, empty for an empty item or past the end). */
template <int BM, int BN>
__device__ __forceinline__ void stream_load(const gemm_args &g, int *ring, stream_cursor &cursor, unsigned stage,
                                            float *shared)
{
    typedef ffma_shape<BM, BN> S;
    if (cursor.item >= 0 && cursor.step == (cursor.steps > 0 ? cursor.steps : 1)) {
        cursor.item = stream_pull(g, ring, ++cursor.ordinal);
        cursor.step = 0;
        cursor.steps = 0;
        if (cursor.item >= 0) {
            cursor.w = g.items[cursor.item];
            cursor.steps = (cursor.w.list_end - cursor.w.list_begin) * (g.tile_k / GEMM_BK);
        }
    }
    if (cursor.item >= 0) {
        if (cursor.step < cursor.steps) {
            float *a_stage = shared + (stage % GEMM_STAGES) * S::A_STAGE;
            float *b_stage = shared + GEMM_STAGES * S::A_STAGE + (stage % GEMM_STAGES) * S::B_STAGE;
            load_stage<BM, BN, S::THREADS, BM, BN>(g, cursor.w, cursor.step, a_stage, b_stage);
        }
        cursor.step++;
    }
    cp_async_commit(); /* an empty group keeps the wait counts uniform */
}

template <int BM, int BN>
__global__ void __launch_bounds__(ffma_shape<BM, BN>::THREADS) ffma_persistent(gemm_args g)
{
    typedef ffma_shape<BM, BN> S;
    extern __shared__ __align__(16) float shared[];
    __shared__ int ring[PERSIST_RING];
    const float *a_shared = shared, *b_shared = shared + GEMM_STAGES * S::A_STAGE;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row0 = (warp / S::WARPS_N) * 64 + (lane / 4) * 4, col0 = (warp % S::WARPS_N) * 32 + (lane % 4) * 4;
    stream_cursor loader;
    loader.ordinal = -1, loader.item = 0, loader.steps = 0, loader.step = 1; /* "finished item -1": pull item 0 */
    unsigned stage = 0; /* compute's ring position; the loader is GEMM_STAGES-1 ahead */
    for (unsigned s = 0; s < GEMM_STAGES - 1; s++) stream_load<BM, BN>(g, ring, loader, s, shared);
    for (int ordinal = 0;; ordinal++) {
        int item = stream_item(g, ring, ordinal);
        if (item < 0) break;
        gemm_work_item w = g.items[item];
        int steps = (w.list_end - w.list_begin) * (g.tile_k / GEMM_BK);
        float acc[8][8];
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;
        for (int step = 0; step < (steps > 0 ? steps : 1); step++, stage++) {
            cp_async_wait<GEMM_STAGES - 2>();
            __syncthreads(); /* stage `stage` landed for all; the stage before it is free to refill */
            stream_load<BM, BN>(g, ring, loader, stage + GEMM_STAGES - 1, shared);
            if (steps > 0)
                ffma_stage<BM, BN>(a_shared + (stage % GEMM_STAGES) * S::A_STAGE, b_shared + (stage % GEMM_STAGES) * S::B_STAGE,
                                   row0, col0, acc);
        }
        /* no drain: the loads in flight fill stages nobody reads until the next item */
        ffma_store<BM, BN>(g, w, row0, col0, acc);
    }
    cp_async_wait<0>(); /* past the end only empty groups remain; leave none pending */
}

/* --- TF32 tensor-core tile kernel ------------------------------------------------------ */

template <int BM, int BN> struct mma_shape {
    static constexpr int WARPS_M = 2, WARPS_N = 4, THREADS = 256;
    static constexpr int WARP_M = BM / WARPS_M, WARP_N = BN / WARPS_N; /* 32/64 x 16/32 */
    static constexpr int M_TILES = WARP_M / 16, N_TILES = WARP_N / 8;
    static constexpr int A_STRIDE = BM + MMA_PAD, B_STRIDE = BN + MMA_PAD;
    static constexpr int A_STAGE = GEMM_BK * A_STRIDE, B_STAGE = GEMM_BK * B_STRIDE;
    static constexpr size_t SMEM = (size_t)GEMM_STAGES * (A_STAGE + B_STAGE) * sizeof(float);
};

__device__ __forceinline__ void mma_tf32(float *c, const unsigned *a, const unsigned *b)
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <int BM, int BN>
__device__ void mma_work_item(const gemm_args &g, const gemm_work_item &w, float *shared)
{
    typedef mma_shape<BM, BN> S;
    float *a_shared = shared, *b_shared = shared + GEMM_STAGES * S::A_STAGE;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, tig = lane % 4;
    int warp_row = (warp / S::WARPS_N) * S::WARP_M, warp_col = (warp % S::WARPS_N) * S::WARP_N;
    int steps = (w.list_end - w.list_begin) * (g.tile_k / GEMM_BK);
    float acc[S::M_TILES][S::N_TILES][4];
#pragma unroll
    for (int i = 0; i < S::M_TILES; i++)
#pragma unroll
        for (int j = 0; j < S::N_TILES; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;
#pragma unroll
    for (int s = 0; s < GEMM_STAGES - 1; s++) {
        if (s < steps)
            load_stage<BM, BN, S::THREADS, S::A_STRIDE, S::B_STRIDE>(g, w, s, a_shared + s * S::A_STAGE,
                                                                    b_shared + s * S::B_STAGE);
        cp_async_commit();
    }
    for (int step = 0; step < steps; step++) {
        cp_async_wait<GEMM_STAGES - 2>();
        __syncthreads();
        int next = step + GEMM_STAGES - 1;
        if (next < steps)
            load_stage<BM, BN, S::THREADS, S::A_STRIDE, S::B_STRIDE>(
                g, w, next, a_shared + (next % GEMM_STAGES) * S::A_STAGE, b_shared + (next % GEMM_STAGES) * S::B_STAGE);
        cp_async_commit();
        const float *a_stage = a_shared + (step % GEMM_STAGES) * S::A_STAGE;
        const float *b_stage = b_shared + (step % GEMM_STAGES) * S::B_STAGE;
#pragma unroll
        for (int k8 = 0; k8 < GEMM_BK; k8 += 8) {
            unsigned a_frag[S::M_TILES][4], b_frag[S::N_TILES][2];
#pragma unroll
            for (int i = 0; i < S::M_TILES; i++) {
                const float *base = a_stage + (k8 + tig) * S::A_STRIDE + warp_row + i * 16 + group;
                a_frag[i][0] = __float_as_uint(base[0]);
                a_frag[i][1] = __float_as_uint(base[8]);
                a_frag[i][2] = __float_as_uint(base[4 * S::A_STRIDE]);
                a_frag[i][3] = __float_as_uint(base[4 * S::A_STRIDE + 8]);
            }
#pragma unroll
            for (int j = 0; j < S::N_TILES; j++) {
                const float *base = b_stage + (k8 + tig) * S::B_STRIDE + warp_col + j * 8 + group;
                b_frag[j][0] = __float_as_uint(base[0]);
                b_frag[j][1] = __float_as_uint(base[4 * S::B_STRIDE]);
            }
#pragma unroll
            for (int i = 0; i < S::M_TILES; i++)
#pragma unroll
                for (int j = 0; j < S::N_TILES; j++) mma_tf32(acc[i][j], a_frag[i], b_frag[j]);
        }
    }
    cp_async_wait<0>();
    __syncthreads();
    int64_t tile_row0 = (int64_t)w.tile_row * BM, tile_col0 = (int64_t)w.tile_col * BN;
#pragma unroll
    for (int i = 0; i < S::M_TILES; i++)
#pragma unroll
        for (int j = 0; j < S::N_TILES; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int r = warp_row + i * 16 + group + (e / 2) * 8, c = warp_col + j * 8 + tig * 2 + e % 2;
                if (w.partial_slot >= 0) g.partials[((int64_t)w.partial_slot * BM + r) * BN + c] = acc[i][j][e];
                else store_value(g, tile_row0 + r, tile_col0 + c, acc[i][j][e]);
            }
}

/* --- schedules: static grid or persistent dynamic queue ---------------------------------- */

/* KIND: the kernel family of a launch. */
enum { KIND_FFMA = 0, KIND_MMA = 1, KIND_WIDE = 2 };

template <int BM, int BN, int KIND>
__device__ __forceinline__ void run_work_item(const gemm_args &g, const gemm_work_item &w, float *shared)
{
    if (KIND == KIND_MMA) mma_work_item<BM, BN>(g, w, shared);
    else if (KIND == KIND_WIDE) ffma_wide_work_item<BM, BN>(g, w, shared);
    else ffma_work_item<BM, BN>(g, w, shared);
}

template <int BM, int BN, int KIND>
__global__ void static_tiles(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    gemm_work_item w = g.items[blockIdx.x];
    run_work_item<BM, BN, KIND>(g, w, shared);
}

template <int BM, int BN, int KIND>
__global__ void dynamic_tiles(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    __shared__ int next_item;
    for (;;) {
        __syncthreads(); /* everyone has read next_item */
        if (threadIdx.x == 0) next_item = (int)atomicAdd(g.counter, 1u);
        __syncthreads();
        int position = next_item;
        if (position >= g.item_count) return;
        gemm_work_item w = g.items[g.order[position]];
        run_work_item<BM, BN, KIND>(g, w, shared);
    }
}

/* N256: 64x256 C tiles (ffma_shape<64, 256>: one warp row of 8 warps, each 64x32,
 * 8x8 per thread; 4 stages of 5 KiB floats = 80 KiB). Every k step moves 64 + 256
 * floats into shared memory per 16384 FMAs, and A's 64x64 zero blocks are still
 * skipped exactly. __launch_bounds__(256, 2): at most 128 registers, 2 blocks/SM. */
#define N256_THREADS 256

template <bool DIRECT_B>
__global__ void __launch_bounds__(N256_THREADS, 2) n256_static(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    gemm_work_item w = g.items[blockIdx.x];
    ffma_work_item<64, 256, DIRECT_B>(g, w, shared);
}

template <bool DIRECT_B>
__global__ void __launch_bounds__(N256_THREADS, 2) n256_dynamic(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    __shared__ int next_item;
    for (;;) {
        __syncthreads(); /* everyone has read next_item */
        if (threadIdx.x == 0) next_item = (int)atomicAdd(g.counter, 1u);
        __syncthreads();
        int position = next_item;
        if (position >= g.item_count) return;
        gemm_work_item w = g.items[g.order[position]];
        ffma_work_item<64, 256, DIRECT_B>(g, w, shared);
    }
}

__global__ void reduce_split(gemm_args g, const gemm_reduce_item *reductions, int tile_m, int tile_n)
{
    gemm_reduce_item r = reductions[blockIdx.x];
    int64_t tile_elements = (int64_t)tile_m * tile_n;
    for (int e = threadIdx.x; e < tile_elements; e += blockDim.x) {
        float sum = g.partials[(int64_t)r.first_slot * tile_elements + e];
        for (int s = 1; s < r.slot_count; s++) sum = __fadd_rn(sum, g.partials[(int64_t)(r.first_slot + s) * tile_elements + e]);
        store_value(g, (int64_t)r.tile_row * tile_m + e / tile_n, (int64_t)r.tile_col * tile_n + e % tile_n, sum);
    }
}

/* --- packing (gemm_pack.cu) ----------------------------------------------------------- */

/* A packed unless its tensor map feeds the kernel (a_direct), B unless the kernel reads it in place (b_direct). */
static parac_status pack_operands(parac_gemm_plan *plan, const float *a, const float *b, int a_direct, int b_direct,
                                  parac_error *error)
{
    const parac_gemm_options *o = &plan->options;
    gemm_cuda_state *st = state_of(plan);
    int tf32 = o->dtype == PARAC_GEMM_TF32;
    int swizzled = plan->variant == PARAC_GEMM_VARIANT_WGMMA || plan->variant == PARAC_GEMM_VARIANT_WGMMA_TMA;
    gemm_pack_operand pa = {a, plan->lda, o->k, o->m, plan->padded_k, plan->padded_m, o->layout_a == PARAC_GEMM_ROW_MAJOR,
                            plan->tile_m, tf32, swizzled, st->packed_a};
    gemm_pack_operand pb = {b, plan->ldb, o->k, o->n, plan->padded_k, plan->padded_n, o->layout_b == PARAC_GEMM_COL_MAJOR,
                            plan->tile_n, tf32, swizzled, st->packed_b};
    /* pack only the tiles some tile kernel reads (A mask: tiles_m x tiles_k, B mask: tiles_k x tiles_n) */
    pa.tile_mask = st->a_mask, pa.mask_stride_r = plan->tiles_k, pa.mask_stride_k = 1, pa.tile_k = plan->tile_k;
    pb.tile_mask = st->b_mask, pb.mask_stride_r = 1, pb.mask_stride_k = plan->tiles_n, pb.tile_k = plan->tile_k;
    if (a_direct) return b_direct ? PARAC_OK : gemm_pack_launch(&pb, NULL, st->context.stream, error);
    return gemm_pack_launch(&pa, b_direct ? NULL : &pb, st->context.stream, error);
}

/* --- launching ------------------------------------------------------------------------ */

template <int BM, int BN, int KIND> static size_t shared_bytes()
{
    return KIND == KIND_MMA ? mma_shape<BM, BN>::SMEM : KIND == KIND_WIDE ? wide_shape<BM, BN>::SMEM : ffma_shape<BM, BN>::SMEM;
}
template <int BM, int BN, int KIND> static int threads_per_block()
{
    return KIND == KIND_MMA ? mma_shape<BM, BN>::THREADS
                            : KIND == KIND_WIDE ? wide_shape<BM, BN>::THREADS : ffma_shape<BM, BN>::THREADS;
}

template <int BM, int BN, int KIND>
static parac_status launch_tiles(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    gemm_cuda_state *st = state_of(plan);
    cudaStream_t stream = (cudaStream_t)st->context.stream;
    size_t smem = shared_bytes<BM, BN, KIND>();
    int threads = threads_per_block<BM, BN, KIND>(), per_sm = 0;
    parac_status status = PARAC_OK;
    if (g.item_count == 0) return PARAC_OK;
    if (plan->schedule == PARAC_GEMM_SCHEDULE_STATIC) {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(static_tiles<BM, BN, KIND>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        static_tiles<BM, BN, KIND><<<g.item_count, threads, smem, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    } else {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(dynamic_tiles<BM, BN, KIND>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dynamic_tiles<BM, BN, KIND>, threads, smem));
        if (per_sm < 1) per_sm = 1;
        long long blocks = (long long)per_sm * st->context.multiprocessors;
        if (blocks > g.item_count) blocks = g.item_count;
        PARAC_CUDA_TRY(cudaMemsetAsync(g.counter, 0, sizeof(unsigned int), stream));
        dynamic_tiles<BM, BN, KIND><<<(unsigned)blocks, threads, smem, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    }
fail:
    return status;
}

template <int KIND> static parac_status launch_for_tiles(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    if (plan->tile_m == 128 && plan->tile_n == 128) return launch_tiles<128, 128, KIND>(plan, g, error);
    if (plan->tile_m == 128) return launch_tiles<128, 64, KIND>(plan, g, error);
    if (plan->tile_n == 128) return launch_tiles<64, 128, KIND>(plan, g, error);
    return launch_tiles<64, 64, KIND>(plan, g, error);
}

template <bool DIRECT_B>
static parac_status launch_n256_kernel(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    typedef ffma_shape<64, 256> S;
    gemm_cuda_state *st = state_of(plan);
    cudaStream_t stream = (cudaStream_t)st->context.stream;
    int per_sm = 0;
    parac_status status = PARAC_OK;
    long long blocks;
    static_assert(S::THREADS == N256_THREADS, "N256 block size");
    if (g.item_count == 0) return PARAC_OK;
    if (plan->schedule == PARAC_GEMM_SCHEDULE_STATIC) {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(n256_static<DIRECT_B>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
        n256_static<DIRECT_B><<<g.item_count, N256_THREADS, S::SMEM, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    } else {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(n256_dynamic<DIRECT_B>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
        PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, n256_dynamic<DIRECT_B>, N256_THREADS, S::SMEM));
        if (per_sm < 1) per_sm = 1;
        blocks = (long long)per_sm * st->context.multiprocessors;
        if (blocks > g.item_count) blocks = g.item_count;
        PARAC_CUDA_TRY(cudaMemsetAsync(g.counter, 0, sizeof(unsigned int), stream));
        n256_dynamic<DIRECT_B><<<(unsigned)blocks, N256_THREADS, S::SMEM, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    }
fail:
    return status;
}

template <int BM, int BN, bool DIRECT_B>
static parac_status launch_bk32_kernel(parac_gemm_plan *plan, const gemm_args &g, parac_error *error);

/* N256 reads B in place when make_args found it usable (g.b_direct), else from its panels. Its
 * kernel: BK32's pipeline at 64x256 (2 stages of 32 k, plan->stages 2), or the first one, base's
 * pipeline (4 stages of 16 k, plan->stages 4). Same tiles, same fmaf chains: same bits. */
static parac_status launch_n256(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    if (plan->stages == 2)
        return g.b_direct ? launch_bk32_kernel<64, 256, true>(plan, g, error) : launch_bk32_kernel<64, 256, false>(plan, g, error);
    return g.b_direct ? launch_n256_kernel<true>(plan, g, error) : launch_n256_kernel<false>(plan, g, error);
}

template <int BM, int BN, bool DIRECT_B>
static parac_status launch_bk32_kernel(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    typedef bk32_shape<BM, BN> S;
    gemm_cuda_state *st = state_of(plan);
    cudaStream_t stream = (cudaStream_t)st->context.stream;
    int per_sm = 0;
    parac_status status = PARAC_OK;
    long long blocks;
    if (g.item_count == 0) return PARAC_OK;
    /* all of the unified L1/shared array as shared memory: 2 blocks of 96 KiB must fit (cp.async.cg skips L1) */
    if (plan->schedule == PARAC_GEMM_SCHEDULE_STATIC) {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(bk32_static<BM, BN, DIRECT_B>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
        PARAC_CUDA_TRY(cudaFuncSetAttribute(bk32_static<BM, BN, DIRECT_B>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            (int)cudaSharedmemCarveoutMaxShared));
        bk32_static<BM, BN, DIRECT_B><<<g.item_count, S::THREADS, S::SMEM, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    } else {
        PARAC_CUDA_TRY(cudaFuncSetAttribute(bk32_dynamic<BM, BN, DIRECT_B>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
        PARAC_CUDA_TRY(cudaFuncSetAttribute(bk32_dynamic<BM, BN, DIRECT_B>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            (int)cudaSharedmemCarveoutMaxShared));
        PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bk32_dynamic<BM, BN, DIRECT_B>, S::THREADS, S::SMEM));
        if (per_sm < 1) per_sm = 1;
        blocks = (long long)per_sm * st->context.multiprocessors;
        if (blocks > g.item_count) blocks = g.item_count;
        PARAC_CUDA_TRY(cudaMemsetAsync(g.counter, 0, sizeof(unsigned int), stream));
        bk32_dynamic<BM, BN, DIRECT_B><<<(unsigned)blocks, S::THREADS, S::SMEM, stream>>>(g);
        PARAC_CUDA_TRY_LAUNCH();
    }
fail:
    return status;
}

template <bool DIRECT_B> static parac_status launch_bk32_for_tiles(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    if (plan->tile_m == 128 && plan->tile_n == 128) return launch_bk32_kernel<128, 128, DIRECT_B>(plan, g, error);
    if (plan->tile_m == 128) return launch_bk32_kernel<128, 64, DIRECT_B>(plan, g, error);
    if (plan->tile_n == 128) return launch_bk32_kernel<64, 128, DIRECT_B>(plan, g, error);
    return launch_bk32_kernel<64, 64, DIRECT_B>(plan, g, error);
}

/* BK32 reads B in place when make_args found it usable (g.b_direct), else from its panels. */
static parac_status launch_bk32(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    return g.b_direct ? launch_bk32_for_tiles<true>(plan, g, error) : launch_bk32_for_tiles<false>(plan, g, error);
}

/* Persistent FFMA: as many blocks as fit at once (capped by the item count); g.order
 * non-NULL selects the dynamic queue, whose counter starts at 0. */
template <int BM, int BN>
static parac_status launch_persistent(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    gemm_cuda_state *st = state_of(plan);
    cudaStream_t stream = (cudaStream_t)st->context.stream;
    size_t smem = ffma_shape<BM, BN>::SMEM;
    int threads = ffma_shape<BM, BN>::THREADS, per_sm = 0;
    parac_status status = PARAC_OK;
    long long blocks;
    if (g.item_count == 0) return PARAC_OK;
    PARAC_CUDA_TRY(cudaFuncSetAttribute(ffma_persistent<BM, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ffma_persistent<BM, BN>, threads, smem));
    if (per_sm < 1) per_sm = 1;
    blocks = (long long)per_sm * st->context.multiprocessors;
    if (blocks > g.item_count) blocks = g.item_count;
    if (g.order) PARAC_CUDA_TRY(cudaMemsetAsync(g.counter, 0, sizeof(unsigned int), stream));
    ffma_persistent<BM, BN><<<(unsigned)blocks, threads, smem, stream>>>(g);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

static parac_status launch_persistent_for_tiles(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    gemm_args stream = g;
    if (plan->schedule != PARAC_GEMM_SCHEDULE_DYNAMIC) stream.order = NULL; /* strided swizzled order */
    if (plan->tile_m == 128 && plan->tile_n == 128) return launch_persistent<128, 128>(plan, stream, error);
    if (plan->tile_m == 128) return launch_persistent<128, 64>(plan, stream, error);
    if (plan->tile_n == 128) return launch_persistent<64, 128>(plan, stream, error);
    return launch_persistent<64, 64>(plan, stream, error);
}

/* The plan's resolved variant (plan.c checked that this GPU and tile shape can run it). */
static parac_status launch_variant(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    gemm_cuda_state *st = state_of(plan);
    if (plan->variant == PARAC_GEMM_VARIANT_WGMMA_TMA) {
        gemm_args persistent = g;
        if (plan->schedule != PARAC_GEMM_SCHEDULE_DYNAMIC) persistent.order = NULL; /* strided swizzled order */
        return gemm_wgmma_tma_launch(persistent, plan->tile_m, plan->tile_n, plan->stages, st->context.multiprocessors,
                                     (cudaStream_t)st->context.stream, error);
    }
    if (plan->variant == PARAC_GEMM_VARIANT_WGMMA)
        return g.item_count == 0 ? PARAC_OK
                                 : gemm_wgmma_launch(g, plan->tile_m, plan->tile_n, plan->schedule == PARAC_GEMM_SCHEDULE_DYNAMIC,
                                                     st->context.multiprocessors, (cudaStream_t)st->context.stream, error);
    if (plan->options.dtype == PARAC_GEMM_TF32) return launch_for_tiles<KIND_MMA>(plan, g, error);
    if (plan->variant == PARAC_GEMM_VARIANT_WIDE) return launch_for_tiles<KIND_WIDE>(plan, g, error);
    if (plan->variant == PARAC_GEMM_VARIANT_PERSISTENT) return launch_persistent_for_tiles(plan, g, error);
    if (plan->variant == PARAC_GEMM_VARIANT_N256) return launch_n256(plan, g, error);
    if (plan->variant == PARAC_GEMM_VARIANT_BK32) return launch_bk32(plan, g, error);
    return launch_for_tiles<KIND_FFMA>(plan, g, error);
}

/* Whether this plan's GPU can run `variant` (wgmma, wgmma_tma: an sm_90a image was loaded;
 * both files are built with the same targets, so one probe answers for both). */
extern "C" int gemm_cuda_variant_supported(parac_gemm_plan *plan, parac_gemm_variant variant)
{
    parac_caller_device_guard caller_device; /* the caller's current device again on return */
    gemm_cuda_state *st = state_of(plan);
    parac_error ignored;
    if (variant != PARAC_GEMM_VARIANT_WGMMA && variant != PARAC_GEMM_VARIANT_WGMMA_TMA) return 1;
    if (!st->wgmma_probed) {
        st->wgmma_probed = 1;
        if (cudaSetDevice(st->context.ordinal) != cudaSuccess || gemm_wgmma_supported(&st->context, &st->wgmma_ok, &ignored) != PARAC_OK)
            st->wgmma_ok = 0;
    }
    return st->wgmma_ok;
}

/* --- state: tables and workspace on the device ------------------------------------------ */

template <typename T>
static parac_status upload_table(parac_gemm_plan *plan, T **device, const T *host, int64_t count, parac_error *error)
{
    gemm_cuda_state *st = state_of(plan);
    size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(T);
    parac_status status = parac_cuda_alloc(&st->context, (void **)device, bytes, error);
    if (status == PARAC_OK && count > 0) status = parac_cuda_upload(&st->context, *device, host, (size_t)count * sizeof(T), error);
    return status;
}

/* The pack's copy of a tile mask, only when some tile is masked (a dense operand packs everything). */
static parac_status upload_mask(parac_gemm_plan *plan, unsigned char **device, const unsigned char *host, int64_t count,
                                parac_error *error)
{
    *device = NULL;
    if (memchr(host, 0, (size_t)count) == NULL) return PARAC_OK;
    return upload_table(plan, device, host, count, error);
}

static parac_status prepare_tables(parac_gemm_plan *plan, parac_error *error)
{
    gemm_cuda_state *st = state_of(plan);
    size_t packed_a = (size_t)(plan->padded_k * plan->padded_m) * sizeof(float);
    size_t packed_b = (size_t)(plan->padded_k * plan->padded_n) * sizeof(float);
    size_t partials = (size_t)(plan->partial_slots * plan->tile_m * plan->tile_n) * sizeof(float);
    parac_status status;
    if (st->tables_ready) return PARAC_OK;
    if ((status = upload_table(plan, &st->items, plan->items, plan->item_count, error)) != PARAC_OK) return status;
    if ((status = upload_table(plan, &st->dynamic_order, plan->dynamic_order, plan->item_count, error)) != PARAC_OK) return status;
    if ((status = upload_table(plan, &st->k_list, plan->k_list, plan->c_offsets[plan->tiles_m * plan->tiles_n], error)) != PARAC_OK)
        return status;
    if ((status = upload_table(plan, &st->reductions, plan->reductions, plan->reduction_count, error)) != PARAC_OK) return status;
    if ((status = upload_mask(plan, &st->a_mask, plan->a_mask, plan->tiles_m * plan->tiles_k, error)) != PARAC_OK) return status;
    if ((status = upload_mask(plan, &st->b_mask, plan->b_mask, plan->tiles_k * plan->tiles_n, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_alloc(&st->context, (void **)&st->packed_a, packed_a, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_alloc(&st->context, (void **)&st->packed_b, packed_b, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_alloc(&st->context, (void **)&st->partials, partials ? partials : 4, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_alloc(&st->context, (void **)&st->counter, sizeof(unsigned int), error)) != PARAC_OK) return status;
    st->tables_ready = 1;
    return PARAC_OK;
}

extern "C" parac_status gemm_cuda_state_create(parac_gemm_plan *plan, parac_error *error)
{
    parac_caller_device_guard caller_device; /* the caller's current device again on return */
    gemm_cuda_state *st = (gemm_cuda_state *)calloc(1, sizeof *st);
    parac_cuda_device_facts facts;
    parac_status status = PARAC_OK;
    if (!st) return parac_fail_no_memory(error, "gemm CUDA state", sizeof *st);
    plan->cuda = st;
    if ((status = parac_cuda_context_create(plan->options.exec.cuda_device, &st->context, error)) != PARAC_OK) return status;
    st->context_ready = 1;
    if ((status = parac_cuda_device_facts_get(st->context.ordinal, &facts, error)) != PARAC_OK) goto fail;
    snprintf(st->device_name, sizeof st->device_name, "%s", facts.name);
    PARAC_CUDA_TRY(cudaEventCreate(&st->start));
    PARAC_CUDA_TRY(cudaEventCreate(&st->stop));
    st->events_ready = 1;
fail:
    return status;
}

extern "C" void gemm_cuda_state_destroy(parac_gemm_plan *plan)
{
    parac_caller_device_guard caller_device; /* the caller's current device again on return */
    gemm_cuda_state *st = state_of(plan);
    if (!st) return;
    if (st->context_ready) {
        cudaSetDevice(st->context.ordinal);
        parac_cuda_free(&st->context, st->items);
        parac_cuda_free(&st->context, st->dynamic_order);
        parac_cuda_free(&st->context, st->k_list);
        parac_cuda_free(&st->context, st->reductions);
        parac_cuda_free(&st->context, st->packed_a);
        parac_cuda_free(&st->context, st->packed_b);
        parac_cuda_free(&st->context, st->partials);
        parac_cuda_free(&st->context, st->a_mask);
        parac_cuda_free(&st->context, st->b_mask);
        parac_cuda_free(&st->context, st->counter);
        if (st->cublas_ready) st->cublas_api->destroy(st->cublas);
        if (st->events_ready) {
            cudaEventDestroy(st->start);
            cudaEventDestroy(st->stop);
        }
        parac_cuda_context_destroy(&st->context);
    }
    free(st);
    plan->cuda = NULL;
}

/* Gives the workspace back (after an out-of-memory failure, before a chunked retry). */
extern "C" void gemm_cuda_release_workspace(parac_gemm_plan *plan)
{
    parac_caller_device_guard caller_device; /* the caller's current device again on return */
    gemm_cuda_state *st = state_of(plan);
    void **buffers[] = {(void **)&st->items, (void **)&st->dynamic_order, (void **)&st->k_list,
                        (void **)&st->reductions, (void **)&st->packed_a, (void **)&st->packed_b,
                        (void **)&st->partials, (void **)&st->counter, (void **)&st->a_mask, (void **)&st->b_mask};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) {
        parac_cuda_free(&st->context, *buffers[i]);
        *buffers[i] = NULL;
    }
    cudaStreamSynchronize((cudaStream_t)st->context.stream);
    st->tables_ready = 0;
}

extern "C" const char *gemm_cuda_device_name(const parac_gemm_plan *plan) { return state_of(plan)->device_name; }

/* --- execution ---------------------------------------------------------------------------- */

/* Whether the N256 or BK32 kernel may cp.async B's rows in place: fp32, row-major, every row
 * start 16-byte aligned (base aligned, ldb % 4 == 0) and whole float4 chunks (n % 4 == 0), and
 * the caller did not ask for packed operands. */
static int b_direct_usable(const parac_gemm_plan *plan, const float *b)
{
    const parac_gemm_options *o = &plan->options;
    return (plan->variant == PARAC_GEMM_VARIANT_N256 || plan->variant == PARAC_GEMM_VARIANT_BK32) && !o->pack_operands &&
           o->dtype == PARAC_GEMM_FP32 && o->layout_b == PARAC_GEMM_ROW_MAJOR &&
           o->n % 4 == 0 && plan->ldb % 4 == 0 && (uintptr_t)b % 16 == 0;
}

/* Whether WGMMA_WS_A may load A through a TMA tensor map instead of packing it: the 256-wide wgmma_ws
 * kernel runs, A is row-major with 16-byte aligned rows (base, lda % 4 == 0), and A covers at least one
 * box (m >= tile_m, k >= 32; smaller A is packed). */
static int a_direct_usable(const parac_gemm_plan *plan, const float *a)
{
    const parac_gemm_options *o = &plan->options;
    return o->variant == PARAC_GEMM_VARIANT_WGMMA_WS_A && plan->variant == PARAC_GEMM_VARIANT_WGMMA_TMA && plan->tile_n == 256 &&
           o->layout_a == PARAC_GEMM_ROW_MAJOR && plan->lda % 4 == 0 && (uintptr_t)a % 16 == 0 && o->m >= plan->tile_m &&
           o->k >= 32 && o->k < INT32_MAX && o->m < INT32_MAX;
}

static gemm_args make_args(parac_gemm_plan *plan, float alpha, float beta, const float *b, float *c)
{
    gemm_cuda_state *st = state_of(plan);
    gemm_args g;
    g.packed_a = st->packed_a;
    g.packed_b = st->packed_b;
    g.k_list = st->k_list;
    g.items = st->items;
    g.order = st->dynamic_order;
    g.counter = st->counter;
    g.item_count = (int)plan->item_count;
    g.padded_k = plan->padded_k;
    g.tile_k = plan->tile_k;
    g.c = c;
    g.partials = st->partials;
    g.m = plan->options.m;
    g.n = plan->options.n;
    g.ldc = plan->ldc;
    g.c_row_major = plan->options.layout_c == PARAC_GEMM_ROW_MAJOR;
    g.alpha = alpha;
    g.beta = beta;
    g.b_direct = b_direct_usable(plan, b) ? b : NULL;
    g.ldb = plan->ldb;
    g.k = plan->options.k;
    g.a_direct = NULL; /* set by the caller when a_direct_usable */
    g.lda = plan->lda;
    return g;
}

extern "C" parac_status gemm_cuda_execute_device(parac_gemm_plan *plan, float alpha, const float *a, const float *b,
                                                 float beta, float *c, parac_error *error)
{
    parac_caller_device_guard caller_device; /* the caller's current device again on return */
    gemm_cuda_state *st = state_of(plan);
    cudaStream_t stream = (cudaStream_t)st->context.stream;
    parac_status status = PARAC_OK;
    float milliseconds = 0.0f;
    gemm_args g;
    PARAC_CUDA_TRY(cudaSetDevice(st->context.ordinal));
    PARAC_TRY(prepare_tables(plan, error));
    g = make_args(plan, alpha, beta, b, c);
    PARAC_CUDA_TRY(cudaEventRecord(st->start, stream));
    if (a_direct_usable(plan, a)) g.a_direct = a;
    PARAC_TRY(pack_operands(plan, a, b, g.a_direct != NULL, g.b_direct != NULL, error));
    PARAC_TRY(launch_variant(plan, g, error));
    if (plan->reduction_count > 0) {
        reduce_split<<<(unsigned)plan->reduction_count, 256, 0, stream>>>(g, st->reductions, plan->tile_m, plan->tile_n);
        PARAC_CUDA_TRY_LAUNCH();
    }
    PARAC_CUDA_TRY(cudaEventRecord(st->stop, stream));
    PARAC_CUDA_TRY(cudaEventSynchronize(st->stop));
    PARAC_CUDA_TRY(cudaEventElapsedTime(&milliseconds, st->start, st->stop));
    plan->last_compute_seconds = milliseconds * 1e-3;
fail:
    return status;
}

static int64_t storage_of(parac_gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    return layout == PARAC_GEMM_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

typedef struct device_operands {
    float *a, *b, *c;
    size_t a_bytes, b_bytes, c_bytes;
} device_operands;

static parac_status upload_operands(parac_gemm_plan *plan, const float *a, const float *b, const float *c, float beta,
                                    device_operands *d, parac_error *error)
{
    const parac_gemm_options *o = &plan->options;
    parac_cuda_context *context = &state_of(plan)->context;
    parac_status status;
    d->a_bytes = (size_t)storage_of(o->layout_a, o->m, o->k, plan->lda) * sizeof(float);
    d->b_bytes = (size_t)storage_of(o->layout_b, o->k, o->n, plan->ldb) * sizeof(float);
    d->c_bytes = (size_t)storage_of(o->layout_c, o->m, o->n, plan->ldc) * sizeof(float);
    if ((status = parac_cuda_alloc(context, (void **)&d->a, d->a_bytes, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_alloc(context, (void **)&d->b, d->b_bytes, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_alloc(context, (void **)&d->c, d->c_bytes, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_upload(context, d->a, a, d->a_bytes, error)) != PARAC_OK) return status;
    if ((status = parac_cuda_upload(context, d->b, b, d->b_bytes, error)) != PARAC_OK) return status;
    /* C is read only when beta != 0, but a strided C keeps the caller's gaps, so copy it whole. */
    (void)beta;
    return parac_cuda_upload(context, d->c, c, d->c_bytes, error);
}

static void free_operands(parac_gemm_plan *plan, device_operands *d)
{
    parac_cuda_context *context = &state_of(plan)->context;
    parac_cuda_free(context, d->a);
    parac_cuda_free(context, d->b);
    parac_cuda_free(context, d->c);
}

extern "C" parac_status gemm_cuda_execute_host(parac_gemm_plan *plan, float alpha, const float *a, const float *b,
                                               float beta, float *c, parac_error *error)
{
    parac_caller_device_guard caller_device; /* the caller's current device again on return */
    device_operands d = {NULL, NULL, NULL, 0, 0, 0};
    parac_status status;
    if ((status = cudaSetDevice(state_of(plan)->context.ordinal) == cudaSuccess ? PARAC_OK : PARAC_ERR_DEVICE) != PARAC_OK)
        return parac_fail(error, status, "gemm: cannot select CUDA device %d", state_of(plan)->context.ordinal);
    status = upload_operands(plan, a, b, c, beta, &d, error);
    if (status == PARAC_OK) status = gemm_cuda_execute_device(plan, alpha, d.a, d.b, beta, d.c, error);
    if (status == PARAC_OK) status = parac_cuda_download(&state_of(plan)->context, c, d.c, d.c_bytes, error);
    free_operands(plan, &d);
    return status;
}

/* --- cuBLAS reference ----------------------------------------------------------------------- */

static parac_status cublas_check(cublasStatus_t code, const char *call, parac_error *error)
{
    if (code == CUBLAS_STATUS_SUCCESS) return PARAC_OK;
    return parac_fail(error, code == CUBLAS_STATUS_ALLOC_FAILED ? PARAC_ERR_NO_MEMORY : PARAC_ERR_DEVICE,
                      "gemm: %s failed with cuBLAS status %d", call, (int)code);
}

/* cuBLAS is column-major. A column-major C is op(A) op(B); a row-major C is stored as
 * the column-major C^T = op(B^T) op(A^T), where a row-major operand is its own
 * transpose read column-major. */
static parac_status cublas_device(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta,
                                  float *c, parac_error *error)
{
    const parac_gemm_options *o = &plan->options;
    gemm_cuda_state *st = state_of(plan);
    int c_col = o->layout_c == PARAC_GEMM_COL_MAJOR;
    const float *x = c_col ? a : b, *y = c_col ? b : a;
    int64_t ldx = c_col ? plan->lda : plan->ldb, ldy = c_col ? plan->ldb : plan->lda;
    int x_col = c_col ? o->layout_a == PARAC_GEMM_COL_MAJOR : o->layout_b == PARAC_GEMM_ROW_MAJOR;
    int y_col = c_col ? o->layout_b == PARAC_GEMM_COL_MAJOR : o->layout_a == PARAC_GEMM_ROW_MAJOR;
    int rows = (int)(c_col ? o->m : o->n), cols = (int)(c_col ? o->n : o->m), inner = (int)o->k;
    cublasOperation_t op_x = x_col ? CUBLAS_OP_N : CUBLAS_OP_T, op_y = y_col ? CUBLAS_OP_N : CUBLAS_OP_T;
    const parac_cublas_api *api;
    parac_status status;
    if (!st->cublas_ready) {
        if ((status = parac_cublas_load(&st->cublas_api, error)) != PARAC_OK) return status;
        if ((status = cublas_check(st->cublas_api->create(&st->cublas), "cublasCreate", error)) != PARAC_OK) return status;
        st->cublas_ready = 1;
    }
    api = st->cublas_api;
    if ((status = cublas_check(api->set_stream(st->cublas, (cudaStream_t)st->context.stream), "cublasSetStream", error)) != PARAC_OK)
        return status;
    if (o->dtype == PARAC_GEMM_TF32)
        return cublas_check(api->gemm_ex(st->cublas, op_x, op_y, rows, cols, inner, &alpha, x, CUDA_R_32F, (int)ldx, y,
                                         CUDA_R_32F, (int)ldy, &beta, c, CUDA_R_32F, (int)plan->ldc,
                                         CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
                            "cublasGemmEx", error);
    return cublas_check(api->sgemm(st->cublas, op_x, op_y, rows, cols, inner, &alpha, x, (int)ldx, y, (int)ldy, &beta,
                                    c, (int)plan->ldc),
                        "cublasSgemm", error);
}

extern "C" parac_status gemm_cuda_vendor_reference(parac_gemm_plan *plan, float alpha, const float *a, const float *b,
                                                   float beta, float *c, parac_error *error)
{
    parac_caller_device_guard caller_device; /* the caller's current device again on return */
    device_operands d = {NULL, NULL, NULL, 0, 0, 0};
    parac_status status = cudaSetDevice(state_of(plan)->context.ordinal) == cudaSuccess ? PARAC_OK : PARAC_ERR_DEVICE;
    if (status != PARAC_OK) return parac_fail(error, status, "gemm: cannot select CUDA device %d", state_of(plan)->context.ordinal);
    status = upload_operands(plan, a, b, c, beta, &d, error);
    if (status == PARAC_OK) status = cublas_device(plan, alpha, d.a, d.b, beta, d.c, error);
    if (status == PARAC_OK) status = parac_cuda_download(&state_of(plan)->context, c, d.c, d.c_bytes, error);
    free_operands(plan, &d);
    return status;
}
