/* fca/fcbo_cuda.cu — FCbO on the GPU with a device-resident task pool.
 *
 * A task is a search-tree node: extent bitmap, intent bitmap, next attribute
 * and its failed-attribute sets N_j (attributes x attribute_words), stored
 * struct-of-arrays. The pool is a stack; each round the host takes the top
 * `batch` tasks, and one kernel expands them:
 *   - warps fetch task indices from an atomic head (batched fetch, no host
 *     scheduling), one warp per task;
 *   - a warp tries attributes j = y..n-1 in order (FCbO's order: failures at
 *     j feed the N_j of every child), spreading bitmap work over its lanes:
 *     C = A ∩ {j}' word-parallel, D = C' attribute-parallel (lane m tests
 *     C ⊆ column m, a ballot packs 32 attributes), the canonicity test on
 *     the prefix before j only (never bit j);
 *   - canonical children get their slot, which is also their concept id
 *     within the round, by atomicAdd; after the loop the warp copies the
 *     final failed sets into each child.
 * Children are pushed back on the pool. The pool is bounded: when it would
 * overflow, its top part spills to host memory and comes back when the
 * device pool runs dry. Buffer sizes follow free device memory and halve on
 * out-of-memory. --count downloads only one counter per round; otherwise the
 * children's intents are downloaded and mapped to original ids.
 * The CPU twin is fcbo_serial.c: same tree, same concepts.
 *
 * Strategies (parac_fca_gpu_strategy), each a kernel + host loop below:
 *   ROUNDS     — version 1: one node per warp per round, every child goes
 *                back to the pool (rounds = tree depth x pool refills).
 *   LOCAL      — version 2: a warp finishes its task's subtree depth-first
 *                in a private stack (up to LOCAL_MAX_LEVELS levels) and
 *                pushes children to the pool only when another warp has run
 *                dry, or when its stack is full: far fewer rounds, far less
 *                global traffic. Child slots are reserved before a node is
 *                expanded, so the child and output buffers cannot overflow.
 *   LOCAL_ROWS — version 3: LOCAL, with D = C' computed as the AND of the rows
 *                of C's objects (work ~ |C|) instead of every attribute
 *                testing C against its column (work ~ attributes x words).
 *   LOCAL_STREAM — version 4: LOCAL_ROWS; warps take batch tasks from a per-block
 *                shared-memory queue (refilled 4 at a time from the global head),
 *                and stored intents stream back (two device output buffers, pinned
 *                host buffers, a copy stream, events) while the next round computes.
 *   LOCAL_STAGED — version 5: LOCAL_ROWS whose pushed children pass through a per-warp
 *                staging slot in shared memory (2-8 children, sized from the task's
 *                bytes) and reach the child buffer in bursts: one slot reservation per
 *                flush, the extents and intents of consecutive slots as contiguous runs.
 */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/timer.h"
#include "cuda/context.h"
#include "cuda/device_guard.cuh"
#include "cuda/cuda_check.h"
#include "fca/fca_internal.h"

typedef unsigned long long word_t;

/* For helpers with nothing to clean up: returns a failed status at once. */
#define RETURN_IF_FAILED(expr)                        \
    do {                                              \
        parac_status failed_status_ = (expr);         \
        if (failed_status_ != PARAC_OK) return failed_status_; \
    } while (0)

#define FULL_MASK 0xffffffffu
#define THREADS_PER_BLOCK 256
#define BLOCKS_PER_SM 8
#define MAX_POOL_BYTES ((size_t)16 << 30)     /* children + pool, at most */
#define INITIAL_POOL_BYTES ((size_t)64 << 20)  /* first allocation; grows x4 while work piles up */
#define GROWTH_FACTOR 4
#define LOCAL_MAX_LEVELS 24                    /* depth of a warp's private stack (<= 32: a lane per level) */
#define MAX_STACK_BYTES ((size_t)4 << 30)     /* all warps' private stacks together, at most */
#define BLOCK_QUEUE_TASKS 4                    /* LOCAL_STREAM: batch tasks a block takes per global fetch */
#define STAGE_BYTES_PER_WARP 6000              /* LOCAL_STAGED: 8 warps x 6000 B + the static queue < 48 KiB,
                                                  so 4 blocks of 256 threads stay resident per SM */
#define STAGE_MAX_ENTRIES 8                    /* children a warp stages before one flush (<= 32: a lane each) */

typedef struct task_arrays {
    word_t *extent;   /* capacity x object_words */
    word_t *intent;   /* capacity x attribute_words */
    word_t *failed;   /* capacity x attributes x attribute_words */
    uint32_t *next;   /* capacity */
    size_t capacity;
} task_arrays;

typedef struct task_shape {
    uint32_t objects, attributes, object_words, attribute_words;
    unsigned long long min_support;
} task_shape;

typedef struct batch_params {
    task_shape shape;
    const word_t *columns;
    task_arrays pool;
    task_arrays children;
    size_t batch_first;
    unsigned int batch;
    unsigned int *head;          /* next task of the batch to fetch */
    unsigned int *child_count;   /* children created this round */
    unsigned int *overflow;
    word_t *scratch;             /* per warp: C (object_words) + D (attribute_words) */
    uint32_t *child_lists;       /* per warp: slots of the current task's children */
} batch_params;

/* ---- kernels -------------------------------------------------------------------- */

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


/* ---- LOCAL / LOCAL_ROWS: depth-first subtrees inside a warp ---------------------------------- */

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
    int close_by_rows;
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
    int block_queue;              /* LOCAL_STREAM: warps take tasks from a per-block shared-memory queue */
    uint32_t stage_capacity;      /* LOCAL_STAGED: children per warp staging slot (>= 2) */
    uint32_t stage_entry_words;   /* object_words + attribute_words + attributes x attribute_words */
    size_t stage_warp_words;      /* one warp's slot: entries, then their attributes (uint32) */
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
        if (p->close_by_rows) warp_close_rows(shape, p->rows, c, d, lane);
        else warp_close(shape, p->columns, c, d, lane);
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

/* LOCAL_STAGED: each warp's staging slot in dynamic shared memory (p->stage_warp_words words per
 * warp). Entry e holds a pushed child's extent, intent and failed rows > j (packed from the entry's
 * start); after the entries, attribute[e] is its j. Only the warp-uniform count lives in a
 * register (every lane runs the same increments); the addresses are recomputed when used, which
 * keeps the kernel at 64 registers without spills. */
extern __shared__ word_t stage_memory[];

__device__ static word_t *stage_entries(const local_params *p)
{
    return stage_memory + (size_t)(threadIdx.x >> 5) * p->stage_warp_words;
}

__device__ static uint32_t *stage_attributes(const local_params *p)
{
    return (uint32_t *)(stage_entries(p) + (size_t)p->stage_capacity * p->stage_entry_words);
}

/* Writes the staged children to the child buffer as one burst: one slot reservation, the extents
 * and the intents of all of them as two contiguous runs (consecutive slots), then the failed rows. */
__device__ __noinline__ static void flush_stage(const local_params *p, uint32_t *staged, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t ow = shape->object_words, words = shape->attribute_words, n = shape->attributes, count = *staged;
    size_t entry_words = p->stage_entry_words;
    const word_t *entries = stage_entries(p);
    const uint32_t *attribute = stage_attributes(p);
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

/* LOCAL_STAGED's push: child `index` of level goes to the warp's slot; a full slot is flushed. */
__device__ __noinline__ static void stage_child(const local_params *p, const local_level *level, uint32_t index, uint32_t j,
                                   uint32_t *staged, uint32_t lane)
{
    const task_shape *shape = &p->shape;
    uint32_t words = shape->attribute_words, n = shape->attributes;
    word_t *entry = stage_entries(p) + (size_t)*staged * p->stage_entry_words;
    warp_intersect(shape, level->extent, p->columns + (size_t)j * shape->object_words, entry, lane);
    warp_copy(entry + shape->object_words, level->child_intents + (size_t)index * words, words, lane);
    warp_copy(entry + shape->object_words + words, level->failed + (size_t)(j + 1) * words,
              (size_t)(n - j - 1) * words, lane);
    if (lane == 0) stage_attributes(p)[*staged] = j;
    __syncwarp();
    if (++*staged == p->stage_capacity) flush_stage(p, staged, lane);
}

/* Expands pool task `task` and, depth-first, as much of its subtree as the stack and the
 * reservations allow. Lane d keeps level d's child count and cursor in registers.
 * Units: every task of the batch owns one push unit (to be deferred); the batch's first
 * task owns `attributes` push and output units instead, so every round makes progress;
 * the others reserve theirs and are deferred to the next round when that fails. */
template <bool Staged>
__device__ static void expand_subtree(const local_params *p, size_t task, int first_of_batch, uint32_t warp,
                                      uint32_t lane, unsigned long long *concepts, uint32_t *staged)
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
    found = generate_children(p, &root, y, c, lane);
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
            /* uses the unit its parent reserved */
            if (Staged) stage_child(p, &level, cursor, j, staged, lane);
            else push_local_child(p, &level, cursor, j, lane);
            continue;
        }
        release_push_unit(p, lane); /* expanded here: its own reservation replaces its unit */
        child = level_at(p, warp, depth + 1);
        descend(p, &level, cursor, j, &child, lane);
        found = generate_children(p, &child, j + 1, c, lane);
        emit_children(p, &child, found, concepts, lane);
        release_children(p, (long long)rest - found, lane);
        depth++;
        if (lane == depth) { my_total = found; my_cursor = 0; }
    }
}

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

/* ---- host side ------------------------------------------------------------------ */

typedef struct host_tasks {
    word_t *extent, *intent, *failed;
    uint32_t *next;
    size_t count, capacity;
} host_tasks;

/* LOCAL_STREAM's output streaming: round r writes device buffer r % 2; its intents travel to
 * pinned host buffer r % 2 on a copy stream while round r + 1 computes, and the host maps them to
 * original ids during round r + 1's kernel. */
typedef struct output_stream {
    word_t *device[2];  /* device[0] is gpu_search.output */
    parac_word *pinned[2]; /* output_capacity x attribute_words each */
    size_t pending[2];  /* intents being copied into pinned[k], not yet handed to the host */
    cudaStream_t copy;
    cudaEvent_t computed[2], copied[2];
    int ready;          /* stream and events exist */
} output_stream;

typedef struct gpu_search {
    parac_cuda_context context; /* our own, or a copy of the engine's handles */
    int context_ready;
    int owns_context;
    parac_fca_gpu_strategy strategy; /* ROUNDS, LOCAL or LOCAL_ROWS after setup */
    word_t *rows;                    /* LOCAL_ROWS: objects x attribute_words */
    word_t *stack;                   /* LOCAL*: per-warp depth-first stacks */
    uint32_t levels;
    size_t level_words;
    local_counters *local;           /* LOCAL*: round counters */
    word_t *output;                  /* LOCAL* when storing: intents found in a round */
    size_t output_capacity;
    output_stream stream;            /* LOCAL_STREAM when storing: double-buffered download */
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
    /* LOCAL_STAGED: the warps' shared-memory staging slots (see plan_stage) */
    uint32_t stage_capacity, stage_entry_words;
    size_t stage_warp_words, stage_shared_bytes;
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

/* Cleanup only: errors here cannot change the run's result any more. */
static void release_output_stream(output_stream *s)
{
    if (s->ready) {
        (void)cudaStreamSynchronize(s->copy);
        for (int k = 0; k < 2; k++) { /* only handles that exist: a failed call would linger as the last error */
            if (s->computed[k]) (void)cudaEventDestroy(s->computed[k]);
            if (s->copied[k]) (void)cudaEventDestroy(s->copied[k]);
        }
        (void)cudaStreamDestroy(s->copy);
    }
    for (int k = 0; k < 2; k++)
        if (s->pinned[k]) (void)cudaFreeHost(s->pinned[k]);
    memset(s, 0, sizeof *s);
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
        parac_cuda_free(&g->context, g->stream.device[1]);
        release_output_stream(&g->stream);
        if (g->owns_context) parac_cuda_context_destroy(&g->context);
        else (void)cudaStreamSynchronize((cudaStream_t)g->context.stream); /* frees are stream-ordered; the engine stays */
    }
    free(g->spill.extent);
    free(g->spill.intent);
    free(g->spill.failed);
    free(g->spill.next);
}

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

/* LOCAL_STREAM when storing: the second device output buffer, two pinned host buffers, a copy
 * stream and its events. */
static parac_status setup_output_stream(gpu_search *g, parac_error *error)
{
    output_stream *s = &g->stream;
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

/* LOCAL*: per-warp stacks as deep as memory allows (at least 2 levels, else ROUNDS), the
 * device rows for LOCAL_ROWS, the round counters, and an output buffer when storing. */
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
    if (g->strategy == PARAC_FCA_GPU_LOCAL_ROWS || g->strategy == PARAC_FCA_GPU_LOCAL_STREAM ||
        g->strategy == PARAC_FCA_GPU_LOCAL_STAGED) {
        RETURN_IF_FAILED(gpu_alloc(g, (void **)&g->rows, search->objects * aw * 8 + 8, error));
        RETURN_IF_FAILED(parac_cuda_upload(&g->context, g->rows, search->rows, search->objects * aw * 8, error));
    }
    if (store) {
        /* intents only (attribute_words each): cheap, so room for many rounds' worth of children */
        g->output_capacity = (size_t)1 << 22;
        if (g->output_capacity * aw * 8 > free_bytes / 8) g->output_capacity = free_bytes / 8 / (aw * 8);
        if (g->device_cap && g->output_capacity > g->output_cap) g->output_capacity = g->output_cap;
        if (g->output_capacity < 4 * (n + 1)) g->output_capacity = 4 * (n + 1);
        RETURN_IF_FAILED(gpu_alloc(g, (void **)&g->output, g->output_capacity * aw * 8, error));
        /* no room for a second buffer or pinned memory: store without streaming (search_local) */
        if (g->strategy == PARAC_FCA_GPU_LOCAL_STREAM && setup_output_stream(g, &ignored) != PARAC_OK) {
            (void)cudaGetLastError();
            gpu_free(g, g->stream.device[1], g->output_capacity * aw * 8);
            release_output_stream(&g->stream);
        }
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
    size_t buffers = store && g->strategy != PARAC_FCA_GPU_ROUNDS ? (g->strategy == PARAC_FCA_GPU_LOCAL_STREAM ? 2 : 1) : 0;
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

/* LOCAL_STAGED: as many children per warp slot as fit STAGE_BYTES_PER_WARP (at most
 * STAGE_MAX_ENTRIES); a context whose child does not fit twice runs as LOCAL_ROWS instead. */
static void plan_stage(gpu_search *g, const fca_search *search)
{
    size_t entry_words = search->object_words + search->attribute_words + search->attributes * search->attribute_words;
    size_t capacity = (STAGE_BYTES_PER_WARP - 8) / (entry_words * 8 + 4);
    if (capacity > STAGE_MAX_ENTRIES) capacity = STAGE_MAX_ENTRIES;
    if (capacity < 2) {
        g->strategy = PARAC_FCA_GPU_LOCAL_ROWS;
        return;
    }
    g->stage_capacity = (uint32_t)capacity;
    g->stage_entry_words = (uint32_t)entry_words;
    g->stage_warp_words = capacity * entry_words + (capacity * 4 + 7) / 8;
    g->stage_shared_bytes = (THREADS_PER_BLOCK / 32) * g->stage_warp_words * 8; /* <= 8 x 6000 B */
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
        if (g->strategy == PARAC_FCA_GPU_LOCAL_STAGED) plan_stage(g, search);
        if (g->strategy == PARAC_FCA_GPU_LOCAL_STAGED)
            PARAC_CUDA_RETURN(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &resident, expand_staged_kernel, THREADS_PER_BLOCK, g->stage_shared_bytes));
        else
            PARAC_CUDA_RETURN(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, expand_local_kernel,
                                                                            THREADS_PER_BLOCK, 0));
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

/* One kernel over the top `batch` tasks; returns the number of children made. */
static parac_status run_round(gpu_search *g, size_t batch, unsigned int *made, parac_error *error)
{
    parac_status status = PARAC_OK;
    unsigned int counters[3];
    batch_params p;
    memset(&p, 0, sizeof p);
    p.shape = g->shape;
    p.columns = g->columns;
    p.pool = g->pool;
    p.children = g->children;
    p.batch_first = g->pool_count - batch;
    p.batch = (unsigned int)batch;
    p.head = g->counters;
    p.child_count = g->counters + 1;
    p.overflow = g->counters + 2;
    p.scratch = g->scratch;
    p.child_lists = g->child_lists;
    PARAC_TRY(parac_cuda_memset(&g->context, g->counters, 0, 3 * sizeof(unsigned int), error));
    expand_batch_kernel<<<g->blocks, THREADS_PER_BLOCK, 0, (cudaStream_t)g->context.stream>>>(p);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(&g->context, counters, g->counters, sizeof counters, error));
    if (counters[2]) return parac_fail(error, PARAC_ERR_INTERNAL, "fca cuda: child buffer overflow");
    *made = counters[1];
fail:
    return status;
}

/* LOCAL*: launches (without waiting) one kernel over the top `batch` tasks; concepts go to output. */
static parac_status launch_local_round(gpu_search *g, size_t batch, word_t *output, parac_error *error)
{
    parac_status status = PARAC_OK;
    long long n = g->shape.attributes;
    long long own_push = (long long)batch + n - 1, own_out = n; /* see expand_subtree */
    local_params p;
    memset(&p, 0, sizeof p);
    p.shape = g->shape;
    p.columns = g->columns;
    p.rows = g->rows;
    p.close_by_rows = g->strategy == PARAC_FCA_GPU_LOCAL_ROWS || g->strategy == PARAC_FCA_GPU_LOCAL_STREAM;
    p.block_queue = g->strategy == PARAC_FCA_GPU_LOCAL_STREAM;
    p.close_by_rows = p.close_by_rows || g->strategy == PARAC_FCA_GPU_LOCAL_STAGED;
    p.stage_capacity = g->stage_capacity;
    p.stage_entry_words = g->stage_entry_words;
    p.stage_warp_words = g->stage_warp_words;
    p.pool = g->pool;
    p.children = g->children;
    p.batch_first = g->pool_count - batch;
    p.batch = (unsigned int)batch;
    p.counters = g->local;
    p.push_limit = (long long)g->children.capacity - own_push;
    p.out_limit = (long long)g->output_capacity - own_out;
    p.output = output;
    p.output_capacity = g->output_capacity;
    p.stack = g->stack;
    p.scratch = g->scratch;
    p.level_words = g->level_words;
    p.levels = g->levels;
    p.hungry_idle = g->warps / 32 ? g->warps / 32 : 1;
    PARAC_TRY(parac_cuda_memset(&g->context, g->local, 0, sizeof(local_counters), error));
    if (g->strategy == PARAC_FCA_GPU_LOCAL_STAGED)
        expand_staged_kernel<<<g->blocks, THREADS_PER_BLOCK, g->stage_shared_bytes,
                               (cudaStream_t)g->context.stream>>>(p);
    else
        expand_local_kernel<<<g->blocks, THREADS_PER_BLOCK, 0, (cudaStream_t)g->context.stream>>>(p);
    PARAC_CUDA_TRY_LAUNCH();
fail:
    return status;
}

/* Waits for the round's kernel; reports the concepts found, the tasks pushed for the next round
 * and the intents written to the output. */
static parac_status finish_local_round(gpu_search *g, unsigned long long *found, unsigned int *pushed,
                                       unsigned int *stored, parac_error *error)
{
    parac_status status = PARAC_OK;
    local_counters counters;
    PARAC_TRY(parac_cuda_download(&g->context, &counters, g->local, sizeof counters, error));
    if (counters.overflow) return parac_fail(error, PARAC_ERR_INTERNAL, "fca cuda: child buffer overflow");
    *found = counters.concepts;
    *pushed = counters.child_count;
    *stored = counters.out_count;
fail:
    return status;
}

/* Appends `count` search-order intents of a host buffer to concepts, mapped to original ids. */
static parac_status append_intents(const fca_search *search, const parac_word *intents, size_t count, parac_word *original,
                                   parac_fca_concepts *concepts, parac_error *error)
{
    parac_status status = PARAC_OK;
    for (size_t i = 0; status == PARAC_OK && i < count; i++) {
        fca_search_original_intent(search, intents + i * search->attribute_words, original);
        status = fca_concepts_append(concepts, original, error);
    }
    return status;
}

/* Downloads `count` intents from the device and appends them (original ids) to concepts. */
static parac_status store_intents(gpu_search *g, const fca_search *search, const word_t *device_intents,
                                  size_t count, parac_word **buffer, size_t *buffer_words, parac_word *original,
                                  parac_fca_concepts *concepts, parac_error *error)
{
    size_t words = search->attribute_words, needed = count * words;
    parac_status status;
    if (needed > *buffer_words) {
        parac_word *grown = (parac_word *)realloc(*buffer, needed * sizeof(parac_word));
        if (!grown) return parac_fail_no_memory(error, "downloaded intents", needed * 8);
        *buffer = grown;
        *buffer_words = needed;
    }
    status = parac_cuda_download(&g->context, *buffer, device_intents, needed * 8, error);
    return status == PARAC_OK ? append_intents(search, *buffer, count, original, concepts, error) : status;
}

/* Makes room for `made` children on the pool (spilling its top to the host), then pushes them. */
static parac_status push_children(gpu_search *g, unsigned int made, parac_error *error)
{
    parac_status status;
    if (g->pool_count + made > g->pool.capacity) {
        size_t needed = g->pool_count + made - g->pool.capacity, extra = g->pool.capacity / 4;
        size_t count = needed + extra < g->pool_count ? needed + extra : g->pool_count;
        if ((status = spill_to_host(g, count, error)) != PARAC_OK) return status;
    }
    status = copy_tasks(g, &g->pool, g->pool_count, &g->children, 0, made, error);
    if (status == PARAC_OK) g->pool_count += made;
    return status;
}

/* The stall guard of the host loops (issue 18: on the 1 % dense T10I4D100K a forced GPU run had not
 * finished after 90 s, where 16 CPU threads take 0.9 s). `--device auto` keeps contexts under 5 %
 * dense on the CPU (fca.c); a run forced onto the GPU stops with PARAC_ERR_UNSUPPORTED instead of
 * running for ever when, after its first STALL_GRACE_SECONDS,
 *   - no round found a new concept for STALL_SECONDS (any context), or
 *   - on a context under 5 % dense, it finds fewer than STALL_SPARSE_RATE concepts a second: a tenth of
 *     what one CPU thread of the sparse search finds on such contexts (430,000/s on T10I4D100K on
 *     a 2-core developer machine), so its remaining time is over 10x one CPU thread's whole run
 *     (the projected time, elapsed x estimate / found, against estimate / CPU rate: the
 *     estimate cancels out, leaving the rate).
 * Checked between rounds, on the host, from the count the loop already has. */
#define STALL_GRACE_SECONDS 10.0
#define STALL_SECONDS 30.0
#define STALL_SPARSE_RATE 40000.0
#define STALL_SPARSE_DENSITY 0.05

typedef struct stall_guard {
    double started, last_progress;
    uint64_t last_count;
    double density;
} stall_guard;

static void stall_guard_init(stall_guard *guard, const fca_search *search, uint64_t count)
{
    size_t cells = parac_bitset_popcount(search->columns, search->attributes * search->object_words);
    guard->started = guard->last_progress = parac_now_seconds();
    guard->last_count = count;
    guard->density = search->objects && search->attributes
                         ? (double)cells / ((double)search->objects * (double)search->attributes)
                         : 1.0;
}

/* 1 (error filled) when the search must stop: see above. */
static int stall_guard_tripped(stall_guard *guard, uint64_t count, parac_error *error)
{
    double now = parac_now_seconds(), elapsed = now - guard->started;
    if (count != guard->last_count) {
        guard->last_count = count;
        guard->last_progress = now;
    }
    if (elapsed < STALL_GRACE_SECONDS) return 0;
    if (now - guard->last_progress >= STALL_SECONDS) {
        parac_fail(error, PARAC_ERR_UNSUPPORTED,
                   "fca cuda: the GPU search stalled (no new concept in %.0f s, %llu found); use --device cpu",
                   now - guard->last_progress, (unsigned long long)count);
        return 1;
    }
    if (guard->density < STALL_SPARSE_DENSITY && (double)count < STALL_SPARSE_RATE * elapsed) {
        parac_fail(error, PARAC_ERR_UNSUPPORTED,
                   "fca cuda: the GPU search stalled on a sparse context (%.2g %% dense: %llu concepts in %.0f s, "
                   "over 10x slower than one CPU thread); use --device cpu",
                   guard->density * 100.0, (unsigned long long)count, elapsed);
        return 1;
    }
    return 0;
}

/* LOCAL*: rounds of depth-first subtrees until the pool and the host spill are empty. */
static parac_status search_local(gpu_search *g, const fca_search *search, parac_fca_concepts *concepts,
                                 uint64_t *count, parac_error *error)
{
    size_t buffer_words = 0, n = search->attributes;
    parac_word *buffer = NULL, *original = (parac_word *)malloc(search->original_words * 8);
    parac_status status = original ? PARAC_OK : parac_fail_no_memory(error, "intent", 64);
    stall_guard guard;
    stall_guard_init(&guard, search, *count);
    while (status == PARAC_OK && (g->pool_count || g->spill.count)) {
        size_t batch, batch_limit;
        unsigned long long found = 0;
        unsigned int pushed = 0, stored = 0;
        if (fca_search_cancelled(search, error)) {
            status = PARAC_ERR_CANCELLED;
            break;
        }
        if (stall_guard_tripped(&guard, *count, error)) {
            status = PARAC_ERR_UNSUPPORTED;
            break;
        }
        if (!g->pool_count && (status = reload_from_host(g, error)) != PARAC_OK) break;
        if ((status = maybe_grow(g, error)) != PARAC_OK) break;
        /* the batch's own units (one each, `attributes` for the first) take at most about half of
         * the child buffer; the rest is reserved by nodes expanded below the tasks */
        batch_limit = (g->children.capacity - n) / 2;
        if (batch_limit == 0) batch_limit = 1; /* the child buffer holds more than `attributes` tasks */
        batch = g->pool_count < batch_limit ? g->pool_count : batch_limit;
        if ((status = launch_local_round(g, batch, g->output, error)) != PARAC_OK ||
            (status = finish_local_round(g, &found, &pushed, &stored, error)) != PARAC_OK)
            break;
        *count += found;
        g->pool_count -= batch;
        if (concepts && stored &&
            (status = store_intents(g, search, g->output, stored, &buffer, &buffer_words, original, concepts,
                                    error)) != PARAC_OK)
            break;
        status = push_children(g, pushed, error);
    }
    free(buffer);
    free(original);
    return status;
}

/* LOCAL_STREAM, storing: hands the intents copied into pinned buffer k (if any) to the host. */
static parac_status take_streamed(gpu_search *g, int k, const fca_search *search, parac_word *original,
                                  parac_fca_concepts *concepts, parac_error *error)
{
    output_stream *s = &g->stream;
    parac_status status = PARAC_OK;
    size_t count = s->pending[k];
    if (!count) return PARAC_OK;
    PARAC_CUDA_TRY(cudaEventSynchronize(s->copied[k]));
    s->pending[k] = 0;
    status = append_intents(search, s->pinned[k], count, original, concepts, error);
fail:
    return status;
}

/* LOCAL_STREAM, storing: starts copying round output k (stored intents) to pinned buffer k once
 * the round's kernel is done, on the copy stream. */
static parac_status start_streaming(gpu_search *g, int k, size_t stored, parac_error *error)
{
    output_stream *s = &g->stream;
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

/* LOCAL_STREAM, storing: like search_local, but round r writes device buffer k = r % 2 and, while
 * its kernel runs, the host maps round r - 1's intents (copied on the copy stream meanwhile).
 * Buffer k is written again two rounds later, after take_streamed waited for its copy. */
static parac_status search_local_streamed(gpu_search *g, const fca_search *search, parac_fca_concepts *concepts,
                                          uint64_t *count, parac_error *error)
{
    size_t n = search->attributes;
    parac_word *original = (parac_word *)malloc(search->original_words * 8);
    parac_status status = original ? PARAC_OK : parac_fail_no_memory(error, "intent", 64);
    int k = 0;
    stall_guard guard;
    stall_guard_init(&guard, search, *count);
    while (status == PARAC_OK && (g->pool_count || g->spill.count)) {
        size_t batch, batch_limit;
        unsigned long long found = 0;
        unsigned int pushed = 0, stored = 0;
        if (fca_search_cancelled(search, error)) {
            status = PARAC_ERR_CANCELLED;
            break;
        }
        if (stall_guard_tripped(&guard, *count, error)) {
            status = PARAC_ERR_UNSUPPORTED;
            break;
        }
        if (!g->pool_count && (status = reload_from_host(g, error)) != PARAC_OK) break;
        if ((status = maybe_grow(g, error)) != PARAC_OK) break;
        batch_limit = (g->children.capacity - n) / 2 ? (g->children.capacity - n) / 2 : 1; /* as search_local */
        batch = g->pool_count < batch_limit ? g->pool_count : batch_limit;
        if ((status = launch_local_round(g, batch, g->stream.device[k], error)) != PARAC_OK ||
            (status = take_streamed(g, 1 - k, search, original, concepts, error)) != PARAC_OK || /* overlaps */
            (status = finish_local_round(g, &found, &pushed, &stored, error)) != PARAC_OK ||
            (status = start_streaming(g, k, stored, error)) != PARAC_OK)
            break;
        *count += found;
        g->pool_count -= batch;
        status = push_children(g, pushed, error);
        k = 1 - k;
    }
    for (int last = 0; last < 2; last++) /* the last round's intents (also drains copies after a failure) */
        if (status == PARAC_OK) status = take_streamed(g, last, search, original, concepts, error);
    free(original);
    return status;
}

static parac_status search_rounds(gpu_search *g, const fca_search *search, parac_fca_concepts *concepts,
                                  uint64_t *count, parac_error *error)
{
    size_t buffer_words = 0;
    parac_word *buffer = NULL, *original = (parac_word *)malloc(search->original_words * 8);
    parac_status status = original ? PARAC_OK : parac_fail_no_memory(error, "intent", 64);
    stall_guard guard;
    stall_guard_init(&guard, search, *count);
    while (status == PARAC_OK && (g->pool_count || g->spill.count)) {
        size_t batch, batch_limit;
        unsigned int made = 0;
        if (fca_search_cancelled(search, error)) {
            status = PARAC_ERR_CANCELLED;
            break;
        }
        if (stall_guard_tripped(&guard, *count, error)) {
            status = PARAC_ERR_UNSUPPORTED;
            break;
        }
        if (!g->pool_count && (status = reload_from_host(g, error)) != PARAC_OK) break;
        if ((status = maybe_grow(g, error)) != PARAC_OK) break;
        batch_limit = g->children.capacity / search->attributes;
        batch = g->pool_count < batch_limit ? g->pool_count : batch_limit;
        if ((status = run_round(g, batch, &made, error)) != PARAC_OK) break;
        *count += made;
        g->pool_count -= batch;
        if (concepts && made &&
            (status = store_intents(g, search, g->children.intent, made, &buffer, &buffer_words, original, concepts,
                                    error)) != PARAC_OK)
            break;
        status = push_children(g, made, error);
    }
    free(buffer);
    free(original);
    return status;
}

extern "C" parac_status fca_fcbo_cuda(const fca_search *search, int cuda_device, parac_cuda_context *shared_context,
                                      parac_fca_gpu_strategy strategy, uint64_t pool_bytes,
                                      uint64_t max_device_bytes, parac_fca_concepts *concepts, uint64_t *count,
                                      parac_error *error)
{
    /* The engine's (or the run's) device during the search; the caller's current device after it. */
    parac_caller_device_guard caller_device(shared_context ? shared_context->ordinal : cuda_device);
    gpu_search g;
    parac_word *extent = (parac_word *)calloc(search->object_words, 8);
    parac_word *intent = (parac_word *)calloc(search->attribute_words, 8);
    parac_word *original = (parac_word *)calloc(search->original_words, 8);
    parac_status status = PARAC_OK;
    memset(&g, 0, sizeof g);
    g.strategy = strategy == PARAC_FCA_GPU_AUTO ? PARAC_FCA_GPU_LOCAL_ROWS : strategy;
    *count = 0;
    if (!extent || !intent || !original) status = parac_fail_no_memory(error, "root concept", search->object_words * 8);
    if (status == PARAC_OK && search->objects < search->min_support) goto done; /* not even the top concept */
    if (status == PARAC_OK) {
        fca_search_root(search, extent, intent);
        fca_search_original_intent(search, intent, original);
        *count = 1;
        if (concepts) status = fca_concepts_append(concepts, original, error);
    }
    if (status != PARAC_OK || search->attributes == 0 || parac_bitset_popcount(intent, search->attribute_words) == search->attributes)
        goto done;
    if ((status = setup_gpu(&g, search, cuda_device, shared_context, concepts != NULL, pool_bytes, max_device_bytes,
                            error)) == PARAC_OK &&
        (status = push_root(&g, search, extent, intent, error)) == PARAC_OK)
        status = g.strategy == PARAC_FCA_GPU_ROUNDS ? search_rounds(&g, search, concepts, count, error)
                 : concepts && g.stream.ready   ? search_local_streamed(&g, search, concepts, count, error)
                                                : search_local(&g, search, concepts, count, error);
    if (status == PARAC_OK && g.device_cap && g.device_peak > g.device_cap)
        status = parac_fail(error, PARAC_ERR_INTERNAL, "fca cuda: used %zu device bytes, over max_device_bytes %zu",
                            g.device_peak, g.device_cap);
done:
    release_gpu(&g);
    free(extent);
    free(intent);
    free(original);
    return status;
}
