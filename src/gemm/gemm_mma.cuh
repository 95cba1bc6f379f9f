/* gemm/gemm_mma.cuh — the tf32 tile kernel of the BASE variant (included by gemm_cuda.cu):
 * TF32 tensor cores with mma.sync.m16n8k8 (sm_80+), base's panels and pipeline (load_stage,
 * gemm_ffma.cuh), shared rows padded by MMA_PAD floats so the fragment loads are conflict-free.
 * mma.sync rather than Hopper wgmma: it is portable to sm_80+ and compiles for the default sm_90
 * target (wgmma needs sm_90a: gemm_wgmma.cu). */
#ifndef PARAC_GEMM_MMA_CUH
#define PARAC_GEMM_MMA_CUH

#include "gemm/gemm_ffma.cuh"

#define MMA_PAD 8

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

#endif
