/* ac/ac4_gpu_plus.cu — AC4-GPU+ (Li, Li & Li) on the N-E model.
 *
 * The counter reduction runs once (initialization, as in AC4-GPU's first
 * round). Each edge remembers its counter slot (its key). Then every round:
 * one pass over the edges whose destination was deleted in the previous round
 * decrements the source's counter atomically; a counter reaching 0 deletes
 * the source and decrements its variable's domain size atomically. Change and
 * wipe-out are O(1) flags. Two edges can bring two counters of one value to 0
 * in the same round, so a domain size can be decremented twice for one value
 * (the paper's "deleted twice" case): a size that looks empty (<= 0) triggers
 * an exact recount by reduce-by-key, and only the recount declares a wipe-out.
 *
 * Kernels:
 *   initial_delete_kernel  per counter slot: zero counter -> delete the value (initialization)
 *   propagate_kernel       per edge: atomic decrement, deletion, size decrement, flags
 */
#include <string.h>

#include "ac/ac_gpu.h"
#include "core/error.h"
#include "cuda/cuda_check.h"

enum { FLAG_CHANGED = 0, FLAG_LOOKS_EMPTY = 1 };

static __device__ void delete_value(uint32_t value, const uint32_t *value_var, int32_t *present, uint8_t *deleted_next,
                             int32_t *sizes, int32_t *flags)
{
    present[value] = 0;
    deleted_next[value] = 1;
    if (atomicSub(&sizes[value_var[value]], 1) <= 1) flags[FLAG_LOOKS_EMPTY] = 1;
    flags[FLAG_CHANGED] = 1;
}

static __global__ void initial_delete_kernel(const int32_t *counters, const uint32_t *slot_value, uint64_t slots,
                                      const uint32_t *value_var, int32_t *present, uint8_t *deleted_next,
                                      int32_t *sizes, int32_t *flags)
{
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < slots; s += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t value = slot_value[s];
        if (counters[s] == 0 && present[value]) delete_value(value, value_var, present, deleted_next, sizes, flags);
    }
}

static __global__ void propagate_kernel(const uint32_t *key, const uint32_t *src, const uint32_t *dst,
                                 const uint8_t *satisfied, uint64_t count, const uint8_t *deleted_now,
                                 const uint32_t *value_var, int32_t *counters, int32_t *present,
                                 uint8_t *deleted_next, int32_t *sizes, int32_t *flags)
{
    for (uint64_t e = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; e < count; e += (uint64_t)gridDim.x * blockDim.x) {
        if (!deleted_now[dst[e]] || !satisfied[e] || !present[src[e]]) continue;
        if (atomicSub(&counters[key[e]], 1) == 1) delete_value(src[e], value_var, present, deleted_next, sizes, flags);
    }
}

typedef struct plus_state {
    int32_t *counters, *sizes, *flags;
    uint8_t *deleted_now, *deleted_next;
} plus_state;

/* One pass of propagate_kernel over every edge (rebuilt chunk by chunk when not resident). */
static parac_status propagate_round(parac_cuda_context *context, const ne_model *ne, ne_edges *edges,
                                    int32_t *present, plus_state *s, parac_error *error)
{
    parac_status status = PARAC_OK;
    for (uint64_t first = 0; first < ne->edge_count; first += edges->capacity) {
        uint64_t count = ne->edge_count - first < edges->capacity ? ne->edge_count - first : edges->capacity;
        if (!edges->resident) PARAC_TRY(ne_edges_build(context, ne, edges, first, count, error));
        propagate_kernel<<<ne_blocks(count, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(
            edges->key, edges->src, edges->dst, edges->satisfied, count, s->deleted_now, ne->value_var, s->counters,
            present, s->deleted_next, s->sizes, s->flags);
        PARAC_CUDA_TRY_LAUNCH();
    }
fail:
    return status;
}

/* Reads the flags; recounts sizes exactly when one looked empty. */
static parac_status check_round(parac_cuda_context *context, const ne_model *ne, int32_t *present, plus_state *s,
                                int *changed, int *wipeout, parac_error *error)
{
    parac_status status = PARAC_OK;
    int32_t flags[2] = {0, 0};
    PARAC_TRY(parac_cuda_download(context, flags, s->flags, sizeof flags, error));
    *changed = flags[FLAG_CHANGED] != 0;
    *wipeout = 0;
    if (flags[FLAG_LOOKS_EMPTY]) PARAC_TRY(ne_domain_sizes(context, ne, present, s->sizes, wipeout, error));
fail:
    return status;
}

static parac_status plus_init(parac_cuda_context *context, const ne_model *ne, ne_edges *edges, int32_t *present,
                              plus_state *s, int *changed, int *wipeout, parac_error *error)
{
    parac_status status = PARAC_OK;
    PARAC_TRY(ne_count_supports(context, ne, edges, present, s->counters, 0, error));
    PARAC_TRY(ne_domain_sizes(context, ne, present, s->sizes, wipeout, error));
    if (*wipeout) return PARAC_OK;
    PARAC_TRY(parac_cuda_memset(context, s->flags, 0, 2 * sizeof(int32_t), error));
    initial_delete_kernel<<<ne_blocks(ne->slot_count, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(
        s->counters, ne->slot_value, ne->slot_count, ne->value_var, present, s->deleted_next, s->sizes, s->flags);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(check_round(context, ne, present, s, changed, wipeout, error));
fail:
    return status;
}

parac_status ac4_gpu_plus_run(parac_cuda_context *context, const ne_model *ne, ne_edges *edges, int32_t *present,
                              parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    plus_state s;
    int changed = 0, wipeout = 0;
    memset(&s, 0, sizeof s);
    PARAC_TRY(parac_cuda_alloc(context, (void **)&s.counters, (ne->slot_count + 1) * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&s.sizes, (ne->variable_count + 1) * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&s.flags, 2 * sizeof(int32_t), error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&s.deleted_now, ne->value_count + 1, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&s.deleted_next, ne->value_count + 1, error));
    PARAC_TRY(parac_cuda_memset(context, s.deleted_next, 0, ne->value_count + 1, error));
    stats->iterations = 1;
    stats->revisions += ne->edge_count;
    PARAC_TRY(plus_init(context, ne, edges, present, &s, &changed, &wipeout, error));
    while (changed && !wipeout) {
        uint8_t *swap = s.deleted_now;
        s.deleted_now = s.deleted_next, s.deleted_next = swap;
        PARAC_TRY(parac_cuda_memset(context, s.deleted_next, 0, ne->value_count + 1, error));
        PARAC_TRY(parac_cuda_memset(context, s.flags, 0, 2 * sizeof(int32_t), error));
        stats->iterations++;
        stats->revisions += ne->edge_count;
        PARAC_TRY(propagate_round(context, ne, edges, present, &s, error));
        PARAC_TRY(check_round(context, ne, present, &s, &changed, &wipeout, error));
    }
    stats->wipeout = wipeout;
fail:
    parac_cuda_free(context, s.counters);
    parac_cuda_free(context, s.sizes);
    parac_cuda_free(context, s.flags);
    parac_cuda_free(context, s.deleted_now);
    parac_cuda_free(context, s.deleted_next);
    return status;
}
