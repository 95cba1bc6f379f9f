/* parac/gemm.h — plan-driven matrix multiply: C = alpha*A*B + beta*C in fp32.
 *
 * A gemm runs in two steps. parac_gemm_plan_create looks at the shapes,
 * layouts and (optionally) which tiles of A and B are all zero, and decides:
 *   - the tile grid (C tiles of tile_m x tile_n, k steps of tile_k),
 *   - the stored layout (A is packed k-major, B k-major, both zero-padded to
 *     whole tiles, so every tile load is a contiguous aligned 128-bit load),
 *   - the tile kernels K(i,j,k): C(i,j) += A(i,k)*B(k,j), leaving out every
 *     kernel whose A or B tile is all zero,
 *   - the dependency DAG (a chain along k per C tile, or per split-k segment
 *     followed by a reduction node), and
 *   - the schedule (static swizzled order or a dynamic work queue).
 * parac_gemm_plan_info reports all of it; parac_gemm_execute runs the plan,
 * as often as wanted, on host buffers (CPU or GPU) and, in CUDA builds,
 * parac_gemm_execute_device on device buffers.
 *
 * Exactness: in fp32 every C element is accumulated with fused multiply-adds
 * in ascending k, starting from zero, then split-k partials are summed in
 * segment order, then alpha and beta are applied as fmaf(alpha, acc, beta*c)
 * (alpha*acc when beta == 0: C is then not read, so NaN in C does not leak).
 * The CPU and GPU paths follow that order exactly, so for one plan the result
 * is bit-identical on every device, thread count and schedule. The tf32 dtype
 * rounds A and B to TF32 (10-bit mantissa) and, on the GPU, multiplies on
 * tensor cores whose internal order is the hardware's: close to, not
 * bit-identical with, the CPU's emulation.
 *
 * Memory: the caller owns every matrix buffer; the plan owns its tables and
 * workspace and is released with parac_gemm_plan_destroy. A plan may be
 * executed from one thread at a time. No global state; nothing printed.
 */
#ifndef PARAC_GEMM_H
#define PARAC_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac_gemm_layout {
    PARAC_GEMM_ROW_MAJOR = 0, /* element (r, c) at r * ld + c */
    PARAC_GEMM_COL_MAJOR      /* element (r, c) at c * ld + r */
} parac_gemm_layout;

typedef enum parac_gemm_dtype {
    PARAC_GEMM_FP32 = 0, /* fp32 inputs, fp32 FMA accumulation */
    PARAC_GEMM_TF32      /* inputs rounded to TF32, fp32 accumulation (tensor cores on the GPU) */
} parac_gemm_dtype;

typedef enum parac_gemm_schedule {
    PARAC_GEMM_SCHEDULE_AUTO = 0, /* dynamic when tile work per C tile is irregular */
    PARAC_GEMM_SCHEDULE_STATIC,   /* one block per work item, swizzled for L2 reuse */
    PARAC_GEMM_SCHEDULE_DYNAMIC   /* persistent workers pull work items, longest first */
} parac_gemm_schedule;

/* GPU kernel family (the CPU path ignores it). Every fp32 variant keeps the
 * exactness contract above (same bits as the CPU); tf32 variants differ only
 * in the tensor-core instruction. Variants a GPU or tile shape cannot run fall
 * back to BASE, reported in parac_gemm_plan_info.variant. */
typedef enum parac_gemm_variant {
    PARAC_GEMM_VARIANT_AUTO = 0, /* measured best: WGMMA_WS for tf32 on sm_90, BK32 for fp32 */
    PARAC_GEMM_VARIANT_BASE,     /* fp32: FFMA 8x8 per thread, BK 16; tf32: mma.sync.m16n8k8 */
    PARAC_GEMM_VARIANT_REMOVED_WIDE, /* removed (auto never picked it: BK32 matches it dense and is twice as
                                        fast on sparse tiles): now dev/gemm/01_wide.cu; plans refuse it with
                                        INVALID_ARGUMENT. The number stays reserved */
    PARAC_GEMM_VARIANT_WGMMA,    /* tf32: Hopper wgmma.m64nNk8 from swizzled shared memory (sm_90a) */
    PARAC_GEMM_VARIANT_WGMMA_TMA, /* tf32: wgmma fed by bulk copies (TMA) on mbarriers, one producer and
                                    BM/64 consumer warpgroups, persistent blocks (sm_90a) */
    PARAC_GEMM_VARIANT_REMOVED_PERSISTENT, /* removed (slower than base everywhere): now
                                              dev/gemm/02_persistent.cu; refused as REMOVED_WIDE */
    PARAC_GEMM_VARIANT_N256 /* fp32: base's FFMA (8x8 per thread, 256 threads) on 64x256 C tiles (the plan's
                               tiles become 64x256: tile_m 0 or 64, tile_n 0 or 256), B copied straight from
                               the caller's matrix when it is row-major with n, ldb multiples of 4 and a
                               16-byte aligned base (else packed); base's bits */,
    PARAC_GEMM_VARIANT_WGMMA_WS /* tf32: wgmma_tma's pipeline on 128x256 (or 64x256) C tiles: one producer
                                   warpgroup (setmaxnreg down to 40), consumers of 64x256 with
                                   wgmma.m64n256k8 (setmaxnreg up to 232), 4 stages (sm_90a). The plan
                                   takes tile_n 256 when tile_n is 0 and n >= 256; else (or without
                                   sm_90a) it runs as WGMMA_TMA */,
    PARAC_GEMM_VARIANT_BK32 /* fp32: base's 8x8-per-thread FFMA on the plan's tiles with BK 32 x 3 cp.async
                               stages (one barrier per 32 k), register double-buffered fragments, float4
                               epilogue, B copied in place when row-major and 16-byte aligned (as N256);
                               needs tile_k % 32 == 0 (else BASE); base's bits */,
    PARAC_GEMM_VARIANT_WGMMA_WS_A /* tf32: WGMMA_WS with A not packed: its 128x32 stages are loaded by TMA
                                     tensor copies from the caller's row-major A (lda % 4 == 0, 16-byte
                                     aligned base, m >= tile_m, k >= 32; else A is packed as for WGMMA_WS).
                                     A then enters the tensor core by its truncation to tf32, not by
                                     round-to-nearest: results differ in the last bits from WGMMA_WS, within
                                     the same tf32 error; reported as WGMMA_WS_A whenever WGMMA_WS would run */
} parac_gemm_variant;

/* "auto", "base", "wgmma", "wgmma_tma", "n256", "wgmma_ws", "bk32", "wgmma_ws_a" (CLI --variant spelling);
 * "wide" and "persistent" for the two removed values (so a CLI naming them is told where they went);
 * "unknown" otherwise. */
const char *parac_gemm_variant_name(parac_gemm_variant variant);

typedef struct parac_gemm_options {
    parac_exec exec;
    int64_t m, n, k;                  /* A is m x k, B is k x n, C is m x n; all >= 1 */
    parac_gemm_layout layout_a, layout_b, layout_c;
    int64_t lda, ldb, ldc;            /* leading dimensions; 0 = packed (the minor extent) */
    parac_gemm_dtype dtype;
    parac_gemm_schedule schedule;
    int tile_m, tile_n;               /* C tile: 64 or 128 each (0 = chosen); N256: 64 x 256 */
    int tile_k;                       /* k step of a tile kernel: 16..256, a multiple of 16 (0 = 64) */
    int split_k;                      /* segments per C tile: 1..64 (0 = chosen from the shape) */
    /* Sparsity, both optional. Masks are in tile units, row-major, 1 = tile may be non-zero:
     * a_tile_mask is ceil(m/tile_m) x ceil(k/tile_k), b_tile_mask ceil(k/tile_k) x ceil(n/tile_n)
     * (tile sizes must then be given). scan_a / scan_b are host matrices (in the layouts above)
     * scanned for all-zero tiles. Either way the plan is only valid for matrices whose
     * skipped tiles are all zero: that is the caller's promise. */
    const unsigned char *a_tile_mask, *b_tile_mask;
    const float *scan_a, *scan_b;
    parac_gemm_variant variant;       /* GPU kernel family (0 = auto) */
    int pipeline_stages;              /* WGMMA_TMA shared-memory stages: 4 or 6 (0 = chosen: the tuning
                                         cache if named, else 4); N256: 4 = its first kernel (BK 16 x 4 stages),
                                         0 = BK 32 x 2; other variants have fixed pipelines */
    int pack_operands;                /* 1: pack B into the plan's panels even where BK32 / N256 could copy it in
                                         place (to compare the two); 0: in place where the kernel can */
    /* Tuning cache written by parac_gemm_autotune. NULL (the default): never read, so a plan depends only on
     * these options. A path: when tile_m and tile_n are 0 and the input is dense, the plan takes the tile
     * shape (and WGMMA_TMA stages) stored there for its device and shape class; a missing file is an empty
     * cache, a malformed line PARAC_ERR_PARSE naming file and line. The cached shape never changes the bits
     * of C: tile_k and split-k, which fix each element's summation order, are chosen as without the cache. */
    const char *tune_cache_path;
} parac_gemm_options;

/* The defaults: m = n = k = 0 (the caller sets the shape), row-major packed operands, fp32,
 * automatic schedule, tiles, split and variant, no sparsity masks, parac_exec_init's device and
 * threads. */
void parac_gemm_options_init(parac_gemm_options *options);

typedef struct parac_gemm_plan parac_gemm_plan;

/* What a plan decided (parac_gemm_plan_info). Counts are int64 for big grids. */
typedef struct parac_gemm_plan_info {
    parac_device device;           /* where execute runs */
    parac_gemm_dtype dtype;
    parac_gemm_schedule schedule;  /* static or dynamic (auto resolved) */
    parac_gemm_variant variant;    /* the GPU kernel family that runs (auto and unsupported resolved) */
    int pipeline_stages;           /* stages of the WGMMA_TMA or N256 pipeline (0 for other variants) */
    int tile_m, tile_n, tile_k, split_k;
    int64_t tiles_m, tiles_n, tiles_k;   /* the tile grid */
    int64_t a_tiles_nonzero, b_tiles_nonzero;
    int64_t c_tiles, c_tiles_empty;      /* C tiles without any tile kernel */
    int64_t tile_kernels;                /* generated K(i,j,k) nodes */
    int64_t tile_kernels_dense;          /* tiles_m * tiles_n * tiles_k */
    int64_t work_items;                  /* (C tile, k segment) units handed to workers */
    int64_t dag_nodes, dag_edges;        /* tile kernels + reduction nodes; RAW edges */
    int64_t critical_path;               /* longest chain of nodes */
    double work_imbalance;               /* coefficient of variation of tile kernels per C tile */
    /* Residency table summary: A/B tiles read by >= 2 tile kernels that fit in L2
     * together stay resident; the rest are streamed once. All tiles pass through
     * shared memory. */
    int64_t tiles_l2_resident, tiles_streamed;
    double bytes_packed;      /* workspace: packed A and B (+ split-k partials) */
    double bytes_moved;       /* expected DRAM traffic of one execute */
    double flops;             /* 2 * useful multiply-adds executed by tile kernels */
    double flops_dense;       /* 2 * m * n * k */
    double arithmetic_intensity; /* flops / bytes_moved */
} parac_gemm_plan_info;

/* Checks the options, decides the plan and, for the GPU, creates a device
 * context. Fails with PARAC_ERR_INVALID_ARGUMENT (shape, tile size, leading
 * dimension, mask), PARAC_ERR_NO_MEMORY, PARAC_ERR_NO_DEVICE. */
parac_status parac_gemm_plan_create(const parac_gemm_options *options, parac_gemm_plan **plan, parac_error *error);
void parac_gemm_plan_destroy(parac_gemm_plan *plan); /* NULL is accepted */

void parac_gemm_plan_info_get(const parac_gemm_plan *plan, parac_gemm_plan_info *info);

/* Writes a human-readable description of the plan (tile grid, residency,
 * DAG, schedule, bytes, intensity) into text; returns the length it needed. */
size_t parac_gemm_plan_explain(const parac_gemm_plan *plan, char *text, size_t size);

/* Checks the DAG invariants: every C tile's k-chain holds each of its
 * non-zero k tiles once, in ascending order, split into contiguous segments;
 * every edge goes forward (no cycle); node and edge counts match the info.
 * PARAC_ERR_INTERNAL with the first broken invariant otherwise. */
parac_status parac_gemm_plan_check(const parac_gemm_plan *plan, parac_error *error);

/* The tile kernels of C tile (tile_row, tile_col): writes up to `capacity`
 * k-tile indices in execution order into k_tiles and returns how many there are. */
int64_t parac_gemm_plan_tile_kernels(const parac_gemm_plan *plan, int64_t tile_row, int64_t tile_col,
                                     int64_t *k_tiles, int64_t capacity);

/* C = alpha*A*B + beta*C on host buffers, in the plan's layouts. On the GPU the
 * matrices are copied in and C back. Reusable any number of times. */
parac_status parac_gemm_execute(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta,
                                float *c, parac_error *error);

/* The same on device buffers (CUDA builds, plan on the GPU; PARAC_ERR_UNSUPPORTED
 * otherwise). Runs on the plan's stream and waits for it. */
parac_status parac_gemm_execute_device(parac_gemm_plan *plan, float alpha, const float *device_a,
                                       const float *device_b, float beta, float *device_c, parac_error *error);

/* Seconds the last execute spent computing (pack + tile kernels + reduction),
 * without host<->device copies: GPU time from CUDA events, else wall time. */
double parac_gemm_last_compute_seconds(const parac_gemm_plan *plan);

/* The vendor library's answer for a CUDA plan's problem, on host buffers:
 * cublasSgemm (fp32) or cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (tf32).
 * PARAC_ERR_UNSUPPORTED for CPU plans. For --verify and benchmarks. */
parac_status parac_gemm_vendor_reference(parac_gemm_plan *plan, float alpha, const float *a, const float *b,
                                         float beta, float *c, parac_error *error);

/* Tuning: times the candidate tile shapes (tile_m, tile_n in {64, 128}; for the WGMMA_TMA variant also
 * pipeline stages 4 and 6; for WGMMA_WS / WGMMA_WS_A tile_m only) for the options' shape class on the plan's
 * device, each with the tile_k and split-k the untuned plan takes (so every candidate gives the same bits),
 * and stores the fastest in options->tune_cache_path (required: PARAC_ERR_INVALID_ARGUMENT when NULL),
 * replacing that device and class's line. Only the multiply is timed: on the GPU the operands are uploaded
 * once and CUDA events bracket pack, tile kernels and reduction; on the CPU the wall time of the same.
 * *best_seconds gets the winner's time. Nothing else is read or written. */
parac_status parac_gemm_autotune(const parac_gemm_options *options, double *best_seconds, parac_error *error);

/* Reference: C = alpha*A*B + beta*C accumulated in double on one thread.
 * For tests and --verify on small sizes. */
void parac_gemm_reference(const parac_gemm_options *options, float alpha, const float *a, const float *b,
                          float beta, float *c);

/* --- matrices: generation and files ------------------------------------------------ */

typedef enum parac_gemm_matrix_kind {
    PARAC_GEMM_MATRIX_DENSE = 0,
    PARAC_GEMM_MATRIX_BANDED,       /* (r, c) = 0 when |r - c| > band */
    PARAC_GEMM_MATRIX_BLOCK_SPARSE  /* block x block blocks, a fraction `density` of them non-zero */
} parac_gemm_matrix_kind;

typedef struct parac_gemm_matrix_spec {
    int64_t rows, cols;
    parac_gemm_matrix_kind kind;
    int64_t band;
    double density;   /* block-sparse: fraction of non-zero blocks, (0, 1] */
    int64_t block;    /* block-sparse: block edge */
    int power_law;    /* block-sparse: block rows' densities follow a power law (irregular work) */
    uint64_t seed;
} parac_gemm_matrix_spec;

/* Fills a row-major rows x cols matrix (caller-allocated) with values uniform
 * in [-1, 1) on the spec's non-zero pattern; the same seed gives the same matrix. */
parac_status parac_gemm_matrix_generate(const parac_gemm_matrix_spec *spec, float *values, parac_error *error);

/* A dense matrix read from a file, row- or column-major as stored. */
typedef struct parac_gemm_matrix {
    int64_t rows, cols;
    parac_gemm_layout layout;
    float *values; /* malloc'ed; parac_gemm_matrix_free */
} parac_gemm_matrix;

/* Reads .npy (2-D float32/float64, C order) or Matrix Market (.mtx: coordinate
 * or array, real/integer/pattern, general/symmetric/skew-symmetric). Symmetric
 * and skew-symmetric files must be square and hold the lower triangle only
 * (array files: its values column by column). A matrix holds at most
 * PARAC_GEMM_MAX_FILE_VALUES values (2^32, 16 GiB of float32), a coordinate
 * file at most rows x cols entries. Non-finite values, bad headers or size
 * lines, out-of-range indices, missing or extra entries: PARAC_ERR_PARSE naming
 * file and line. */
#define PARAC_GEMM_MAX_FILE_VALUES ((uint64_t)1 << 32)
parac_status parac_gemm_matrix_read(const char *path, parac_gemm_matrix *matrix, parac_error *error);
/* Writes .npy (float32) or .mtx (array, real) by the path's extension. */
parac_status parac_gemm_matrix_write(const char *path, const parac_gemm_matrix *matrix, parac_error *error);
void parac_gemm_matrix_free(parac_gemm_matrix *matrix);

#ifdef __cplusplus
}
#endif
#endif
