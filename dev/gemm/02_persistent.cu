/* dev/gemm/02_persistent.cu — fp32, base's FFMA tile math in resident blocks that stream work items through one cp.async ring kept full across C tiles. Lost: dense 38.0 / 39.4 TFLOP/s at 4096 / 8192 against base 41.6 / 43.4 (docs/PERFORMANCE.md run D, H200), slower than base on every input; removed from src/ (issue 20).
 *
 * One resident block per SM slot (occupancy-sized grid) walks a stream of work items:
 * static = the swizzled order strided by the grid, dynamic = the atomic queue, longest
 * first. Loader and compute share one cp.async ring that never drains between C tiles:
 * the loader runs GEMM_STAGES-1 stages ahead through the stream, so the next C tile's
 * first k stages land while this tile finishes its last FMAs and its epilogue (base
 * drains the pipeline and refills it per item). Every item takes max(steps, 1) stages,
 * an empty C tile one stage without a load, so loader and compute stay in lockstep and
 * the loader is at most GEMM_STAGES-1 items ahead. The per-thread FMA chain (8x8 tile,
 * BK 16, ascending k) is base's (ffma_stage), so the bits are base's and the CPU's.
 * Run: dev/run. */
#include "gemm/gemm_ffma.cuh"
#include "lab_gemm.cuh"

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


/* As many blocks as fit at once (capped by the item count); g.order non-NULL selects the dynamic
 * queue, whose counter starts at 0, NULL the static order strided by the grid. */
template <int BM, int BN>
static parac_status launch_shape(const gemm_args &g, int multiprocessors, cudaStream_t stream, parac_error *error)
{
    gemm_grid grid = gemm_items_grid(g, 1, ffma_shape<BM, BN>::THREADS, ffma_shape<BM, BN>::SMEM, multiprocessors, stream);
    if (!g.order) grid.counter = NULL;
    return gemm_launch_items(ffma_persistent<BM, BN>, grid, error, g);
}

static parac_status launch_persistent(const parac_gemm_plan *plan, const gemm_args &g, int multiprocessors,
                                      cudaStream_t stream, parac_error *error)
{
    if (plan->tile_m == 128 && plan->tile_n == 128) return launch_shape<128, 128>(g, multiprocessors, stream, error);
    if (plan->tile_m == 128) return launch_shape<128, 64>(g, multiprocessors, stream, error);
    if (plan->tile_n == 128) return launch_shape<64, 128>(g, multiprocessors, stream, error);
    return launch_shape<64, 64>(g, multiprocessors, stream, error);
}

int main(int argc, char **argv) { return lab_gemm_main("02_persistent", launch_persistent, argc, argv); }
