/* dev/fca/04_gpu_local.cu — LOCAL_ROWS's depth-first subtrees, but D = C' closed by attribute columns (lane m tests C ⊆ column m) instead of the AND of C's object rows. Never ahead beyond noise: mushroom 0.0190 s against local_rows 0.0100 (1.9x slower), vote 0.0023 / 0.0024, primary-tumor 0.0015 / 0.0016, 35.0 M concepts 0.161 / 0.153, 120.5 M 0.517 / 0.504 s (docs/fca.md, run C, H200; run B alike); removed from src/ (PARAC_FCA_GPU_LOCAL, version 2, issue 20).
 *
 * Version 2 of the GPU search, the first with private warp stacks; version 3 (LOCAL_ROWS, the
 * default) changed only the closure. Why columns lose: the work of a column closure is
 * attributes x ceil(objects/64) / 32 word tests per lane with an early exit, whatever C is; the row
 * closure's is |C| x ceil(attributes/64) / 32, and deep nodes have small extents (mushroom: a few
 * objects in 127 words), where rows win by an order of magnitude. On the short-and-wide shared
 * contexts (vote, primary-tumor: 1 object word) the two tie within 0.0001 s, which is timing noise,
 * not a documented input class where columns win.
 *
 * Everything but the closure is the library's (src/fca/fcbo_cuda_local.cuh, included through the
 * harness): reservations, pushes, the hungry signal, the stack layout, the host loop. Check and table:
 * lab_fca_gpu.cuh. Arguments: --quick (the 8.09 M random case only). */
#include "lab_fca_gpu.cuh"

/* The library's generate_children with the column closure (warp_close, fcbo_cuda_warp.cuh). */
__device__ static uint32_t generate_children_by_columns(const local_params *p, const local_level *level, uint32_t y,
                                                        word_t *c, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t n = shape->attributes, words = shape->attribute_words, found = 0;
    for (uint32_t j = y; j < n; j++) {
        word_t *d = level->child_intents + (size_t)found * words;
        if ((level->intent[j / 64] >> (j % 64)) & 1) continue;
        if (warp_adds_before(level->failed + (size_t)j * words, level->intent, j, lane)) continue;
        if (warp_intersect(shape, level->extent, p->columns + (size_t)j * shape->object_words, c, lane) <
            shape->min_support)
            continue;
        warp_close(shape, p->columns, c, d, lane); /* the one difference */
        if (!warp_adds_before(d, level->intent, j, lane)) {
            if (lane == 0) level->child_attribute[found] = j;
            found++;
        } else {
            warp_copy(level->failed + (size_t)j * words, d, words, lane);
        }
        __syncwarp();
    }
    __syncwarp();
    return found;
}

/* The library's expand_subtree_with, its generator the column closure's. */
struct columns_generator {
    __device__ uint32_t operator()(const local_params *p, const local_level *level, uint32_t y, word_t *c,
                                   uint32_t lane) const
    {
        return generate_children_by_columns(p, level, y, c, lane);
    }
};

__global__ static void expand_by_columns_kernel(local_params p)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned long long concepts = 0;
    for (;;) {
        unsigned int index = 0;
        if (lane == 0) index = atomicAdd(&p.counters->head, 1u);
        index = __shfl_sync(FULL_MASK, index, 0);
        if (index >= p.batch) break;
        expand_subtree_with(&p, p.batch_first + index, index == 0, warp, lane, &concepts, columns_generator(),
                            pool_push());
    }
    if (lane == 0) {
        atomicAdd(&p.counters->idle, 1u);
        if (concepts) atomicAdd(&p.counters->concepts, concepts);
    }
}

static void prepare_by_columns(gpu_search *g, const fca_search *search)
{
    (void)search;
    g->local_kernel = expand_by_columns_kernel;
}

int main(int argc, char **argv)
{
    static const lab_gpu_variant variant = {"local (by columns)", prepare_by_columns, search_local};
    return lab_gpu_main(argc, argv, &variant);
}
