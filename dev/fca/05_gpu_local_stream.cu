/* dev/fca/05_gpu_local_stream.cu — LOCAL_ROWS plus a per-block shared-memory queue of batch tasks (refilled 4 at a time from the global head) and, when storing, output streamed back on a copy stream while the next round computes. Ties counting, loses storing: mushroom 0.0100 s against local_rows 0.0100, 35.0 M concepts 0.151 / 0.153, 120.5 M 0.503 / 0.504 (docs/fca.md, run C; run F: 0.1517 / 0.1527 and 0.5028 / 0.5035), mushroom stored 0.169 against 0.0855 s (run C, H200); removed from src/ (PARAC_FCA_GPU_LOCAL_STREAM, version 4, issue 20).
 *
 * The two items of the issue's design LOCAL_ROWS lacked. (a) The block queue: a range [next, end)
 * packed in one 64-bit shared word, taken with a shared CAS; the warp that finds it empty refills it
 * from the global head under a shared lock, so global atomics on the head drop 4x. They were never
 * the bottleneck: the differences counting are under 1 %, i.e. noise. (b) Streaming: round r writes
 * device buffer r % 2, a copy stream copies it into pinned buffer r % 2 after the kernel, and the host
 * maps round r's intents to original ids while round r + 1 runs; a buffer is rewritten two rounds
 * later, after its copy was consumed. It doubled the stored time on mushroom, whose rounds are short:
 * the events, the second stream and the pinned buffers (set up per search) cost more than the
 * overlap wins. Counting allocates none of it. If the second buffer or the pinned memory cannot be
 * had, the run stores without streaming. Under max_device_bytes the library planned two output
 * buffers for it; this lab run has no cap.
 *
 * The kernel body and host loop are this file's; expand_subtree, reservations, pool, spill, sizing,
 * stall guard are the library's (fcbo_cuda_search.cuh through the harness). compute-sanitizer
 * racecheck once flagged the queue's `exhausted` flag (a plain store under the lock against an
 * unlocked read: docs/RELIABILITY.md); both sides are atomic here. Check and table: lab_fca_gpu.cuh.
 * Arguments: --quick (the 8.09 M random case only). */
#include "lab_fca_gpu.cuh"

#define BLOCK_QUEUE_TASKS 4 /* batch tasks a block takes per global fetch */

typedef struct block_queue {
    unsigned long long range; /* next (high 32 bits), end (low) */
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

__global__ static void expand_queued_kernel(local_params p)
{
    __shared__ block_queue queue;
    uint32_t lane = threadIdx.x & 31;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned long long concepts = 0;
    if (threadIdx.x == 0) {
        queue.range = 0;
        queue.lock = 0;
        queue.exhausted = 0;
    }
    __syncthreads();
    for (;;) {
        unsigned int index = 0;
        if (lane == 0) index = block_queue_take(&queue, &p);
        index = __shfl_sync(FULL_MASK, index, 0);
        if (index >= p.batch) break;
        expand_subtree(&p, p.batch_first + index, index == 0, warp, lane, &concepts); /* the library's */
    }
    if (lane == 0) {
        atomicAdd(&p.counters->idle, 1u);
        if (concepts) atomicAdd(&p.counters->concepts, concepts);
    }
}

/* The double-buffered download: device[0] is gpu_search.output. */
typedef struct output_stream {
    word_t *device[2];
    parac_word *pinned[2]; /* output_capacity x attribute_words each */
    size_t pending[2];     /* intents being copied into pinned[k], not yet handed to the host */
    cudaStream_t copy;
    cudaEvent_t computed[2], copied[2];
    int ready;
} output_stream;

static parac_status setup_output_stream(gpu_search *g, output_stream *s, parac_error *error)
{
    size_t bytes = g->output_capacity * g->shape.attribute_words * 8;
    parac_status status = PARAC_OK;
    s->device[0] = g->output;
    RETURN_IF_FAILED(gpu_alloc(g, (void **)&s->device[1], bytes, error));
    for (int k = 0; k < 2; k++) PARAC_CUDA_TRY(cudaMallocHost((void **)&s->pinned[k], bytes));
    PARAC_CUDA_TRY(cudaStreamCreateWithFlags(&s->copy, cudaStreamNonBlocking));
    s->ready = 1;
    for (int k = 0; k < 2; k++) {
        PARAC_CUDA_TRY(cudaEventCreateWithFlags(&s->computed[k], cudaEventDisableTiming));
        PARAC_CUDA_TRY(cudaEventCreateWithFlags(&s->copied[k], cudaEventDisableTiming));
    }
fail:
    return status;
}

static void release_output_stream(gpu_search *g, output_stream *s)
{
    if (s->ready) {
        (void)cudaStreamSynchronize(s->copy);
        for (int k = 0; k < 2; k++) {
            if (s->computed[k]) (void)cudaEventDestroy(s->computed[k]);
            if (s->copied[k]) (void)cudaEventDestroy(s->copied[k]);
        }
        (void)cudaStreamDestroy(s->copy);
    }
    for (int k = 0; k < 2; k++)
        if (s->pinned[k]) (void)cudaFreeHost(s->pinned[k]);
    gpu_free(g, s->device[1], g->output_capacity * g->shape.attribute_words * 8);
    memset(s, 0, sizeof *s);
}

/* Hands the intents copied into pinned buffer k (if any) to the host. */
static parac_status take_streamed(output_stream *s, int k, const fca_search *search, parac_word *original,
                                  parac_fca_concepts *concepts, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t count = s->pending[k];
    if (!count) return PARAC_OK;
    PARAC_CUDA_TRY(cudaEventSynchronize(s->copied[k]));
    s->pending[k] = 0;
    status = append_intents(search, s->pinned[k], count, original, concepts, error);
fail:
    return status;
}

/* Starts copying round output k to pinned buffer k once the round's kernel is done, on the copy stream. */
static parac_status start_streaming(gpu_search *g, output_stream *s, int k, size_t stored, parac_error *error)
{
    parac_status status = PARAC_OK;
    if (!stored) return PARAC_OK;
    PARAC_CUDA_TRY(cudaEventRecord(s->computed[k], (cudaStream_t)g->context.stream));
    PARAC_CUDA_TRY(cudaStreamWaitEvent(s->copy, s->computed[k], 0));
    PARAC_CUDA_TRY(cudaMemcpyAsync(s->pinned[k], s->device[k], stored * g->shape.attribute_words * 8,
                                   cudaMemcpyDeviceToHost, s->copy));
    PARAC_CUDA_TRY(cudaEventRecord(s->copied[k], s->copy));
    s->pending[k] = stored;
fail:
    return status;
}

/* The host loop: counting is the library's search_local; storing streams when the buffers can be had. */
static parac_status search_streamed(gpu_search *g, const fca_search *search, parac_fca_concepts *concepts,
                                    uint64_t *count, parac_error *error)
{
    output_stream s;
    parac_word *original;
    parac_status status;
    parac_error ignored;
    int k = 0;
    stall_guard guard;
    memset(&s, 0, sizeof s);
    if (!concepts) return search_local(g, search, concepts, count, error);
    if (setup_output_stream(g, &s, &ignored) != PARAC_OK) { /* no room: store without streaming */
        (void)cudaGetLastError();
        release_output_stream(g, &s);
        return search_local(g, search, concepts, count, error);
    }
    original = (parac_word *)malloc(search->original_words * 8);
    status = original ? PARAC_OK : parac_fail_no_memory(error, "intent", 64);
    stall_guard_init(&guard, search, *count);
    while (status == PARAC_OK && (g->pool_count || g->spill.count)) {
        size_t batch;
        unsigned long long found = 0;
        unsigned int pushed = 0, stored = 0;
        if ((status = prepare_round(g, search, &guard, *count, error)) != PARAC_OK) break;
        batch = local_batch(g, search->attributes);
        if ((status = launch_local_round(g, batch, s.device[k], error)) != PARAC_OK ||
            (status = take_streamed(&s, 1 - k, search, original, concepts, error)) != PARAC_OK || /* overlaps */
            (status = finish_local_round(g, &found, &pushed, &stored, error)) != PARAC_OK ||
            (status = start_streaming(g, &s, k, stored, error)) != PARAC_OK)
            break;
        *count += found;
        g->pool_count -= batch;
        status = push_children(g, pushed, error);
        k = 1 - k;
    }
    for (int last = 0; last < 2; last++) /* the last round's intents (also drains copies after a failure) */
        if (status == PARAC_OK) status = take_streamed(&s, last, search, original, concepts, error);
    release_output_stream(g, &s);
    free(original);
    return status;
}

static void prepare_queued(gpu_search *g, const fca_search *search)
{
    (void)search;
    g->local_kernel = expand_queued_kernel;
}

int main(int argc, char **argv)
{
    static const lab_gpu_variant variant = {"local_stream", prepare_queued, search_streamed};
    return lab_gpu_main(argc, argv, &variant);
}
