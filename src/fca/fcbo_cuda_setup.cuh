/* fca/fcbo_cuda_setup.cuh — sizing a GPU search before it runs: the pool and child buffers within a
 * byte budget and their x4 growth, the output buffer, the warp stacks, the share-out of
 * max_device_bytes (plan_device_cap), the device and context, and the root task. Part of
 * fcbo_cuda_search.cuh's translation unit (after fcbo_cuda_pool.cuh). */
#ifndef PARAC_FCA_FCBO_CUDA_SETUP_CUH
#define PARAC_FCA_FCBO_CUDA_SETUP_CUH

static size_t bytes_per_task(const gpu_search *g)
{
    return (g->shape.object_words + g->shape.attribute_words + g->failed_words) * 8 + 4;
}

/* Children hold a third of the budget, the pool two thirds (a batch of tasks
 * has at most `attributes` children each, so batch = children capacity / attributes). */
static size_t children_for_budget(const gpu_search *g, size_t budget)
{
    size_t capacity = budget / (3 * bytes_per_task(g));
    return capacity > UINT32_MAX / 2 ? UINT32_MAX / 2 : capacity;
}

/* Pool and child buffers from a byte budget; halves the budget on out-of-memory. */
static parac_status allocate_buffers(gpu_search *g, size_t budget, parac_error *error)
{
    parac_status status = PARAC_ERR_NO_MEMORY;
    while (children_for_budget(g, budget) > g->shape.attributes) {
        size_t child_capacity = children_for_budget(g, budget);
        status = alloc_tasks(g, &g->children, child_capacity, error);
        if (status == PARAC_OK) status = alloc_tasks(g, &g->pool, 2 * child_capacity, error);
        if (status == PARAC_OK) g->budget = budget;
        if (status != PARAC_ERR_NO_MEMORY) return status;
        (void)cudaGetLastError(); /* the failed allocation must not surface at the next launch check */
        free_tasks(g, &g->children);
        free_tasks(g, &g->pool);
        budget /= 2;
        g->can_grow = 0;
    }
    return status == PARAC_OK ? status : parac_fail(error, PARAC_ERR_NO_MEMORY, "fca cuda: not enough device memory for the task pool");
}

/* When the pool holds more than two batches, trades the buffers for ones
 * GROWTH_FACTOR times larger (bigger batches, fewer rounds); keeps the old
 * ones when the device says no. */
static parac_status maybe_grow(gpu_search *g, parac_error *error)
{
    gpu_search grown;
    size_t budget = g->budget * GROWTH_FACTOR < g->budget_cap ? g->budget * GROWTH_FACTOR : g->budget_cap;
    size_t batch_limit = g->children.capacity / g->shape.attributes;
    size_t child_capacity;
    parac_status status;
    parac_error ignored;
    if (!g->can_grow || g->pool_count < 2 * batch_limit) return PARAC_OK;
    /* under max_device_bytes the old and the new buffers must fit together while the pool is copied */
    if (g->pool_limit && budget > g->pool_limit - g->budget) budget = g->pool_limit - g->budget;
    child_capacity = children_for_budget(g, budget);
    if (budget <= g->budget || child_capacity <= g->children.capacity) {
        g->can_grow = 0;
        return PARAC_OK;
    }
    grown = *g;
    status = alloc_tasks(&grown, &grown.children, child_capacity, &ignored);
    if (status == PARAC_OK) status = alloc_tasks(&grown, &grown.pool, 2 * child_capacity, &ignored);
    if (status == PARAC_OK) status = copy_tasks(g, &grown.pool, 0, &g->pool, 0, g->pool_count, error);
    if (status != PARAC_OK) {
        free_tasks(&grown, &grown.children); /* counted in grown only */
        free_tasks(&grown, &grown.pool);
        if (status != PARAC_ERR_NO_MEMORY) return status;
        (void)cudaGetLastError();
        g->can_grow = 0;
        return PARAC_OK;
    }
    g->device_bytes = grown.device_bytes; /* the new buffers, counted on the copy */
    g->device_peak = grown.device_peak;
    free_tasks(g, &g->children);
    free_tasks(g, &g->pool);
    g->children = grown.children;
    g->pool = grown.pool;
    g->budget = budget;
    return PARAC_OK;
}

/* LOCAL_ROWS: per-warp stacks as deep as memory allows (at least 2 levels, else ROUNDS), the
 * device rows, the round counters, and an output buffer when storing. */
static parac_status setup_local(gpu_search *g, const fca_search *search, int store, size_t free_bytes,
                                parac_error *error)
{
    size_t n = search->attributes, aw = search->attribute_words;
    size_t level_words = search->object_words + aw + 2 * n * aw + (n + 1) / 2;
    size_t cap = free_bytes / 4 < MAX_STACK_BYTES ? free_bytes / 4 : MAX_STACK_BYTES;
    size_t levels;
    parac_error ignored;
    if (g->device_cap && g->stack_cap < cap) cap = g->stack_cap;
    levels = cap / ((size_t)g->warps * level_words * 8);
    if (levels > LOCAL_MAX_LEVELS) levels = LOCAL_MAX_LEVELS;
    if (levels > n) levels = n;
    /* too wide for private stacks, or the device said no: the ROUNDS strategy needs no stacks */
    if (levels < 2 ||
        gpu_alloc(g, (void **)&g->stack, (size_t)g->warps * levels * level_words * 8, &ignored)) {
        (void)cudaGetLastError();
        g->stack = NULL;
        g->strategy = PARAC_FCA_GPU_ROUNDS;
        return PARAC_OK;
    }
    g->levels = (uint32_t)levels;
    g->level_words = level_words;
    RETURN_IF_FAILED(gpu_alloc(g, (void **)&g->local, sizeof(local_counters), error));
    RETURN_IF_FAILED(gpu_alloc(g, (void **)&g->rows, search->objects * aw * 8 + 8, error));
    RETURN_IF_FAILED(parac_cuda_upload(&g->context, g->rows, search->rows, search->objects * aw * 8, error));
    if (store) {
        /* intents only (attribute_words each): cheap, so room for many rounds' worth of children */
        g->output_capacity = (size_t)1 << 22;
        if (g->output_capacity * aw * 8 > free_bytes / 8) g->output_capacity = free_bytes / 8 / (aw * 8);
        if (g->device_cap && g->output_capacity > g->output_cap) g->output_capacity = g->output_cap;
        if (g->output_capacity < 4 * (n + 1)) g->output_capacity = 4 * (n + 1);
        RETURN_IF_FAILED(gpu_alloc(g, (void **)&g->output, g->output_capacity * aw * 8, error));
    }
    return PARAC_OK;
}

/* max_device_bytes: shares the cap out before anything is allocated. After the fixed buffers
 * (context copies, counters) it gives the output buffers up to an eighth, the grid's per-warp
 * scratch and the warp stacks up to half (fewer blocks when even two stack levels per warp do not
 * fit; fewer levels otherwise), and the rest to the task pool and child buffers, whose growth then
 * keeps old + new buffers under that rest. PARAC_ERR_NO_MEMORY only when the cap is below what
 * one block and the smallest workable pool need. */
static parac_status plan_device_cap(gpu_search *g, const fca_search *search, int store, size_t cap,
                                    parac_error *error)
{
    size_t n = search->attributes, ow = search->object_words, aw = search->attribute_words;
    size_t warps_per_block = THREADS_PER_BLOCK / 32, rest, share, fit;
    size_t fixed = n * ow * 8 + 4 * sizeof(unsigned int) + sizeof(local_counters) + search->objects * aw * 8 + 8;
    size_t per_warp = (ow + aw) * 8 + n * 4;       /* scratch + child list */
    size_t level_bytes = (ow + aw + 2 * n * aw + (n + 1) / 2) * 8;
    size_t buffers = store && g->strategy != PARAC_FCA_GPU_ROUNDS ? 1 : 0;
    size_t least_output = 4 * (n + 1), least_pool = 3 * bytes_per_task(g) * (n + 1) * 2;
    size_t least = fixed + buffers * least_output * aw * 8 + least_pool + warps_per_block * per_warp;
    if (cap < least)
        return parac_fail(error, PARAC_ERR_NO_MEMORY,
                          "fca cuda: max_device_bytes %zu is below the %zu bytes this context needs at least", cap, least);
    g->device_cap = cap;
    rest = cap - fixed;
    if (buffers) {
        g->output_cap = rest / 8 / buffers / (aw * 8);
        if (g->output_cap < least_output) g->output_cap = least_output;
        rest -= buffers * g->output_cap * aw * 8;
    }
    share = rest / 2;
    fit = share / (per_warp + (g->strategy == PARAC_FCA_GPU_ROUNDS ? 0 : 2 * level_bytes));
    if (fit < g->warps) {
        g->blocks = fit / warps_per_block ? (unsigned int)(fit / warps_per_block) : 1;
        g->warps = g->blocks * (unsigned int)warps_per_block;
    }
    if (rest < g->warps * per_warp + least_pool)
        return parac_fail(error, PARAC_ERR_NO_MEMORY,
                          "fca cuda: max_device_bytes %zu is too small for this context (need about %zu)", cap,
                          cap + least_pool + g->warps * per_warp - rest);
    rest -= g->warps * per_warp;
    /* stacks take what is left of their share, never the pool's minimum (fewer than 2 levels: ROUNDS) */
    g->stack_cap = share > g->warps * per_warp ? share - g->warps * per_warp : 0;
    if (g->stack_cap > rest - least_pool) g->stack_cap = rest - least_pool;
    g->pool_limit = rest - (g->strategy == PARAC_FCA_GPU_ROUNDS ? 0 : g->stack_cap);
    return PARAC_OK;
}

static parac_status setup_gpu(gpu_search *g, const fca_search *search, int cuda_device,
                              parac_cuda_context *shared_context, int store, uint64_t pool_cap,
                              uint64_t device_cap, parac_error *error)
{
    parac_status status;
    size_t free_bytes = 0, total_bytes = 0, warps;
    g->shape.objects = (uint32_t)search->objects;
    g->shape.attributes = (uint32_t)search->attributes;
    g->shape.object_words = (uint32_t)search->object_words;
    g->shape.attribute_words = (uint32_t)search->attribute_words;
    g->shape.min_support = search->min_support;
    g->failed_words = search->attributes * search->attribute_words;
    if (shared_context) {
        g->context = *shared_context;
    } else {
        if ((status = parac_cuda_context_create(cuda_device, &g->context, error)) != PARAC_OK) return status;
        g->owns_context = 1;
    }
    g->context_ready = 1;
    g->blocks = (unsigned int)(g->context.multiprocessors * BLOCKS_PER_SM);
    if (g->strategy != PARAC_FCA_GPU_ROUNDS) {
        /* only resident blocks: a block waiting for a slot would find the batch gone, and its
         * warps' stacks would be memory for nothing (64 registers: 4 blocks of 256 per SM) */
        int resident = 0;
        if (!g->local_kernel) g->local_kernel = expand_local_kernel;
        PARAC_CUDA_RETURN(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, g->local_kernel, THREADS_PER_BLOCK,
                                                                        g->local_shared_bytes));
        if (resident < 1) resident = 1;
        if (resident < BLOCKS_PER_SM) g->blocks = (unsigned int)(g->context.multiprocessors * resident);
    }
    g->warps = g->blocks * (THREADS_PER_BLOCK / 32);
    if (device_cap && (status = plan_device_cap(g, search, store, (size_t)device_cap, error)) != PARAC_OK)
        return status;
    warps = g->warps;
    if ((status = gpu_alloc(g, (void **)&g->columns, search->attributes * search->object_words * 8, error)) ||
        (status = parac_cuda_upload(&g->context, g->columns, search->columns, search->attributes * search->object_words * 8, error)) ||
        (status = gpu_alloc(g, (void **)&g->counters, 4 * sizeof(unsigned int), error)) ||
        (status = gpu_alloc(g, (void **)&g->scratch, warps * (search->object_words + search->attribute_words) * 8, error)) ||
        (status = gpu_alloc(g, (void **)&g->child_lists, warps * search->attributes * 4, error)) ||
        (status = parac_cuda_memory_info(&g->context, &free_bytes, &total_bytes, error)))
        return status;
    if (g->strategy != PARAC_FCA_GPU_ROUNDS) {
        if ((status = setup_local(g, search, store, free_bytes, error)) != PARAC_OK) return status;
        if ((status = parac_cuda_memory_info(&g->context, &free_bytes, &total_bytes, error)) != PARAC_OK) return status;
    }
    g->budget_cap = free_bytes / 2 < MAX_POOL_BYTES ? free_bytes / 2 : MAX_POOL_BYTES;
    g->can_grow = 1;
    {
        size_t first = 3 * bytes_per_task(g) * ((size_t)g->shape.attributes + 1) * 4; /* >= 4 tasks' children */
        /* The caller's cap wins over the defaults, down to the smallest workable pool
         * (children of 2 tasks): below it the search could not make progress. */
        size_t smallest = 3 * bytes_per_task(g) * ((size_t)g->shape.attributes + 1) * 2;
        if (first < INITIAL_POOL_BYTES) first = INITIAL_POOL_BYTES;
        if (pool_cap) {
            size_t cap = pool_cap > smallest ? (size_t)pool_cap : smallest;
            if (cap < g->budget_cap) g->budget_cap = cap;
        }
        if (g->pool_limit && g->pool_limit < g->budget_cap) g->budget_cap = g->pool_limit; /* >= smallest */
        return allocate_buffers(g, first < g->budget_cap ? first : g->budget_cap, error);
    }
}

static parac_status push_root(gpu_search *g, const fca_search *search, parac_word *extent, parac_word *intent,
                              parac_error *error)
{
    uint32_t zero = 0;
    parac_status status;
    fca_search_root(search, extent, intent);
    if ((status = parac_cuda_upload(&g->context, g->pool.extent, extent, search->object_words * 8, error)) ||
        (status = parac_cuda_upload(&g->context, g->pool.intent, intent, search->attribute_words * 8, error)) ||
        (status = parac_cuda_memset(&g->context, g->pool.failed, 0, g->failed_words * 8, error)) ||
        (status = parac_cuda_upload(&g->context, g->pool.next, &zero, 4, error)) ||
        (status = parac_cuda_synchronize(&g->context, error)))
        return status;
    g->pool_count = 1;
    return PARAC_OK;
}

#endif
