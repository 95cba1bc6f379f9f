/* dbscan/dbscan_cuda_run.cuh — one GPU run, shared by the host files of the CUDA path: the gpu_run
 * record (the run's device buffers, plan and phase clock), the helpers every phase uses on it, and
 * the phases each file defines, in the order dbscan_cuda.cu runs them:
 *   dbscan_gpu_build_index       dbscan_cuda_index.cu     bounds, plan, sorted points, cell and key tables
 *   dbscan_gpu_mark_core_points  dbscan_cuda_cores.cu     dense cells, core flags, neighbour lists
 *   dbscan_gpu_join_core_points  dbscan_cuda_clusters.cu  the union of core points
 *   dbscan_gpu_finish_labels     dbscan_cuda_clusters.cu  border roots, canonical labels, downloads
 *   dbscan_gpu_finish_slab       dbscan_cuda_clusters.cu  border roots of one slab, downloads
 * Each phase is a template defined in its file and instantiated there for float and double, the
 * two point types (so the phase files need not see each other's kernels).
 *
 * The helpers are static (each file keeps its own copy: generic names such as take stay inside
 * it) and [[maybe_unused]]: not every file calls every one, and nvcc's warning #177 ("declared
 * but never referenced") is an error under PARAC_WERROR. No kernels here (dbscan_cuda_grid.cuh
 * comes for grid_view and neighbour_lists): they live in the kernel headers, each included by
 * the one file that launches its kernels. */
#ifndef PARAC_DBSCAN_CUDA_RUN_CUH
#define PARAC_DBSCAN_CUDA_RUN_CUH

#include <stdint.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/timer.h"
#include "cuda/context.h"
#include "dbscan/dbscan_grid.h"
#include "dbscan/dbscan_internal.h"

#include "dbscan/dbscan_cuda_grid.cuh"

typedef struct gpu_run {
    parac_cuda_context context;
    int has_context;
    size_t n, dim;
    double eps;
    size_t min_samples;
    int use_grid;
    dbscan_gpu_recipe recipe;         /* as asked (every slab starts from it) */
    parac_dbscan_gpu_variant variant; /* as resolved by choose_plan: CLASSIC, TABLE or COARSE */
    dbscan_grid_plan plan;
    void *raw;              /* input copy, row-major, until the gather */
    void *xs;               /* sorted points, dim x n */
    uint64_t *keys;         /* sorted cell keys, until the cell table exists */
    uint32_t *keys32;       /* SPARSE, keys of <= 32 bits: the same, narrower (keys stays NULL) */
    uint32_t *order;        /* sorted position -> original index */
    uint32_t cells;
    uint64_t *cell_key;
    uint32_t *cell_start;
    uint32_t *cell_of;
    uint32_t *key_start;    /* direct key table (key space + 1), NULL when binary search is used */
    uint8_t *dense, *core;
    uint32_t *parent;
    int fused;              /* TABLE_FUSED / COARSE_FUSED: compact-cell union */
    int keep_lists;         /* fused and SPARSE: neighbour lists for the border pass */
    int sparse;             /* SPARSE: the lists also carry the union's pairs (count_neighbours_sparse) */
    uint8_t *compact;       /* fused: cells */
    uint32_t *first_core;   /* fused: cells */
    neighbour_lists lists;  /* fused, when min_samples is small and memory allows; else near == NULL */
    double mark;
    parac_progress_gate *progress; /* the caller's: phases (GPU_PHASES per slab) counted between launches */
    uint64_t phases_done;
    int host_threads;       /* the run's CPU threads: the pageable side of the point upload and label download */
    parac_dbscan_info slab_info; /* slabs: the phase times of one slab, summed into *total_info */
    parac_dbscan_info *total_info;
} gpu_run;

#define RELEASE(run, field)                            \
    do {                                               \
        parac_cuda_free(&(run)->context, (run)->field); \
        (run)->field = NULL;                           \
    } while (0)

[[maybe_unused]] static void release_all(gpu_run *run)
{
    RELEASE(run, raw);
    RELEASE(run, xs);
    RELEASE(run, keys);
    RELEASE(run, keys32);
    RELEASE(run, order);
    RELEASE(run, cell_key);
    RELEASE(run, cell_start);
    RELEASE(run, cell_of);
    RELEASE(run, key_start);
    RELEASE(run, dense);
    RELEASE(run, core);
    RELEASE(run, parent);
    RELEASE(run, compact);
    RELEASE(run, first_core);
    RELEASE(run, lists.near);
    RELEASE(run, lists.near_count);
}

[[maybe_unused]] static parac_status take(gpu_run *run, void **pointer, size_t bytes, parac_error *error)
{
    return parac_cuda_alloc(&run->context, pointer, bytes, error);
}

/* Seconds since the last phase mark, after the stream drains; then the
 * progress checkpoint between kernel launches (PARAC_ERR_CANCELLED when the
 * callback asks to stop; the caller's fail path frees the device memory). */
[[maybe_unused]] static parac_status phase_done(gpu_run *run, double *seconds, parac_error *error)
{
    parac_status status = parac_cuda_synchronize(&run->context, error);
    double now = parac_now_seconds();
    *seconds = now - run->mark;
    run->mark = now;
    run->phases_done++;
    if (status == PARAC_OK && parac_progress_gate_add(run->progress, 1))
        status = parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
    return status;
}

/* Whether the fused variants' lists (min_samples - 2 slots) fit MAX_LIST_SLOTS (take_neighbour_lists). */
[[maybe_unused]] static int lists_fit(const gpu_run *run)
{
    return run->min_samples >= 3 && run->min_samples - 2 <= MAX_LIST_SLOTS;
}

/* SPARSE keeps max(min_samples - 2, 4) slots: with 4, at 3.35 expected neighbours per point
 * (100 M uniform 3-D points, eps 0.002) about 6.5 % of the core points overflow (Poisson estimate). */
#define SPARSE_MIN_SLOTS 4
[[maybe_unused]] static int sparse_lists_fit(const gpu_run *run) { return run->min_samples <= MAX_LIST_SLOTS + 2; }
[[maybe_unused]] static uint32_t sparse_slots(const gpu_run *run)
{
    return run->min_samples > SPARSE_MIN_SLOTS + 2 ? (uint32_t)(run->min_samples - 2) : SPARSE_MIN_SLOTS;
}

/* What the kernels read of the run (dbscan_cuda_grid.cuh: grid_view), for the core and later phases. */
template <typename T>
static grid_view<T> view_of(const gpu_run *run)
{
    grid_view<T> view;
    view.plan = run->plan;
    view.xs = (const T *)run->xs;
    view.n = run->n;
    view.dim = run->dim;
    view.scale = dbscan_distance_scale(run->eps);
    view.eps2 = dbscan_scaled_eps_squared(run->eps, view.scale);
    view.cells = run->cells;
    view.cell_key = run->cell_key;
    view.cell_start = run->cell_start;
    view.cell_of = run->cell_of;
    view.key_start = run->key_start;
    return view;
}

/* ---------------------------------------------------------------- the phases (float and double) */

template <typename T>
parac_status dbscan_gpu_build_index(gpu_run *run, parac_error *error);
template <typename T>
parac_status dbscan_gpu_mark_core_points(gpu_run *run, parac_error *error);
template <typename T>
parac_status dbscan_gpu_join_core_points(gpu_run *run, parac_error *error);
template <typename T>
parac_status dbscan_gpu_finish_labels(gpu_run *run, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                      parac_error *error);
template <typename T>
parac_status dbscan_gpu_finish_slab(gpu_run *run, uint32_t *root, uint8_t *core, parac_dbscan_info *info,
                                    parac_error *error);

#endif
