/* gemm/gemm_internal.h — the plan's tables, shared by the CPU and CUDA paths.
 *
 * Vocabulary: a C tile is tile_m x tile_n; a k tile is tile_k deep. A tile
 * kernel K(i,j,kt) adds A(i,kt)*B(kt,j) into C tile (i,j). The non-zero k
 * tiles of each C tile are listed in ascending order (k_list, CSR by C tile).
 * A work item is one C tile and a contiguous segment of its list: it
 * accumulates into registers and either writes C (partial_slot < 0) or a
 * split-k partial buffer slot, summed later by a reduction item.
 */
#ifndef PARAC_GEMM_INTERNAL_H
#define PARAC_GEMM_INTERNAL_H

#include <stdint.h>

#include <parac/gemm.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemm_work_item {
    int32_t tile_row, tile_col;
    int32_t list_begin, list_end; /* range of k_list */
    int32_t partial_slot;         /* -1: writes C */
    int32_t padding;
} gemm_work_item;

typedef struct gemm_reduce_item {
    int32_t tile_row, tile_col;
    int32_t first_slot, slot_count; /* partial slots summed in order */
} gemm_reduce_item;

/* L2 budget the residency table assumes (the H200 has 60 MiB; keep a margin). */
#define GEMM_L2_BUDGET_BYTES (48.0 * 1024 * 1024)
/* C tiles below which the plan splits k (a device-independent constant, so the
 * plan — and therefore the bits of the result — never depends on the GPU). */
#define GEMM_SPLIT_TARGET_TILES 256
/* C tile rows grouped together in the static (swizzled) order. */
#define GEMM_SWIZZLE_GROUP 8

struct parac_gemm_plan {
    parac_gemm_options options; /* masks and scan pointers cleared */
    parac_device device;
    parac_gemm_schedule schedule;
    parac_gemm_variant variant; /* resolved: never AUTO; WGMMA_WS runs as WGMMA_TMA with tile_n 256 */
    int stages;                 /* WGMMA_TMA pipeline stages (4 or 6); 0 for other variants */
    int64_t lda, ldb, ldc;
    int tile_m, tile_n, tile_k, split_k;
    int64_t tiles_m, tiles_n, tiles_k;
    int64_t padded_m, padded_n, padded_k;
    unsigned char *a_mask; /* tiles_m x tiles_k */
    unsigned char *b_mask; /* tiles_k x tiles_n */
    int64_t *c_offsets;    /* tiles_m * tiles_n + 1 */
    int32_t *k_list;
    gemm_work_item *items; /* static (swizzled) order */
    int64_t item_count;
    int32_t *dynamic_order; /* item indices, longest first */
    gemm_reduce_item *reductions;
    int64_t reduction_count;
    int64_t partial_slots;
    parac_gemm_plan_info info;
    float *host_workspace; /* packed A, packed B, partials (CPU) */
    double last_compute_seconds;
    void *cuda;            /* gemm_cuda_state (CUDA builds) */
};

/* plan.c */
int64_t gemm_ceil_div(int64_t a, int64_t b);
float gemm_round_tf32(float x); /* round to nearest, ties away, 10-bit mantissa (cvt.rna.tf32) */

/* dag.c: fills the DAG fields of plan->info and checks invariants. */
void gemm_dag_measure(parac_gemm_plan *plan);
parac_status gemm_dag_check(const parac_gemm_plan *plan, parac_error *error);

/* schedule.c: builds items, reductions and both orders. */
parac_status gemm_schedule_build(parac_gemm_plan *plan, parac_error *error);

/* gemm_cpu.c */
parac_status gemm_cpu_execute(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta, float *c,
                              parac_error *error);
/* Packs a tile-padded k-major copy in panels: A(r, kk) at ((r / tile_m) * padded_k + kk) * tile_m
 * + r % tile_m (B likewise with tile_n), tf32-rounded for the tf32 dtype. */
void gemm_pack_a(const parac_gemm_plan *plan, const float *a, float *packed);
void gemm_pack_b(const parac_gemm_plan *plan, const float *b, float *packed);

/* autotune.c: the tile shape (and WGMMA_TMA stages, 0 when not cached) that the cache file at `path`
 * holds for this device and the options' shape class (options->variant: AUTO already resolved);
 * *found = 0 when none or the file is absent; PARAC_ERR_PARSE (file:line) for a malformed line. */
parac_status gemm_autotune_lookup(const char *path, const char *device_name, const parac_gemm_options *options,
                                  int *found, int *tile_m, int *tile_n, int *stages, parac_error *error);

#ifdef PARAC_HAVE_CUDA
/* gemm_cuda.cu */
parac_status gemm_cuda_state_create(parac_gemm_plan *plan, parac_error *error);
void gemm_cuda_state_destroy(parac_gemm_plan *plan);
parac_status gemm_cuda_execute_host(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta,
                                    float *c, parac_error *error);
parac_status gemm_cuda_execute_device(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta,
                                      float *c, parac_error *error);
const char *gemm_cuda_device_name(const parac_gemm_plan *plan);
int gemm_cuda_variant_supported(parac_gemm_plan *plan, parac_gemm_variant variant);
void gemm_cuda_release_workspace(parac_gemm_plan *plan);
parac_status gemm_cuda_vendor_reference(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta,
                                        float *c, parac_error *error);
#endif

/* parac_gemm_plan_create for a caller that holds no whole operand to scan (parac-mpi gemm reads the pieces
 * of A and B on its ranks): A (scanned_a) and B (scanned_b) are taken as scanned, which sets the tile
 * shape a scan sets, with every tile kept. The tile shape, tile_k, split-k and variant are then those of
 * the plan with scan_a / scan_b (a scan's result moves only the masks and what follows from them). */
parac_status gemm_plan_create_as_scanned(const parac_gemm_options *options, int scanned_a, int scanned_b,
                                         parac_gemm_plan **plan, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
