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
 * Files, by concern (one translation unit: this file includes them, the kernels stay static):
 *   dbscan_cuda_grid.cuh    grid view, device twins of dbscan_grid.c, exact distance, stencil rows
 *   dbscan_cuda_index.cuh   index build kernels
 *   dbscan_cuda_core.cuh    core counting, neighbour lists
 *   dbscan_cuda_union.cuh   union (cuda/union_find.cuh)
 *   dbscan_cuda_border.cuh  border roots, canonical labels, counts
 *   this file               the host driver: one run's device buffers, plan, phases in order, slabs.
 *                           About 880 lines: the phases share gpu_run and its release/peak
 *                           accounting, which would otherwise need a header of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/threads.h"
#include "core/timer.h"
#include "cuda/context.h"
#include "cuda/cub_wrappers.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
#include "cuda/staged_copy.h"
#include "cuda/union_find.cuh"
#include "dbscan/dbscan_grid.h"
#include "dbscan/dbscan_internal.h"
#include "dbscan/dbscan_slabs.h"

#include "dbscan/dbscan_cuda_grid.cuh"
#include "dbscan/dbscan_cuda_index.cuh"
#include "dbscan/dbscan_cuda_core.cuh"
#include "dbscan/dbscan_cuda_union.cuh"
#include "dbscan/dbscan_cuda_border.cuh"


/* ---------------------------------------------------------------- host side */

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

static void release_all(gpu_run *run)
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

/* What only the stencil walks read: the border pass from lists needs none of it. */
static void release_walk_buffers(gpu_run *run)
{
    RELEASE(run, xs);
    RELEASE(run, cell_key);
    RELEASE(run, cell_start);
    RELEASE(run, cell_of);
    RELEASE(run, key_start);
    RELEASE(run, dense);
    RELEASE(run, compact);
    RELEASE(run, first_core);
}

static parac_status take(gpu_run *run, void **pointer, size_t bytes, parac_error *error)
{
    return parac_cuda_alloc(&run->context, pointer, bytes, error);
}

/* Seconds since the last phase mark, after the stream drains; then the
 * progress checkpoint between kernel launches (PARAC_ERR_CANCELLED when the
 * callback asks to stop; the caller's fail path frees the device memory). */
static parac_status phase_done(gpu_run *run, double *seconds, parac_error *error)
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

/* Sparse data (under half a point per fine cell of the bounding box) gains from
 * coarse cells: 3^g stencil cells instead of 5^g. Dense data keeps fine cells,
 * whose dense-cell shortcut saves the pairwise work. */
#define COARSE_BELOW_OCCUPANCY 0.5

static int lists_fit(const gpu_run *run) { return run->min_samples >= 3 && run->min_samples - 2 <= MAX_LIST_SLOTS; }

/* SPARSE keeps max(min_samples - 2, 4) slots: with 4, at 3.35 expected neighbours per point
 * (100 M uniform 3-D points, eps 0.002) about 6.5 % of the core points overflow (Poisson estimate). */
#define SPARSE_MIN_SLOTS 4
static int sparse_lists_fit(const gpu_run *run) { return run->min_samples <= MAX_LIST_SLOTS + 2; }
static uint32_t sparse_slots(const gpu_run *run)
{
    return run->min_samples > SPARSE_MIN_SLOTS + 2 ? (uint32_t)(run->min_samples - 2) : SPARSE_MIN_SLOTS;
}

static parac_status choose_plan(gpu_run *run, int dims, const double *low, const double *high, parac_error *error)
{
    parac_status status = PARAC_OK;
    run->variant = run->recipe.cells;
    run->fused = run->recipe.fused;
    run->sparse = run->recipe.sparse;
    run->keep_lists = run->recipe.keep_lists;
    PARAC_TRY(dbscan_grid_plan_build(&run->plan, dims, low, high, run->eps, error));
    if (dims == 0) {
        run->variant = PARAC_DBSCAN_GPU_CLASSIC; /* one cell: nothing to look up */
        return PARAC_OK;
    }
    if (run->variant == PARAC_DBSCAN_GPU_AUTO) {
        int sparse = (double)run->n < COARSE_BELOW_OCCUPANCY * (double)dbscan_grid_key_space(&run->plan);
        run->variant = sparse ? PARAC_DBSCAN_GPU_COARSE : PARAC_DBSCAN_GPU_TABLE;
        /* SPARSE where its lists apply, else COARSE: docs/dbscan.md, "auto" */
        run->sparse = sparse && sparse_lists_fit(run);
        run->keep_lists = run->sparse;
    }
    if (run->variant == PARAC_DBSCAN_GPU_COARSE)
        PARAC_TRY(dbscan_grid_plan_build_coarse(&run->plan, dims, low, high, run->eps, error));
fail:
    return status;
}

/* The direct table costs 4 bytes per key: only when the key space is at most
 * 8 keys per point (32 bytes per point) and fits CUB's 32-bit counts. */
static int wants_key_table(const gpu_run *run)
{
    uint64_t keys = dbscan_grid_key_space(&run->plan) + 1;
    return run->variant != PARAC_DBSCAN_GPU_CLASSIC && run->plan.dims > 0 &&
           keys <= 8 * (uint64_t)run->n + (1u << 22) && keys < (1ull << 31);
}

/* key_start[k] = first sorted point whose key is >= k, built from the cell
 * table. Out of device memory, the run keeps binary search instead. */
static parac_status build_key_table(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t keys = (size_t)dbscan_grid_key_space(&run->plan) + 1;
    if (!wants_key_table(run)) return PARAC_OK;
    status = take(run, (void **)&run->key_start, keys * sizeof(uint32_t), error);
    if (status == PARAC_ERR_NO_MEMORY) {
        parac_error_clear(error);
        run->key_start = NULL;
        return PARAC_OK;
    }
    PARAC_TRY(status);
    PARAC_TRY(parac_cuda_memset(&run->context, run->key_start, 0, keys * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(scatter_cell_counts, run->cells, THREADS, (cudaStream_t)run->context.stream,
                                      error, run->cell_key, run->cell_start, run->cells, run->key_start));
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, run->key_start, run->key_start, keys, error));
fail:
    return status;
}

template <typename T>
static parac_status build_plan(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    int dims = run->use_grid ? (int)(run->dim < DBSCAN_GRID_MAX_DIMS ? run->dim : DBSCAN_GRID_MAX_DIMS) : 0;
    unsigned long long *bounds = NULL, host[2 * DBSCAN_GRID_MAX_DIMS];
    double low[DBSCAN_GRID_MAX_DIMS] = {0, 0, 0}, high[DBSCAN_GRID_MAX_DIMS] = {0, 0, 0};
    unsigned blocks = blocks_for(run->n);
    if (dims > 0) {
        PARAC_TRY(take(run, (void **)&bounds, sizeof host, error));
        PARAC_TRY(parac_cuda_memset(&run->context, bounds, 0xff, sizeof host / 2, error));
        PARAC_TRY(parac_cuda_memset(&run->context, bounds + DBSCAN_GRID_MAX_DIMS, 0, sizeof host / 2, error));
        if (blocks > 4096) blocks = 4096;
        point_bounds<T><<<blocks, THREADS, 0, (cudaStream_t)run->context.stream>>>(
            (const T *)run->raw, run->n, run->dim, dims, bounds, bounds + DBSCAN_GRID_MAX_DIMS);
        PARAC_CUDA_TRY_LAUNCH();
        PARAC_TRY(parac_cuda_download(&run->context, host, bounds, sizeof host, error));
        for (int k = 0; k < dims; k++) {
            low[k] = from_ordered_bits(host[k]);
            high[k] = from_ordered_bits(host[DBSCAN_GRID_MAX_DIMS + k]);
        }
    }
    PARAC_TRY(choose_plan(run, dims, low, high, error));
fail:
    parac_cuda_free(&run->context, bounds);
    return status;
}

static int sorts_32_bit_keys(const gpu_run *run)
{
    return run->sparse && run->plan.dims > 0 && run->plan.key_bits > 0 && run->plan.key_bits <= 32;
}

/* sort_points for SPARSE with keys of <= 32 bits: keys32 instead of keys. */
template <typename T>
static parac_status sort_points_32(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint32_t *keys_in = NULL, *order_in = NULL;
    PARAC_TRY(take(run, (void **)&keys_in, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&order_in, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&run->keys32, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&run->order, n * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(cell_keys<T, uint32_t>, n, THREADS, stream, error, (const T *)run->raw, n,
                                      run->dim, run->plan, keys_in, order_in));
    PARAC_TRY(parac_cub_sort_pairs_u32_u32(&run->context, keys_in, run->keys32, order_in, run->order, n,
                                           run->plan.key_bits, error));
fail:
    parac_cuda_free(&run->context, keys_in);
    parac_cuda_free(&run->context, order_in);
    return status;
}

/* Keys, sort, sorted copy of the points. */
template <typename T>
static parac_status sort_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint64_t *keys_in = NULL;
    uint32_t *order_in = NULL;
    if (sorts_32_bit_keys(run)) {
        PARAC_TRY(sort_points_32<T>(run, error));
        goto gather;
    }
    PARAC_TRY(take(run, (void **)&keys_in, n * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&order_in, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&run->keys, n * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&run->order, n * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(cell_keys<T, uint64_t>, n, THREADS, stream, error, (const T *)run->raw, n,
                                      run->dim, run->plan, keys_in, order_in));
    PARAC_TRY(parac_cub_sort_pairs_u64_u32(&run->context, keys_in, run->keys, order_in, run->order, n,
                                           run->plan.key_bits > 0 ? run->plan.key_bits : 1, error));
    parac_cuda_free(&run->context, keys_in);
    parac_cuda_free(&run->context, order_in);
    keys_in = NULL;
    order_in = NULL;
gather:
    PARAC_TRY(take(run, &run->xs, n * run->dim * sizeof(T), error));
    PARAC_TRY(parac_cuda_launch_items(gather_sorted<T>, n, THREADS, stream, error, (const T *)run->raw, run->order, n,
                                      run->dim, (T *)run->xs));
    RELEASE(run, raw);
fail:
    parac_cuda_free(&run->context, keys_in);
    parac_cuda_free(&run->context, order_in);
    return status;
}

/* build_cells from 32-bit keys: cell starts flagged, summed, scattered (three passes, no run-length encoding). */
static parac_status build_cells_32(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint32_t *cells = NULL, host_cells = 0;
    PARAC_TRY(take(run, (void **)&run->cell_of, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&cells, sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(mark_cell_starts, n, THREADS, stream, error, run->keys32, n, run->cell_of));
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, run->cell_of, run->cell_of, n, error));
    count_cells<<<1, 1, 0, stream>>>(run->keys32, run->cell_of, n, cells);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(&run->context, &host_cells, cells, sizeof host_cells, error));
    run->cells = host_cells;
    PARAC_TRY(take(run, (void **)&run->cell_key, ((size_t)host_cells + 1) * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&run->cell_start, ((size_t)host_cells + 1) * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(cells_from_starts, n, THREADS, stream, error, run->keys32, n, run->cell_of,
                                      run->cell_start, run->cell_key));
    RELEASE(run, keys32);
    PARAC_TRY(build_key_table(run, error));
fail:
    parac_cuda_free(&run->context, cells);
    return status;
}

/* Cell table from the sorted keys: unique keys, starts (exclusive sum of run lengths), cell of each point. */
static parac_status build_cells(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t n = run->n, cells = 0;
    uint64_t *unique = NULL;
    uint32_t *lengths = NULL, total = (uint32_t)n;
    if (run->keys32) return build_cells_32(run, error);
    PARAC_TRY(take(run, (void **)&unique, n * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&lengths, (n + 1) * sizeof(uint32_t), error));
    PARAC_TRY(parac_cub_run_length_encode_u64(&run->context, run->keys, unique, lengths, n, &cells, error));
    run->cells = (uint32_t)cells;
    PARAC_TRY(take(run, (void **)&run->cell_key, (cells + 1) * sizeof(uint64_t), error));
    PARAC_TRY(take(run, (void **)&run->cell_start, (cells + 1) * sizeof(uint32_t), error));
    PARAC_CUDA_TRY(cudaMemcpyAsync(run->cell_key, unique, cells * sizeof(uint64_t), cudaMemcpyDeviceToDevice,
                                   (cudaStream_t)run->context.stream));
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, lengths, run->cell_start, cells, error));
    PARAC_TRY(parac_cuda_upload(&run->context, run->cell_start + cells, &total, sizeof total, error));
    parac_cuda_free(&run->context, unique);
    parac_cuda_free(&run->context, lengths);
    unique = NULL;
    lengths = NULL;
    RELEASE(run, keys);
    PARAC_TRY(build_key_table(run, error));
    PARAC_TRY(take(run, (void **)&run->cell_of, n * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(cell_of_points, cells, THREADS, (cudaStream_t)run->context.stream, error,
                                      run->cell_start, run->cells, run->cell_of));
    /* `total` lives on this stack frame: the upload must finish before we return. */
    PARAC_TRY(parac_cuda_synchronize(&run->context, error));
fail:
    parac_cuda_free(&run->context, unique);
    parac_cuda_free(&run->context, lengths);
    return status;
}

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

/* The listing variants keep min_samples - 2 neighbours per point when
 * lists_fit(); otherwise, or out of memory, the border pass walks the stencil
 * as the other variants do. */

static parac_status take_neighbour_lists(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    if (!run->keep_lists || !(run->sparse ? sparse_lists_fit(run) : lists_fit(run))) return PARAC_OK;
    run->lists.slots = run->sparse ? sparse_slots(run) : (uint32_t)(run->min_samples - 2);
    status = take(run, (void **)&run->lists.near_count, run->n, error);
    if (status == PARAC_OK)
        status = take(run, (void **)&run->lists.near, run->n * run->lists.slots * sizeof(uint32_t), error);
    if (status == PARAC_ERR_NO_MEMORY) { /* the border pass walks the stencil instead */
        parac_error_clear(error);
        RELEASE(run, lists.near);
        RELEASE(run, lists.near_count);
        return PARAC_OK;
    }
    return status;
}

/* Points per shared-memory tile of the brute-force count (at most THREADS, within
 * 40 KiB, so no opt-in is needed); 0 when even 32 points do not fit. */
static uint32_t tile_points(size_t dim, size_t bytes_per_value)
{
    size_t fit = (40u << 10) / (dim * bytes_per_value);
    if (fit < 32) return 0;
    return fit < THREADS ? (uint32_t)fit : THREADS;
}

template <typename T>
static parac_status mark_core_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    grid_view<T> view = view_of<T>(run);
    PARAC_TRY(take(run, (void **)&run->dense, run->cells + 1, error));
    PARAC_TRY(take(run, (void **)&run->core, run->n, error));
    PARAC_TRY(take_neighbour_lists(run, error));
    if (run->fused) {
        PARAC_TRY(take(run, (void **)&run->compact, run->cells + 1, error));
        PARAC_TRY(parac_cuda_launch_items(compact_cells<T>, run->cells, THREADS, stream, error, view, run->min_samples,
                                          run->dense, run->compact));
    } else {
        PARAC_TRY(parac_cuda_launch_items(dense_cells<T>, run->cells, THREADS, stream, error, view, run->min_samples,
                                          run->dense));
    }
    if (run->sparse && run->lists.near) {
        PARAC_TRY(parac_cuda_launch_items(count_neighbours_sparse<T>, run->n, THREADS, stream, error, view,
                                          run->min_samples, run->dense, run->core, run->lists));
    } else if (run->fused && run->plan.dims == 0 && tile_points(run->dim, sizeof(T)) > 0) {
        uint32_t tile = tile_points(run->dim, sizeof(T));
        /* dynamic shared memory (the tile): the one launch parac_cuda_launch_items does not cover */
        count_neighbours_tiled<T><<<blocks_for(run->n), THREADS, tile * run->dim * sizeof(T), stream>>>(
            view, run->min_samples, run->dense, run->core, run->lists, tile);
        PARAC_CUDA_TRY_LAUNCH();
    } else {
        PARAC_TRY(parac_cuda_launch_items(count_neighbours<T>, run->n, THREADS, stream, error, view, run->min_samples,
                                          run->dense, run->core, run->lists));
    }
fail:
    return status;
}

/* Fused union: compact cells become one set each, then one pair per pair of cells. */
template <typename T>
static parac_status join_compact_cells(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    PARAC_TRY(take(run, (void **)&run->first_core, (run->cells + 1) * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(first_core_of_cells, run->cells, THREADS, stream, error, run->cell_start,
                                      run->core, run->cells, run->first_core));
    PARAC_TRY(parac_cuda_launch_items(link_compact, run->n, THREADS, stream, error, run->cell_of, run->compact,
                                      run->core, run->first_core, run->n, run->parent));
    PARAC_TRY(parac_cuda_launch_items(union_compact<T>, run->n, THREADS, stream, error, view_of<T>(run), run->compact,
                                      run->core, run->first_core, run->parent));
fail:
    return status;
}

/* SPARSE union: pairs from the lists, then the stencil walk for the overflowed points only. */
template <typename T>
static parac_status join_listed_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    uint32_t *counter = NULL, *work = NULL, walkers = 0;
    PARAC_TRY(parac_cuda_launch_items(union_from_lists, run->n, THREADS, stream, error, run->n, run->core, run->lists,
                                      run->parent));
    PARAC_TRY(take(run, (void **)&counter, sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_memset(&run->context, counter, 0, sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(count_overflowed, run->n, THREADS, stream, error, run->lists.near_count, run->n,
                                      counter));
    PARAC_TRY(parac_cuda_download(&run->context, &walkers, counter, sizeof walkers, error));
    if (walkers > 0) {
        PARAC_TRY(take(run, (void **)&work, (size_t)walkers * sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_memset(&run->context, counter, 0, sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_launch_items(list_overflowed, run->n, THREADS, stream, error, run->lists.near_count,
                                          run->n, work, counter));
        PARAC_TRY(parac_cuda_launch_items(union_listed_walkers<T>, walkers, THREADS, stream, error, view_of<T>(run),
                                          run->dense, run->core, work, walkers, run->parent));
    }
fail:
    parac_cuda_free(&run->context, counter);
    parac_cuda_free(&run->context, work);
    return status;
}

template <typename T>
static parac_status join_core_points(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    PARAC_TRY(take(run, (void **)&run->parent, run->n * sizeof(uint32_t), error));
    if (run->fused) return join_compact_cells<T>(run, error);
    if (run->sparse && run->lists.near) {
        PARAC_TRY(parac_cuda_launch_items(link_dense, run->n, THREADS, stream, error, run->cell_of, run->cell_start,
                                          run->dense, run->n, run->parent));
        return join_listed_points<T>(run, error);
    }
    PARAC_TRY(parac_cuda_launch_items(link_dense, run->n, THREADS, stream, error, run->cell_of, run->cell_start,
                                      run->dense, run->n, run->parent));
    PARAC_TRY(parac_cuda_launch_items(union_core_pairs<T>, run->n, THREADS, stream, error, view_of<T>(run), run->dense,
                                      run->core, run->parent));
fail:
    return status;
}

/* root_of / core_by_index by original index (assign_roots): from the lists when kept. */
template <typename T>
static parac_status assign_all_roots(gpu_run *run, uint32_t *root_of, uint8_t *core_by_index, uint32_t *min_index,
                                     parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    if (run->sparse && run->lists.near) release_walk_buffers(run); /* lower peak: the lists are all it reads */
    if (run->lists.near)
        assign_roots_listed<<<blocks_for(run->n), THREADS, 0, stream>>>(run->n, run->core, run->order, run->parent,
                                                                        run->lists, root_of, core_by_index,
                                                                        min_index);
    else
        PARAC_TRY(parac_cuda_launch_items(assign_roots<T>, run->n, THREADS, stream, error, view_of<T>(run), run->core,
                                          run->order, run->parent, root_of, core_by_index));
fail:
    return status;
}

/* One slab's answer for dbscan_slabs_cluster: roots as the slab's own point indices. */
template <typename T>
static parac_status finish_slab(gpu_run *run, uint32_t *root, uint8_t *core, parac_dbscan_info *info,
                                parac_error *error)
{
    parac_status status = PARAC_OK;
    uint32_t *root_of = NULL;
    uint8_t *core_by_index = NULL;
    PARAC_TRY(take(run, (void **)&root_of, run->n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&core_by_index, run->n, error));
    PARAC_TRY(assign_all_roots<T>(run, root_of, core_by_index, NULL, error));
    PARAC_TRY(parac_cuda_launch_items(positions_to_indices, run->n, THREADS, (cudaStream_t)run->context.stream, error,
                                      run->order, run->n, root_of));
    PARAC_TRY(phase_done(run, &info->seconds_border, error));
    PARAC_TRY(parac_cuda_download_staged(&run->context, root, root_of, run->n * sizeof(uint32_t), run->host_threads, error));
    PARAC_TRY(parac_cuda_download_staged(&run->context, core, core_by_index, run->n, run->host_threads, error));
    PARAC_TRY(phase_done(run, &info->seconds_download, error));
fail:
    parac_cuda_free(&run->context, root_of);
    parac_cuda_free(&run->context, core_by_index);
    return status;
}

/* Border assignment, then the canonical labels; downloads labels and core mask. */
template <typename T>
static parac_status finish_labels(gpu_run *run, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                  parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)run->context.stream;
    size_t n = run->n;
    uint32_t *root_of = NULL, *min_index = NULL, *rank = NULL, last_rank = 0, last_first = 0;
    unsigned long long *counts = NULL, host_counts[2] = {0, 0};
    uint8_t *core_by_index = NULL;
    int32_t *device_labels = NULL;
    int fused_min = run->sparse && run->lists.near; /* the border pass computes min_index too */
    PARAC_TRY(take(run, (void **)&root_of, n * sizeof(uint32_t), error));
    PARAC_TRY(take(run, (void **)&core_by_index, n, error));
    if (fused_min) {
        release_walk_buffers(run); /* lower peak: the border pass reads only the lists */
        PARAC_TRY(take(run, (void **)&min_index, n * sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_memset(&run->context, min_index, 0xff, n * sizeof(uint32_t), error));
    }
    PARAC_TRY(assign_all_roots<T>(run, root_of, core_by_index, min_index, error));
    PARAC_TRY(phase_done(run, &info->seconds_border, error));
    release_all(run); /* only root_of, core_by_index (and min_index) are needed from here */
    if (!fused_min) {
        PARAC_TRY(take(run, (void **)&min_index, n * sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_memset(&run->context, min_index, 0xff, n * sizeof(uint32_t), error));
        PARAC_TRY(parac_cuda_launch_items(min_index_of_root, n, THREADS, stream, error, root_of, n, min_index));
    }
    PARAC_TRY(take(run, (void **)&rank, n * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_launch_items(mark_first, n, THREADS, stream, error, root_of, min_index, n, rank));
    PARAC_TRY(parac_cuda_download(&run->context, &last_first, rank + n - 1, sizeof last_first, error));
    PARAC_TRY(parac_cub_exclusive_sum_u32(&run->context, rank, rank, n, error));
    PARAC_TRY(parac_cuda_download(&run->context, &last_rank, rank + n - 1, sizeof last_rank, error));
    info->clusters = (size_t)last_rank + last_first;
    PARAC_TRY(take(run, (void **)&device_labels, n * sizeof(int32_t), error));
    PARAC_TRY(parac_cuda_launch_items(write_labels, n, THREADS, stream, error, root_of, min_index, rank, n,
                                      device_labels));
    PARAC_TRY(take(run, (void **)&counts, sizeof host_counts, error));
    PARAC_TRY(parac_cuda_memset(&run->context, counts, 0, sizeof host_counts, error));
    PARAC_TRY(parac_cuda_launch_items(count_outcomes, n, THREADS, stream, error, core_by_index, device_labels, n,
                                      counts));
    PARAC_TRY(parac_cuda_download(&run->context, host_counts, counts, sizeof host_counts, error));
    info->core = (size_t)host_counts[0];
    info->noise = (size_t)host_counts[1];
    info->border = n - info->core - info->noise;
    PARAC_TRY(phase_done(run, &info->seconds_relabel, error));
    PARAC_TRY(parac_cuda_download_staged(&run->context, labels, device_labels, n * sizeof(int32_t), run->host_threads, error));
    if (core_mask) PARAC_TRY(parac_cuda_download_staged(&run->context, core_mask, core_by_index, n, run->host_threads, error));
fail:
    parac_cuda_free(&run->context, root_of);
    parac_cuda_free(&run->context, min_index);
    parac_cuda_free(&run->context, rank);
    parac_cuda_free(&run->context, core_by_index);
    parac_cuda_free(&run->context, device_labels);
    parac_cuda_free(&run->context, counts);
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
    PARAC_TRY(build_plan<T>(run, error));
    PARAC_TRY(sort_points<T>(run, error));
    PARAC_TRY(build_cells(run, error));
    info->gpu_key_table = run->key_start != NULL;
    PARAC_TRY(phase_done(run, &info->seconds_index, error));
    PARAC_TRY(mark_core_points<T>(run, error));
    PARAC_TRY(phase_done(run, &info->seconds_core, error));
    PARAC_TRY(join_core_points<T>(run, error));
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
    PARAC_TRY(finish_labels<T>(run, labels, core_mask, info, error));
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
        if (status == PARAC_OK) status = finish_slab<float>(run, root, core, &run->slab_info, error);
    } else {
        status = cluster_core_points<double>(run, slab->f64, &run->slab_info, error);
        if (status == PARAC_OK) status = finish_slab<double>(run, root, core, &run->slab_info, error);
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
