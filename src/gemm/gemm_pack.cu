/* gemm/gemm_pack.cu — the packing pass of the GPU path (gemm_pack.h).
 *
 * pack_fast, swizzled layout: every thread owns a 4 (k) x 4 (r) micro-block: four
 * 16-byte loads along the source's contiguous side, a register transpose when the
 * destination runs the other way, four 16-byte stores. No shared memory, no barriers.
 * A warp covers 32 k x 16 r: lanes 0..7 walk the eight 16-byte chunks of a 32-wide k
 * block, lanes / 8 four r groups, so every load and store instruction touches whole
 * 32-byte sectors (a k-contiguous source reads 4 rows x 128 B, the swizzled layout is
 * written 4 lines x 128 B). A row-major A into the swizzled wgmma layout is then a pure
 * permutation of 16-byte chunks.
 * pack_fast, panels: every thread owns two 4 (k) x 4 (r) micro-blocks, 16 k apart, and a
 * warp covers 32 k x 32 r (lanes % 4: the k chunk, lanes / 4: eight r groups), so each
 * store instruction writes 4 whole 128-byte lines of panel rows (the 4 x 4 form with
 * 16 r a warp wrote 8 rows x 64 B and moved 2.2-2.5 TB/s where the swizzled pack, with
 * whole lines, moved 3.4-3.6) and each load of a k-contiguous source 8 rows x 64 B.
 * tile_r is a power of two: panel and offset come from a shift and a mask, and the
 * in-tile index math is 32-bit. A and B share one launch (blocks of A, then B).
 * Sources without 16-byte alignment (base or ld % 4) and ragged edges load
 * element by element with zero fill; the stores stay 16-byte (dst is aligned).
 * Bits: the same elements, the same round_tf32, the same zeros as pack_reference.
 * With a tile mask (gemm_pack.h) the micro-blocks of masked tiles are skipped: a sparse
 * operand costs reads and writes of its non-zero tiles only (12.5 % of an 8192^2 A:
 * 64 MB of traffic instead of 512 MB). */
#include <cuda_runtime.h>

#include <stdint.h>

#include "core/error.h"
#include "cuda/cuda_check.h"
#include "gemm/gemm_kernels.cuh"
#include "gemm/gemm_pack.h"

#define PACK_TILE 32     /* reference kernel: 32x32 shared tile */
#define PACK_WARPS 8     /* fast kernel: 8 warps per block */
#define PACK_BLOCK_K 32  /* k per block (one swizzle row) */
#define PACK_BLOCK_R (PACK_WARPS * 16)        /* swizzled: 16 r a warp */
#define PACK_PANEL_BLOCK_R (PACK_WARPS * 32)  /* panels: 32 r a warp */

/* --- reference: the first pack, kept for tests and the bench ---------------------------- */

/* Where packed element (kk, r) goes: the panel layout, or the wgmma layout. */
__device__ __forceinline__ int64_t packed_index(const gemm_pack_operand &p, int64_t kk, int64_t r)
{
    int64_t panel = r / p.tile_r, rr = r % p.tile_r;
    if (!p.swizzled) return (panel * p.padded_k + kk) * p.tile_r + rr;
    int kw = (int)(kk % 32), chunk = (kw / 4) ^ (int)(rr % 8);
    return (panel * p.padded_k + (kk - kw)) * p.tile_r + rr * 32 + chunk * 4 + kw % 4;
}

/* One 32x32 (k, r) block: read along the source's contiguous side, write along r. */
__global__ void pack_reference(gemm_pack_operand p)
{
    __shared__ float block[PACK_TILE][PACK_TILE + 1];
    int64_t k0 = (int64_t)blockIdx.y * PACK_TILE, r0 = (int64_t)blockIdx.x * PACK_TILE;
    for (int i = threadIdx.y; i < PACK_TILE; i += blockDim.y) {
        int64_t kk, r;
        if (p.k_contiguous) kk = k0 + threadIdx.x, r = r0 + i;
        else kk = k0 + i, r = r0 + threadIdx.x;
        float v = 0.0f;
        if (kk < p.extent_k && r < p.extent_r) v = p.k_contiguous ? p.x[r * p.ld + kk] : p.x[kk * p.ld + r];
        if (p.tf32) v = round_tf32(v);
        if (p.k_contiguous) block[threadIdx.x][i] = v;
        else block[i][threadIdx.x] = v;
    }
    __syncthreads();
    for (int i = threadIdx.y; i < PACK_TILE; i += blockDim.y) {
        /* write along r for panels, along k for the k-major wgmma layout (coalesced either way) */
        int64_t kk = p.swizzled ? k0 + threadIdx.x : k0 + i, r = p.swizzled ? r0 + i : r0 + threadIdx.x;
        float v = p.swizzled ? block[threadIdx.x][i] : block[i][threadIdx.x];
        if (kk < p.padded_k && r < p.padded_r) p.dst[packed_index(p, kk, r)] = v;
    }
}

extern "C" parac_status gemm_pack_reference_launch(const gemm_pack_operand *p, void *stream, parac_error *error)
{
    parac_status status = PARAC_OK;
    dim3 grid((unsigned)((p->padded_r + PACK_TILE - 1) / PACK_TILE), (unsigned)((p->padded_k + PACK_TILE - 1) / PACK_TILE));
    pack_reference<<<grid, dim3(PACK_TILE, 8), 0, (cudaStream_t)stream>>>(*p);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* --- fast pack ---------------------------------------------------------------------------- */

struct pack_job {
    gemm_pack_operand p;
    int vector_loads; /* 16-byte aligned source rows: base % 16 == 0 and ld % 4 == 0 */
    int tile_shift;   /* log2(tile_r) */
    unsigned blocks_r, blocks;
};

struct pack_pair {
    pack_job a, b; /* b.blocks == 0: A only */
};

/* Four elements along the source's contiguous side from `from` (count of them in bounds). */
static __device__ __forceinline__ float4 load4(const float *from, int in_bounds, int vector_loads)
{
    if (in_bounds >= 4 && vector_loads) return __ldg(reinterpret_cast<const float4 *>(from));
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (in_bounds > 0) v.x = from[0];
    if (in_bounds > 1) v.y = from[1];
    if (in_bounds > 2) v.z = from[2];
    if (in_bounds > 3) v.w = from[3];
    return v;
}

static __device__ __forceinline__ int clamp4(int64_t left) { return left <= 0 ? 0 : left >= 4 ? 4 : (int)left; }

static __device__ __forceinline__ float4 rounded(float4 v)
{
    return make_float4(round_tf32(v.x), round_tf32(v.y), round_tf32(v.z), round_tf32(v.w));
}

/* The micro-block at (k0, r0) as m[i] = elements (k0..k0+3, r0 + i): rows along k. */
static __device__ __forceinline__ void load_micro(const pack_job &j, int64_t k0, int64_t r0, float4 m[4])
{
    const gemm_pack_operand &p = j.p;
    if (p.k_contiguous) {
        int k_in = clamp4(p.extent_k - k0);
        for (int i = 0; i < 4; ++i) {
            int in = r0 + i < p.extent_r ? k_in : 0;
            m[i] = load4(p.x + (r0 + i) * p.ld + k0, in, j.vector_loads);
        }
    } else {
        int r_in = clamp4(p.extent_r - r0);
        float4 t[4]; /* t[q] = elements (k0 + q, r0..r0+3) */
        for (int q = 0; q < 4; ++q) {
            int in = k0 + q < p.extent_k ? r_in : 0;
            t[q] = load4(p.x + (k0 + q) * p.ld + r0, in, j.vector_loads);
        }
        m[0] = make_float4(t[0].x, t[1].x, t[2].x, t[3].x);
        m[1] = make_float4(t[0].y, t[1].y, t[2].y, t[3].y);
        m[2] = make_float4(t[0].z, t[1].z, t[2].z, t[3].z);
        m[3] = make_float4(t[0].w, t[1].w, t[2].w, t[3].w);
    }
    if (p.tf32)
        for (int i = 0; i < 4; ++i) m[i] = rounded(m[i]);
}

/* The swizzled layout's micro-block stores (panels: pack_panel_block). */
static __device__ __forceinline__ void store_micro(const pack_job &j, int64_t k0, int64_t r0, const float4 m[4])
{
    const gemm_pack_operand &p = j.p;
    int64_t panel = r0 >> j.tile_shift;
    unsigned rr = (unsigned)(r0 & ((1 << j.tile_shift) - 1));
    unsigned kw = (unsigned)(k0 & 31);
    float *block = p.dst + ((panel * p.padded_k + (k0 - kw)) << j.tile_shift);
    for (unsigned i = 0; i < 4; ++i) {
        unsigned chunk = (kw >> 2) ^ ((rr + i) & 7);
        *reinterpret_cast<float4 *>(block + (rr + i) * 32 + chunk * 4) = m[i];
    }
}

/* Whether the 4-wide k chunk at k0 of the r group at r0 is packed: inside padded_k and not in a
 * masked tile (a chunk lies in one tile: tile_r, tile_k multiples of 4). */
static __device__ __forceinline__ bool chunk_live(const pack_job &j, int64_t k0, int64_t r0)
{
    if (k0 >= j.p.padded_k) return false;
    return !j.p.tile_mask ||
           j.p.tile_mask[(r0 >> j.tile_shift) * j.p.mask_stride_r + (int64_t)((uint32_t)k0 / (uint32_t)j.p.tile_k) * j.p.mask_stride_k];
}

/* The panels' micro-block of thread (lane, warp): 4 r from r0 by two 4-wide k chunks, at k0 and
 * k0 + 16 (lanes % 4 pick k0 among the 32-wide k block's first four chunks), so that each load
 * instruction of a k-contiguous source reads 64 whole bytes a row. Each chunk is skipped (not read,
 * not written) when chunk_live says so. */
static __device__ __forceinline__ void pack_panel_block(const pack_job &j, unsigned block)
{
    const gemm_pack_operand &p = j.p;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t k0 = (int64_t)(block / j.blocks_r) * PACK_BLOCK_K + (lane & 3) * 4;
    int64_t r0 = (int64_t)(block % j.blocks_r) * PACK_PANEL_BLOCK_R + warp * 32 + (lane >> 2) * 4;
    if (r0 >= p.padded_r) return;
    int64_t chunk_k[2] = {k0, k0 + 16};
    bool live[2] = {chunk_live(j, chunk_k[0], r0), chunk_live(j, chunk_k[1], r0)};
    float4 rows[2][4]; /* rows[h][e] = elements (chunk_k[h] + e, r0..r0+3) */
    for (int h = 0; h < 2; ++h) {
        if (p.k_contiguous) {
            float4 t[4]; /* t[i] = elements (chunk_k[h] .. +3, r0 + i) */
            int k_in = live[h] ? clamp4(p.extent_k - chunk_k[h]) : 0;
            for (int i = 0; i < 4; ++i) t[i] = load4(p.x + (r0 + i) * p.ld + chunk_k[h], r0 + i < p.extent_r ? k_in : 0, j.vector_loads);
            rows[h][0] = make_float4(t[0].x, t[1].x, t[2].x, t[3].x);
            rows[h][1] = make_float4(t[0].y, t[1].y, t[2].y, t[3].y);
            rows[h][2] = make_float4(t[0].z, t[1].z, t[2].z, t[3].z);
            rows[h][3] = make_float4(t[0].w, t[1].w, t[2].w, t[3].w);
        } else {
            int r_in = clamp4(p.extent_r - r0);
            for (int e = 0; e < 4; ++e)
                rows[h][e] = load4(p.x + (chunk_k[h] + e) * p.ld + r0, live[h] && chunk_k[h] + e < p.extent_k ? r_in : 0, j.vector_loads);
        }
    }
    int64_t panel = r0 >> j.tile_shift;
    unsigned rr = (unsigned)(r0 & ((1 << j.tile_shift) - 1));
    size_t step = (size_t)1 << j.tile_shift;
    for (int h = 0; h < 2; ++h) {
        if (!live[h]) continue;
        float *row = p.dst + ((panel * p.padded_k + chunk_k[h]) << j.tile_shift) + rr;
        for (int e = 0; e < 4; ++e) *reinterpret_cast<float4 *>(row + e * step) = p.tf32 ? rounded(rows[h][e]) : rows[h][e];
    }
}

/* The swizzled layout's micro-block of thread (lane, warp): 4 k from k0 by 4 r from r0. */
static __device__ __forceinline__ void pack_swizzled_block(const pack_job &j, unsigned block)
{
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t k0 = (int64_t)(block / j.blocks_r) * PACK_BLOCK_K + (lane & 7) * 4;
    int64_t r0 = (int64_t)(block % j.blocks_r) * PACK_BLOCK_R + warp * 16 + (lane >> 3) * 4;
    if (r0 >= j.p.padded_r || !chunk_live(j, k0, r0)) return; /* past the padding, or in an all-zero tile */
    float4 m[4];
    load_micro(j, k0, r0, m);
    store_micro(j, k0, r0, m);
}

static __device__ __forceinline__ void pack_block(const pack_job &j, unsigned block)
{
    if (j.p.swizzled) pack_swizzled_block(j, block);
    else pack_panel_block(j, block);
}

/* Blocks [0, a.blocks) pack A, the rest B. Two static calls rather than a pointer to
 * either parameter, so the job stays in the parameter space (no local copy). */
__global__ void __launch_bounds__(PACK_WARPS * 32) pack_fast(pack_pair pair)
{
    if (blockIdx.x < pair.a.blocks) pack_block(pair.a, blockIdx.x);
    else pack_block(pair.b, blockIdx.x - pair.a.blocks);
}

static int log2_of(int x)
{
    int shift = 0;
    while ((1 << shift) < x) ++shift;
    return (1 << shift) == x ? shift : -1;
}

/* The fast kernel's preconditions (always met by the plan; checked, not assumed). */
static int fast_usable(const gemm_pack_operand *p)
{
    int shift = log2_of(p->tile_r);
    return shift >= 2 && p->padded_r % p->tile_r == 0 && p->padded_k % 4 == 0 && (!p->swizzled || p->padded_k % 32 == 0) &&
           (uintptr_t)p->dst % 16 == 0 && p->ld >= 1 && (!p->tile_mask || (p->tile_k > 0 && p->tile_k % 4 == 0));
}

static pack_job job_of(const gemm_pack_operand *p)
{
    pack_job j;
    j.p = *p;
    j.vector_loads = (uintptr_t)p->x % 16 == 0 && p->ld % 4 == 0;
    j.tile_shift = log2_of(p->tile_r);
    int block_r = p->swizzled ? PACK_BLOCK_R : PACK_PANEL_BLOCK_R;
    j.blocks_r = (unsigned)((p->padded_r + block_r - 1) / block_r);
    j.blocks = j.blocks_r * (unsigned)((p->padded_k + PACK_BLOCK_K - 1) / PACK_BLOCK_K);
    return j;
}

extern "C" parac_status gemm_pack_launch(const gemm_pack_operand *a, const gemm_pack_operand *b, void *stream,
                                         parac_error *error)
{
    parac_status status = PARAC_OK;
    pack_pair pair;
    if (!fast_usable(a) || (b && !fast_usable(b))) {
        PARAC_TRY(gemm_pack_reference_launch(a, stream, error));
        return b ? gemm_pack_reference_launch(b, stream, error) : PARAC_OK;
    }
    pair.a = job_of(a);
    if (b) pair.b = job_of(b);
    else pair.b = pair.a, pair.b.blocks = 0;
    pack_fast<<<pair.a.blocks + pair.b.blocks, PACK_WARPS * 32, 0, (cudaStream_t)stream>>>(pair);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}
