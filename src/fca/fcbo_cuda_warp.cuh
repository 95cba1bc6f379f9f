/* fca/fcbo_cuda_warp.cuh — the warp-wide bitset steps every GPU strategy shares (C = A ∩ {j}',
 * the closure D = C' by columns, FCbO's canonicity test on the prefix before j, copies), and the
 * ROUNDS kernel (version 1: one node per warp per round, every child back to the pool). The CPU twin
 * of each step is in fcbo_serial.c (intersect_column, close_extent, the prefix test). Part of
 * fcbo_cuda.cu's translation unit (included there after the shared types): the kernels stay static. */
#ifndef PARAC_FCA_FCBO_CUDA_WARP_CUH
#define PARAC_FCA_FCBO_CUDA_WARP_CUH

__device__ static inline word_t bits_below(uint32_t j, uint32_t w)
{
    uint32_t low = w * 64;
    if (j >= low + 64) return ~0ull;
    if (j <= low) return 0;
    return (1ull << (j - low)) - 1;
}

/* 1 when some word w < ceil(j/64) has (x[w] & ~B[w]) below j: x adds an attribute before j. */
__device__ static int warp_adds_before(const word_t *x, const word_t *intent, uint32_t j, uint32_t lane)
{
    int adds = 0;
    for (uint32_t w = lane; w * 64 < j; w += 32) adds |= (x[w] & ~intent[w] & bits_below(j, w)) != 0;
    return __any_sync(FULL_MASK, adds);
}

__device__ static unsigned int warp_intersect(const task_shape *shape, const word_t *extent, const word_t *column,
                                              word_t *result, uint32_t lane)
{
    unsigned int support = 0;
    for (uint32_t w = lane; w < shape->object_words; w += 32) {
        word_t bits = extent[w] & column[w];
        result[w] = bits;
        support += (unsigned int)__popcll(bits);
    }
    for (int offset = 16; offset; offset >>= 1) support += __shfl_xor_sync(FULL_MASK, support, offset);
    __syncwarp();
    return support;
}

/* D = C': lane m of each 32-attribute chunk tests C ⊆ column m. */
__device__ static void warp_close(const task_shape *shape, const word_t *columns, const word_t *extent, word_t *intent,
                                  uint32_t lane)
{
    for (uint32_t base = 0; base < shape->attributes; base += 64) {
        word_t word = 0;
        for (uint32_t half = 0; half < 2; half++) {
            uint32_t m = base + half * 32 + lane;
            int has = m < shape->attributes;
            if (has) {
                const word_t *column = columns + (size_t)m * shape->object_words;
                for (uint32_t w = 0; w < shape->object_words; w++)
                    if (extent[w] & ~column[w]) { has = 0; break; }
            }
            word |= (word_t)__ballot_sync(FULL_MASK, has) << (half * 32);
        }
        if (lane == 0) intent[base / 64] = word;
    }
    __syncwarp();
}

__device__ static void warp_copy(word_t *dst, const word_t *src, size_t count, uint32_t lane)
{
    for (size_t i = lane; i < count; i += 32) dst[i] = src[i];
}

__device__ static int warp_is_full_intent(const task_shape *shape, const word_t *intent, uint32_t lane)
{
    unsigned int count = 0;
    for (uint32_t w = lane; w < shape->attribute_words; w += 32) count += (unsigned int)__popcll(intent[w]);
    for (int offset = 16; offset; offset >>= 1) count += __shfl_xor_sync(FULL_MASK, count, offset);
    return count == shape->attributes;
}

/* Claims a child slot and writes (C, D, j + 1); returns the slot or UINT32_MAX on overflow. */
__device__ static uint32_t warp_push_child(const batch_params *p, const word_t *extent, const word_t *intent,
                                           uint32_t next, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    unsigned int slot = 0;
    if (lane == 0) slot = atomicAdd(p->child_count, 1u);
    slot = __shfl_sync(FULL_MASK, slot, 0);
    if (slot >= p->children.capacity) {
        if (lane == 0) atomicExch(p->overflow, 1u);
        return UINT32_MAX;
    }
    warp_copy(p->children.extent + (size_t)slot * shape->object_words, extent, shape->object_words, lane);
    warp_copy(p->children.intent + (size_t)slot * shape->attribute_words, intent, shape->attribute_words, lane);
    if (lane == 0) p->children.next[slot] = next;
    return slot;
}

__device__ static void expand_task(const batch_params *p, size_t task, uint32_t warp, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t n = shape->attributes, words = shape->attribute_words, child_total = 0;
    const word_t *extent = p->pool.extent + task * shape->object_words;
    const word_t *intent = p->pool.intent + task * words;
    word_t *failed = p->pool.failed + task * n * words; /* updated in place: the task is ours alone */
    word_t *c = p->scratch + (size_t)warp * (shape->object_words + words), *d = c + shape->object_words;
    uint32_t *children = p->child_lists + (size_t)warp * n;
    uint32_t y = p->pool.next[task];
    if (y >= n || warp_is_full_intent(shape, intent, lane)) return;
    for (uint32_t j = y; j < n; j++) {
        if ((intent[j / 64] >> (j % 64)) & 1) continue;
        if (warp_adds_before(failed + (size_t)j * words, intent, j, lane)) continue;
        if (warp_intersect(shape, extent, p->columns + (size_t)j * shape->object_words, c, lane) < shape->min_support)
            continue;
        warp_close(shape, p->columns, c, d, lane);
        if (!warp_adds_before(d, intent, j, lane)) {
            uint32_t slot = warp_push_child(p, c, d, j + 1, lane);
            if (slot != UINT32_MAX && lane == 0) children[child_total] = slot;
            child_total += slot != UINT32_MAX;
        } else {
            warp_copy(failed + (size_t)j * words, d, words, lane);
        }
        __syncwarp();
    }
    __syncwarp();
    for (uint32_t k = 0; k < child_total; k++) {
        uint32_t slot = children[k], from = p->children.next[slot];
        warp_copy(p->children.failed + (size_t)slot * n * words + (size_t)from * words, failed + (size_t)from * words,
                  (size_t)(n - from) * words, lane);
    }
}

__global__ static void expand_batch_kernel(batch_params p)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    for (;;) {
        unsigned int index = 0;
        if (lane == 0) index = atomicAdd(p.head, 1u);
        index = __shfl_sync(FULL_MASK, index, 0);
        if (index >= p.batch) return;
        expand_task(&p, p.batch_first + index, warp, lane);
    }
}

#endif
