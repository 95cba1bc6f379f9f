/* fca/fcbo_cuda_pool.cuh — the host's view of one GPU search (gpu_search): its device buffers,
 * counted against max_device_bytes by gpu_alloc/gpu_free; the task pool's arrays and their copies;
 * the spill of the pool's top to host memory and its reload; releasing everything. Part of
 * fcbo_cuda_search.cuh's translation unit (after the kernels). */
#ifndef PARAC_FCA_FCBO_CUDA_POOL_CUH
#define PARAC_FCA_FCBO_CUDA_POOL_CUH

typedef struct host_tasks {
    word_t *extent, *intent, *failed;
    uint32_t *next;
    size_t count, capacity;
} host_tasks;

typedef struct gpu_search {
    parac_cuda_context context; /* our own, or a copy of the engine's handles */
    int context_ready;
    int owns_context;
    parac_fca_gpu_strategy strategy; /* ROUNDS or LOCAL_ROWS (after setup: ROUNDS when no stacks fit) */
    /* LOCAL_ROWS's subtree kernel and its dynamic shared memory: expand_local_kernel, 0 (set by
     * setup_gpu when NULL); a kernel-lab variant (dev/fca/) sets its own before setup_gpu */
    void (*local_kernel)(local_params);
    size_t local_shared_bytes;
    word_t *rows;                    /* LOCAL_ROWS: objects x attribute_words */
    word_t *stack;                   /* LOCAL_ROWS: per-warp depth-first stacks */
    uint32_t levels;
    size_t level_words;
    local_counters *local;           /* LOCAL_ROWS: round counters */
    word_t *output;                  /* LOCAL_ROWS when storing: intents found in a round */
    size_t output_capacity;
    task_shape shape;
    size_t failed_words; /* per task */
    word_t *columns;
    task_arrays pool, children;
    size_t pool_count;
    unsigned int *counters; /* head, child_count, overflow */
    word_t *scratch;
    uint32_t *child_lists;
    unsigned int warps, blocks;
    size_t budget;     /* bytes of the current children + pool buffers */
    size_t budget_cap; /* what growth may reach: half the free memory, at most MAX_POOL_BYTES */
    int can_grow;
    host_tasks spill;
    /* max_device_bytes (plan_device_cap): every device allocation is counted, the peak checked */
    size_t device_cap;     /* 0: no cap */
    size_t stack_cap;      /* bytes the warp stacks may take under the cap */
    size_t output_cap;     /* intents per output buffer under the cap */
    size_t pool_limit;     /* children + pool bytes under the cap, growth's transient included */
    size_t device_bytes, device_peak;
} gpu_search;

/* Every device buffer of the search goes through here, so a cap can be checked against the peak. */
static parac_status gpu_alloc(gpu_search *g, void **pointer, size_t bytes, parac_error *error)
{
    parac_status status = parac_cuda_alloc(&g->context, pointer, bytes, error);
    if (status != PARAC_OK) return status;
    g->device_bytes += bytes;
    if (g->device_bytes > g->device_peak) g->device_peak = g->device_bytes;
    return PARAC_OK;
}

static void gpu_free(gpu_search *g, void *pointer, size_t bytes)
{
    if (!pointer) return;
    parac_cuda_free(&g->context, pointer);
    g->device_bytes -= bytes;
}

/* capacity is set before the first allocation, so free_tasks can account a partial failure. */
static parac_status alloc_tasks(gpu_search *g, task_arrays *tasks, size_t capacity, parac_error *error)
{
    parac_status status;
    memset(tasks, 0, sizeof *tasks);
    tasks->capacity = capacity;
    if ((status = gpu_alloc(g, (void **)&tasks->extent, capacity * g->shape.object_words * 8, error)) ||
        (status = gpu_alloc(g, (void **)&tasks->intent, capacity * g->shape.attribute_words * 8, error)) ||
        (status = gpu_alloc(g, (void **)&tasks->failed, capacity * g->failed_words * 8, error)) ||
        (status = gpu_alloc(g, (void **)&tasks->next, capacity * 4, error)))
        return status;
    return PARAC_OK;
}

static void free_tasks(gpu_search *g, task_arrays *tasks)
{
    gpu_free(g, tasks->extent, tasks->capacity * g->shape.object_words * 8);
    gpu_free(g, tasks->intent, tasks->capacity * g->shape.attribute_words * 8);
    gpu_free(g, tasks->failed, tasks->capacity * g->failed_words * 8);
    gpu_free(g, tasks->next, tasks->capacity * 4);
    memset(tasks, 0, sizeof *tasks);
}

/* Copies count tasks between device arrays (kind: device to device). */
static parac_status copy_tasks(gpu_search *g, task_arrays *dst, size_t to, const task_arrays *src, size_t from,
                               size_t count, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)g->context.stream;
    size_t ow = g->shape.object_words, aw = g->shape.attribute_words, fw = g->failed_words;
    if (!count) return PARAC_OK;
    PARAC_CUDA_TRY(cudaMemcpyAsync(dst->extent + to * ow, src->extent + from * ow, count * ow * 8, cudaMemcpyDeviceToDevice, stream));
    PARAC_CUDA_TRY(cudaMemcpyAsync(dst->intent + to * aw, src->intent + from * aw, count * aw * 8, cudaMemcpyDeviceToDevice, stream));
    PARAC_CUDA_TRY(cudaMemcpyAsync(dst->failed + to * fw, src->failed + from * fw, count * fw * 8, cudaMemcpyDeviceToDevice, stream));
    PARAC_CUDA_TRY(cudaMemcpyAsync(dst->next + to, src->next + from, count * 4, cudaMemcpyDeviceToDevice, stream));
fail:
    return status;
}

static int host_reserve(gpu_search *g, size_t wanted)
{
    host_tasks *h = &g->spill;
    size_t capacity = h->capacity ? h->capacity : 1024;
    void *e, *i, *f, *n;
    if (wanted <= h->capacity) return 0;
    while (capacity < wanted) capacity *= 2;
    e = realloc(h->extent, capacity * g->shape.object_words * 8);
    if (e) h->extent = (word_t *)e;
    i = realloc(h->intent, capacity * g->shape.attribute_words * 8);
    if (i) h->intent = (word_t *)i;
    f = realloc(h->failed, capacity * g->failed_words * 8);
    if (f) h->failed = (word_t *)f;
    n = realloc(h->next, capacity * 4);
    if (n) h->next = (uint32_t *)n;
    if (!e || !i || !f || !n) return -1;
    h->capacity = capacity;
    return 0;
}

/* Moves the top `count` pool tasks to host memory (LIFO). */
static parac_status spill_to_host(gpu_search *g, size_t count, parac_error *error)
{
    host_tasks *h = &g->spill;
    size_t from = g->pool_count - count, ow = g->shape.object_words, aw = g->shape.attribute_words, fw = g->failed_words;
    parac_status status;
    if (host_reserve(g, h->count + count)) return parac_fail_no_memory(error, "FCbO host task spill", count * fw * 8);
    if ((status = parac_cuda_download(&g->context, h->extent + h->count * ow, g->pool.extent + from * ow, count * ow * 8, error)) ||
        (status = parac_cuda_download(&g->context, h->intent + h->count * aw, g->pool.intent + from * aw, count * aw * 8, error)) ||
        (status = parac_cuda_download(&g->context, h->failed + h->count * fw, g->pool.failed + from * fw, count * fw * 8, error)) ||
        (status = parac_cuda_download(&g->context, h->next + h->count, g->pool.next + from, count * 4, error)))
        return status;
    h->count += count;
    g->pool_count -= count;
    return PARAC_OK;
}

/* Brings back up to half a pool of spilled tasks when the device pool is empty. */
static parac_status reload_from_host(gpu_search *g, parac_error *error)
{
    host_tasks *h = &g->spill;
    size_t count = h->count < g->pool.capacity / 2 ? h->count : g->pool.capacity / 2, from;
    size_t ow = g->shape.object_words, aw = g->shape.attribute_words, fw = g->failed_words;
    parac_status status;
    if (!count) count = 1;
    from = h->count - count;
    if ((status = parac_cuda_upload(&g->context, g->pool.extent, h->extent + from * ow, count * ow * 8, error)) ||
        (status = parac_cuda_upload(&g->context, g->pool.intent, h->intent + from * aw, count * aw * 8, error)) ||
        (status = parac_cuda_upload(&g->context, g->pool.failed, h->failed + from * fw, count * fw * 8, error)) ||
        (status = parac_cuda_upload(&g->context, g->pool.next, h->next + from, count * 4, error)) ||
        (status = parac_cuda_synchronize(&g->context, error)))
        return status;
    h->count -= count;
    g->pool_count = count;
    return PARAC_OK;
}

static void release_gpu(gpu_search *g)
{
    if (g->context_ready) {
        free_tasks(g, &g->pool);
        free_tasks(g, &g->children);
        parac_cuda_free(&g->context, g->columns);
        parac_cuda_free(&g->context, g->counters);
        parac_cuda_free(&g->context, g->scratch);
        parac_cuda_free(&g->context, g->child_lists);
        parac_cuda_free(&g->context, g->rows);
        parac_cuda_free(&g->context, g->stack);
        parac_cuda_free(&g->context, g->local);
        parac_cuda_free(&g->context, g->output);
        if (g->owns_context) parac_cuda_context_destroy(&g->context);
        else (void)cudaStreamSynchronize((cudaStream_t)g->context.stream); /* frees are stream-ordered; the engine stays */
    }
    free(g->spill.extent);
    free(g->spill.intent);
    free(g->spill.failed);
    free(g->spill.next);
}

#endif
