/* gemm/gemm_ffma.cuh — base's pipeline and fp32 FFMA tile math (the mainloop and per-item
 * epilogue of the BASE and N256 variants; included by gemm_cuda.cu, which launches them, and by
 * the kernel lab's gemm variants in dev/gemm/, which build on it).
 *
 * ffma_work_item: BMxBN block tile (64/128, or 64x256 for N256), 8x8 register tile per thread in
 * a 64x32 warp tile, 128-bit cp.async loads of contiguous panel chunks into a 4-stage pipeline
 * (BK = 16), float4 shared reads without bank conflicts. Every C value is fmaf-chained in
 * ascending k: the CPU path's exact bits. load_stage is also the mma.sync kernel's loader. */
#ifndef PARAC_GEMM_FFMA_CUH
#define PARAC_GEMM_FFMA_CUH

#include "gemm/gemm_kernels.cuh"

#define GEMM_BK 16
#define GEMM_STAGES 4

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

#endif
