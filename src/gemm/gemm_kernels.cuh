/* gemm/gemm_kernels.cuh — device helpers and the kernel argument block shared by
 * gemm_cuda.cu (FFMA and mma.sync kernels) and gemm_wgmma.cu (Hopper wgmma). */
#ifndef PARAC_GEMM_KERNELS_CUH
#define PARAC_GEMM_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/context.h"
#include "gemm/gemm_internal.h"

/* --- device helpers ------------------------------------------------------------- */

static __device__ __forceinline__ void cp_async16(void *shared, const void *global)
{
    unsigned address = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}
/* cp.async of 16 bytes that reads only src_bytes (0 or 16) and zero-fills the rest. */
static __device__ __forceinline__ void cp_async16_zfill(void *shared, const void *global, int src_bytes)
{
    unsigned address = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(src_bytes));
}
static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> static __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

static __device__ __forceinline__ float round_tf32(float x)
{
    unsigned out;
    if (!isfinite(x)) return x;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(x));
    return __uint_as_float(out);
}

/* The plan's epilogue, bit for bit the CPU's: beta == 0 never reads C. */
static __device__ __forceinline__ float epilogue(float alpha, float acc, float beta, float c)
{
    return beta == 0.0f ? __fmul_rn(alpha, acc) : __fmaf_rn(alpha, acc, __fmul_rn(beta, c));
}

struct gemm_args {
    const float *packed_a, *packed_b;
    const int32_t *k_list;
    const gemm_work_item *items;
    const int32_t *order;       /* dynamic: item order; NULL for static */
    unsigned int *counter;      /* dynamic work queue */
    int item_count;
    int64_t padded_k;
    int tile_k;
    float *c, *partials;
    int64_t m, n, ldc;
    int c_row_major;
    float alpha, beta;
    /* fp32 N256 and BK32 only: B read in place (row-major, n and ldb multiples of 4, 16-byte aligned),
     * NULL = B comes packed; k bounds its rows (zero-filled past it, as the pack pads). */
    const float *b_direct;
    int64_t ldb, k;
    /* tf32 WGMMA_WS_A only: A loaded through a TMA tensor map from the caller's row-major matrix
     * (lda % 4 == 0, 16-byte aligned base), NULL = A comes packed. */
    const float *a_direct;
    int64_t lda;
};

static __device__ __forceinline__ void store_value(const gemm_args &g, int64_t row, int64_t col, float acc)
{
    if (row >= g.m || col >= g.n) return;
    float *target = g.c_row_major ? g.c + row * g.ldc + col : g.c + col * g.ldc + row;
    *target = epilogue(g.alpha, acc, g.beta, g.beta == 0.0f ? 0.0f : *target);
}


/* wgmma variant (gemm_wgmma.cu, sm_90a). The packed panels for it are k-major
 * per tile row: 32-wide k blocks, one 128-byte row per M (N) index, 16-byte
 * chunks XOR-swizzled by row % 8 (the 128B swizzle wgmma reads). */
parac_status gemm_wgmma_supported(parac_cuda_context *context, int *supported, parac_error *error);
parac_status gemm_wgmma_launch(const gemm_args &g, int tile_m, int tile_n, int dynamic, int multiprocessors,
                               cudaStream_t stream, parac_error *error);
/* wgmma_tma variant (gemm_wgmma_tma.cu, sm_90a): same panels, bulk-copy producer,
 * persistent; g.order NULL = static order, else the dynamic queue. stages 4 or 6. */
parac_status gemm_wgmma_tma_launch(const gemm_args &g, int tile_m, int tile_n, int stages, int multiprocessors,
                                   cudaStream_t stream, parac_error *error);

#endif
