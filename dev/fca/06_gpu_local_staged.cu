/* dev/fca/06_gpu_local_staged.cu — LOCAL_ROWS, but a child the warp pushes to the pool first goes to the warp's slot in shared memory (2-8 children) and a full slot is written as one burst. Slower everywhere: mushroom 0.0150 s against local_rows 0.0108 (39 %), stored 0.1108 / 0.1048, vote 0.0024 / 0.0022, primary-tumor 0.0016 / 0.0015, 35.0 M concepts 0.1579 / 0.1527, 120.5 M 0.5210 / 0.5035 s (docs/fca.md, run F, H200); removed from src/ (PARAC_FCA_GPU_LOCAL_STAGED, version 5, issue 20).
 *
 * The issue's "buffer children before writing them back". A slot entry is a child's extent, intent
 * and failed rows > j, packed (8·(⌈N/64⌉ + W + M·W) bytes at most), plus j; a slot is 6,000 bytes,
 * so it holds ⌊5,992 / (entry + 4)⌋ children, at most 8 (3 for 200 × 100, 2 for mushroom, 8 up to
 * ~70 attributes); with fewer than 2 the run is the library's LOCAL_ROWS. A full slot, and every
 * warp's slot at the end of the kernel, is flushed with one atomicAdd for consecutive child slots,
 * the extents of all its children as one contiguous run, the intents likewise, then each child's
 * failed rows. 8 warps × 6,000 B = 48,000 B per block: no opt-in, 4 blocks per SM. Inlined, the
 * staging raised the kernel to 80 registers (3 blocks per SM), so the staging functions are
 * __noinline__ and the parameters __grid_constant__ (59 registers, no spills, a 48-byte stack
 * frame in the library build of run F; 60 registers in this file). Why it lost: each child already leaves the warp stack as
 * coalesced runs, so staging saves one atomic per child and the partial-warp stores of short
 * extents, and costs a copy through shared memory and a larger kernel.
 *
 * In the library the slot's layout travelled in local_params; here it is a __constant__ (set by
 * prepare_staged before each search). Everything else is the library's (fcbo_cuda_local.cuh through
 * the harness). Check and table: lab_fca_gpu.cuh. Arguments: --quick (the 8.09 M random case only). */
#include "lab_fca_gpu.cuh"

#define STAGE_BYTES_PER_WARP 6000 /* 8 warps x 6000 B < 48 KiB: 4 blocks of 256 threads stay resident per SM */
#define STAGE_MAX_ENTRIES 8       /* children a warp stages before one flush (<= 32: a lane each) */

typedef struct stage_layout {
    uint32_t capacity;    /* children per warp slot (>= 2) */
    uint32_t entry_words; /* object_words + attribute_words + attributes x attribute_words */
    size_t warp_words;    /* one warp's slot: entries, then their attributes (uint32) */
} stage_layout;

__constant__ stage_layout stage;
extern __shared__ word_t stage_memory[];

__device__ static word_t *stage_entries(void)
{
    return stage_memory + (size_t)(threadIdx.x >> 5) * stage.warp_words;
}

__device__ static uint32_t *stage_attributes(void)
{
    return (uint32_t *)(stage_entries() + (size_t)stage.capacity * stage.entry_words);
}

/* Writes the staged children to the child buffer as one burst: one slot reservation, the extents
 * and the intents of all of them as two contiguous runs (consecutive slots), then the failed rows. */
__device__ __noinline__ static void flush_stage(const local_params *p, uint32_t *staged, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t ow = shape->object_words, words = shape->attribute_words, n = shape->attributes, count = *staged;
    size_t entry_words = stage.entry_words;
    const word_t *entries = stage_entries();
    const uint32_t *attribute = stage_attributes();
    unsigned int base = 0;
    if (count == 0) return;
    *staged = 0;
    if (lane == 0) base = atomicAdd(&p->counters->child_count, count);
    base = __shfl_sync(FULL_MASK, base, 0);
    if ((size_t)base + count > p->children.capacity) { /* the reservations make this impossible */
        if (lane == 0) atomicExch(&p->counters->overflow, 1u);
        __syncwarp();
        return;
    }
    for (uint32_t t = lane; t < count * ow; t += 32)
        p->children.extent[(size_t)base * ow + t] = entries[(size_t)(t / ow) * entry_words + t % ow];
    for (uint32_t t = lane; t < count * words; t += 32)
        p->children.intent[(size_t)base * words + t] = entries[(size_t)(t / words) * entry_words + ow + t % words];
    for (uint32_t e = 0; e < count; e++) {
        uint32_t j = attribute[e];
        warp_copy(p->children.failed + ((size_t)base + e) * n * words + (size_t)(j + 1) * words,
                  entries + (size_t)e * entry_words + ow + words, (size_t)(n - j - 1) * words, lane);
    }
    if (lane < count) p->children.next[base + lane] = attribute[lane] + 1;
    __syncwarp(); /* every lane done reading the slot before it is refilled */
}

/* The push: child `index` of level goes to the warp's slot; a full slot is flushed. */
__device__ __noinline__ static void stage_child(const local_params *p, const local_level *level, uint32_t index,
                                                uint32_t j, uint32_t *staged, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t words = shape->attribute_words, n = shape->attributes;
    word_t *entry = stage_entries() + (size_t)*staged * stage.entry_words;
    warp_intersect(shape, level->extent, p->columns + (size_t)j * shape->object_words, entry, lane);
    warp_copy(entry + shape->object_words, level->child_intents + (size_t)index * words, words, lane);
    warp_copy(entry + shape->object_words + words, level->failed + (size_t)(j + 1) * words,
              (size_t)(n - j - 1) * words, lane);
    if (lane == 0) stage_attributes()[*staged] = j;
    __syncwarp();
    if (++*staged == stage.capacity) flush_stage(p, staged, lane);
}

/* The library's expand_subtree_with, pushing through stage_child. */
struct staged_push {
    uint32_t *staged; /* children in the warp's slot */
    __device__ void operator()(const local_params *p, const local_level *level, uint32_t index, uint32_t j,
                               uint32_t lane) const
    {
        stage_child(p, level, index, j, staged, lane);
    }
};

/* Held to 64 registers like expand_local_kernel so that 4 blocks stay resident per SM. */
__global__ static void __launch_bounds__(THREADS_PER_BLOCK, 4) expand_staged_kernel(const __grid_constant__ local_params p)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned long long concepts = 0;
    uint32_t staged = 0; /* children in the warp's slot */
    for (;;) {
        unsigned int index = 0;
        if (lane == 0) index = atomicAdd(&p.counters->head, 1u);
        index = __shfl_sync(FULL_MASK, index, 0);
        if (index >= p.batch) break;
        expand_subtree_with(&p, p.batch_first + index, index == 0, warp, lane, &concepts, rows_generator(),
                            staged_push{&staged});
    }
    flush_stage(&p, &staged, lane);
    if (lane == 0) {
        atomicAdd(&p.counters->idle, 1u);
        if (concepts) atomicAdd(&p.counters->concepts, concepts);
    }
}

/* As many children per warp slot as fit STAGE_BYTES_PER_WARP (at most STAGE_MAX_ENTRIES); a context
 * whose child does not fit twice keeps the library's kernel (it ran as LOCAL_ROWS in the library too). */
static void prepare_staged(gpu_search *g, const fca_search *search)
{
    size_t entry_words = search->object_words + search->attribute_words + search->attributes * search->attribute_words;
    size_t capacity = (STAGE_BYTES_PER_WARP - 8) / (entry_words * 8 + 4);
    stage_layout layout;
    if (capacity > STAGE_MAX_ENTRIES) capacity = STAGE_MAX_ENTRIES;
    if (capacity < 2) return;
    layout.capacity = (uint32_t)capacity;
    layout.entry_words = (uint32_t)entry_words;
    layout.warp_words = capacity * entry_words + (capacity * 4 + 7) / 8;
    if (cudaMemcpyToSymbol(stage, &layout, sizeof layout) != cudaSuccess) {
        fprintf(stderr, "staged: cudaMemcpyToSymbol failed\n");
        exit(2);
    }
    g->local_kernel = expand_staged_kernel;
    g->local_shared_bytes = (THREADS_PER_BLOCK / 32) * layout.warp_words * 8; /* <= 8 x 6000 B */
}

int main(int argc, char **argv)
{
    static const lab_gpu_variant variant = {"local_staged", prepare_staged, search_local};
    return lab_gpu_main(argc, argv, &variant);
}
