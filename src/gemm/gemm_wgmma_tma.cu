/* gemm/gemm_wgmma_tma.cu — TF32 tile kernels on Hopper: bulk-copy (TMA)
 * producer, mbarrier pipeline, warp-specialised wgmma consumers, persistent
 * (variant WGMMA_TMA).
 *
 * What it changes against gemm_wgmma.cu (cp.async ring, every thread loads,
 * one block per work item):
 *   - loads: one elected producer thread issues cp.async.bulk (the TMA unit)
 *     of each stage. The plan already packs every stage of A and B as one
 *     contiguous chunk in the 128B-swizzle layout (gemm_pack.cu packed_index),
 *     so a 1-D bulk copy lands it in shared memory exactly as wgmma reads it:
 *     no tensor map (and no driver entry point) is needed for that layout.
 *   - completion: per stage a "full" mbarrier (1 arrival + the stage's bytes
 *     as transaction count) and an "empty" mbarrier (every consumer thread
 *     arrives once its wgmma reading the stage has retired). No __syncthreads
 *     in the main loop; the async proxy writes (bulk copy) and reads (wgmma)
 *     meet through the mbarriers, so no proxy fence either.
 *   - warp specialisation: warpgroup 0 is the producer (one thread works, the
 *     rest leave), warpgroups 1..BM/64 consume, each owning 64 rows x BN.
 *   - persistence: grid = SMs x blocks per SM; the producer walks the work
 *     items (static: swizzled order strided by the grid; dynamic: atomic
 *     queue, longest first) and streams (item, k step) stages without a
 *     break, so the next C tile's loads overlap this tile's last wgmmas and
 *     its epilogue. Per-stage metadata (item, step, steps) tells consumers
 *     where a C tile starts and ends; item -1 ends the kernel.
 *   - STAGES is a template parameter (4 or 6: the plan's pipeline_stages).
 *   - BN 256 is the WGMMA_WS variant (the plan's tile_n 256): consumers issue
 *     m64n256k8 (128 accumulators per thread), 4 stages of 48 KiB, and at
 *     128 x 256 the producer warpgroup hands registers to the consumers
 *     (setmaxnreg 40 / 232).
 *   - A_MAP (variant WGMMA_WS_A, BN 256 only): A is not packed; the producer
 *     loads each 32 x BM stage of the caller's row-major A with a TMA tensor
 *     copy (cp.async.bulk.tensor.2d, box 32 x BM, 128B swizzle: the same smem
 *     image as the packed stage; rows past m and k past K are zero-filled by
 *     the TMA unit). The map is encoded per launch by cuTensorMapEncodeTiled,
 *     reached through cudaGetDriverEntryPointByVersion (no -lcuda). A then
 *     enters the tensor core unrounded (its tf32 truncation, not cvt.rna).
 * Each C tile is still one k chain in the plan's order; the tensor core's
 * internal order is the hardware's, as for every tf32 path.
 */
#include <cudaTypedefs.h> /* CUtensorMap, PFN_cuTensorMapEncodeTiled (types only: no -lcuda) */
#include <cuda_runtime.h>

#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "cuda/context.h"
#include "cuda/cuda_check.h"
#include "gemm/gemm_internal.h"
#include "gemm/gemm_kernels.cuh"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_wgmma.cuh"

template <int BM, int BN, int STAGES> struct tma_shape {
    static constexpr int CONSUMERS = BM / 64, THREADS = (CONSUMERS + 1) * 128;
    static constexpr int A_STAGE = WG_BK * BM, B_STAGE = WG_BK * BN; /* floats; multiples of 256 (1 KiB) */
    static constexpr unsigned STAGE_BYTES = (unsigned)((A_STAGE + B_STAGE) * sizeof(float));
    static constexpr size_t SMEM = (size_t)STAGES * STAGE_BYTES + 1024; /* + alignment */
    /* 128 x 256 (WGMMA_WS): 384 threads at one block per SM get 168 registers each, too few for
     * 128 accumulators plus addresses; the producer warpgroup gives registers back (40) so the two
     * consumers can hold 232: 128*40 + 256*232 = 64512 <= 168*384. */
    static constexpr bool REALLOCATE = BN == 256 && CONSUMERS == 2;
    static constexpr int PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
};

/* What the producer tells consumers about a stage. */
struct tma_stage_meta {
    int item;  /* index into g.items; -1: no more work */
    int step;  /* k step inside the item (0 starts a C tile) */
    int steps; /* k steps of the item (0: C tile without tile kernels) */
};

#ifdef GEMM_WGMMA_ENABLED
static __device__ __forceinline__ unsigned shared_address(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

static __device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
static __device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}
static __device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes) : "memory");
}
/* Waits until the phase with this parity has completed (parity 1 on a fresh barrier returns at once). */
static __device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n"
                 "}\n" ::"r"(shared_address(bar)),
                 "r"(parity)
                 : "memory");
}
/* Register reallocation between warpgroups (every thread of the warpgroup executes it). */
template <int REGISTERS> static __device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGISTERS));
}
template <int REGISTERS> static __device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGISTERS));
}

/* Bulk copy global -> shared through the TMA unit; completion counted in bytes on `bar`. */
static __device__ __forceinline__ void bulk_copy(void *shared, const void *global, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     shared_address(shared)),
                 "l"(global), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
}

/* TMA tensor copy of the box at (x = k, y = row) of a 2-D map; completion counted in bytes on `bar`. */
static __device__ __forceinline__ void tensor_copy_2d(void *shared, const CUtensorMap *map, int x, int y, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
                     shared_address(shared)),
                 "l"((uint64_t)map), "r"(x), "r"(y), "r"(shared_address(bar))
                 : "memory");
}

/* The next work item of this block: static strides the swizzled order, dynamic pulls the queue. */
static __device__ __forceinline__ int next_item(const gemm_args &g, int *position)
{
    int p = g.order ? (int)atomicAdd(g.counter, 1u) : *position;
    *position += gridDim.x;
    if (p >= g.item_count) return -1;
    return g.order ? g.order[p] : p;
}

template <int BM, int BN, int STAGES, bool A_MAP>
static __device__ __forceinline__ void tma_producer(const gemm_args &g, const CUtensorMap *a_map, float *shared, uint64_t *full,
                                                   uint64_t *empty, tma_stage_meta *meta)
{
    typedef tma_shape<BM, BN, STAGES> S;
    int sub_steps = g.tile_k / WG_BK, position = blockIdx.x;
    unsigned produced = 0;
    for (;;) {
        int item = next_item(g, &position);
        gemm_work_item w = {0, 0, 0, 0, -1, 0};
        if (item >= 0) w = g.items[item];
        int steps = item >= 0 ? (w.list_end - w.list_begin) * sub_steps : 0;
        /* one stage per k step; an empty item or the end still sends one (metadata only) */
        for (int step = 0; step < (steps > 0 ? steps : 1); step++, produced++) {
            int stage = (int)(produced % STAGES);
            mbar_wait(&empty[stage], ((produced / STAGES) & 1) ^ 1);
            meta[stage].item = item;
            meta[stage].step = step;
            meta[stage].steps = steps;
            if (steps == 0) {
                mbar_arrive(&full[stage]);
                continue;
            }
            int64_t k_offset = (int64_t)g.k_list[w.list_begin + step / sub_steps] * g.tile_k + (step % sub_steps) * WG_BK;
            float *a_stage = shared + stage * (S::A_STAGE + S::B_STAGE), *b_stage = a_stage + S::A_STAGE;
            mbar_arrive_expect_tx(&full[stage], S::STAGE_BYTES);
            if (A_MAP) tensor_copy_2d(a_stage, a_map, (int)k_offset, w.tile_row * BM, &full[stage]); /* 32 x BM box = A_STAGE */
            else bulk_copy(a_stage, g.packed_a + ((int64_t)w.tile_row * g.padded_k + k_offset) * BM, S::A_STAGE * 4, &full[stage]);
            bulk_copy(b_stage, g.packed_b + ((int64_t)w.tile_col * g.padded_k + k_offset) * BN, S::B_STAGE * 4, &full[stage]);
        }
        if (item < 0) return;
    }
}

/* Consumer warpgroup `consumer` (0-based): rows 64*consumer .. +63 of every C tile.
 * Shaped like the plain wgmma kernel (zero, k loop, epilogue per item) rather
 * than one loop over stages with "first/last step" branches: accumulators
 * touched under data-dependent branches make ptxas serialise every wgmma
 * (C7518). Waiting again on a stage's full barrier is harmless: its phase
 * cannot advance before this warpgroup releases the stage. */
template <int BM, int BN, int STAGES>
static __device__ __forceinline__ void tma_consumer(const gemm_args &g, const float *shared, uint64_t *full, uint64_t *empty,
                                                    const tma_stage_meta *meta, int consumer)
{
    typedef tma_shape<BM, BN, STAGES> S;
    int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    int stage = 0, previous = 0; /* ring position of the next stage to consume, and of the last consumed */
    unsigned phase = 0;          /* parity of the ring's current lap */
    float acc[BN / 2];
    for (;;) {
        mbar_wait(&full[stage], phase);
        tma_stage_meta m = meta[stage];
        if (m.item < 0) return;
#pragma unroll
        for (int j = 0; j < BN / 2; j++) acc[j] = 0.0f;
        for (int step = 0; step < m.steps; step++) {
            mbar_wait(&full[stage], phase);
            uint64_t desc_a = smem_descriptor(shared + stage * (S::A_STAGE + S::B_STAGE) + consumer * 64 * WG_BK);
            uint64_t desc_b = smem_descriptor(shared + stage * (S::A_STAGE + S::B_STAGE) + S::A_STAGE);
            wgmma_fence();
#pragma unroll
            for (int k8 = 0; k8 < WG_BK / 8; k8++) wgmma_k8<BN>(acc, desc_a + 2 * k8, desc_b + 2 * k8); /* +32 bytes */
            wgmma_commit();
            wgmma_wait<1>(); /* the previous step's wgmma has retired: give its buffer back */
            if (step > 0) mbar_arrive(&empty[previous]);
            previous = stage;
            if (++stage == STAGES) stage = 0, phase ^= 1;
        }
        wgmma_wait<0>();
        if (m.steps == 0) { /* a metadata-only stage */
            previous = stage;
            if (++stage == STAGES) stage = 0, phase ^= 1;
        }
        mbar_arrive(&empty[previous]); /* the item's last stage goes back too */
        int64_t tile_row0 = (int64_t)g.items[m.item].tile_row * BM, tile_col0 = (int64_t)g.items[m.item].tile_col * BN;
        int partial_slot = g.items[m.item].partial_slot;
#pragma unroll
        for (int j = 0; j < BN / 2; j++) {
            int r = consumer * 64 + warp * 16 + lane / 4 + 8 * ((j / 2) % 2), c = (j / 4) * 8 + (lane % 4) * 2 + j % 2;
            if (partial_slot >= 0) g.partials[((int64_t)partial_slot * BM + r) * BN + c] = acc[j];
            else store_value(g, tile_row0 + r, tile_col0 + c, acc[j]);
        }
    }
}
#endif

/* a_map: A's tensor map when A_MAP, else unused (a grid constant: the TMA unit reads it in place). */
template <int BM, int BN, int STAGES, bool A_MAP>
__global__ void __launch_bounds__(tma_shape<BM, BN, STAGES>::THREADS, 1)
    wgmma_tma_persistent(gemm_args g, const __grid_constant__ CUtensorMap a_map)
{
#ifdef GEMM_WGMMA_ENABLED
    typedef tma_shape<BM, BN, STAGES> S;
    extern __shared__ __align__(1024) float raw_shared[];
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    __shared__ tma_stage_meta meta[STAGES];
    float *shared = aligned_shared(raw_shared);
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], S::CONSUMERS * 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        if (S::REALLOCATE) setmaxnreg_dec<S::PRODUCER_REGISTERS>();
        if (threadIdx.x == 0) tma_producer<BM, BN, STAGES, A_MAP>(g, &a_map, shared, full, empty, meta);
        return;
    }
    if (S::REALLOCATE) setmaxnreg_inc<S::CONSUMER_REGISTERS>();
    tma_consumer<BM, BN, STAGES>(g, shared, full, empty, meta, warpgroup - 1);
#endif
}

template <int BM, int BN, int STAGES, bool A_MAP = false>
static parac_status tma_launch_shape(const gemm_args &g, const CUtensorMap &a_map, int multiprocessors, cudaStream_t stream,
                                     parac_error *error)
{
    typedef tma_shape<BM, BN, STAGES> S;
    /* resident blocks always: the queue (g.order set, counter zeroed) or the static order strided by the grid */
    gemm_grid grid = gemm_items_grid(g, 1, S::THREADS, S::SMEM, multiprocessors, stream);
    if (!g.order) grid.counter = NULL;
    return gemm_launch_items(wgmma_tma_persistent<BM, BN, STAGES, A_MAP>, grid, error, g, a_map);
}

/* A's tensor map: the caller's row-major m x k matrix (row stride lda floats), box 32 (k) x box_rows,
 * 128B swizzle (the packed stage's layout), out-of-bounds elements read as zero. */
static parac_status encode_a_map(const gemm_args &g, int box_rows, CUtensorMap *map, parac_error *error)
{
    void *entry = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    PARAC_CUDA_RETURN(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !entry)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: the CUDA driver has no cuTensorMapEncodeTiled (wgmma_ws_a)");
    cuuint64_t dims[2] = {(cuuint64_t)g.k, (cuuint64_t)g.m};
    cuuint64_t strides[1] = {(cuuint64_t)g.lda * sizeof(float)};
    cuuint32_t box[2] = {WG_BK, (cuuint32_t)box_rows};
    cuuint32_t element_strides[2] = {1, 1};
    CUresult result = ((PFN_cuTensorMapEncodeTiled_v12000)entry)(
        map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)g.a_direct, dims, strides, box, element_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: cuTensorMapEncodeTiled failed (%d) for A %lld x %lld, lda %lld",
                          (int)result, (long long)g.m, (long long)g.k, (long long)g.lda);
    return PARAC_OK;
}

/* BN 256 (WGMMA_WS / WGMMA_WS_A): A packed, or read through its tensor map when g.a_direct is set. */
template <int BM>
static parac_status ws_launch(const gemm_args &g, int multiprocessors, cudaStream_t stream, parac_error *error)
{
    CUtensorMap map;
    memset(&map, 0, sizeof map);
    if (!g.a_direct) return tma_launch_shape<BM, 256, 4>(g, map, multiprocessors, stream, error);
    parac_status status = encode_a_map(g, BM, &map, error);
    return status != PARAC_OK ? status : tma_launch_shape<BM, 256, 4, true>(g, map, multiprocessors, stream, error);
}

template <int STAGES>
static parac_status tma_launch_stages(const gemm_args &g, int tile_m, int tile_n, int multiprocessors, cudaStream_t stream,
                                      parac_error *error)
{
    CUtensorMap unused;
    memset(&unused, 0, sizeof unused);
    if (tile_m == 128 && tile_n == 128) return tma_launch_shape<128, 128, STAGES>(g, unused, multiprocessors, stream, error);
    if (tile_m == 128) return tma_launch_shape<128, 64, STAGES>(g, unused, multiprocessors, stream, error);
    if (tile_n == 128) return tma_launch_shape<64, 128, STAGES>(g, unused, multiprocessors, stream, error);
    return tma_launch_shape<64, 64, STAGES>(g, unused, multiprocessors, stream, error);
}

/* g.order non-NULL selects the dynamic queue. stages: 4 or 6 (anything else runs 4). tile_n 256 is the
 * WGMMA_WS variant: 4 stages always (48 KiB each for 128 x 256: 6 would not fit in 227 KiB); with
 * g.a_direct (WGMMA_WS_A) A comes through a tensor map instead of the pack. */
parac_status gemm_wgmma_tma_launch(const gemm_args &g, int tile_m, int tile_n, int stages, int multiprocessors,
                                   cudaStream_t stream, parac_error *error)
{
    if (g.item_count == 0) return PARAC_OK;
    if (tile_n == 256)
        return tile_m == 128 ? ws_launch<128>(g, multiprocessors, stream, error) : ws_launch<64>(g, multiprocessors, stream, error);
    if (stages == 6) return tma_launch_stages<6>(g, tile_m, tile_n, multiprocessors, stream, error);
    return tma_launch_stages<4>(g, tile_m, tile_n, multiprocessors, stream, error);
}
