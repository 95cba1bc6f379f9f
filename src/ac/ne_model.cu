/* ac/ne_model.cu — the N-E model on the GPU: upload, BuildNE, support counting.
 *
 * Kernels:
 *   pair_count_kernel   2|Dx||Dy| per binary constraint, then an exclusive scan (CUB) = edge_offset
 *   build_edges_kernel  one thread per edge (grid-stride): find its constraint by binary search
 *                       over edge_offset, decode (a, b), write key/src/dst/satisfied
 *   mark_edges_kernel   live = satisfied && present[dst]
 *   scatter_kernel      counters[unique key] += run sum (atomic: chunks may split a key's run)
 */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_gpu.h"
#include "core/error.h"
#include "cuda/cub_wrappers.h"
#include "cuda/cuda_check.h"

/* CUB calls are kept below 2^30 items (int offsets inside CUB). */
#define NE_SEGMENT ((uint64_t)1 << 30)

static __global__ void pair_count_kernel(const uint32_t *size_x, const uint32_t *size_y, uint32_t count, uint64_t *pairs)
{
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k <= count; k += (uint64_t)gridDim.x * blockDim.x)
        pairs[k] = k < count ? 2ull * size_x[k] * size_y[k] : 0;
}

static __device__ uint32_t constraint_of_edge(const uint64_t *edge_offset, uint32_t count, uint64_t edge)
{
    uint32_t low = 0, high = count; /* last k with edge_offset[k] <= edge */
    while (high - low > 1) {
        uint32_t mid = low + (high - low) / 2;
        if (edge_offset[mid] <= edge) low = mid;
        else high = mid;
    }
    return low;
}

static __global__ void build_edges_kernel(ne_model ne, uint64_t first, uint64_t count, uint32_t *key, uint32_t *src,
                                   uint32_t *dst, uint8_t *satisfied)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t edge = first + i;
        uint32_t k = constraint_of_edge(ne.edge_offset, ne.binary_count, edge);
        uint64_t local = edge - ne.edge_offset[k], pairs = (uint64_t)ne.size_x[k] * ne.size_y[k];
        uint64_t a, b;
        if (local < pairs) {
            a = local / ne.size_y[k], b = local % ne.size_y[k];
            key[i] = (uint32_t)(ne.slot_x[k] + a);
            src[i] = (uint32_t)(ne.base_x[k] + a);
            dst[i] = (uint32_t)(ne.base_y[k] + b);
        } else {
            local -= pairs;
            b = local / ne.size_x[k], a = local % ne.size_x[k];
            key[i] = (uint32_t)(ne.slot_y[k] + b);
            src[i] = (uint32_t)(ne.base_y[k] + b);
            dst[i] = (uint32_t)(ne.base_x[k] + a);
        }
        const uint64_t *row = ne.matrices + ne.matrix_offset[k] + a * ne.row_words[k];
        satisfied[i] = (uint8_t)((row[b / 64] >> (b % 64)) & 1u);
    }
}

static __global__ void mark_edges_kernel(const uint8_t *satisfied, const uint32_t *dst, const int32_t *present,
                                  uint64_t count, int32_t *live)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x)
        live[i] = satisfied[i] && present[dst[i]];
}

static __global__ void scatter_kernel(const uint32_t *unique, const int32_t *sums, uint64_t runs, int32_t *counters)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < runs; i += (uint64_t)gridDim.x * blockDim.x)
        atomicAdd(&counters[unique[i]], sums[i]);
}

static __global__ void any_zero_kernel(const int32_t *sizes, uint64_t count, int32_t *flag)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x)
        if (sizes[i] <= 0) *flag = 1;
}

static __global__ void bits_to_present_kernel(const uint64_t *bits, uint64_t count, int32_t *present)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x)
        present[i] = (int32_t)((bits[i / 64] >> (i % 64)) & 1u);
}

static __global__ void present_to_bits_kernel(const int32_t *present, uint64_t count, unsigned long long *bits)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x)
        if (present[i]) atomicOr(&bits[i / 64], 1ull << (i % 64));
}

/* Host-side per-constraint arrays, uploaded in one go. */
typedef struct ne_host {
    uint32_t *size_x, *size_y, *row_words, *slot_value, *value_var;
    uint64_t *base_x, *base_y, *slot_x, *slot_y, *matrix_offset, *matrices;
} ne_host;

static void ne_host_free(ne_host *h)
{
    free(h->size_x), free(h->size_y), free(h->row_words), free(h->slot_value), free(h->value_var);
    free(h->base_x), free(h->base_y), free(h->slot_x), free(h->slot_y), free(h->matrix_offset), free(h->matrices);
}

static parac_status ne_host_fill(const ac_model *model, ne_model *ne, ne_host *h, parac_error *error)
{
    const parac_csp_network *net = model->network;
    uint32_t count = ne->binary_count;
    uint64_t words = 0;
    for (uint32_t k = 0; k < count; k++)
        words += (uint64_t)net->domain_size[model->arcs[2 * k].x] * model->arcs[2 * k].row_words;
    h->size_x = (uint32_t *)malloc((count + 1) * 4), h->size_y = (uint32_t *)malloc((count + 1) * 4);
    h->row_words = (uint32_t *)malloc((count + 1) * 4);
    h->base_x = (uint64_t *)malloc((count + 1) * 8), h->base_y = (uint64_t *)malloc((count + 1) * 8);
    h->slot_x = (uint64_t *)malloc((count + 1) * 8), h->slot_y = (uint64_t *)malloc((count + 1) * 8);
    h->matrix_offset = (uint64_t *)malloc((count + 1) * 8), h->matrices = (uint64_t *)malloc((words + 1) * 8);
    h->slot_value = (uint32_t *)malloc((ne->slot_count + 1) * 4);
    h->value_var = (uint32_t *)malloc((ne->value_count + 1) * 4);
    if (!h->size_x || !h->size_y || !h->row_words || !h->base_x || !h->base_y || !h->slot_x || !h->slot_y ||
        !h->matrix_offset || !h->matrices || !h->slot_value || !h->value_var)
        return parac_fail_no_memory(error, "N-E model", (unsigned long long)(words + ne->slot_count) * 8);
    words = 0;
    for (uint32_t k = 0; k < count; k++) {
        const ac_arc *arc = &model->arcs[2 * k];
        uint64_t matrix_words = (uint64_t)net->domain_size[arc->x] * arc->row_words;
        h->size_x[k] = net->domain_size[arc->x], h->size_y[k] = net->domain_size[arc->y];
        h->base_x[k] = net->value_offset[arc->x], h->base_y[k] = net->value_offset[arc->y];
        h->slot_x[k] = model->arc_value_offset[2 * k], h->slot_y[k] = model->arc_value_offset[2 * k + 1];
        h->row_words[k] = (uint32_t)arc->row_words;
        h->matrix_offset[k] = words;
        memcpy(h->matrices + words, arc->matrix, matrix_words * 8);
        words += matrix_words;
    }
    h->matrix_offset[count] = words;
    for (size_t arc = 0; arc < model->arc_count; arc++)
        for (uint64_t s = model->arc_value_offset[arc]; s < model->arc_value_offset[arc + 1]; s++)
            h->slot_value[s] = (uint32_t)(net->value_offset[model->arcs[arc].x] + (s - model->arc_value_offset[arc]));
    for (size_t v = 0; v < net->variable_count; v++)
        for (uint64_t id = net->value_offset[v]; id < net->value_offset[v + 1]; id++) h->value_var[id] = (uint32_t)v;
    return PARAC_OK;
}

#define NE_UPLOAD(field, type, count)                                                               \
    PARAC_TRY(parac_cuda_alloc(context, (void **)&ne->field, ((count) + 1) * sizeof(type), error)); \
    PARAC_TRY(parac_cuda_upload(context, ne->field, h.field, ((count) + 1) * sizeof(type), error))

parac_status ne_model_upload(parac_cuda_context *context, const ac_model *model, ne_model *ne,
                                        parac_error *error)
{
    parac_status status = PARAC_OK;
    ne_host h;
    memset(&h, 0, sizeof h);
    memset(ne, 0, sizeof *ne);
    ne->binary_count = (uint32_t)(model->arc_count / 2);
    ne->slot_count = model->arc_value_offset[model->arc_count];
    ne->value_count = model->network->value_count;
    ne->variable_count = model->network->variable_count;
    if (ne->slot_count >= UINT32_MAX || ne->value_count >= UINT32_MAX || model->arc_count / 2 >= UINT32_MAX)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED, "N-E model: more than 2^32 values or counter slots");
    PARAC_TRY(ne_host_fill(model, ne, &h, error));
    NE_UPLOAD(size_x, uint32_t, ne->binary_count);
    NE_UPLOAD(size_y, uint32_t, ne->binary_count);
    NE_UPLOAD(row_words, uint32_t, ne->binary_count);
    NE_UPLOAD(base_x, uint64_t, ne->binary_count);
    NE_UPLOAD(base_y, uint64_t, ne->binary_count);
    NE_UPLOAD(slot_x, uint64_t, ne->binary_count);
    NE_UPLOAD(slot_y, uint64_t, ne->binary_count);
    NE_UPLOAD(matrix_offset, uint64_t, ne->binary_count);
    NE_UPLOAD(matrices, uint64_t, h.matrix_offset[ne->binary_count]);
    NE_UPLOAD(slot_value, uint32_t, ne->slot_count);
    NE_UPLOAD(value_var, uint32_t, ne->value_count);
    /* BuildNE step 1: per-constraint edge counts, exclusive scan -> edge offsets. */
    PARAC_TRY(parac_cuda_alloc(context, (void **)&ne->edge_offset, (ne->binary_count + 1) * sizeof(uint64_t), error));
    pair_count_kernel<<<ne_blocks(ne->binary_count + 1, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(
        ne->size_x, ne->size_y, ne->binary_count, ne->edge_offset);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cub_exclusive_sum_u64(context, ne->edge_offset, ne->edge_offset, ne->binary_count + 1, error));
    PARAC_TRY(parac_cuda_download(context, &ne->edge_count, ne->edge_offset + ne->binary_count, sizeof(uint64_t), error));
fail:
    if (status != PARAC_OK) parac_cuda_synchronize(context, NULL); /* uploads read h until then */
    ne_host_free(&h);
    if (status != PARAC_OK) ne_model_free(context, ne);
    return status;
}

void ne_model_free(parac_cuda_context *context, ne_model *ne)
{
    void *fields[] = {ne->size_x, ne->size_y, ne->base_x, ne->base_y, ne->slot_x, ne->slot_y, ne->matrix_offset,
                      ne->row_words, ne->matrices, ne->edge_offset, ne->slot_value, ne->value_var};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) parac_cuda_free(context, fields[i]);
    memset(ne, 0, sizeof *ne);
}

static parac_status edges_try_alloc(parac_cuda_context *context, ne_edges *edges, uint64_t capacity, parac_error *error)
{
    parac_status status = PARAC_OK;
    memset(edges, 0, sizeof *edges);
    edges->capacity = capacity;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&edges->key, capacity * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&edges->src, capacity * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&edges->dst, capacity * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&edges->satisfied, capacity, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&edges->live, capacity * 4, error));
fail:
    if (status != PARAC_OK) ne_edges_free(context, edges);
    return status;
}

/* 17 bytes an edge plus reduce-by-key scratch; halve the chunk until it fits. */
parac_status ne_edges_alloc(parac_cuda_context *context, const ne_model *ne, uint64_t edge_limit, ne_edges *edges,
                            parac_error *error)
{
    size_t free_bytes = 0, total_bytes = 0;
    uint64_t capacity = ne->edge_count ? ne->edge_count : 1;
    if (edge_limit && capacity > edge_limit) capacity = edge_limit;
    parac_status status = parac_cuda_memory_info(context, &free_bytes, &total_bytes, error);
    if (status != PARAC_OK) return status;
    while (capacity > ((uint64_t)1 << 16) && capacity * 26 > (uint64_t)free_bytes * 8 / 10) capacity /= 2;
    for (;;) {
        status = edges_try_alloc(context, edges, capacity, error);
        if (status != PARAC_ERR_NO_MEMORY || capacity <= ((uint64_t)1 << 16)) break;
        (void)cudaGetLastError(); /* the handled out-of-memory must not surface at the next launch check */
        capacity /= 2;
    }
    if (status == PARAC_OK) parac_error_clear(error);
    edges->resident = status == PARAC_OK && capacity >= ne->edge_count;
    return status;
}

void ne_edges_free(parac_cuda_context *context, ne_edges *edges)
{
    parac_cuda_free(context, edges->key);
    parac_cuda_free(context, edges->src);
    parac_cuda_free(context, edges->dst);
    parac_cuda_free(context, edges->satisfied);
    parac_cuda_free(context, edges->live);
    memset(edges, 0, sizeof *edges);
}

parac_status ne_edges_build(parac_cuda_context *context, const ne_model *ne, ne_edges *edges,
                                       uint64_t first, uint64_t count, parac_error *error)
{
    parac_status status = PARAC_OK;
    if (count == 0) return PARAC_OK;
    build_edges_kernel<<<ne_blocks(count, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(
        *ne, first, count, edges->key, edges->src, edges->dst, edges->satisfied);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

parac_status ne_edges_mark(parac_cuda_context *context, ne_edges *edges, const int32_t *present,
                                      uint64_t count, parac_error *error)
{
    parac_status status = PARAC_OK;
    if (count == 0) return PARAC_OK;
    mark_edges_kernel<<<ne_blocks(count, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(
        edges->satisfied, edges->dst, present, count, edges->live);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* Reduce-by-key of live over key for `count` buffered edges from `offset`, scattered into counters. */
static parac_status reduce_segment(parac_cuda_context *context, ne_edges *edges, uint64_t offset, uint64_t count,
                                   uint32_t *unique, int32_t *sums, int32_t *counters, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t runs = 0;
    PARAC_TRY(parac_cub_reduce_by_key_sum_u32_i32(context, edges->key + offset, unique, edges->live + offset, sums,
                                                  count, &runs, error));
    scatter_kernel<<<ne_blocks(runs, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(unique, sums, runs,
                                                                                                counters);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

parac_status ne_count_supports(parac_cuda_context *context, const ne_model *ne, ne_edges *edges,
                                          const int32_t *present, int32_t *counters, int edges_marked,
                                          parac_error *error)
{
    parac_status status = PARAC_OK;
    uint64_t segment = edges->capacity < NE_SEGMENT ? edges->capacity : NE_SEGMENT;
    uint32_t *unique = NULL;
    int32_t *sums = NULL;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&unique, (segment + 1) * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&sums, (segment + 1) * 4, error));
    PARAC_TRY(parac_cuda_memset(context, counters, 0, (ne->slot_count + 1) * 4, error));
    for (uint64_t first = 0; first < ne->edge_count; first += edges->capacity) {
        uint64_t count = ne->edge_count - first < edges->capacity ? ne->edge_count - first : edges->capacity;
        if (!edges->resident) PARAC_TRY(ne_edges_build(context, ne, edges, first, count, error));
        if (!edges->resident || !edges_marked) PARAC_TRY(ne_edges_mark(context, edges, present, count, error));
        for (uint64_t done = 0; done < count; done += segment)
            PARAC_TRY(reduce_segment(context, edges, done, count - done < segment ? count - done : segment, unique, sums,
                                     counters, error));
    }
fail:
    parac_cuda_free(context, unique);
    parac_cuda_free(context, sums);
    return status;
}

parac_status ne_domain_sizes(parac_cuda_context *context, const ne_model *ne, const int32_t *present,
                                        int32_t *sizes, int *any_empty, parac_error *error)
{
    parac_status status = PARAC_OK;
    uint32_t *unique = NULL;
    int32_t *flag = NULL, host_flag = 0;
    size_t runs = 0;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&unique, (ne->variable_count + 1) * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&flag, sizeof(int32_t), error));
    PARAC_TRY(parac_cuda_memset(context, flag, 0, sizeof(int32_t), error));
    /* value_count < 2^32 (checked at upload) but CUB wants < 2^31 items: values are few next to edges. */
    PARAC_TRY(parac_cub_reduce_by_key_sum_u32_i32(context, ne->value_var, unique, present, sizes, ne->value_count,
                                                  &runs, error));
    any_zero_kernel<<<ne_blocks(runs, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(sizes, runs, flag);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(context, &host_flag, flag, sizeof host_flag, error));
    *any_empty = host_flag != 0;
fail:
    parac_cuda_free(context, unique);
    parac_cuda_free(context, flag);
    return status;
}

parac_status ne_present_upload(parac_cuda_context *context, const uint64_t *value_bits, uint64_t value_count,
                                          int32_t *present, parac_error *error)
{
    parac_status status = PARAC_OK;
    uint64_t *bits = NULL, words = (value_count + 63) / 64;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&bits, (words + 1) * 8, error));
    PARAC_TRY(parac_cuda_upload(context, bits, value_bits, words * 8, error));
    bits_to_present_kernel<<<ne_blocks(value_count, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(
        bits, value_count, present);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    parac_cuda_free(context, bits);
    return status;
}

parac_status ne_present_download(parac_cuda_context *context, const int32_t *present, uint64_t value_count,
                                            uint64_t *value_bits, parac_error *error)
{
    parac_status status = PARAC_OK;
    uint64_t *bits = NULL, words = (value_count + 63) / 64;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&bits, (words + 1) * 8, error));
    PARAC_TRY(parac_cuda_memset(context, bits, 0, (words + 1) * 8, error));
    present_to_bits_kernel<<<ne_blocks(value_count, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(
        present, value_count, (unsigned long long *)bits);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(context, value_bits, bits, words * 8, error));
fail:
    parac_cuda_free(context, bits);
    return status;
}
