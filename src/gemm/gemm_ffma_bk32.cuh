/* gemm/gemm_ffma_bk32.cuh — fp32 FFMA variant BK32 (included by gemm_cuda.cu, which launches it).
 *
 * Base's thread tile (8x8 per thread, 64x32 warp tiles, BM/64 x BN/32 warps: 256 threads at
 * 128x128) with what base lacks:
 *   - BK 32 per pipeline stage, 3 cp.async stages (128x128: 96 KiB, 2 blocks/SM): one barrier
 *     per 32 k instead of per 16;
 *   - register double-buffered fragments: the four float4 shared reads of k step kk+1 are issued
 *     before the 64 FFMAs of step kk, so the FMA pipe never waits on shared-memory latency; the
 *     barrier sits before a stage's last 64 FFMAs (its fragments already in registers), so the next
 *     stage's first fragments load under them too and the freed buffer is refilled at once;
 *   - B cp.async'ed in place from the caller's row-major B when aligned (no pack pass over B);
 *   - a float4 epilogue (row-major C: 4 columns, column-major C: 4 rows per store).
 * Shared layouts are the panels' k-major rows without padding: a quarter-warp's float4 reads hit
 * 2 distinct A addresses (broadcast) and 4 consecutive B float4s, so they are conflict-free, and the
 * cp.async writes are contiguous 16-byte chunks (no swizzle needed).
 * Each C value is one fmaf chain in ascending k (stages ascending, kk ascending inside a stage),
 * over the same zero-padded operands: the bits of base and of the CPU path. */
#ifndef PARAC_GEMM_FFMA_BK32_CUH
#define PARAC_GEMM_FFMA_BK32_CUH

#include "gemm/gemm_kernels.cuh"
#include "gemm/gemm_launch.cuh"

#define BK32_BK 32
#define BK32_STAGES 3

/* STAGES: 3 for the 64/128 tiles; 2 for 64x256 (the N256 variant's tiles): 3 x 40 KiB would allow
 * one block per SM (8 warps), 2 x 40 KiB = 80 KiB gives two (16 warps, as N256's BK16 x 4 stages).
 * Two stages suffice there: a stage is 2048 FFMAs per thread, far longer than a load's latency, and
 * the other resident block covers each block's barrier. */
template <int BM, int BN> struct bk32_shape {
    static constexpr int WARPS_M = BM / 64, WARPS_N = BN / 32, THREADS = WARPS_M * WARPS_N * 32;
    static constexpr int STAGES = BM == 64 && BN == 256 ? 2 : BK32_STAGES;
    static constexpr int A_STAGE = BK32_BK * BM, B_STAGE = BK32_BK * BN;
    static constexpr int A_CHUNKS = A_STAGE / 4 / THREADS, B_CHUNKS = B_STAGE / 4 / THREADS; /* 16-byte copies per thread */
    static constexpr size_t SMEM = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(float);
    static_assert(A_CHUNKS * THREADS * 4 == A_STAGE && B_CHUNKS * THREADS * 4 == B_STAGE, "whole chunks per thread");
    static_assert(THREADS % (BN / 4) == 0, "a thread keeps one B column chunk across its copies");
};

/* Stage `step` of a work item: A's BK x BM panel chunk, B's BK x BN block from its panel or
 * (DIRECT_B) in place, zero-filled past k and n exactly where the pack writes zeros. */
template <int BM, int BN, bool DIRECT_B>
__device__ __forceinline__ void bk32_load(const gemm_args &g, const gemm_work_item &w, int step, float *a_stage, float *b_stage)
{
    typedef bk32_shape<BM, BN> S;
    int sub_steps = g.tile_k / BK32_BK, t = threadIdx.x;
    int64_t k_offset = (int64_t)g.k_list[w.list_begin + step / sub_steps] * g.tile_k + (step % sub_steps) * BK32_BK;
    const float *a_src = g.packed_a + ((int64_t)w.tile_row * g.padded_k + k_offset) * BM;
#pragma unroll
    for (int q = 0; q < S::A_CHUNKS; q++) cp_async16(a_stage + (q * S::THREADS + t) * 4, a_src + (q * S::THREADS + t) * 4);
    if (!DIRECT_B) {
        const float *b_src = g.packed_b + ((int64_t)w.tile_col * g.padded_k + k_offset) * BN;
#pragma unroll
        for (int q = 0; q < S::B_CHUNKS; q++) cp_async16(b_stage + (q * S::THREADS + t) * 4, b_src + (q * S::THREADS + t) * 4);
    } else {
        /* copy q of this thread: stage row kk0 + q * KK_STEP, its chunk column fixed (THREADS % (BN/4) == 0);
         * one source pointer stepped by KK_STEP rows (64x256 has 8 copies: per-copy 64-bit address math
         * spilled in the dynamic kernel) */
        constexpr int KK_STEP = S::THREADS / (BN / 4);
        int chunk_col = (t % (BN / 4)) * 4, kk0 = t / (BN / 4);
        if (k_offset + BK32_BK <= g.k && (int64_t)(w.tile_col + 1) * BN <= g.n) {
            /* the stage wholly inside B (the common case): no bounds, no zero fill */
            const float *src = g.b_direct + (k_offset + kk0) * g.ldb + (int64_t)w.tile_col * BN + chunk_col;
#pragma unroll
            for (int q = 0; q < S::B_CHUNKS; q++) {
                cp_async16(b_stage + (kk0 + q * KK_STEP) * BN + chunk_col, src);
                if (q + 1 < S::B_CHUNKS) src += KK_STEP * g.ldb;
            }
            return;
        }
        int64_t col = (int64_t)w.tile_col * BN + chunk_col, rows_left = g.k - (k_offset + kk0);
        bool col_inside = col < g.n; /* n % 4 == 0: a chunk is wholly inside or past n */
        const float *src = g.b_direct + (col_inside && rows_left > 0 ? (k_offset + kk0) * g.ldb + col : 0);
#pragma unroll
        for (int q = 0; q < S::B_CHUNKS; q++) {
            bool inside = col_inside && q * KK_STEP < rows_left;
            cp_async16_zfill(b_stage + (kk0 + q * KK_STEP) * BN + chunk_col, inside ? src : g.b_direct, inside ? 16 : 0);
            if (q + 1 < S::B_CHUNKS && col_inside && (q + 1) * KK_STEP < rows_left) src += KK_STEP * g.ldb; /* never past B */
        }
    }
}

/* The A (rows row0..+3, row0+32..+3) and B (cols col0..+3, col0+16..+3) fragments of k step kk. */
template <int BM, int BN>
__device__ __forceinline__ void bk32_fragments(const float *a_stage, const float *b_stage, int kk, int row0, int col0, float4 (&f)[4])
{
    f[0] = *(const float4 *)(a_stage + kk * BM + row0);
    f[1] = *(const float4 *)(a_stage + kk * BM + row0 + 32);
    f[2] = *(const float4 *)(b_stage + kk * BN + col0);
    f[3] = *(const float4 *)(b_stage + kk * BN + col0 + 16);
}

__device__ __forceinline__ void bk32_fma(const float4 (&f)[4], float (&acc)[8][8])
{
    float a[8] = {f[0].x, f[0].y, f[0].z, f[0].w, f[1].x, f[1].y, f[1].z, f[1].w};
    float b[8] = {f[2].x, f[2].y, f[2].z, f[2].w, f[3].x, f[3].y, f[3].z, f[3].w};
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = __fmaf_rn(a[i], b[j], acc[i][j]);
}

/* k steps 0..BK-2 of a stage whose step-0 fragments are in frag[0]: the fragments of step kk+1 are
 * read while step kk's 64 FFMAs run; on return frag[1] holds step BK-1's (not yet multiplied). */
template <int BM, int BN>
__device__ __forceinline__ void bk32_stage_head(const float *a_stage, const float *b_stage, int row0, int col0,
                                                float4 (&frag)[2][4], float (&acc)[8][8])
{
#pragma unroll
    for (int kk = 0; kk < BK32_BK - 1; kk++) {
        bk32_fragments<BM, BN>(a_stage, b_stage, kk + 1, row0, col0, frag[(kk + 1) % 2]);
        bk32_fma(frag[kk % 2], acc);
    }
    static_assert((BK32_BK - 1) % 2 == 1, "the last step's fragments land in frag[1]");
}

/* Four consecutive C values (along a row when `along_row`, else along a column) from (row, col):
 * one float4 load/store when in bounds and 16-byte aligned, else element by element. Each value
 * goes through the same epilogue(): the bits do not depend on the path. */
__device__ __forceinline__ void bk32_store4(const gemm_args &g, int64_t row, int64_t col, bool along_row, float4 v, bool aligned)
{
    bool inside = along_row ? row < g.m && col + 3 < g.n : col < g.n && row + 3 < g.m;
    if (aligned && inside) {
        float4 *target = (float4 *)(g.c_row_major ? g.c + row * g.ldc + col : g.c + col * g.ldc + row);
        float4 old = g.beta == 0.0f ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : *target;
        *target = make_float4(epilogue(g.alpha, v.x, g.beta, old.x), epilogue(g.alpha, v.y, g.beta, old.y),
                              epilogue(g.alpha, v.z, g.beta, old.z), epilogue(g.alpha, v.w, g.beta, old.w));
        return;
    }
    float values[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int e = 0; e < 4; e++) store_value(g, along_row ? row : row + e, along_row ? col + e : col, values[e]);
}

/* The 8x8 register tile to C, or to the item's split-k partial slot (BM x BN row-major, aligned). */
template <int BM, int BN>
__device__ __forceinline__ void bk32_store(const gemm_args &g, const gemm_work_item &w, int row0, int col0, const float (&acc)[8][8])
{
    int64_t tile_row0 = (int64_t)w.tile_row * BM, tile_col0 = (int64_t)w.tile_col * BN;
    if (w.partial_slot >= 0) {
        float *slot = g.partials + (int64_t)w.partial_slot * BM * BN;
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                *(float4 *)(slot + (row0 + (i / 4) * 32 + i % 4) * BN + col0 + h * 16) =
                    make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
        return;
    }
    /* row0, col0 and the tile origins are multiples of 4, so with ldc % 4 == 0 and a 16-byte aligned C
     * every 4-run starts 16-byte aligned */
    bool aligned = ((uintptr_t)g.c % 16) == 0 && g.ldc % 4 == 0;
    if (g.c_row_major) {
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                bk32_store4(g, tile_row0 + row0 + (i / 4) * 32 + i % 4, tile_col0 + col0 + h * 16, true,
                            make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]), aligned);
    } else {
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                bk32_store4(g, tile_row0 + row0 + h * 32, tile_col0 + col0 + (j / 4) * 16 + j % 4, false,
                            make_float4(acc[4 * h][j], acc[4 * h + 1][j], acc[4 * h + 2][j], acc[4 * h + 3][j]), aligned);
    }
}

/* Ring buffers of stage `step`: A's, then (after all A buffers) B's. */
template <int BM, int BN> __device__ __forceinline__ const float *bk32_a(const float *shared, int step)
{
    typedef bk32_shape<BM, BN> S;
    return shared + (step % S::STAGES) * S::A_STAGE;
}
template <int BM, int BN> __device__ __forceinline__ const float *bk32_b(const float *shared, int step)
{
    typedef bk32_shape<BM, BN> S;
    return shared + S::STAGES * S::A_STAGE + (step % S::STAGES) * S::B_STAGE;
}

template <int BM, int BN, bool DIRECT_B>
__device__ __forceinline__ void bk32_load_if(const gemm_args &g, const gemm_work_item &w, int step, int steps, float *shared)
{
    typedef bk32_shape<BM, BN> S;
    if (step < steps)
        bk32_load<BM, BN, DIRECT_B>(g, w, step, shared + (step % S::STAGES) * S::A_STAGE,
                                    shared + S::STAGES * S::A_STAGE + (step % S::STAGES) * S::B_STAGE);
    cp_async_commit(); /* an empty group keeps the wait counts uniform */
}

template <int BM, int BN, bool DIRECT_B>
__device__ void bk32_work_item(const gemm_args &g, const gemm_work_item &w, float *shared)
{
    typedef bk32_shape<BM, BN> S;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row0 = (warp / S::WARPS_N) * 64 + (lane / 4) * 4, col0 = (warp % S::WARPS_N) * 32 + (lane % 4) * 4;
    int steps = (w.list_end - w.list_begin) * (g.tile_k / BK32_BK);
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;
    float4 frag[2][4];
    constexpr int ST = S::STAGES;
    static_assert(ST == 2 || ST == 3, "the ring below is written for 2 or 3 stages");
    /* prologue: stages 0 .. ST-2 committed, stage 0 awaited, then stage ST-1 (3 stages: exactly
     * load 0, load 1, wait<1>, barrier, load 2; 2 stages: load 0, wait<0>, barrier, load 1) */
#pragma unroll
    for (int s = 0; s < ST - 1; s++) bk32_load_if<BM, BN, DIRECT_B>(g, w, s, steps, shared);
    cp_async_wait<ST - 2>();
    __syncthreads(); /* stage 0 landed for all */
    bk32_load_if<BM, BN, DIRECT_B>(g, w, ST - 1, steps, shared);
    if (steps > 0) bk32_fragments<BM, BN>(bk32_a<BM, BN>(shared, 0), bk32_b<BM, BN>(shared, 0), 0, row0, col0, frag[0]);
    for (int step = 0; step < steps; step++) {
        /* groups committed: stages 0 .. step+ST-1; stages step+1 .. step+ST-1 may be in flight */
        bk32_stage_head<BM, BN>(bk32_a<BM, BN>(shared, step), bk32_b<BM, BN>(shared, step), row0, col0, frag, acc);
        /* the last k step's fragments are in registers, so past this barrier nobody reads stage step's
         * buffer: it takes stage step+ST, and stage step+1's first fragments load under the last 64 FFMAs */
        cp_async_wait<ST - 2>();
        __syncthreads(); /* stage step+1 landed for all */
        bk32_load_if<BM, BN, DIRECT_B>(g, w, step + ST, steps, shared);
        if (step + 1 < steps)
            bk32_fragments<BM, BN>(bk32_a<BM, BN>(shared, step + 1), bk32_b<BM, BN>(shared, step + 1), 0, row0, col0, frag[0]);
        bk32_fma(frag[1], acc);
    }
    cp_async_wait<0>();
    __syncthreads(); /* the next work item may refill every stage */
    bk32_store<BM, BN>(g, w, row0, col0, acc);
}

/* __launch_bounds__(THREADS, 2): 128x128 (256 threads) gets at most 128 registers, 2 blocks/SM. */
template <int BM, int BN, bool DIRECT_B>
__global__ void __launch_bounds__(bk32_shape<BM, BN>::THREADS, 2) bk32_static(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    gemm_work_item w = g.items[blockIdx.x];
    bk32_work_item<BM, BN, DIRECT_B>(g, w, shared);
}

template <int BM, int BN, bool DIRECT_B>
__global__ void __launch_bounds__(bk32_shape<BM, BN>::THREADS, 2) bk32_dynamic(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    __shared__ int next_item;
    for (int item; (item = gemm_next_queued_item(g, &next_item)) >= 0;) bk32_work_item<BM, BN, DIRECT_B>(g, g.items[item], shared);
}

#endif
