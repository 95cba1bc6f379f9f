/* ac/ac4_gpu_rows.cu — AC4-GPU and AC4-GPU+ with implicit edges (variant "rows").
 *
 * The N-E edges of counter slot (arc x->y, value a) are (x,a)->(y,b) for every b
 * of y, satisfied when bit b of row a of the arc's matrix is 1. In the edge
 * layout (ne_model.cu) those |Dy| edges are contiguous, in b order, so the
 * reduce-by-key over them is a sum over one matrix row: popcount(row(a) & D(y)),
 * 64 edges per word, and the counter slots need no key array, no sort and no
 * CUB. The paper's two algorithms, counter by counter instead of edge by edge:
 *   AC4-GPU   every round, counter = popcount(row & D(y)) for each present (arc, a); 0 -> delete.
 *   AC4-GPU+  counters once (round 1), then each round counter -= popcount(row & Removed(y)),
 *             Removed(y) = y's values deleted in the previous round (the edges whose destination
 *             was deleted); 0 -> delete. One thread owns a counter (a gather, not the paper's
 *             scatter of atomic decrements).
 * Deletion is two-phase so every round reads stable domains (Jacobi rounds: the same rounds as
 * the edge layout, gpu-bitset and the CPU twin): phase 1 marks doomed values (atomicOr into a
 * bitset), phase 2 (one thread per domain word) applies them. Each value is deleted exactly once,
 * so domain sizes stay exact and the paper's "deleted twice" recount is not needed.
 * Fixed costs cut: one device allocation and one upload (domains, arc table, forward matrices);
 * the reverse matrices are transposed on the device; no host sync inside a batch of rounds:
 * batches of 4, 8, 16 ... 64 rounds, then one read of the per-round flags. Rounds after the
 * fixpoint delete nothing (AC is monotone), rounds after a wipe-out only delete more; the host
 * takes the first round without change (or with a wipe-out) as the last one.
 *
 * Kernels:
 *   prepare_kernel  per slot: its arc (binary search, stored); odd arcs: row b of the transposed matrix
 *   count_kernel    per slot, phase 1: full count (AC4-GPU rounds, AC4-GPU+ round 1) or decrement
 *   apply_kernel    per domain word, phase 2: delete the doomed values, domain sizes, round flags
 */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_gpu.h"
#include "core/error.h"
#include "core/timer.h"
#include "cuda/cuda_check.h"

enum { ROWS_FIRST_BATCH = 4, ROWS_MAX_BATCH = 64 };
enum { ROUND_CHANGED = 0, ROUND_WIPEOUT = 1 };

typedef struct rows_model {
    uint32_t arc_count, variable_count;
    uint64_t slot_count, domain_words;
    const uint32_t *arc_x, *arc_y, *row_words, *arc_slot; /* arc_slot: arc_count + 1 */
    const uint64_t *matrix_offset, *domain_word_offset;   /* words; variable_count + 1 */
    const uint32_t *word_var;                             /* domain word -> variable */
    uint64_t *matrices;                                   /* even arcs uploaded, odd arcs transposed here */
    uint32_t *slot_arc;
    int32_t *counters, *sizes, *flags;                    /* flags: 2 per round of a batch */
    unsigned long long *dom, *doomed, *removed;           /* word-aligned per variable (ac_domains layout) */
} rows_model;

/* Byte offsets of every array inside the one device block; [0, upload_bytes) is uploaded,
 * [zero_from, total_bytes) is zeroed, the rest is written by kernels. */
typedef struct rows_layout {
    size_t arc_x, arc_y, row_words, arc_slot, matrix_offset, domain_word_offset, word_var, sizes, dom, matrices;
    size_t upload_bytes, slot_arc, counters, doomed, removed, flags, zero_from, total_bytes;
    uint64_t even_words, odd_words;
} rows_layout;

static __device__ uint32_t arc_of_slot(const uint32_t *arc_slot, uint32_t arc_count, uint64_t slot)
{
    uint32_t low = 0, high = arc_count; /* last arc with arc_slot[arc] <= slot */
    while (high - low > 1) {
        uint32_t mid = low + (high - low) / 2;
        if (arc_slot[mid] <= slot) low = mid;
        else high = mid;
    }
    return low;
}

/* Row b of odd arc (y against x) = column b of the even arc's matrix (x against y). */
static __device__ void transpose_row(const rows_model &m, uint32_t arc, uint64_t b)
{
    uint32_t even = arc - 1, even_words = m.row_words[even], words = m.row_words[arc];
    uint64_t rows = m.arc_slot[even + 1] - m.arc_slot[even], bit = b % 64;
    const uint64_t *column = m.matrices + m.matrix_offset[even] + b / 64;
    uint64_t *out = m.matrices + m.matrix_offset[arc] + b * words;
    for (uint32_t w = 0; w < words; w++) {
        uint64_t word = 0, first = (uint64_t)w * 64, last = first + 64 < rows ? first + 64 : rows;
        for (uint64_t a = first; a < last; a++) word |= ((column[a * even_words] >> bit) & 1ull) << (a - first);
        out[w] = word;
    }
}

static __global__ void prepare_kernel(rows_model m)
{
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < m.slot_count;
         s += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t arc = arc_of_slot(m.arc_slot, m.arc_count, s);
        m.slot_arc[s] = arc;
        if (arc % 2 == 1) transpose_row(m, arc, s - m.arc_slot[arc]);
    }
}

/* Phase 1. full: counter = supports in D(y); else counter -= supports deleted from y last round. */
static __global__ void count_kernel(rows_model m, int full)
{
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < m.slot_count;
         s += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t arc = m.slot_arc[s], words = m.row_words[arc];
        uint64_t a = s - m.arc_slot[arc], x_word = m.domain_word_offset[m.arc_x[arc]] + a / 64;
        unsigned long long bit = 1ull << (a % 64);
        if (!(m.dom[x_word] & bit)) continue; /* deleted: its counter is never read again */
        const uint64_t *row = m.matrices + m.matrix_offset[arc] + a * words;
        const unsigned long long *against = (full ? m.dom : m.removed) + m.domain_word_offset[m.arc_y[arc]];
        int32_t supports = 0;
        for (uint32_t w = 0; w < words; w++) {
            unsigned long long mask = against[w];
            if (mask) supports += __popcll(row[w] & mask); /* removed words are mostly 0: skip the row */
        }
        if (!full && supports == 0) continue;
        int32_t left = full ? supports : m.counters[s] - supports;
        m.counters[s] = left;
        if (left <= 0) atomicOr(&m.doomed[x_word], bit);
    }
}

/* Phase 2: each domain word is one thread's, so each value is deleted once and sizes stay exact. */
static __global__ void apply_kernel(rows_model m, int32_t *round_flags)
{
    for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < m.domain_words;
         w += (uint64_t)gridDim.x * blockDim.x) {
        unsigned long long doomed = m.doomed[w], present = m.dom[w], kill = doomed & present;
        if (doomed) m.doomed[w] = 0;
        m.removed[w] = kill;
        if (!kill) continue;
        m.dom[w] = present & ~kill;
        int32_t count = __popcll(kill);
        round_flags[ROUND_CHANGED] = 1;
        if (atomicSub(&m.sizes[m.word_var[w]], count) - count <= 0) round_flags[ROUND_WIPEOUT] = 1;
    }
}

static size_t take(size_t *cursor, size_t bytes)
{
    size_t at = *cursor;
    *cursor += (bytes + 255) / 256 * 256;
    return at;
}

static void rows_plan(const ac_model *model, rows_layout *l)
{
    const parac_csp_network *net = model->network;
    size_t arcs = model->arc_count, n = net->variable_count, cursor = 0;
    uint64_t slots = model->arc_value_offset[arcs], words = model->domain_word_offset[n];
    memset(l, 0, sizeof *l);
    for (size_t a = 0; a < arcs; a++) {
        uint64_t matrix_words = (uint64_t)net->domain_size[model->arcs[a].x] * model->arcs[a].row_words;
        if (a % 2 == 0) l->even_words += matrix_words;
        else l->odd_words += matrix_words;
    }
    l->arc_x = take(&cursor, arcs * 4), l->arc_y = take(&cursor, arcs * 4), l->row_words = take(&cursor, arcs * 4);
    l->arc_slot = take(&cursor, (arcs + 1) * 4), l->matrix_offset = take(&cursor, arcs * 8);
    l->domain_word_offset = take(&cursor, (n + 1) * 8), l->word_var = take(&cursor, words * 4);
    l->sizes = take(&cursor, n * 4), l->dom = take(&cursor, words * 8);
    l->matrices = cursor;
    l->upload_bytes = cursor + l->even_words * 8;
    take(&cursor, (l->even_words + l->odd_words) * 8);
    l->slot_arc = take(&cursor, slots * 4), l->counters = take(&cursor, slots * 4);
    l->zero_from = cursor;
    l->doomed = take(&cursor, words * 8), l->removed = take(&cursor, words * 8);
    l->flags = take(&cursor, 2 * ROWS_MAX_BATCH * 4);
    l->total_bytes = cursor;
}

#define AT(base, offset, type) ((type *)((char *)(base) + (offset)))

/* Host image of the uploaded part: arc table, domain layout, domains, forward matrices. */
static void rows_fill(const ac_model *model, const ac_domains *domains, const rows_layout *l, void *h)
{
    const parac_csp_network *net = model->network;
    size_t arcs = model->arc_count, n = net->variable_count;
    uint64_t even = 0, odd = l->even_words;
    for (size_t a = 0; a < arcs; a++) {
        const ac_arc *arc = &model->arcs[a];
        uint64_t matrix_words = (uint64_t)net->domain_size[arc->x] * arc->row_words;
        AT(h, l->arc_x, uint32_t)[a] = arc->x, AT(h, l->arc_y, uint32_t)[a] = arc->y;
        AT(h, l->row_words, uint32_t)[a] = (uint32_t)arc->row_words;
        AT(h, l->arc_slot, uint32_t)[a] = (uint32_t)model->arc_value_offset[a];
        AT(h, l->matrix_offset, uint64_t)[a] = a % 2 == 0 ? even : odd;
        if (a % 2 == 0) {
            memcpy(AT(h, l->matrices, uint64_t) + even, arc->matrix, matrix_words * 8);
            even += matrix_words;
        } else {
            odd += matrix_words;
        }
    }
    AT(h, l->arc_slot, uint32_t)[arcs] = (uint32_t)model->arc_value_offset[arcs];
    for (size_t v = 0; v <= n; v++) AT(h, l->domain_word_offset, uint64_t)[v] = model->domain_word_offset[v];
    for (size_t v = 0; v < n; v++) {
        AT(h, l->sizes, int32_t)[v] = (int32_t)domains->size[v];
        for (size_t w = model->domain_word_offset[v]; w < model->domain_word_offset[v + 1]; w++)
            AT(h, l->word_var, uint32_t)[w] = (uint32_t)v;
    }
    memcpy(AT(h, l->dom, uint64_t), domains->words, model->domain_word_offset[n] * 8);
}

static void rows_bind(const ac_model *model, const rows_layout *l, void *d, rows_model *m)
{
    m->arc_count = (uint32_t)model->arc_count;
    m->variable_count = (uint32_t)model->network->variable_count;
    m->slot_count = model->arc_value_offset[model->arc_count];
    m->domain_words = model->domain_word_offset[model->network->variable_count];
    m->arc_x = AT(d, l->arc_x, uint32_t), m->arc_y = AT(d, l->arc_y, uint32_t);
    m->row_words = AT(d, l->row_words, uint32_t), m->arc_slot = AT(d, l->arc_slot, uint32_t);
    m->matrix_offset = AT(d, l->matrix_offset, uint64_t);
    m->domain_word_offset = AT(d, l->domain_word_offset, uint64_t), m->word_var = AT(d, l->word_var, uint32_t);
    m->matrices = AT(d, l->matrices, uint64_t), m->slot_arc = AT(d, l->slot_arc, uint32_t);
    m->counters = AT(d, l->counters, int32_t), m->sizes = AT(d, l->sizes, int32_t);
    m->flags = AT(d, l->flags, int32_t), m->dom = AT(d, l->dom, unsigned long long);
    m->doomed = AT(d, l->doomed, unsigned long long), m->removed = AT(d, l->removed, unsigned long long);
}

/* One device block, one upload, the transposition; *block receives the allocation. */
static parac_status rows_build(parac_cuda_context *context, const ac_model *model, const ac_domains *domains,
                               void **block, rows_model *m, parac_error *error)
{
    parac_status status = PARAC_OK;
    rows_layout l;
    void *host = NULL;
    rows_plan(model, &l);
    if (model->arc_value_offset[model->arc_count] >= UINT32_MAX || model->network->variable_count >= UINT32_MAX)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED, "N-E rows layout: 2^32 counter slots or more");
    host = malloc(l.upload_bytes ? l.upload_bytes : 1);
    if (!host) return parac_fail_no_memory(error, "N-E rows layout (host image)", (unsigned long long)l.upload_bytes);
    rows_fill(model, domains, &l, host);
    status = parac_cuda_alloc(context, block, l.total_bytes, error);
    if (status != PARAC_OK) {
        (void)cudaGetLastError(); /* a handled out-of-memory must not surface at a later launch check */
        goto fail;
    }
    rows_bind(model, &l, *block, m);
    PARAC_TRY(parac_cuda_upload(context, *block, host, l.upload_bytes, error));
    PARAC_TRY(parac_cuda_memset(context, (char *)*block + l.zero_from, 0, l.total_bytes - l.zero_from, error));
    prepare_kernel<<<ne_blocks(m->slot_count, context), NE_THREADS, 0, (cudaStream_t)context->stream>>>(*m);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_synchronize(context, error)); /* the host image is read until the upload is done */
fail:
    free(host);
    return status;
}

/* Launches `count` rounds from round `first` (0 = the initialization round) without a host sync. */
static parac_status launch_rounds(parac_cuda_context *context, const rows_model *m, int plus, uint64_t first,
                                  int count, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)context->stream;
    PARAC_TRY(parac_cuda_memset(context, m->flags, 0, (size_t)count * 2 * sizeof(int32_t), error));
    for (int i = 0; i < count; i++) {
        int full = !plus || first + i == 0;
        count_kernel<<<ne_blocks(m->slot_count, context), NE_THREADS, 0, stream>>>(*m, full);
        PARAC_CUDA_TRY_LAUNCH();
        apply_kernel<<<ne_blocks(m->domain_words, context), NE_THREADS, 0, stream>>>(*m, m->flags + 2 * i);
        PARAC_CUDA_TRY_LAUNCH();
    }
fail:
    return status;
}

/* Batches of rounds until one changes nothing or wipes out; counts rounds as the edge layout does. */
static parac_status rows_propagate(parac_cuda_context *context, const rows_model *m, int plus, uint64_t edges,
                                   parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    int32_t flags[2 * ROWS_MAX_BATCH];
    uint64_t first = 0;
    int batch = ROWS_FIRST_BATCH;
    for (;;) {
        PARAC_TRY(launch_rounds(context, m, plus, first, batch, error));
        PARAC_TRY(parac_cuda_download(context, flags, m->flags, (size_t)batch * 2 * sizeof(int32_t), error));
        for (int i = 0; i < batch; i++) {
            stats->iterations++;
            stats->revisions += edges;
            if (flags[2 * i + ROUND_WIPEOUT]) stats->wipeout = 1;
            if (flags[2 * i + ROUND_WIPEOUT] || !flags[2 * i + ROUND_CHANGED]) return PARAC_OK;
        }
        first += (uint64_t)batch;
        batch = batch * 2 < ROWS_MAX_BATCH ? batch * 2 : ROWS_MAX_BATCH;
    }
fail:
    return status;
}

static uint64_t ne_edge_total(const ac_model *model)
{
    uint64_t edges = 0;
    for (size_t a = 0; a < model->arc_count; a++)
        edges += (model->arc_value_offset[a + 1] - model->arc_value_offset[a]) *
                 (uint64_t)model->network->domain_size[model->arcs[a].y];
    return edges;
}

extern "C" parac_status ac_cuda_ac4_rows(parac_cuda_context *context, const ac_model *model, int plus,
                                         ac_domains *domains, parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    rows_model m;
    void *block = NULL;
    double start = parac_now_seconds();
    size_t n = model->network->variable_count;
    memset(&m, 0, sizeof m);
    PARAC_TRY(rows_build(context, model, domains, &block, &m, error));
    stats->build_seconds += parac_now_seconds() - start;
    PARAC_TRY(rows_propagate(context, &m, plus, ne_edge_total(model), stats, error));
    PARAC_TRY(parac_cuda_download(context, domains->words, m.dom, model->domain_word_offset[n] * 8, error));
    for (size_t v = 0; v < n; v++)
        domains->size[v] = (uint32_t)parac_bitset_popcount(ac_domain_of(model, domains, (uint32_t)v),
                                                          parac_bitset_words(model->network->domain_size[v]));
fail:
    parac_cuda_free(context, block);
    return status;
}
