/* ac/ac4_gpu.cu — AC4-GPU (Li, Li & Li) on the N-E model.
 *
 * Every round: mark edges (live = satisfied && dst present), reduce-by-key over
 * the edges into counters (keys = counter slots (x, a, y): already sorted by
 * construction), delete the values with a zero counter, then reduce the
 * present flags by variable to domain sizes. As in the paper, two streams run
 * the two independent steps after a deletion: the domain-size reduction
 * (side stream) and the next round's edge marking (main stream). A round that
 * deletes nothing ends the run; an empty domain is a wipe-out.
 *
 * Kernels: delete_zero_kernel (one thread per counter slot). The rest is in
 * ne_model.cu. When the edges do not fit on the device they are rebuilt chunk
 * by chunk every round (ne_count_supports) and marking cannot be overlapped.
 */
#include <string.h>

#include "ac/ac_gpu.h"
#include "core/error.h"
#include "core/timer.h"
#include "cuda/cuda_check.h"

parac_status ac4_gpu_plus_run(parac_cuda_context *context, const ne_model *ne, ne_edges *edges, int32_t *present,
                              parac_ac_stats *stats, parac_error *error);

static __global__ void delete_zero_kernel(const int32_t *counters, const uint32_t *slot_value, uint64_t slots,
                                   int32_t *present, int32_t *changed)
{
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < slots; s += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t value = slot_value[s];
        if (counters[s] == 0 && present[value]) {
            present[value] = 0; /* several slots of one value may write 0: idempotent */
            *changed = 1;
        }
    }
}

typedef struct ac4_gpu_round {
    parac_cuda_context side;   /* same device and pool, second stream */
    cudaEvent_t deleted;
    int32_t *counters, *sizes, *changed;
} ac4_gpu_round;

/* One AC4-GPU round; sets *changed and *wipeout. */
static parac_status ac4_gpu_round_run(parac_cuda_context *context, const ne_model *ne, ne_edges *edges,
                                      int32_t *present, ac4_gpu_round *round, int marked, int *changed, int *wipeout,
                                      parac_error *error)
{
    parac_status status = PARAC_OK;
    int32_t host_changed = 0;
    cudaStream_t main_stream = (cudaStream_t)context->stream;
    PARAC_TRY(ne_count_supports(context, ne, edges, present, round->counters, marked, error));
    PARAC_TRY(parac_cuda_memset(context, round->changed, 0, sizeof(int32_t), error));
    delete_zero_kernel<<<ne_blocks(ne->slot_count, context), NE_THREADS, 0, main_stream>>>(
        round->counters, ne->slot_value, ne->slot_count, present, round->changed);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_CUDA_TRY(cudaEventRecord(round->deleted, main_stream));
    /* Independent steps on two streams: domain sizes (side) and next round's marking (main). */
    PARAC_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)round->side.stream, round->deleted, 0));
    if (edges->resident) PARAC_TRY(ne_edges_mark(context, edges, present, ne->edge_count, error));
    PARAC_TRY(ne_domain_sizes(&round->side, ne, present, round->sizes, wipeout, error));
    PARAC_TRY(parac_cuda_download(context, &host_changed, round->changed, sizeof host_changed, error));
    *changed = host_changed != 0;
fail:
    return status;
}

static parac_status ac4_gpu_run(parac_cuda_context *context, const ne_model *ne, ne_edges *edges, int32_t *present,
                                parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    ac4_gpu_round round;
    cudaStream_t side_stream = NULL;
    int changed = 1, wipeout = 0;
    memset(&round, 0, sizeof round);
    round.side = *context;
    PARAC_CUDA_TRY(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
    round.side.stream = side_stream;
    PARAC_CUDA_TRY(cudaEventCreateWithFlags(&round.deleted, cudaEventDisableTiming));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&round.counters, (ne->slot_count + 1) * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&round.sizes, (ne->variable_count + 1) * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&round.changed, sizeof(int32_t), error));
    while (changed && !wipeout) {
        stats->iterations++;
        stats->revisions += ne->edge_count;
        PARAC_TRY(ac4_gpu_round_run(context, ne, edges, present, &round, stats->iterations > 1, &changed, &wipeout,
                                    error));
    }
    stats->wipeout = wipeout;
fail:
    if (side_stream) cudaStreamSynchronize(side_stream);
    parac_cuda_free(context, round.counters);
    parac_cuda_free(context, round.sizes);
    parac_cuda_free(context, round.changed);
    if (round.deleted) cudaEventDestroy(round.deleted);
    if (side_stream) cudaStreamDestroy(side_stream);
    return status;
}

/* Both N-E algorithms: upload + BuildNE (build time), propagate, download (propagate time). */
extern "C" parac_status ac_cuda_ac4(parac_cuda_context *context, const ac_model *model, int plus,
                                    uint64_t edge_limit, uint64_t *value_bits, parac_ac_stats *stats,
                                    parac_error *error)
{
    parac_status status = PARAC_OK;
    ne_model ne;
    ne_edges edges;
    int32_t *present = NULL;
    double start = parac_now_seconds();
    memset(&ne, 0, sizeof ne);
    memset(&edges, 0, sizeof edges);
    PARAC_TRY(ne_model_upload(context, model, &ne, error));
    PARAC_TRY(ne_edges_alloc(context, &ne, edge_limit, &edges, error));
    if (edges.resident) PARAC_TRY(ne_edges_build(context, &ne, &edges, 0, ne.edge_count, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&present, (ne.value_count + 1) * 4, error));
    PARAC_TRY(ne_present_upload(context, value_bits, ne.value_count, present, error));
    PARAC_TRY(parac_cuda_synchronize(context, error));
    stats->build_seconds += parac_now_seconds() - start;
    if (plus) PARAC_TRY(ac4_gpu_plus_run(context, &ne, &edges, present, stats, error));
    else PARAC_TRY(ac4_gpu_run(context, &ne, &edges, present, stats, error));
    PARAC_TRY(ne_present_download(context, present, ne.value_count, value_bits, error));
fail:
    parac_cuda_free(context, present);
    ne_edges_free(context, &edges);
    ne_model_free(context, &ne);
    return status;
}
