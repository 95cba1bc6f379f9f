/* fca/fcbo_cuda_local.cuh — LOCAL_ROWS: a warp finishes its task's subtree depth-first in a private
 * stack; the closure by object rows; child-slot reservations; pushing children back to the pool;
 * the hungry signal; the kernel entry. Part of fcbo_cuda_search.cuh's translation unit (after
 * fcbo_cuda_warp.cuh). The kernel lab's variants of it (dev/fca/04-06) build on these functions. */
#ifndef PARAC_FCA_FCBO_CUDA_LOCAL_CUH
#define PARAC_FCA_FCBO_CUDA_LOCAL_CUH

/* ---- LOCAL_ROWS: depth-first subtrees inside a warp ------------------------------------------ */

/* Round counters of the local kernel (zeroed each round). The reservation
 * counters are signed: tasks of the batch hold `attributes` units each from
 * the start (outside the counter) and give back what they do not use. */
typedef struct local_counters {
    unsigned long long concepts; /* children found this round (= new concepts) */
    long long push_reserved;     /* child-buffer slots promised beyond the batch's own */
    long long out_reserved;      /* output slots promised beyond the batch's own */
    unsigned int head, idle, child_count, out_count, overflow;
} local_counters;

typedef struct local_params {
    task_shape shape;
    const word_t *columns;        /* attributes x object_words */
    const word_t *rows;           /* objects x attribute_words */
    task_arrays pool, children;
    size_t batch_first;
    unsigned int batch;
    local_counters *counters;
    long long push_limit, out_limit; /* capacities minus the batch's own units */
    word_t *output;               /* output_capacity x attribute_words, NULL when counting */
    size_t output_capacity;
    word_t *stack;                /* per warp: levels x level_words */
    unsigned int hungry_idle;     /* idle warps from which busy ones push instead of descending */
    word_t *scratch;              /* per warp: C (object_words) */
    size_t level_words;
    uint32_t levels;
} local_params;

/* One level of a warp's stack: a node and the canonical children it found. */
typedef struct local_level {
    word_t *extent, *intent, *failed; /* failed: attributes x attribute_words, rows >= next used */
    word_t *child_intents;            /* attributes x attribute_words */
    uint32_t *child_attribute;        /* attributes */
} local_level;

__device__ static local_level level_at(const local_params *p, uint32_t warp, uint32_t depth)
{
    const task_shape *shape = &p->shape;
    size_t n_words = (size_t)shape->attributes * shape->attribute_words;
    word_t *base = p->stack + ((size_t)warp * p->levels + depth) * p->level_words;
    local_level level;
    level.extent = base;
    level.intent = base + shape->object_words;
    level.failed = level.intent + shape->attribute_words;
    level.child_intents = level.failed + n_words;
    level.child_attribute = (uint32_t *)(level.child_intents + n_words);
    return level;
}

/* D = C' as the AND of the rows of C's objects; lanes split C's words, a shuffle AND joins them. */
__device__ static void warp_close_rows(const task_shape *shape, const word_t *rows, const word_t *extent,
                                       word_t *intent, uint32_t lane)
{
    for (uint32_t a = 0; a < shape->attribute_words; a++) {
        word_t common = ~0ull;
        uint32_t used = shape->attributes - a * 64;
        for (uint32_t w = lane; w < shape->object_words; w += 32)
            for (word_t bits = extent[w]; bits; bits &= bits - 1)
                common &= rows[((size_t)w * 64 + (uint32_t)(__ffsll((long long)bits) - 1)) * shape->attribute_words + a];
        for (int offset = 16; offset; offset >>= 1) common &= __shfl_xor_sync(FULL_MASK, common, offset);
        if (lane == 0) intent[a] = used >= 64 ? common : common & ((1ull << used) - 1); /* empty C: all attributes */
    }
    __syncwarp();
}

/* Lane 0 takes `amount` units of a counter bounded by limit; warp-uniform answer. */
__device__ static int warp_reserve(long long *counter, long long amount, long long limit, uint32_t lane)
{
    int granted = 0;
    if (lane == 0) {
        long long before = (long long)atomicAdd((unsigned long long *)counter, (unsigned long long)amount);
        granted = before + amount <= limit;
        if (!granted) atomicAdd((unsigned long long *)counter, (unsigned long long)(-amount));
    }
    return __shfl_sync(FULL_MASK, granted, 0);
}

__device__ static void lane0_release(long long *counter, long long amount, uint32_t lane)
{
    if (lane == 0 && amount) atomicAdd((unsigned long long *)counter, (unsigned long long)(-amount));
}

/* Units for a node with `rest` attributes left: a push slot and (when storing) an output slot per possible child. */
__device__ static int reserve_children(const local_params *p, uint32_t rest, uint32_t lane)
{
    if (!warp_reserve(&p->counters->push_reserved, rest, p->push_limit, lane)) return 0;
    if (!p->output || warp_reserve(&p->counters->out_reserved, rest, p->out_limit, lane)) return 1;
    lane0_release(&p->counters->push_reserved, rest, lane);
    return 0;
}

/* Gives back unused child units (push and output) of a node's reservation. */
__device__ static void release_children(const local_params *p, long long units, uint32_t lane)
{
    lane0_release(&p->counters->push_reserved, units, lane);
    if (p->output) lane0_release(&p->counters->out_reserved, units, lane);
}

/* Gives back a child's push unit (the child was a leaf or got its own reservation); its output
 * unit was spent when its intent was written. */
__device__ static void release_push_unit(const local_params *p, uint32_t lane)
{
    lane0_release(&p->counters->push_reserved, 1, lane);
}

/* FCbO's loop over j >= y for the node of `level`: canonical children go to its child lists,
 * failures to its failed sets. Returns the number of children. */
__device__ static uint32_t generate_children(const local_params *p, const local_level *level, uint32_t y, word_t *c,
                                             uint32_t lane)
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
        warp_close_rows(shape, p->rows, c, d, lane);
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

/* Counts the children as concepts and, when storing, writes their intents to the output. */
__device__ static void emit_children(const local_params *p, const local_level *level, uint32_t found,
                                     unsigned long long *concepts, uint32_t lane)
{
    unsigned int base = 0;
    *concepts += found;
    if (!p->output || !found) return;
    if (lane == 0) base = atomicAdd(&p->counters->out_count, found);
    base = __shfl_sync(FULL_MASK, base, 0);
    if ((size_t)base + found > p->output_capacity) { /* the reservations make this impossible */
        if (lane == 0) atomicExch(&p->counters->overflow, 1u);
        return;
    }
    warp_copy(p->output + (size_t)base * p->shape.attribute_words, level->child_intents,
              (size_t)found * p->shape.attribute_words, lane);
}

/* Writes child `index` of level (extent A ∩ {j}', its intent, failed rows > j) as a pool task. */
__device__ static void push_local_child(const local_params *p, const local_level *level, uint32_t index, uint32_t j,
                                        uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t words = shape->attribute_words, n = shape->attributes;
    unsigned int slot = 0;
    if (lane == 0) slot = atomicAdd(&p->counters->child_count, 1u);
    slot = __shfl_sync(FULL_MASK, slot, 0);
    if (slot >= p->children.capacity) { /* the reservations make this impossible; reported if it happens */
        if (lane == 0) atomicExch(&p->counters->overflow, 1u);
        return;
    }
    warp_intersect(shape, level->extent, p->columns + (size_t)j * shape->object_words,
                   p->children.extent + (size_t)slot * shape->object_words, lane);
    warp_copy(p->children.intent + (size_t)slot * words, level->child_intents + (size_t)index * words, words, lane);
    warp_copy(p->children.failed + (size_t)slot * n * words + (size_t)(j + 1) * words,
              level->failed + (size_t)(j + 1) * words, (size_t)(n - j - 1) * words, lane);
    if (lane == 0) p->children.next[slot] = j + 1;
    __syncwarp();
}

/* Makes child `index` of `parent` the node of `child` (extent, intent, inherited failed rows). */
__device__ static void descend(const local_params *p, const local_level *parent, uint32_t index, uint32_t j,
                               const local_level *child, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t words = shape->attribute_words, n = shape->attributes;
    warp_intersect(shape, parent->extent, p->columns + (size_t)j * shape->object_words, child->extent, lane);
    warp_copy(child->intent, parent->child_intents + (size_t)index * words, words, lane);
    warp_copy(child->failed + (size_t)(j + 1) * words, parent->failed + (size_t)(j + 1) * words,
              (size_t)(n - j - 1) * words, lane);
    __syncwarp();
}

__device__ static int warp_is_hungry(const local_params *p, uint32_t lane)
{
    unsigned int idle = 0;
    if (lane == 0) idle = *(volatile unsigned int *)&p->counters->idle;
    return __shfl_sync(FULL_MASK, idle, 0) >= p->hungry_idle;
}

/* Copies pool task `task` unchanged to the child buffer (next round), spending its own unit. */
__device__ static void defer_task(const local_params *p, size_t task, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    size_t words = shape->attribute_words, n = shape->attributes, y = p->pool.next[task];
    unsigned int slot = 0;
    if (lane == 0) slot = atomicAdd(&p->counters->child_count, 1u);
    slot = __shfl_sync(FULL_MASK, slot, 0);
    if (slot >= p->children.capacity) {
        if (lane == 0) atomicExch(&p->counters->overflow, 1u);
        return;
    }
    warp_copy(p->children.extent + (size_t)slot * shape->object_words, p->pool.extent + task * shape->object_words,
              shape->object_words, lane);
    warp_copy(p->children.intent + (size_t)slot * words, p->pool.intent + task * words, words, lane);
    warp_copy(p->children.failed + (size_t)slot * n * words + y * words, p->pool.failed + task * n * words + y * words,
              (n - y) * words, lane);
    if (lane == 0) p->children.next[slot] = (uint32_t)y;
    __syncwarp();
}

/* The library's two steps of expand_subtree_with, as policies: a node's canonical children by
 * object rows (generate_children), and a child left for a later round written to the pool
 * (push_local_child). The kernel lab's variants (dev/fca/04-06) pass their own. */
struct rows_generator {
    __device__ uint32_t operator()(const local_params *p, const local_level *level, uint32_t y, word_t *c,
                                   uint32_t lane) const
    {
        return generate_children(p, level, y, c, lane);
    }
};
struct pool_push {
    __device__ void operator()(const local_params *p, const local_level *level, uint32_t index, uint32_t j,
                               uint32_t lane) const
    {
        push_local_child(p, level, index, j, lane);
    }
};

/* Expands pool task `task` and, depth-first, as much of its subtree as the stack and the
 * reservations allow. Lane d keeps level d's child count and cursor in registers.
 * Units: every task of the batch owns one push unit (to be deferred); the batch's first
 * task owns `attributes` push and output units instead, so every round makes progress;
 * the others reserve theirs and are deferred to the next round when that fails.
 * `generate` finds a node's canonical children, `push` leaves a child for a later round. */
template <typename Generate, typename Push>
__device__ static void expand_subtree_with(const local_params *p, size_t task, int first_of_batch, uint32_t warp,
                                           uint32_t lane, unsigned long long *concepts, Generate generate, Push push)
{
    const task_shape *shape = &p->shape;
    uint32_t n = shape->attributes, words = shape->attribute_words, y = p->pool.next[task], depth = 0;
    uint32_t my_total = 0, my_cursor = 0, found, rest;
    word_t *c = p->scratch + (size_t)warp * shape->object_words;
    local_level root = level_at(p, warp, 0);
    if (y >= n || warp_is_full_intent(shape, p->pool.intent + task * words, lane)) { /* no children */
        if (first_of_batch) release_children(p, n, lane);
        else release_push_unit(p, lane);
        return;
    }
    rest = n - y;
    if (first_of_batch) {
        release_children(p, n - rest, lane);
    } else {
        if (!reserve_children(p, rest, lane)) { defer_task(p, task, lane); return; }
        release_push_unit(p, lane);
    }
    warp_copy(root.extent, p->pool.extent + task * shape->object_words, shape->object_words, lane);
    warp_copy(root.intent, p->pool.intent + task * words, words, lane);
    warp_copy(root.failed + (size_t)y * words, p->pool.failed + task * n * words + (size_t)y * words,
              (size_t)rest * words, lane);
    __syncwarp();
    found = generate(p, &root, y, c, lane);
    emit_children(p, &root, found, concepts, lane);
    release_children(p, (long long)rest - found, lane);
    if (lane == 0) my_total = found;
    for (;;) {
        uint32_t total = __shfl_sync(FULL_MASK, my_total, depth), cursor = __shfl_sync(FULL_MASK, my_cursor, depth);
        local_level level, child;
        uint32_t j, rest;
        if (cursor == total) {
            if (depth == 0) return;
            depth--;
            continue;
        }
        if (lane == depth) my_cursor++;
        level = level_at(p, warp, depth);
        j = level.child_attribute[cursor];
        rest = n - j - 1;
        if (rest == 0 || warp_is_full_intent(shape, level.child_intents + (size_t)cursor * words, lane)) {
            release_push_unit(p, lane); /* a leaf: nothing to push */
            continue;
        }
        if (depth + 1 >= p->levels || warp_is_hungry(p, lane) || !reserve_children(p, rest, lane)) {
            push(p, &level, cursor, j, lane); /* uses the unit its parent reserved */
            continue;
        }
        release_push_unit(p, lane); /* expanded here: its own reservation replaces its unit */
        child = level_at(p, warp, depth + 1);
        descend(p, &level, cursor, j, &child, lane);
        found = generate(p, &child, j + 1, c, lane);
        emit_children(p, &child, found, concepts, lane);
        release_children(p, (long long)rest - found, lane);
        depth++;
        if (lane == depth) { my_total = found; my_cursor = 0; }
    }
}

__device__ static void expand_subtree(const local_params *p, size_t task, int first_of_batch, uint32_t warp,
                                      uint32_t lane, unsigned long long *concepts)
{
    expand_subtree_with(p, task, first_of_batch, warp, lane, concepts, rows_generator(), pool_push());
}

__global__ static void expand_local_kernel(local_params p)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned long long concepts = 0;
    for (;;) {
        unsigned int index = 0;
        if (lane == 0) index = atomicAdd(&p.counters->head, 1u);
        index = __shfl_sync(FULL_MASK, index, 0);
        if (index >= p.batch) break;
        expand_subtree(&p, p.batch_first + index, index == 0, warp, lane, &concepts);
    }
    if (lane == 0) {
        atomicAdd(&p.counters->idle, 1u); /* from now on, busy warps hand their pending children to the pool */
        if (concepts) atomicAdd(&p.counters->concepts, concepts);
    }
}

#endif
