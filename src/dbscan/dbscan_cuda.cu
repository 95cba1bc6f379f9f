/* dbscan/dbscan_cuda.cu — exact DBSCAN on one GPU, byte-identical to dbscan_cpu.c.
 *
 * Kernels (the CPU twin of each is named in its comment; one thread per point
 * unless noted, points visited in cell order so neighbouring threads read the
 * same cells):
 *   point_bounds      min/max of the grid coordinates (dbscan_cpu.c: point_bounds)
 *   cell_keys         cell key per point, identity permutation (build_index)
 *   gather_sorted     points copied in cell order, structure of arrays (build_index)
 *   cell_of_points    one thread per cell: the cell index of each of its points
 *   dense_cells       one thread per cell: >= min_samples points and diagonal <= eps (cell_is_within_eps)
 *   count_neighbours  core flag, early exit at min_samples (point_is_core)
 *   link_dense        points of a dense cell hang under its first point (join_core_points)
 *   union_core_pairs  atomicCAS union of core pairs, each pair from its lower point (join_sparse_cell)
 *   assign_roots      root per point; border points take their lowest-index core neighbour (assign_roots)
 *   min_index_of_root / mark_first / write_labels   canonical renumbering without a sort
 *                     (dbscan_canonical_labels: cluster id = rank of its lowest original index)
 * Sort, run-length encoding and scans are CUB, through cuda/cub_wrappers.h.
 *
 * Variants (parac_dbscan_gpu_variant, docs/dbscan.md): classic = fine cells
 * and a binary search per stencil row; table = fine cells and a direct
 * key -> first-point table (scatter_cell_counts + exclusive sum); coarse =
 * cells of side ~eps (3^g stencil) with the table. Same kernels throughout:
 * row_cells/row_range read the table when grid_view.key_start is set.
 * sparse (round 5) = coarse cells; count_neighbours_sparse walks the whole
 * stencil once and leaves each point the pairs its union must join
 * (union_from_lists), so only overflowed points walk again
 * (union_listed_walkers); 32-bit keys when they fit (cell_keys<T, uint32_t>, CUB u32
 * sort, mark_cell_starts/cells_from_starts instead of run-length encoding);
 * min_index by atomicMin inside the border pass (assign_roots_listed).
 *
 * Exactness: every squared distance is summed in coordinate order with
 * __dsub_rn/__dmul_rn/__dadd_rn, so nvcc cannot fuse into an FMA and each
 * value equals the CPU's bit for bit. float32 points stay float32 on the
 * device and are widened per distance, as on the CPU.
 *
 * Memory (3-D float32): the peak is the sort, about 48 bytes per point (input
 * copy 12, keys 2 x 8, permutation 2 x 4, CUB's alternate buffers); after it
 * the working set is about 45 bytes per point, plus the neighbour lists of the variants that keep
 * them (fused, sparse: 4 bytes a slot + 1 per point).
 *
 * Files, by concern (each .cu compiled on its own, without relocatable device code: a kernel header
 * is included by the one file that launches its kernels, which stay static to it):
 *   dbscan_cuda_grid.cuh      grid view, device twins of dbscan_grid.c, exact distance, stencil rows,
 *                             neighbour lists (included everywhere)
 *   dbscan_cuda_run.cuh       gpu_run, one run's device buffers and plan; the helpers and phases the files share
 *   dbscan_cuda_index.cu      index build: bounds, plan, keys and sort, gather, cell and key tables
 *                             (kernels: dbscan_cuda_index.cuh)
 *   dbscan_cuda_cores.cu      core counting, neighbour lists (kernels: dbscan_cuda_core.cuh)
 *   dbscan_cuda_clusters.cu   union (dbscan_cuda_union.cuh), border roots, canonical labels and counts
 *                             (dbscan_cuda_border.cuh), a slab's roots
 *   this file                 the run: upload, the phases in order, the device memory peak, slabs,
 *                             the extern "C" entry points
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/threads.h"
#include "core/timer.h"
#include "cuda/context.h"
#include "cuda/cuda_check.h"
#include "cuda/staged_copy.h"
#include "dbscan/dbscan_internal.h"
#include "dbscan/dbscan_slabs.h"
#include "dbscan/dbscan_cuda_run.cuh"

template <typename T>
static parac_status upload_points(gpu_run *run, const T *points, parac_error *error)
{
    parac_status status = PARAC_OK;
    PARAC_TRY(take(run, &run->raw, run->n * run->dim * sizeof(T), error));
    PARAC_TRY(parac_cuda_upload_staged(&run->context, run->raw, points, run->n * run->dim * sizeof(T), run->host_threads,
                                       error));
fail:
    return status;
}

static parac_dbscan_gpu_variant variant_ran(const gpu_run *run)
{
    if (run->sparse) return PARAC_DBSCAN_GPU_SPARSE;
    if (run->fused)
        return run->variant == PARAC_DBSCAN_GPU_COARSE ? PARAC_DBSCAN_GPU_COARSE_FUSED : PARAC_DBSCAN_GPU_TABLE_FUSED;
    return run->variant; /* a lab recipe (dev/dbscan/) reports its cells */
}

/* Upload, index, core flags and union: everything before the border pass. */
template <typename T>
static parac_status cluster_core_points(gpu_run *run, const T *points, parac_dbscan_info *info, parac_error *error)
{
    parac_status status = PARAC_OK;
    run->mark = parac_now_seconds();
    PARAC_TRY(upload_points<T>(run, points, error));
    PARAC_TRY(phase_done(run, &info->seconds_upload, error));
    PARAC_TRY(dbscan_gpu_build_index<T>(run, error));
    info->gpu_key_table = run->key_start != NULL;
    PARAC_TRY(phase_done(run, &info->seconds_index, error));
    PARAC_TRY(dbscan_gpu_mark_core_points<T>(run, error));
    PARAC_TRY(phase_done(run, &info->seconds_core, error));
    PARAC_TRY(dbscan_gpu_join_core_points<T>(run, error));
    PARAC_TRY(phase_done(run, &info->seconds_union, error));
    info->cells = run->cells;
    info->gpu_variant = variant_ran(run);
fail:
    return status;
}

template <typename T>
static parac_status run_phases(gpu_run *run, const T *points, int32_t *labels, uint8_t *core_mask,
                               parac_dbscan_info *info, parac_error *error)
{
    parac_status status = PARAC_OK;
    PARAC_TRY(cluster_core_points<T>(run, points, info, error));
    PARAC_TRY(dbscan_gpu_finish_labels<T>(run, labels, core_mask, info, error));
    PARAC_TRY(phase_done(run, &info->seconds_download, error));
    info->gpu_slabs = 1;
fail:
    return status;
}

/* High-water mark of the device pool during the run (it includes CUB's temp storage). */
static void reset_peak(gpu_run *run)
{
    uint64_t zero = 0;
    cudaMemPoolSetAttribute((cudaMemPool_t)run->context.pool, cudaMemPoolAttrUsedMemHigh, &zero);
}

static uint64_t read_peak(gpu_run *run)
{
    uint64_t peak = 0;
    if (cudaMemPoolGetAttribute((cudaMemPool_t)run->context.pool, cudaMemPoolAttrUsedMemHigh, &peak) != cudaSuccess)
        return 0;
    return (uint64_t)peak;
}

/* ---------------------------------------------------------------- slabs (dbscan_slabs.h) */

static void add_phase_times(parac_dbscan_info *total, const parac_dbscan_info *slab)
{
    total->seconds_upload += slab->seconds_upload;
    total->seconds_index += slab->seconds_index;
    total->seconds_core += slab->seconds_core;
    total->seconds_union += slab->seconds_union;
    total->seconds_border += slab->seconds_border;
    total->seconds_download += slab->seconds_download;
    total->cells += slab->cells;
    total->gpu_variant = slab->gpu_variant;
    total->gpu_key_table = slab->gpu_key_table;
}

/* dbscan_slab_solver: one slab through the whole-input phases, then its roots. */
static parac_status solve_slab(void *context, const dbscan_points *slab, uint32_t *root, uint8_t *core,
                               parac_error *error)
{
    gpu_run *run = (gpu_run *)context;
    parac_status status;
    release_all(run);
    memset(&run->lists, 0, sizeof run->lists);
    memset(&run->slab_info, 0, sizeof run->slab_info);
    run->n = slab->count;
    run->cells = 0;
    if (slab->f32) {
        status = cluster_core_points<float>(run, slab->f32, &run->slab_info, error);
        if (status == PARAC_OK) status = dbscan_gpu_finish_slab<float>(run, root, core, &run->slab_info, error);
    } else {
        status = cluster_core_points<double>(run, slab->f64, &run->slab_info, error);
        if (status == PARAC_OK) status = dbscan_gpu_finish_slab<double>(run, root, core, &run->slab_info, error);
    }
    release_all(run);
    if (status == PARAC_OK) add_phase_times(run->total_info, &run->slab_info);
    return status;
}

/* Device bytes one point may need at the peak (an upper bound, so slabs err small):
 * input and sorted copies, keys and permutation twice, CUB scratch, key table, lists. */
static size_t bytes_per_point(const dbscan_points *points)
{
    size_t value = points->f32 ? sizeof(float) : sizeof(double);
    return 2 * points->dim * value + 96 + 4 * MAX_LIST_SLOTS + 1;
}

/* Slabs the budget asks for: max_device_bytes, else 90% of the free memory. */
static parac_status slabs_wanted(gpu_run *run, const dbscan_points *points, const parac_dbscan_options *options,
                                 size_t *wanted, parac_error *error)
{
    size_t budget = options->max_device_bytes, total = 0;
    double need;
    if (budget == 0) {
        parac_status status = parac_cuda_memory_info(&run->context, &budget, &total, error);
        if (status != PARAC_OK) return status;
        budget = budget / 10 * 9;
    }
    need = (double)points->count * (double)bytes_per_point(points) / (double)(budget > 0 ? budget : 1);
    *wanted = need > 1 ? (size_t)need + 1 : 1;
    if (options->min_gpu_slabs > *wanted) *wanted = options->min_gpu_slabs;
    return PARAC_OK;
}

/* Slabs until they fit: twice as many after each out-of-memory; NO_MEMORY once the points cut no finer. */
static parac_status run_sliced(gpu_run *run, const dbscan_points *points, size_t wanted, size_t tried,
                               int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error)
{
    for (;;) {
        dbscan_slabs slabs;
        double started = parac_now_seconds(), device_seconds;
        parac_status status = dbscan_slabs_plan(points, run->eps, wanted, &slabs, error);
        if (status != PARAC_OK) return status;
        if (slabs.slabs <= tried) {
            dbscan_slabs_free(&slabs);
            return parac_fail(error, PARAC_ERR_NO_MEMORY,
                              "dbscan: %zu points do not fit in device memory even in %zu slabs", points->count,
                              tried);
        }
        run->total_info = info;
        parac_progress_gate_set_total(run->progress, run->phases_done + GPU_PHASES * (uint64_t)slabs.slabs);
        status = dbscan_slabs_cluster(points, &slabs, solve_slab, run, labels, core_mask, info, error);
        device_seconds = info->seconds_upload + info->seconds_index + info->seconds_core + info->seconds_union +
                         info->seconds_border + info->seconds_download;
        info->seconds_relabel = parac_now_seconds() - started - device_seconds; /* plan, gather, host merge */
        tried = slabs.slabs;
        dbscan_slabs_free(&slabs);
        info->gpu_slabs = tried;
        if (status != PARAC_ERR_NO_MEMORY) return status;
        parac_error_clear(error);
        memset(info, 0, sizeof *info);
        wanted = 2 * tried;
    }
}

static parac_status run_whole(gpu_run *run, const dbscan_points *points, int32_t *labels, uint8_t *core_mask,
                              parac_dbscan_info *info, parac_error *error)
{
    parac_status status = points->f32 ? run_phases<float>(run, points->f32, labels, core_mask, info, error)
                                      : run_phases<double>(run, points->f64, labels, core_mask, info, error);
    release_all(run);
    return status;
}

/* One pass when the budget allows it, else (or when it runs out of memory) slabs. */
static parac_status run_fitting(gpu_run *run, const dbscan_points *points, const parac_dbscan_options *options,
                                int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error)
{
    size_t wanted = 1;
    parac_status status = slabs_wanted(run, points, options, &wanted, error);
    if (status != PARAC_OK) return status;
    if (wanted <= 1) {
        status = run_whole(run, points, labels, core_mask, info, error);
        if (status != PARAC_ERR_NO_MEMORY) return status;
        parac_error_clear(error);
        memset(info, 0, sizeof *info);
        wanted = 2;
    }
    return run_sliced(run, points, wanted, 1, labels, core_mask, info, error);
}

extern "C" dbscan_gpu_recipe dbscan_gpu_recipe_of(parac_dbscan_gpu_variant variant)
{
    dbscan_gpu_recipe recipe = {variant, 0, 0, 0};
    if (variant == PARAC_DBSCAN_GPU_TABLE_FUSED || variant == PARAC_DBSCAN_GPU_COARSE_FUSED) {
        recipe.cells = variant == PARAC_DBSCAN_GPU_TABLE_FUSED ? PARAC_DBSCAN_GPU_TABLE : PARAC_DBSCAN_GPU_COARSE;
        recipe.fused = recipe.keep_lists = 1;
    } else if (variant == PARAC_DBSCAN_GPU_SPARSE) {
        recipe.cells = PARAC_DBSCAN_GPU_COARSE;
        recipe.keep_lists = recipe.sparse = 1;
    }
    return recipe;
}

extern "C" parac_status dbscan_cuda(const dbscan_points *points, const parac_dbscan_options *options, int use_grid,
                                    parac_progress_gate *progress, int32_t *labels, uint8_t *core_mask,
                                    parac_dbscan_info *info, parac_error *error)
{
    dbscan_gpu_recipe recipe = dbscan_gpu_recipe_of(options->gpu_variant);
    return dbscan_cuda_recipe(points, options, &recipe, use_grid, progress, labels, core_mask, info, error);
}

extern "C" parac_status dbscan_cuda_recipe(const dbscan_points *points, const parac_dbscan_options *options,
                                           const dbscan_gpu_recipe *recipe, int use_grid, parac_progress_gate *progress,
                                           int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                           parac_error *error)
{
    gpu_run *run;
    parac_status status;
    if (points->count == 0) return PARAC_OK;
    run = (gpu_run *)calloc(1, sizeof(gpu_run));
    if (!run) return parac_fail_no_memory(error, "dbscan GPU state", sizeof(gpu_run));
    run->n = points->count;
    run->dim = points->dim;
    run->eps = options->eps;
    run->min_samples = options->min_samples;
    run->use_grid = use_grid;
    run->recipe = *recipe;
    run->progress = progress;
    run->host_threads = parac_threads_for_run(options->exec.threads);
    parac_progress_gate_set_total(progress, GPU_PHASES);
    status = parac_cuda_context_create(options->exec.cuda_device, &run->context, error);
    if (status == PARAC_OK) {
        run->has_context = 1;
        reset_peak(run);
        status = run_fitting(run, points, options, labels, core_mask, info, error);
        release_all(run);
        info->device_bytes = read_peak(run);
        parac_cuda_context_destroy(&run->context);
    }
    free(run);
    return status;
}
