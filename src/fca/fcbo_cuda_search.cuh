/* fca/fcbo_cuda_search.cuh — the GPU search as one includable unit: the shared types, the kernels
 * (fcbo_cuda_warp.cuh, fcbo_cuda_local.cuh), the host's buffers and sizing (fcbo_cuda_pool.cuh,
 * fcbo_cuda_setup.cuh), rounds (one launch helper: launch_on_grid), storing intents, the stall guard,
 * the host loop of each strategy and run_gpu_search. fcbo_cuda.cu includes it for the library's
 * entry point; a kernel-lab variant (dev/fca/04-06) includes it to run its kernel or host loop
 * inside the library's search. Everything here is static: each includer is its own translation unit. */
#ifndef PARAC_FCA_FCBO_CUDA_SEARCH_CUH
#define PARAC_FCA_FCBO_CUDA_SEARCH_CUH

#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/timer.h"
#include "cuda/context.h"
#include "cuda/device_guard.cuh"
#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
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

/* ---- kernels (one translation unit: the files below are included, their kernels stay static) ---- */

#include "fca/fcbo_cuda_warp.cuh"
#include "fca/fcbo_cuda_local.cuh"

/* ---- host side ------------------------------------------------------------------ */

#include "fca/fcbo_cuda_pool.cuh"
#include "fca/fcbo_cuda_setup.cuh"

/* Every search kernel runs on the resident grid (g->blocks x THREADS_PER_BLOCK, sized in setup_gpu) on the
 * search's stream, without waiting. */
template <typename Params>
static parac_status launch_on_grid(const gpu_search *g, void (*kernel)(Params), size_t shared_bytes, const Params &p,
                                   parac_error *error)
{
    return parac_cuda_launch_grid(kernel, dim3(g->blocks), THREADS_PER_BLOCK, shared_bytes,
                                  (cudaStream_t)g->context.stream, error, p);
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
    PARAC_TRY(launch_on_grid(g, expand_batch_kernel, 0, p, error));
    PARAC_TRY(parac_cuda_download(&g->context, counters, g->counters, sizeof counters, error));
    if (counters[2]) return parac_fail(error, PARAC_ERR_INTERNAL, "fca cuda: child buffer overflow");
    *made = counters[1];
fail:
    return status;
}

/* LOCAL_ROWS: launches (without waiting) g->local_kernel over the top `batch` tasks; concepts go to output. */
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
    PARAC_TRY(launch_on_grid(g, g->local_kernel, g->local_shared_bytes, p, error));
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

/* What every host loop does before a round: stop when asked to or when the search stalls, refill an
 * empty device pool from the host spill, grow the buffers while work piles up. */
static parac_status prepare_round(gpu_search *g, const fca_search *search, stall_guard *guard, uint64_t count,
                                  parac_error *error)
{
    if (fca_search_cancelled(search, error)) return PARAC_ERR_CANCELLED;
    if (stall_guard_tripped(guard, count, error)) return PARAC_ERR_UNSUPPORTED;
    if (!g->pool_count) RETURN_IF_FAILED(reload_from_host(g, error));
    return maybe_grow(g, error);
}

/* LOCAL_ROWS: the tasks of the next round. The batch's own units (one each, `attributes` for the first)
 * take at most about half of the child buffer; the rest is reserved by nodes expanded below them. */
static size_t local_batch(const gpu_search *g, size_t attributes)
{
    size_t limit = (g->children.capacity - attributes) / 2;
    if (limit == 0) limit = 1; /* the child buffer holds more than `attributes` tasks */
    return g->pool_count < limit ? g->pool_count : limit;
}

/* LOCAL_ROWS: rounds of depth-first subtrees until the pool and the host spill are empty. */
static parac_status search_local(gpu_search *g, const fca_search *search, parac_fca_concepts *concepts,
                                 uint64_t *count, parac_error *error)
{
    size_t buffer_words = 0, n = search->attributes;
    parac_word *buffer = NULL, *original = (parac_word *)malloc(search->original_words * 8);
    parac_status status = original ? PARAC_OK : parac_fail_no_memory(error, "intent", 64);
    stall_guard guard;
    stall_guard_init(&guard, search, *count);
    while (status == PARAC_OK && (g->pool_count || g->spill.count)) {
        size_t batch;
        unsigned long long found = 0;
        unsigned int pushed = 0, stored = 0;
        if ((status = prepare_round(g, search, &guard, *count, error)) != PARAC_OK) break;
        batch = local_batch(g, n);
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

/* ROUNDS: rounds of one node per warp until the pool and the host spill are empty. */
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
        if ((status = prepare_round(g, search, &guard, *count, error)) != PARAC_OK) break;
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

/* One host loop over a prepared gpu_search (search_local, search_rounds, or a kernel-lab variant's). */
typedef parac_status (*gpu_search_loop)(gpu_search *g, const fca_search *search, parac_fca_concepts *concepts,
                                        uint64_t *count, parac_error *error);

/* The whole GPU search on g, which the caller zeroed and gave its strategy (ROUNDS or LOCAL_ROWS;
 * a kernel-lab variant also sets local_kernel and local_shared_bytes): the root concept, the
 * device setup, the rounds of `local_loop` (search_local in the library) or of search_rounds when
 * the strategy is, or fell back to, ROUNDS; the device cap's check. Releases g. */
static parac_status run_gpu_search(gpu_search *g, gpu_search_loop local_loop, const fca_search *search, int cuda_device,
                                   parac_cuda_context *shared_context, uint64_t pool_bytes, uint64_t max_device_bytes,
                                   parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    parac_word *extent = (parac_word *)calloc(search->object_words, 8);
    parac_word *intent = (parac_word *)calloc(search->attribute_words, 8);
    parac_word *original = (parac_word *)calloc(search->original_words, 8);
    parac_status status = PARAC_OK;
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
    if ((status = setup_gpu(g, search, cuda_device, shared_context, concepts != NULL, pool_bytes, max_device_bytes,
                            error)) == PARAC_OK &&
        (status = push_root(g, search, extent, intent, error)) == PARAC_OK)
        status = g->strategy == PARAC_FCA_GPU_ROUNDS ? search_rounds(g, search, concepts, count, error)
                                                     : local_loop(g, search, concepts, count, error);
    if (status == PARAC_OK && g->device_cap && g->device_peak > g->device_cap)
        status = parac_fail(error, PARAC_ERR_INTERNAL, "fca cuda: used %zu device bytes, over max_device_bytes %zu",
                            g->device_peak, g->device_cap);
done:
    release_gpu(g);
    free(extent);
    free(intent);
    free(original);
    return status;
}

#endif
