/* birch/birch_cuda.cu — the CUDA path of birch.
 *
 * Kernels (the CPU twin of each is named in its comment):
 *   transpose_points   row-major batch -> structure-of-arrays (coalesced reads in descend)
 *   descend_points     one thread per point walks the tree copy (birch_tree_descend)
 *   speculate_points   the same, also recording per-level margins (speculate_math.h,
 *                      shared source with speculative.c's CPU speculator)
 *   absorb_segments    one thread per target entry absorbs its points in input order
 *                      (batch.c: absorb_segment); grouping is a CUB radix sort by slot
 *   ward_distances     condensed Euclidean distance matrix (ward.c: fill_distances)
 *   ward_chain         the whole nearest-neighbour chain in one block (ward.c: birch_ward_cpu)
 *   nearest_centroid   labels: one thread per point, centroids staged in shared memory
 * All arithmetic goes through cf_math.h, whose macros forbid FMA contraction,
 * so every number equals the CPU's and the trees are byte-identical.
 */
#include "birch/birch_cuda.h"

#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "birch/speculate_math.h"
#include "core/error.h"
#include "cuda/context.h"
#include "cuda/device_guard.cuh"
#include "cuda/cub_wrappers.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"

#define BIRCH_THREADS 256
#define EMPTY_SLOT 0xffffffffu

typedef struct batch_buffers batch_buffers;

struct birch_cuda {
    parac_cuda_context context;
    int has_context;
    /* speculation windows (kept across calls, grown on demand) */
    double *spec_rows, *spec_soa, *spec_margins;
    int32_t *spec_leaf;
    size_t spec_points, spec_margin_capacity;
    batch_buffers *spec_tree; /* the tree mirror */
};

static void free_speculation(birch_cuda *gpu);

extern "C" parac_status birch_cuda_create(int ordinal, birch_cuda **gpu, parac_error *error)
{
    parac_caller_device_guard caller_device; /* the model's device is made current per call, not left current */
    birch_cuda *created = (birch_cuda *)calloc(1, sizeof(birch_cuda));
    parac_status status;
    *gpu = NULL;
    if (!created) return parac_fail_no_memory(error, "birch GPU state", sizeof(birch_cuda));
    status = parac_cuda_context_create(ordinal, &created->context, error);
    if (status != PARAC_OK) {
        free(created);
        return status;
    }
    created->has_context = 1;
    *gpu = created;
    return PARAC_OK;
}

extern "C" void birch_cuda_destroy(birch_cuda *gpu)
{
    if (!gpu) return;
    parac_caller_device_guard caller_device(gpu->context.ordinal);
    if (gpu->has_context) free_speculation(gpu);
    if (gpu->has_context) parac_cuda_context_destroy(&gpu->context);
    free(gpu);
}

static cudaStream_t stream_of(birch_cuda *gpu) { return (cudaStream_t)gpu->context.stream; }
static unsigned blocks_for(size_t n) { return (unsigned)((n + BIRCH_THREADS - 1) / BIRCH_THREADS); }

/* ---------------------------------------------------------------- batched insertion */

typedef struct device_tree {
    int32_t root, slots;
    size_t dims;
    double threshold_squared;
    const int32_t *entry_count;
    const int64_t *count;
    const double *ssd;
    const int32_t *child;
    const double *mean;
} device_tree;

__global__ void transpose_points(const double *rows, size_t n, size_t dims, double *soa)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (size_t j = 0; j < dims; j++) soa[j * n + i] = rows[i * dims + j];
}

__device__ static uint32_t descend_one(const device_tree tree, const double *x, size_t stride)
{
    int32_t node = tree.root;
    if (tree.entry_count[node] == 0) return EMPTY_SLOT;
    for (;;) {
        size_t first = (size_t)node * (size_t)tree.slots, best = first;
        double best_distance = 0.0;
        for (int32_t k = 0; k < tree.entry_count[node]; k++) {
            double d = birch_squared_distance_strided(x, stride, tree.mean + (first + k) * tree.dims, tree.dims);
            if (k == 0 || d < best_distance) best = first + k, best_distance = d;
        }
        if (tree.child[best] < 0) return (uint32_t)best;
        node = tree.child[best];
    }
}

__global__ void descend_points(const device_tree tree, const double *soa, size_t n, uint32_t *slot, uint32_t *index)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    slot[i] = descend_one(tree, soa + i, n);
    index[i] = (uint32_t)i;
}

typedef struct device_segments {
    const uint32_t *slot;      /* unique slots, ascending */
    const int32_t *length;
    const uint32_t *offset;    /* exclusive sum of length */
    const uint32_t *points;    /* batch point indices sorted by slot */
    int64_t *entry_count, *delta_count;
    double *entry_mean, *entry_ssd, *delta_mean, *delta_ssd;
    uint8_t *absorbed;
} device_segments;

__global__ void absorb_segments(const device_tree tree, const double *soa, size_t n, size_t runs, device_segments out)
{
    size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x, dims = tree.dims, slot;
    int64_t count, delta_count = 0;
    double ssd, delta_ssd = 0.0;
    double *mean, *delta_mean;
    if (s >= runs || out.slot[s] == EMPTY_SLOT) return;
    slot = out.slot[s];
    mean = out.entry_mean + s * dims, delta_mean = out.delta_mean + s * dims;
    count = tree.count[slot], ssd = tree.ssd[slot];
    for (size_t j = 0; j < dims; j++) mean[j] = tree.mean[slot * dims + j], delta_mean[j] = 0.0;
    for (int32_t p = 0; p < out.length[s]; p++) {
        uint32_t point = out.points[out.offset[s] + p];
        const double *x = soa + point;
        double new_ssd = birch_ssd_with_point(count, mean, ssd, x, n, dims);
        int fits = birch_radius_fits(new_ssd, count + 1, tree.threshold_squared);
        out.absorbed[point] = (uint8_t)fits;
        if (!fits) continue;
        birch_absorb_point(&count, mean, &ssd, new_ssd, x, n, dims);
        birch_absorb_point(&delta_count, delta_mean, &delta_ssd,
                           birch_ssd_with_point(delta_count, delta_mean, delta_ssd, x, n, dims), x, n, dims);
    }
    out.entry_count[s] = count, out.entry_ssd[s] = ssd;
    out.delta_count[s] = delta_count, out.delta_ssd[s] = delta_ssd;
}

/* Device buffers of one insertion call, sized for batch points and the tree's capacity. */
struct batch_buffers {
    double *rows, *soa;
    uint32_t *slot, *index, *sorted_slot, *sorted_index, *unique_slot, *offset;
    int32_t *ones, *length;
    int32_t *entry_count_nodes, *child;
    int64_t *count, *seg_entry_count, *seg_delta_count;
    double *ssd, *mean, *seg_entry_mean, *seg_entry_ssd, *seg_delta_mean, *seg_delta_ssd;
    uint8_t *absorbed;
    int32_t tree_capacity;
};

static void free_batch(birch_cuda *gpu, batch_buffers *b)
{
    void *all[] = {b->rows, b->soa, b->slot, b->index, b->sorted_slot, b->sorted_index, b->unique_slot, b->offset,
                   b->ones, b->length, b->entry_count_nodes, b->child, b->count, b->seg_entry_count,
                   b->seg_delta_count, b->ssd, b->mean, b->seg_entry_mean, b->seg_entry_ssd, b->seg_delta_mean,
                   b->seg_delta_ssd, b->absorbed};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) parac_cuda_free(&gpu->context, all[i]);
    memset(b, 0, sizeof *b);
}

#define BIRCH_ALLOC(field, bytes) PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&b->field, (bytes), error))

__global__ void fill_ones(int32_t *ones, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) ones[i] = 1;
}

static parac_status alloc_batch(birch_cuda *gpu, batch_buffers *b, size_t batch, size_t dims, parac_error *error)
{
    parac_status status = PARAC_OK;
    BIRCH_ALLOC(rows, batch * dims * sizeof(double));
    BIRCH_ALLOC(soa, batch * dims * sizeof(double));
    BIRCH_ALLOC(slot, batch * sizeof(uint32_t));
    BIRCH_ALLOC(index, batch * sizeof(uint32_t));
    BIRCH_ALLOC(sorted_slot, batch * sizeof(uint32_t));
    BIRCH_ALLOC(sorted_index, batch * sizeof(uint32_t));
    BIRCH_ALLOC(unique_slot, batch * sizeof(uint32_t));
    BIRCH_ALLOC(offset, batch * sizeof(uint32_t));
    BIRCH_ALLOC(ones, batch * sizeof(int32_t));
    BIRCH_ALLOC(length, batch * sizeof(int32_t));
    BIRCH_ALLOC(seg_entry_count, batch * sizeof(int64_t));
    BIRCH_ALLOC(seg_delta_count, batch * sizeof(int64_t));
    BIRCH_ALLOC(seg_entry_mean, batch * dims * sizeof(double));
    BIRCH_ALLOC(seg_delta_mean, batch * dims * sizeof(double));
    BIRCH_ALLOC(seg_entry_ssd, batch * sizeof(double));
    BIRCH_ALLOC(seg_delta_ssd, batch * sizeof(double));
    BIRCH_ALLOC(absorbed, batch);
    PARAC_TRY(parac_cuda_launch_items(fill_ones, batch, BIRCH_THREADS, stream_of(gpu), error, b->ones, batch));
    return PARAC_OK;
fail:
    return status;
}

/* Copies the tree's arrays (all nodes) to the device, growing the mirror as the tree grows. */
static parac_status upload_tree(birch_cuda *gpu, batch_buffers *b, const birch_tree *tree, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t nodes = (size_t)tree->node_count, slots = nodes * (size_t)tree->slots;
    if (b->tree_capacity < tree->node_capacity) {
        size_t capacity_slots = (size_t)tree->node_capacity * (size_t)tree->slots;
        parac_cuda_free(&gpu->context, b->entry_count_nodes), parac_cuda_free(&gpu->context, b->child);
        parac_cuda_free(&gpu->context, b->count), parac_cuda_free(&gpu->context, b->ssd);
        parac_cuda_free(&gpu->context, b->mean);
        b->entry_count_nodes = NULL, b->child = NULL, b->count = NULL, b->ssd = NULL, b->mean = NULL;
        BIRCH_ALLOC(entry_count_nodes, (size_t)tree->node_capacity * sizeof(int32_t));
        BIRCH_ALLOC(child, capacity_slots * sizeof(int32_t));
        BIRCH_ALLOC(count, capacity_slots * sizeof(int64_t));
        BIRCH_ALLOC(ssd, capacity_slots * sizeof(double));
        BIRCH_ALLOC(mean, capacity_slots * tree->dims * sizeof(double));
        b->tree_capacity = tree->node_capacity;
    }
    PARAC_TRY(parac_cuda_upload(&gpu->context, b->entry_count_nodes, tree->entry_count, nodes * sizeof(int32_t), error));
    PARAC_TRY(parac_cuda_upload(&gpu->context, b->child, tree->child, slots * sizeof(int32_t), error));
    PARAC_TRY(parac_cuda_upload(&gpu->context, b->count, tree->count, slots * sizeof(int64_t), error));
    PARAC_TRY(parac_cuda_upload(&gpu->context, b->ssd, tree->ssd, slots * sizeof(double), error));
    PARAC_TRY(parac_cuda_upload(&gpu->context, b->mean, tree->mean, slots * tree->dims * sizeof(double), error));
    return PARAC_OK;
fail:
    return status;
}
#undef BIRCH_ALLOC

static device_tree tree_view(const birch_tree *tree, const batch_buffers *b)
{
    device_tree view;
    view.root = tree->root, view.slots = tree->slots, view.dims = tree->dims;
    view.threshold_squared = tree->threshold_squared;
    view.entry_count = b->entry_count_nodes, view.count = b->count, view.ssd = b->ssd;
    view.child = b->child, view.mean = b->mean;
    return view;
}

/* Steps 1-2 of a batch on the GPU; fills result exactly as birch_batch_absorb_cpu would. */
static parac_status absorb_batch(birch_cuda *gpu, batch_buffers *b, const birch_tree *tree, const double *points,
                                 size_t n, birch_batch_result *result, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = stream_of(gpu);
    device_tree view = tree_view(tree, b);
    device_segments segments;
    size_t runs = 0, dims = tree->dims;
    PARAC_TRY(upload_tree(gpu, b, tree, error));
    view = tree_view(tree, b);
    PARAC_TRY(parac_cuda_upload(&gpu->context, b->rows, points, n * dims * sizeof(double), error));
    PARAC_TRY(parac_cuda_launch_items(transpose_points, n, BIRCH_THREADS, stream, error, b->rows, n, dims, b->soa));
    PARAC_TRY(parac_cuda_launch_items(descend_points, n, BIRCH_THREADS, stream, error, view, b->soa, n, b->slot, b->index));
    PARAC_TRY(parac_cub_sort_pairs_u32_u32(&gpu->context, b->slot, b->sorted_slot, b->index, b->sorted_index, n, 0, error));
    PARAC_TRY(parac_cub_reduce_by_key_sum_u32_i32(&gpu->context, b->sorted_slot, b->unique_slot, b->ones, b->length, n,
                                                  &runs, error));
    PARAC_TRY(parac_cub_exclusive_sum_u32(&gpu->context, (const uint32_t *)b->length, b->offset, runs, error));
    PARAC_TRY(parac_cuda_memset(&gpu->context, b->absorbed, 0, n, error));
    segments.slot = b->unique_slot, segments.length = b->length, segments.offset = b->offset;
    segments.points = b->sorted_index;
    segments.entry_count = b->seg_entry_count, segments.delta_count = b->seg_delta_count;
    segments.entry_mean = b->seg_entry_mean, segments.entry_ssd = b->seg_entry_ssd;
    segments.delta_mean = b->seg_delta_mean, segments.delta_ssd = b->seg_delta_ssd;
    segments.absorbed = b->absorbed;
    PARAC_TRY(parac_cuda_launch_items(absorb_segments, runs, BIRCH_THREADS, stream, error, view, b->soa, n, runs, segments));
    /* The empty-tree run (slot EMPTY_SLOT) sorts last and holds only rejected points. */
    result->segment_count = runs;
    if (runs > 0) {
        uint32_t last;
        PARAC_TRY(parac_cuda_download(&gpu->context, &last, b->unique_slot + runs - 1, sizeof last, error));
        if (last == EMPTY_SLOT) result->segment_count--;
    }
    runs = result->segment_count;
    PARAC_TRY(parac_cuda_download(&gpu->context, result->segment_slot, b->unique_slot, runs * sizeof(int32_t), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, result->entry_count, b->seg_entry_count, runs * sizeof(int64_t), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, result->entry_mean, b->seg_entry_mean, runs * dims * sizeof(double), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, result->entry_ssd, b->seg_entry_ssd, runs * sizeof(double), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, result->delta_count, b->seg_delta_count, runs * sizeof(int64_t), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, result->delta_mean, b->seg_delta_mean, runs * dims * sizeof(double), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, result->delta_ssd, b->seg_delta_ssd, runs * sizeof(double), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, result->absorbed, b->absorbed, n, error));
    return PARAC_OK;
fail:
    return status;
}

extern "C" parac_status birch_cuda_insert_batched(birch_cuda *gpu, birch_tree *tree, const double *points,
                                                  size_t count, size_t batch_size, parac_error *error)
{
    parac_caller_device_guard caller_device(gpu->context.ordinal); /* issue 16: caller's device kept */
    birch_batch_result result;
    batch_buffers buffers;
    size_t capacity = batch_size < count ? batch_size : count;
    parac_status status;
    if (count == 0) return PARAC_OK;
    if (capacity >= EMPTY_SLOT) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: batch size too large");
    memset(&buffers, 0, sizeof buffers);
    status = birch_batch_result_init(&result, capacity, tree->dims, error);
    if (status != PARAC_OK) return status;
    status = alloc_batch(gpu, &buffers, capacity, tree->dims, error);
    for (size_t start = 0; status == PARAC_OK && start < count; start += batch_size) {
        size_t n = count - start < batch_size ? count - start : batch_size;
        const double *batch = points + start * tree->dims;
        status = absorb_batch(gpu, &buffers, tree, batch, n, &result, error);
        if (status == PARAC_OK) status = birch_batch_apply(tree, batch, n, &result, error);
    }
    free_batch(gpu, &buffers);
    birch_batch_result_free(&result);
    return status;
}

/* ---------------------------------------------------------------- speculation */

__global__ void speculate_points(const device_tree tree, const double *soa, size_t n, int32_t *leaf_slot,
                                 double *margins)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    leaf_slot[i] = birch_descend_speculative(tree.root, tree.slots, tree.dims, tree.entry_count, tree.child, tree.mean, soa + i,
                                         n, margins + i, n);
}

static void free_speculation(birch_cuda *gpu)
{
    parac_cuda_free(&gpu->context, gpu->spec_rows), parac_cuda_free(&gpu->context, gpu->spec_soa);
    parac_cuda_free(&gpu->context, gpu->spec_margins), parac_cuda_free(&gpu->context, gpu->spec_leaf);
    gpu->spec_rows = gpu->spec_soa = gpu->spec_margins = NULL, gpu->spec_leaf = NULL;
    gpu->spec_points = gpu->spec_margin_capacity = 0;
    if (gpu->spec_tree) {
        free_batch(gpu, gpu->spec_tree);
        free(gpu->spec_tree), gpu->spec_tree = NULL;
    }
}

/* Grows the window buffers to n points of dims coordinates and height levels. */
static parac_status reserve_speculation(birch_cuda *gpu, size_t n, size_t dims, size_t height, parac_error *error)
{
    parac_status status = PARAC_OK;
    if (!gpu->spec_tree) {
        gpu->spec_tree = (batch_buffers *)calloc(1, sizeof(batch_buffers));
        if (!gpu->spec_tree) return parac_fail_no_memory(error, "birch GPU tree mirror", sizeof(batch_buffers));
    }
    if (gpu->spec_points < n) {
        parac_cuda_free(&gpu->context, gpu->spec_rows), parac_cuda_free(&gpu->context, gpu->spec_soa);
        parac_cuda_free(&gpu->context, gpu->spec_leaf);
        gpu->spec_rows = gpu->spec_soa = NULL, gpu->spec_leaf = NULL, gpu->spec_points = 0;
        PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&gpu->spec_rows, n * dims * sizeof(double), error));
        PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&gpu->spec_soa, n * dims * sizeof(double), error));
        PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&gpu->spec_leaf, n * sizeof(int32_t), error));
        gpu->spec_points = n;
    }
    if (gpu->spec_margin_capacity < n * height) {
        parac_cuda_free(&gpu->context, gpu->spec_margins), gpu->spec_margins = NULL, gpu->spec_margin_capacity = 0;
        PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&gpu->spec_margins, n * height * sizeof(double), error));
        gpu->spec_margin_capacity = n * height;
    }
    return PARAC_OK;
fail:
    return status;
}

extern "C" parac_status birch_cuda_speculate(birch_cuda *gpu, const birch_tree *tree, const double *points, size_t n,
                                             size_t height, int32_t *leaf_slot, double *margins, parac_error *error)
{
    parac_caller_device_guard caller_device(gpu->context.ordinal); /* issue 16: caller's device kept */
    parac_status status = PARAC_OK;
    cudaStream_t stream = stream_of(gpu);
    size_t dims = tree->dims;
    if (n == 0) return PARAC_OK;
    PARAC_TRY(reserve_speculation(gpu, n, dims, height, error));
    PARAC_TRY(upload_tree(gpu, gpu->spec_tree, tree, error));
    PARAC_TRY(parac_cuda_upload(&gpu->context, gpu->spec_rows, points, n * dims * sizeof(double), error));
    PARAC_TRY(parac_cuda_launch_items(transpose_points, n, BIRCH_THREADS, stream, error, gpu->spec_rows, n, dims,
                                      gpu->spec_soa));
    PARAC_TRY(parac_cuda_launch_items(speculate_points, n, BIRCH_THREADS, stream, error, tree_view(tree, gpu->spec_tree),
                                      gpu->spec_soa, n, gpu->spec_leaf, gpu->spec_margins));
    PARAC_TRY(parac_cuda_download(&gpu->context, leaf_slot, gpu->spec_leaf, n * sizeof(int32_t), error));
    PARAC_TRY(parac_cuda_download(&gpu->context, margins, gpu->spec_margins, n * height * sizeof(double), error));
    return PARAC_OK;
fail:
    return status;
}

/* ---------------------------------------------------------------- Ward */

__device__ static size_t condensed(size_t m, size_t i, size_t j)
{
    if (i > j) { size_t t = i; i = j; j = t; }
    return m * i - (i * (i + 1)) / 2 + (j - i - 1);
}

__global__ void ward_distances(const double *centers, size_t m, size_t dims, double *distances)
{
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (size_t i = blockIdx.y; i < m; i += gridDim.y)
        if (j > i && j < m)
            distances[condensed(m, i, j)] = sqrt(birch_squared_distance(centers + i * dims, centers + j * dims, dims));
}

#define CHAIN_THREADS 1024

/* Block-wide (value, index) minimum; ties to the smallest index. */
__device__ static void block_argmin(double *value, size_t *index, double *shared_value, size_t *shared_index)
{
    shared_value[threadIdx.x] = *value, shared_index[threadIdx.x] = *index;
    __syncthreads();
    for (unsigned width = CHAIN_THREADS / 2; width > 0; width /= 2) {
        if (threadIdx.x < width) {
            double v = shared_value[threadIdx.x + width];
            size_t k = shared_index[threadIdx.x + width];
            if (v < shared_value[threadIdx.x] || (v == shared_value[threadIdx.x] && k < shared_index[threadIdx.x]))
                shared_value[threadIdx.x] = v, shared_index[threadIdx.x] = k;
        }
        __syncthreads();
    }
    *value = shared_value[0], *index = shared_index[0];
    __syncthreads();
}

/* scipy's nn_chain in one block: each chain step is a block-wide argmin,
 * each merge a block-wide Lance–Williams update. */
__global__ void ward_chain(double *distances, int64_t *size, uint32_t *chain, size_t m, birch_merge *merges)
{
    __shared__ double shared_value[CHAIN_THREADS];
    __shared__ size_t shared_index[CHAIN_THREADS];
    size_t chain_length = 0;
    for (size_t i = threadIdx.x; i < m; i += CHAIN_THREADS) size[i] = 1;
    __syncthreads();
    for (size_t k = 0; k + 1 < m; k++) {
        size_t x = 0, y = 0;
        double d_xy = 0.0;
        int64_t nx, ny;
        if (chain_length == 0) {
            double v = INFINITY;
            size_t first = m;
            for (size_t i = threadIdx.x; i < m; i += CHAIN_THREADS)
                if (size[i] > 0 && i < first) first = i;
            block_argmin(&v, &first, shared_value, shared_index);
            chain[0] = (uint32_t)first, chain_length = 1;
        }
        for (;;) {
            double best = INFINITY, previous_distance;
            size_t best_index = m, previous = chain_length > 1 ? chain[chain_length - 2] : m;
            x = chain[chain_length - 1];
            for (size_t i = threadIdx.x; i < m; i += CHAIN_THREADS) {
                double d;
                if (size[i] == 0 || i == x) continue;
                d = distances[condensed(m, x, i)];
                if (d != d) d = INFINITY; /* NaN: as ward.c, never closer and never index m */
                if (best_index == m || d < best) best = d, best_index = i;
            }
            block_argmin(&best, &best_index, shared_value, shared_index);
            previous_distance = previous < m ? distances[condensed(m, x, previous)] : INFINITY;
            if (previous_distance != previous_distance) previous_distance = INFINITY;
            if (previous < m && !(best < previous_distance)) y = previous, d_xy = previous_distance;
            else y = best_index, d_xy = best;
            if (chain_length > 1 && y == previous) break;
            if (threadIdx.x == 0) chain[chain_length] = (uint32_t)y;
            chain_length++;
            __syncthreads();
        }
        chain_length -= 2;
        if (x > y) { size_t t = x; x = y; y = t; }
        nx = size[x], ny = size[y];
        __syncthreads();
        if (threadIdx.x == 0) {
            merges[k].a = (int32_t)x, merges[k].b = (int32_t)y, merges[k].height = d_xy;
            size[x] = 0, size[y] = nx + ny;
        }
        __syncthreads();
        for (size_t i = threadIdx.x; i < m; i += CHAIN_THREADS) {
            if (size[i] == 0 || i == y) continue;
            distances[condensed(m, i, y)] = sqrt(birch_ward_update(distances[condensed(m, i, x)],
                                                                   distances[condensed(m, i, y)], d_xy, (double)nx,
                                                                   (double)ny, (double)size[i]));
        }
        __syncthreads();
    }
}

extern "C" parac_status birch_cuda_ward(birch_cuda *gpu, const double *centers, size_t m, size_t dims,
                                        birch_merge *merges, parac_error *error)
{
    parac_caller_device_guard caller_device(gpu->context.ordinal); /* issue 16: caller's device kept */
    parac_status status = PARAC_OK;
    double *d_centers = NULL, *d_distances = NULL;
    int64_t *d_size = NULL;
    uint32_t *d_chain = NULL;
    birch_merge *d_merges = NULL;
    size_t free_bytes = 0, total_bytes = 0, matrix = birch_ward_matrix_bytes(m);
    cudaStream_t stream = stream_of(gpu);
    if (m < 2) return PARAC_OK;
    PARAC_TRY(parac_cuda_memory_info(&gpu->context, &free_bytes, &total_bytes, error));
    if (matrix + m * (dims * 8 + 32) > free_bytes / 10 * 9)
        return parac_fail(error, PARAC_ERR_NO_MEMORY, "birch: Ward matrix of %zu subclusters needs %zu bytes", m, matrix);
    PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&d_centers, m * dims * sizeof(double), error));
    PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&d_distances, matrix, error));
    PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&d_size, m * sizeof(int64_t), error));
    PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&d_chain, m * sizeof(uint32_t), error));
    PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&d_merges, m * sizeof(birch_merge), error));
    PARAC_TRY(parac_cuda_upload(&gpu->context, d_centers, centers, m * dims * sizeof(double), error));
    /* a row of blocks per subcluster i (grid-strided beyond 65,535 rows), its columns j over x */
    PARAC_TRY(parac_cuda_launch_grid(ward_distances, dim3(blocks_for(m), (unsigned)(m < 65535 ? m : 65535)),
                                     BIRCH_THREADS, 0, stream, error, d_centers, m, dims, d_distances));
    PARAC_TRY(parac_cuda_launch_grid(ward_chain, dim3(1), CHAIN_THREADS, 0, stream, error, d_distances, d_size, d_chain,
                                     m, d_merges));
    PARAC_TRY(parac_cuda_download(&gpu->context, merges, d_merges, (m - 1) * sizeof(birch_merge), error));
fail:
    parac_cuda_free(&gpu->context, d_centers), parac_cuda_free(&gpu->context, d_distances);
    parac_cuda_free(&gpu->context, d_size), parac_cuda_free(&gpu->context, d_chain);
    parac_cuda_free(&gpu->context, d_merges);
    return status;
}

/* ---------------------------------------------------------------- labels */

#define TILE_BYTES 32768

__global__ void nearest_centroid(const double *centers, size_t m, size_t dims, const double *points, size_t n,
                                 int32_t *nearest)
{
    extern __shared__ double tile[];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, tile_rows = TILE_BYTES / (dims * sizeof(double));
    const double *x = points + (i < n ? i : 0) * dims;
    double best = INFINITY;
    int32_t best_index = 0;
    for (size_t start = 0; start < m; start += tile_rows) {
        size_t rows = m - start < tile_rows ? m - start : tile_rows;
        __syncthreads();
        for (size_t k = threadIdx.x; k < rows * dims; k += blockDim.x) tile[k] = centers[start * dims + k];
        __syncthreads();
        for (size_t c = 0; c < rows && i < n; c++) {
            double d = birch_squared_distance(x, tile + c * dims, dims);
            if (d < best) best = d, best_index = (int32_t)(start + c);
        }
    }
    if (i < n) nearest[i] = best_index;
}

extern "C" parac_status birch_cuda_nearest(birch_cuda *gpu, const double *centers, size_t m, size_t dims,
                                           const double *points, size_t count, int32_t *nearest, parac_error *error)
{
    parac_caller_device_guard caller_device(gpu->context.ordinal); /* issue 16: caller's device kept */
    parac_status status = PARAC_OK;
    double *d_centers = NULL, *d_points = NULL;
    int32_t *d_nearest = NULL;
    size_t free_bytes = 0, total_bytes = 0, chunk;
    if (dims * sizeof(double) > TILE_BYTES)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED, "birch: %zu coordinates exceed the GPU labelling tile", dims);
    PARAC_TRY(parac_cuda_memory_info(&gpu->context, &free_bytes, &total_bytes, error));
    /* Chunks use at most a quarter of free memory, and shrink on failure. */
    chunk = free_bytes / 4 / (dims * sizeof(double) + sizeof(int32_t));
    if (chunk > count) chunk = count;
    if (chunk < 1024) chunk = count < 1024 ? count : 1024;
    PARAC_TRY(parac_cuda_alloc(&gpu->context, (void **)&d_centers, m * dims * sizeof(double), error));
    PARAC_TRY(parac_cuda_upload(&gpu->context, d_centers, centers, m * dims * sizeof(double), error));
    while (chunk > 0) {
        status = parac_cuda_alloc(&gpu->context, (void **)&d_points, chunk * dims * sizeof(double), error);
        if (status == PARAC_OK) status = parac_cuda_alloc(&gpu->context, (void **)&d_nearest, chunk * sizeof(int32_t), error);
        if (status == PARAC_OK) break;
        parac_cuda_free(&gpu->context, d_points), d_points = NULL;
        if (status != PARAC_ERR_NO_MEMORY || chunk <= 1024) goto fail;
        chunk /= 2;
    }
    for (size_t start = 0; start < count; start += chunk) {
        size_t n = count - start < chunk ? count - start : chunk;
        PARAC_TRY(parac_cuda_upload(&gpu->context, d_points, points + start * dims, n * dims * sizeof(double), error));
        PARAC_TRY(parac_cuda_launch_items_shared(nearest_centroid, n, BIRCH_THREADS, TILE_BYTES, stream_of(gpu), error,
                                                 d_centers, m, dims, d_points, n, d_nearest));
        PARAC_TRY(parac_cuda_download(&gpu->context, nearest + start, d_nearest, n * sizeof(int32_t), error));
    }
fail:
    parac_cuda_free(&gpu->context, d_centers), parac_cuda_free(&gpu->context, d_points);
    parac_cuda_free(&gpu->context, d_nearest);
    return status;
}
