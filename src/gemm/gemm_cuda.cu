/* gemm/gemm_cuda.cu — the GPU path of the gemm plan.
 *
 * What lives where (each kernel checked against the CPU path by tests/gemm/test_gemm_gpu.c):
 *   pack       gemm_pack.cu: A and B (one launch) into the plan's k-major tile panels or the
 *              swizzled wgmma layout, zero-padded, TF32-rounded for tf32; only the tiles the
 *              plan's masks keep (no kernel reads the others).
 *   mainloop   gemm_ffma.cuh (fp32 BASE and N256: ffma_work_item), gemm_ffma_bk32.cuh (fp32
 *              BK32), gemm_mma.cuh (tf32 BASE: mma.sync), gemm_wgmma.cu (tf32 WGMMA),
 *              gemm_wgmma_tma.cu (tf32 WGMMA_TMA, WGMMA_WS, WGMMA_WS_A). Every fp32 C value is
 *              one fmaf chain in ascending k: the CPU path's exact bits.
 *   epilogue   store_value (gemm_kernels.cuh) at the end of each work item; reduce_split
 *              (here) sums split-k partial tiles in segment order, then the epilogue.
 *   schedule   this file: static_tiles / dynamic_tiles and N256's kernels run work items one
 *              block per item (swizzled order) or in resident blocks pulling the queue (longest
 *              first); gemm_launch.cuh: the one launch helper every family uses.
 *   N256       base's tile math on 64x256 C tiles, 256 threads, 2 blocks/SM; B cp.async'ed
 *              straight from the caller's row-major matrix (zero-filled past k and n) when
 *              aligned. Since round 5b only with pipeline_stages 4 (or tile_k % 32): by default
 *              N256 launches bk32_static/_dynamic<64, 256> (2 stages of 32 k), same bits.
 * Variants that lost (WIDE, PERSISTENT) live in dev/gemm/ with their figures.
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
#include "gemm/gemm_ffma.cuh"
#include "gemm/gemm_ffma_bk32.cuh"
#include "gemm/gemm_kernels.cuh"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_mma.cuh"
#include "gemm/gemm_pack.h"

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

/* --- schedules: one block per item, or resident blocks pulling the dynamic queue ---------- */

/* KIND: the kernel family of a launch. */
enum { KIND_FFMA = 0, KIND_MMA = 1 };

template <int BM, int BN, int KIND>
__device__ __forceinline__ void run_work_item(const gemm_args &g, const gemm_work_item &w, float *shared)
{
    if (KIND == KIND_MMA) mma_work_item<BM, BN>(g, w, shared);
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
    for (int item; (item = gemm_next_queued_item(g, &next_item)) >= 0;) run_work_item<BM, BN, KIND>(g, g.items[item], shared);
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
    for (int item; (item = gemm_next_queued_item(g, &next_item)) >= 0;)
        ffma_work_item<64, 256, DIRECT_B>(g, g.items[item], shared);
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

/* --- launching (gemm_launch.cuh: grid, attributes, queue counter, error check) ------------- */

/* The launch grid of plan's static or dynamic schedule for a kernel of `threads` threads. */
static gemm_grid plan_grid(const parac_gemm_plan *plan, const gemm_args &g, int threads, size_t shared_bytes)
{
    gemm_cuda_state *st = state_of(plan);
    return gemm_items_grid(g, plan->schedule != PARAC_GEMM_SCHEDULE_STATIC, threads, shared_bytes,
                           st->context.multiprocessors, (cudaStream_t)st->context.stream);
}

template <int BM, int BN, int KIND>
static parac_status launch_tiles(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    size_t smem = KIND == KIND_MMA ? mma_shape<BM, BN>::SMEM : ffma_shape<BM, BN>::SMEM;
    int threads = KIND == KIND_MMA ? mma_shape<BM, BN>::THREADS : ffma_shape<BM, BN>::THREADS;
    gemm_grid grid = plan_grid(plan, g, threads, smem);
    if (plan->schedule == PARAC_GEMM_SCHEDULE_STATIC) return gemm_launch_items(static_tiles<BM, BN, KIND>, grid, error, g);
    return gemm_launch_items(dynamic_tiles<BM, BN, KIND>, grid, error, g);
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
    gemm_grid grid = plan_grid(plan, g, N256_THREADS, S::SMEM);
    static_assert(S::THREADS == N256_THREADS, "N256 block size");
    if (plan->schedule == PARAC_GEMM_SCHEDULE_STATIC) return gemm_launch_items(n256_static<DIRECT_B>, grid, error, g);
    return gemm_launch_items(n256_dynamic<DIRECT_B>, grid, error, g);
}

template <int BM, int BN, bool DIRECT_B>
static parac_status launch_bk32_kernel(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    typedef bk32_shape<BM, BN> S;
    gemm_grid grid = plan_grid(plan, g, S::THREADS, S::SMEM);
    /* all of the unified L1/shared array as shared memory: 2 blocks of 96 KiB must fit (cp.async.cg skips L1) */
    grid.max_shared_carveout = 1;
    if (plan->schedule == PARAC_GEMM_SCHEDULE_STATIC) return gemm_launch_items(bk32_static<BM, BN, DIRECT_B>, grid, error, g);
    return gemm_launch_items(bk32_dynamic<BM, BN, DIRECT_B>, grid, error, g);
}

/* N256 reads B in place when make_args found it usable (g.b_direct), else from its panels. Its
 * kernel: BK32's pipeline at 64x256 (2 stages of 32 k, plan->stages 2), or the first one, base's
 * pipeline (4 stages of 16 k, plan->stages 4). Same tiles, same fmaf chains: same bits. */
static parac_status launch_n256(parac_gemm_plan *plan, const gemm_args &g, parac_error *error)
{
    if (plan->stages == 2)
        return g.b_direct ? launch_bk32_kernel<64, 256, true>(plan, g, error) : launch_bk32_kernel<64, 256, false>(plan, g, error);
    return g.b_direct ? launch_n256_kernel<true>(plan, g, error) : launch_n256_kernel<false>(plan, g, error);
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
