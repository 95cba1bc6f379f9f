/* dev/gemm/01_wide.cu — fp32 FFMA with an 8x16 register tile per thread (64x64 warp tiles), BK 32, 3 stages instead of base's 8x8, BK 16, 4 stages. Never picked by auto: dense 42.33 / 44.52 TFLOP/s at 4096 / 8192 against bk32 (auto) 43.65 / 44.46 (docs/gemm.md, run G, H200), block-sparse 12.5 % 7.72 ms against base 3.96 (run D); removed from src/ (issue 20).
 *
 * Why it was tried: 6 float4 shared reads feed 128 FFMAs (base: 4 feed 64) and one barrier per
 * 32 k instead of per 16. Why it lost: bk32 (base's 8x8 tile with BK 32 and register
 * double-buffered fragments) got the same fewer-barriers gain at 128 registers and 2 blocks per
 * SM; wide's 217-249 registers leave 4 warps per block, and on the sparse 64-wide tiles a block
 * has only 1-2 warps (about half base's speed there). Each C value is still one fmaf chain in
 * ascending k, so the bits equal base's and the CPU's (checked by the harness). Run: dev/run. */
#include "gemm/gemm_ffma.cuh"
#include "lab_gemm.cuh"

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


template <int BM, int BN>
__global__ void wide_static(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    ffma_wide_work_item<BM, BN>(g, g.items[blockIdx.x], shared);
}

template <int BM, int BN>
__global__ void wide_dynamic(gemm_args g)
{
    extern __shared__ __align__(16) float shared[];
    __shared__ int next_item;
    for (int item; (item = gemm_next_queued_item(g, &next_item)) >= 0;) ffma_wide_work_item<BM, BN>(g, g.items[item], shared);
}

template <int BM, int BN>
static parac_status launch_shape(const gemm_args &g, int multiprocessors, cudaStream_t stream, parac_error *error)
{
    typedef wide_shape<BM, BN> S;
    gemm_grid grid = gemm_items_grid(g, g.order != NULL, S::THREADS, S::SMEM, multiprocessors, stream);
    if (!g.order) return gemm_launch_items(wide_static<BM, BN>, grid, error, g);
    return gemm_launch_items(wide_dynamic<BM, BN>, grid, error, g);
}

/* g.order set: the dynamic queue; tile_k must be a multiple of 32 (the harness runs 64). */
static parac_status launch_wide(const parac_gemm_plan *plan, const gemm_args &g, int multiprocessors, cudaStream_t stream,
                                parac_error *error)
{
    if (plan->tile_m == 128 && plan->tile_n == 128) return launch_shape<128, 128>(g, multiprocessors, stream, error);
    if (plan->tile_m == 128) return launch_shape<128, 64>(g, multiprocessors, stream, error);
    if (plan->tile_n == 128) return launch_shape<64, 128>(g, multiprocessors, stream, error);
    return launch_shape<64, 64>(g, multiprocessors, stream, error);
}

int main(int argc, char **argv) { return lab_gemm_main("01_wide", launch_wide, argc, argv); }
