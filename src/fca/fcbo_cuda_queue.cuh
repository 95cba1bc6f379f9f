/* fca/fcbo_cuda_queue.cuh — how the warps of a local kernel take batch tasks (the global head, or
 * LOCAL_STREAM's per-block shared-memory queue) and the local kernels' entry points. Part of
 * fcbo_cuda.cu's translation unit (after fcbo_cuda_local.cuh). */
#ifndef PARAC_FCA_FCBO_CUDA_QUEUE_CUH
#define PARAC_FCA_FCBO_CUDA_QUEUE_CUH

/* LOCAL_STREAM's block queue: a range [next, end) of batch indices packed in one 64-bit shared
 * word (next high, end low) that warps take from with a CAS, refilled BLOCK_QUEUE_TASKS at a time
 * from the global head by whichever warp finds it empty (under a shared lock, so no range is lost). */
typedef struct block_queue {
    unsigned long long range;
    int lock;
    int exhausted; /* the global head passed the batch: no refill will succeed */
} block_queue;

/* Lane 0 only: the next batch index for this warp, or UINT32_MAX when the batch is done. */
__device__ static unsigned int block_queue_take(block_queue *queue, const local_params *p)
{
    for (;;) {
        unsigned long long range = *(volatile unsigned long long *)&queue->range;
        unsigned int next = (unsigned int)(range >> 32), end = (unsigned int)range;
        if (next < end) {
            if (atomicCAS(&queue->range, range, range + (1ull << 32)) == range) return next;
            continue;
        }
        /* exhausted is written under the lock but read here without it: both sides are atomic, so
         * the read is ordered (compute-sanitizer racecheck flagged the plain store against this read) */
        if (atomicAdd(&queue->exhausted, 0)) return UINT32_MAX;
        if (atomicCAS(&queue->lock, 0, 1) != 0) continue; /* another warp refills */
        range = *(volatile unsigned long long *)&queue->range;
        if ((unsigned int)(range >> 32) >= (unsigned int)range && !atomicAdd(&queue->exhausted, 0)) {
            unsigned int first = atomicAdd(&p->counters->head, BLOCK_QUEUE_TASKS);
            if (first >= p->batch) {
                atomicExch(&queue->exhausted, 1);
            } else {
                unsigned int last = first + BLOCK_QUEUE_TASKS < p->batch ? first + BLOCK_QUEUE_TASKS : p->batch;
                atomicExch(&queue->range, ((unsigned long long)(first + 1) << 32) | last);
                __threadfence_block();
                atomicExch(&queue->lock, 0);
                return first;
            }
        }
        __threadfence_block();
        atomicExch(&queue->lock, 0);
    }
}

/* The next batch index for the whole warp (warp-uniform), from the block queue or the global head. */
__device__ static unsigned int warp_next_task(block_queue *queue, const local_params *p, uint32_t lane)
{
    unsigned int index = 0;
    if (lane == 0) index = p->block_queue ? block_queue_take(queue, p) : atomicAdd(&p->counters->head, 1u);
    return __shfl_sync(FULL_MASK, index, 0);
}

/* Staged: LOCAL_STAGED, pushed children pass through the warp's slot of dynamic shared memory
 * (p.stage_warp_words words per warp) and reach the child buffer in bursts. */
template <bool Staged>
__device__ __forceinline__ static void local_kernel_body(const local_params &p, block_queue &queue)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned long long concepts = 0;
    uint32_t staged = 0; /* LOCAL_STAGED: children in the warp's slot */
    if (threadIdx.x == 0) {
        queue.range = 0;
        queue.lock = 0;
        queue.exhausted = 0;
    }
    __syncthreads();
    for (;;) {
        unsigned int index = warp_next_task(&queue, &p, lane);
        if (index >= p.batch) break;
        expand_subtree<Staged>(&p, p.batch_first + index, index == 0, warp, lane, &concepts, &staged);
    }
    if (Staged) flush_stage(&p, &staged, lane);
    if (lane == 0) {
        atomicAdd(&p.counters->idle, 1u); /* from now on, busy warps hand their pending children to the pool */
        if (concepts) atomicAdd(&p.counters->concepts, concepts);
    }
}

__global__ static void expand_local_kernel(local_params p)
{
    __shared__ block_queue queue;
    local_kernel_body<false>(p, queue);
}

/* LOCAL_STAGED, held to 64 registers like expand_local_kernel so 4 blocks stay resident per SM */
__global__ static void __launch_bounds__(THREADS_PER_BLOCK, 4) expand_staged_kernel(const __grid_constant__ local_params p)
{
    __shared__ block_queue queue;
    local_kernel_body<true>(p, queue);
}

#endif
