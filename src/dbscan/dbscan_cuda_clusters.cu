/* dbscan/dbscan_cuda_clusters.cu — from core flags to clusters, the last phases of a GPU run: the
 * union of core points (dbscan_cpu.c: join_core_points; stencil, compact cells or the sparse
 * variant's lists), each point's root (a border point's from its lowest-index core neighbour:
 * assign_roots), then either the canonical labels and counts of a whole run
 * (dbscan_canonical_labels) or a slab's roots, and their download. Kernels: dbscan_cuda_union.cuh
 * and dbscan_cuda_border.cuh (both over cuda/union_find.cuh); the run record: dbscan_cuda_run.cuh. */
#include "core/error.h"
#include "cuda/context.h"
#include "cuda/cub_wrappers.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
#include "cuda/staged_copy.h"
#include "dbscan/dbscan_cuda_run.cuh"

#include "dbscan/dbscan_cuda_union.cuh"
#include "dbscan/dbscan_cuda_border.cuh"

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
parac_status dbscan_gpu_join_core_points(gpu_run *run, parac_error *error)
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
    unsigned int *any = NULL, any_core = 0;
    if (run->sparse && run->lists.near) release_walk_buffers(run); /* lower peak: the lists are all it reads */
    if (run->lists.near) {
        assign_roots_listed<<<blocks_for(run->n), THREADS, 0, stream>>>(run->n, run->core, run->order, run->parent,
                                                                        run->lists, root_of, core_by_index,
                                                                        min_index);
    } else {
        PARAC_TRY(take(run, (void **)&any, sizeof *any, error));
        PARAC_TRY(parac_cuda_memset(&run->context, any, 0, sizeof *any, error));
        PARAC_TRY(parac_cuda_launch_items(find_any_core, run->n, THREADS, stream, error, run->core, run->n, any));
        PARAC_TRY(parac_cuda_download(&run->context, &any_core, any, sizeof any_core, error));
        PARAC_TRY(parac_cuda_launch_items(assign_roots<T>, run->n, THREADS, stream, error, view_of<T>(run), run->core,
                                          run->order, run->parent, root_of, core_by_index, (int)(any_core != 0)));
    }
fail:
    parac_cuda_free(&run->context, any);
    return status;
}

/* One slab's answer for dbscan_slabs_cluster: roots as the slab's own point indices. */
template <typename T>
parac_status dbscan_gpu_finish_slab(gpu_run *run, uint32_t *root, uint8_t *core, parac_dbscan_info *info,
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
parac_status dbscan_gpu_finish_labels(gpu_run *run, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
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

template parac_status dbscan_gpu_join_core_points<float>(gpu_run *run, parac_error *error);
template parac_status dbscan_gpu_join_core_points<double>(gpu_run *run, parac_error *error);
template parac_status dbscan_gpu_finish_slab<float>(gpu_run *run, uint32_t *root, uint8_t *core,
                                                    parac_dbscan_info *info, parac_error *error);
template parac_status dbscan_gpu_finish_slab<double>(gpu_run *run, uint32_t *root, uint8_t *core,
                                                     parac_dbscan_info *info, parac_error *error);
template parac_status dbscan_gpu_finish_labels<float>(gpu_run *run, int32_t *labels, uint8_t *core_mask,
                                                      parac_dbscan_info *info, parac_error *error);
template parac_status dbscan_gpu_finish_labels<double>(gpu_run *run, int32_t *labels, uint8_t *core_mask,
                                                       parac_dbscan_info *info, parac_error *error);
