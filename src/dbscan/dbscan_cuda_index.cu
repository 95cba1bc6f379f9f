/* dbscan/dbscan_cuda_index.cu — the index phase of a GPU run (dbscan_cpu.c: build_index): the
 * bounds of the points and the grid plan (the variant's cells chosen here), cell keys sorted with
 * the permutation, the points gathered in cell order, the cell table and, when it pays, the direct
 * key table. Kernels: dbscan_cuda_index.cuh; the run record: dbscan_cuda_run.cuh. */
#include <string.h>

#include "core/error.h"
#include "cuda/context.h"
#include "cuda/cub_wrappers.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
#include "dbscan/dbscan_cuda_run.cuh"

#include "dbscan/dbscan_cuda_index.cuh"

/* Sparse data (under half a point per fine cell of the bounding box) gains from
 * coarse cells: 3^g stencil cells instead of 5^g. Dense data keeps fine cells,
 * whose dense-cell shortcut saves the pairwise work. */
#define COARSE_BELOW_OCCUPANCY 0.5

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

/* Bounds and plan, keys sorted and points gathered, the cell table (and key table). */
template <typename T>
parac_status dbscan_gpu_build_index(gpu_run *run, parac_error *error)
{
    parac_status status = PARAC_OK;
    PARAC_TRY(build_plan<T>(run, error));
    PARAC_TRY(sort_points<T>(run, error));
    PARAC_TRY(build_cells(run, error));
fail:
    return status;
}

template parac_status dbscan_gpu_build_index<float>(gpu_run *run, parac_error *error);
template parac_status dbscan_gpu_build_index<double>(gpu_run *run, parac_error *error);
