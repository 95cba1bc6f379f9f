/* dbscan/dbscan_cuda_cores.cu — the core phase of a GPU run (dbscan_cpu.c: point_is_core): dense
 * (or compact) cells, then each point's core flag, from the stencil, the tiled brute force (no grid)
 * or the sparse variant's walk, with the neighbour lists of the variants that keep them. Kernels:
 * dbscan_cuda_core.cuh; the run record: dbscan_cuda_run.cuh. */
#include "core/error.h"
#include "cuda/context.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
#include "dbscan/dbscan_cuda_run.cuh"

#include "dbscan/dbscan_cuda_core.cuh"

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
parac_status dbscan_gpu_mark_core_points(gpu_run *run, parac_error *error)
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

template parac_status dbscan_gpu_mark_core_points<float>(gpu_run *run, parac_error *error);
template parac_status dbscan_gpu_mark_core_points<double>(gpu_run *run, parac_error *error);
