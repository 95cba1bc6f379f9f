/* ac/ac_bitset_gpu.cu — gpu-bitset: rounds of bitset revisions, all in parallel.
 *
 * The GPU twin of ac_bitset_rounds.c, round for round: a round revises every
 * (arc (x, y), value a) whose y changed in the previous round against the
 * domains as they were at the round's start, clearing unsupported bits in a
 * copy (atomicAnd). A second kernel recounts each domain and flags change and
 * emptiness. Same rounds as the CPU twin, so the same iteration count.
 * On a network with table constraints each round also revises the tables (table_gpu.cu,
 * compact-table) against the same starting domains; the twin is then ac_run_table_rounds.
 *
 * Kernels:
 *   revise_slots_kernel  one thread per (arc, a) slot: any(row(a) & D(y)) over row_words words;
 *                        a deletion that empties a domain raises the round's wipe-out flag, and
 *                        every slot after it is skipped (ac_gpu.h: bitset_delete_value)
 *   recount_kernel       one thread per variable: popcount, changed flag, empty flag; clears the
 *                        next round's flags (no memset per round)
 * Per round: the kernels, one device-to-device copy and one download of the round's two flags (its
 * one host synchronisation). Per call: one allocation and one upload of the round state, and one
 * download of the closure (none after a wipe-out, which reports every domain empty).
 */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_gpu.h"
#include "core/error.h"
#include "core/timer.h"
#include "cuda/cuda_check.h"

static __device__ uint32_t arc_of_slot(const uint64_t *slot_offset, uint64_t arc_count, uint64_t slot)
{
    uint64_t low = 0, high = arc_count; /* last arc with slot_offset[arc] <= slot */
    while (high - low > 1) {
        uint64_t mid = low + (high - low) / 2;
        if (slot_offset[mid] <= slot) low = mid;
        else high = mid;
    }
    return (uint32_t)low;
}

static __device__ int has_support(const bitset_model &m, uint32_t arc, uint64_t a, const uint64_t *dom_y)
{
    const uint64_t *row = m.matrices + m.matrix_offset[arc] + a * m.row_words[arc];
    for (uint32_t w = 0; w < m.row_words[arc]; w++)
        if (row[w] & dom_y[w]) return 1;
    return 0;
}

static __global__ void revise_slots_kernel(bitset_model m, const uint64_t *old_words, const uint8_t *changed_before,
                                           unsigned long long *next_words, int32_t *round_flags)
{
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < m.slot_count;
         s += (uint64_t)gridDim.x * blockDim.x) {
        if (bitset_round_wiped(round_flags)) return;
        uint32_t arc = arc_of_slot(m.slot_offset, m.arc_count, s);
        uint32_t x = m.arc_x[arc], y = m.arc_y[arc];
        uint64_t a = s - m.slot_offset[arc], x_word = m.domain_word_offset[x] + a / 64;
        if (!changed_before[y] || !((old_words[x_word] >> (a % 64)) & 1u)) continue;
        if (!has_support(m, arc, a, old_words + m.domain_word_offset[y]))
            bitset_delete_value(next_words, m.domain_word_offset[x], m.domain_word_offset[x + 1], x_word, a % 64,
                                round_flags);
    }
}

/* Sizes, changed and empty flags of D_{k+1}; also clears the flags of round k+1 (next_round_flags),
 * which round k-1 left behind and the host has read. */
static __global__ void recount_kernel(bitset_model m, const uint64_t *next_words, const int32_t *old_sizes,
                                      int32_t *new_sizes, uint8_t *changed_now, int32_t *round_flags,
                                      int32_t *next_round_flags)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (int f = 0; f < BITSET_FLAG_COUNT; f++) next_round_flags[f] = 0;
    for (uint64_t x = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; x < m.variable_count;
         x += (uint64_t)gridDim.x * blockDim.x) {
        int32_t size = 0;
        for (uint64_t w = m.domain_word_offset[x]; w < m.domain_word_offset[x + 1]; w++) size += __popcll(next_words[w]);
        new_sizes[x] = size;
        changed_now[x] = size != old_sizes[x];
        if (size != old_sizes[x]) round_flags[BITSET_FLAG_CHANGED] = 1;
        if (size == 0) round_flags[BITSET_FLAG_EMPTY] = 1;
    }
}

/* ---- the bitset model upload (shared with sac_gpu.cu) ---- */

typedef struct bitset_host {
    uint32_t *arc_x, *arc_y, *row_words, *arcs_on, *domain_size;
    uint64_t *matrix_offset, *matrices, *arcs_on_offset, *domain_word_offset;
} bitset_host;

static void bitset_host_free(bitset_host *h)
{
    free(h->arc_x), free(h->arc_y), free(h->row_words), free(h->arcs_on), free(h->domain_size);
    free(h->matrix_offset), free(h->matrices), free(h->arcs_on_offset), free(h->domain_word_offset);
}

static parac_status bitset_host_fill(const ac_model *model, bitset_host *h, parac_error *error)
{
    const parac_csp_network *net = model->network;
    size_t arcs = model->arc_count, n = net->variable_count;
    uint64_t words = 0;
    for (size_t a = 0; a < arcs; a++) words += (uint64_t)net->domain_size[model->arcs[a].x] * model->arcs[a].row_words;
    h->arc_x = (uint32_t *)malloc((arcs + 1) * 4), h->arc_y = (uint32_t *)malloc((arcs + 1) * 4);
    h->row_words = (uint32_t *)malloc((arcs + 1) * 4), h->arcs_on = (uint32_t *)malloc((arcs + 1) * 4);
    h->domain_size = (uint32_t *)malloc((n + 1) * 4);
    h->matrix_offset = (uint64_t *)malloc((arcs + 1) * 8), h->matrices = (uint64_t *)malloc((words + 1) * 8);
    h->arcs_on_offset = (uint64_t *)malloc((n + 1) * 8), h->domain_word_offset = (uint64_t *)malloc((n + 1) * 8);
    if (!h->arc_x || !h->arc_y || !h->row_words || !h->arcs_on || !h->domain_size || !h->matrix_offset ||
        !h->matrices || !h->arcs_on_offset || !h->domain_word_offset)
        return parac_fail_no_memory(error, "bitset model", (unsigned long long)words * 8);
    words = 0;
    for (size_t a = 0; a < arcs; a++) {
        uint64_t matrix_words = (uint64_t)net->domain_size[model->arcs[a].x] * model->arcs[a].row_words;
        h->arc_x[a] = model->arcs[a].x, h->arc_y[a] = model->arcs[a].y;
        h->row_words[a] = (uint32_t)model->arcs[a].row_words;
        h->arcs_on[a] = model->arcs_on[a];
        h->matrix_offset[a] = words;
        memcpy(h->matrices + words, model->arcs[a].matrix, matrix_words * 8);
        words += matrix_words;
    }
    h->matrix_offset[arcs] = words;
    for (size_t v = 0; v <= n; v++) {
        h->arcs_on_offset[v] = model->arcs_on_offset[v];
        h->domain_word_offset[v] = model->domain_word_offset[v];
        h->domain_size[v] = v < n ? net->domain_size[v] : 0;
    }
    return PARAC_OK;
}

#define BITSET_UPLOAD(field, type, count)                                                             \
    PARAC_TRY(parac_cuda_alloc(context, (void **)&bits->field, ((count) + 1) * sizeof(type), error)); \
    PARAC_TRY(parac_cuda_upload(context, bits->field, h.field, ((count) + 1) * sizeof(type), error))

parac_status bitset_model_upload(parac_cuda_context *context, const ac_model *model, bitset_model *bits,
                                            parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t n = model->network->variable_count, arcs = model->arc_count;
    bitset_host h;
    memset(&h, 0, sizeof h);
    memset(bits, 0, sizeof *bits);
    bits->variable_count = n;
    bits->arc_count = arcs;
    bits->slot_count = model->arc_value_offset[arcs];
    bits->domain_words = model->domain_word_offset[n];
    PARAC_TRY(bitset_host_fill(model, &h, error));
    BITSET_UPLOAD(arc_x, uint32_t, arcs);
    BITSET_UPLOAD(arc_y, uint32_t, arcs);
    BITSET_UPLOAD(row_words, uint32_t, arcs);
    BITSET_UPLOAD(arcs_on, uint32_t, arcs);
    BITSET_UPLOAD(matrix_offset, uint64_t, arcs);
    BITSET_UPLOAD(matrices, uint64_t, h.matrix_offset[arcs]);
    BITSET_UPLOAD(arcs_on_offset, uint64_t, n);
    BITSET_UPLOAD(domain_word_offset, uint64_t, n);
    BITSET_UPLOAD(domain_size, uint32_t, n);
    PARAC_TRY(parac_cuda_alloc(context, (void **)&bits->slot_offset, (arcs + 1) * sizeof(uint64_t), error));
    PARAC_TRY(parac_cuda_upload(context, bits->slot_offset, model->arc_value_offset, (arcs + 1) * sizeof(uint64_t),
                                error));
    PARAC_TRY(parac_cuda_synchronize(context, error));
fail:
    if (status != PARAC_OK) parac_cuda_synchronize(context, NULL);
    bitset_host_free(&h);
    if (status != PARAC_OK) bitset_model_free(context, bits);
    return status;
}

void bitset_model_free(parac_cuda_context *context, bitset_model *bits)
{
    void *fields[] = {bits->arc_x,   bits->arc_y,       bits->row_words,      bits->matrix_offset,
                      bits->matrices, bits->slot_offset, bits->arcs_on_offset, bits->arcs_on,
                      bits->domain_word_offset, bits->domain_size};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) parac_cuda_free(context, fields[i]);
    memset(bits, 0, sizeof *bits);
}

/* ---- the rounds ---- */

/* The state of the rounds in one allocation, filled by one upload: per parity i, words[i] (the
 * domain words) directly followed by sizes[i], so the closure comes back in one download; then
 * changed[0], changed[1] and the flags of two consecutive rounds (the round whose old buffer is i
 * uses flags + i * BITSET_FLAG_COUNT; its recount clears the other pair for the next round, so no
 * round needs a memset). */
typedef struct bitset_rounds {
    void *block;
    char *image;              /* the host image of the block: the upload's source, then the closure's target */
    size_t bytes, part_bytes; /* part_bytes: words[i] and sizes[i] together */
    uint64_t *words[2];
    int32_t *sizes[2];
    uint8_t *changed[2];
    int32_t *flags;
} bitset_rounds;

static size_t round_up8(size_t bytes) { return (bytes + 7) / 8 * 8; }

/* Lays the state out over `base` (the device block, or its host image); r->bytes alone when NULL. */
static void rounds_layout(const bitset_model *m, bitset_rounds *r, char *base)
{
    size_t n = m->variable_count, changed_bytes = round_up8(n + 1);
    r->part_bytes = m->domain_words * 8 + round_up8((n + 1) * 4);
    r->bytes = 2 * r->part_bytes + 2 * changed_bytes + 2 * BITSET_FLAG_COUNT * sizeof(int32_t);
    if (!base) return;
    for (int i = 0; i < 2; i++) {
        r->words[i] = (uint64_t *)(base + i * r->part_bytes);
        r->sizes[i] = (int32_t *)(base + i * r->part_bytes + m->domain_words * 8);
        r->changed[i] = (uint8_t *)(base + 2 * r->part_bytes + i * changed_bytes);
    }
    r->flags = (int32_t *)(base + 2 * r->part_bytes + 2 * changed_bytes);
}

/* The block on the device, holding D_0 in both word buffers (D_0 is also round 1's "previous"
 * domain: the valid sets were built from it), D_0's sizes, every variable "changed" before round 1,
 * all flags clear. */
static parac_status rounds_upload(parac_cuda_context *context, const bitset_model *m, const ac_domains *domains,
                                  bitset_rounds *r, parac_error *error)
{
    parac_status status = PARAC_OK;
    bitset_rounds host;
    rounds_layout(m, r, NULL);
    if (!(r->image = (char *)calloc(r->bytes, 1)))
        return parac_fail_no_memory(error, "round state", (unsigned long long)r->bytes);
    rounds_layout(m, &host, r->image);
    for (int i = 0; i < 2; i++) memcpy(host.words[i], domains->words, m->domain_words * 8);
    for (size_t v = 0; v < m->variable_count; v++) host.sizes[0][v] = (int32_t)domains->size[v];
    memset(host.changed[0], 1, m->variable_count + 1);
    PARAC_TRY(parac_cuda_alloc(context, &r->block, r->bytes, error));
    rounds_layout(m, r, (char *)r->block);
    PARAC_TRY(parac_cuda_upload(context, r->block, r->image, r->bytes, error));
fail:
    return status; /* the image is freed after the next synchronisation (bitset_propagate) */
}

/* Round `old` -> `1 - old`: launches only, then one download of the round's two flags (the round's
 * one host synchronisation); sets *changed and *empty. tables (NULL without tables): their valid
 * sets are narrowed to D_k first, while the next buffer still holds D_{k-1}. Once a kernel empties
 * a domain it raises the wipe-out flag and the rest of the round stops early (bitset_round_wiped). */
static parac_status run_round(parac_cuda_context *context, const bitset_model *m, const table_gpu *tables,
                              bitset_rounds *r, int old, int *changed, int *empty, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)context->stream;
    int32_t flags[BITSET_FLAG_COUNT];
    int next = 1 - old;
    int32_t *round_flags = r->flags + old * BITSET_FLAG_COUNT, *next_round_flags = r->flags + next * BITSET_FLAG_COUNT;
    if (tables)
        PARAC_TRY(table_gpu_update_valid(context, tables, m, r->words[old], r->words[next], r->changed[old], error));
    PARAC_CUDA_TRY(cudaMemcpyAsync(r->words[next], r->words[old], m->domain_words * 8, cudaMemcpyDeviceToDevice, stream));
    if (m->slot_count > 0) {
        revise_slots_kernel<<<ne_blocks(m->slot_count, context), NE_THREADS, 0, stream>>>(
            *m, r->words[old], r->changed[old], (unsigned long long *)r->words[next], round_flags);
        PARAC_CUDA_TRY_LAUNCH();
    }
    if (tables)
        PARAC_TRY(table_gpu_check(context, tables, m, r->words[old], r->changed[old], r->words[next], round_flags,
                                  error));
    recount_kernel<<<ne_blocks(m->variable_count, context), NE_THREADS, 0, stream>>>(
        *m, r->words[next], r->sizes[old], r->sizes[next], r->changed[next], round_flags, next_round_flags);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(context, flags, round_flags, sizeof flags, error));
    *changed = flags[BITSET_FLAG_CHANGED] != 0;
    *empty = flags[BITSET_FLAG_EMPTY] != 0;
fail:
    return status;
}

/* Domains in, closure out (host ac_domains layout); returns through stats->wipeout. A wipe-out
 * downloads nothing more: every domain is reported empty then. */
static parac_status bitset_propagate(parac_cuda_context *context, const bitset_model *m, const table_gpu *tables,
                                     ac_domains *domains, parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    bitset_rounds r;
    int old = 0, changed = 1, empty = 0;
    memset(&r, 0, sizeof r);
    PARAC_TRY(rounds_upload(context, m, domains, &r, error));
    while (changed && !empty) {
        stats->iterations++;
        stats->revisions += m->arc_count + (tables ? tables->table_count : 0);
        PARAC_TRY(run_round(context, m, tables, &r, old, &changed, &empty, error));
        old = 1 - old;
    }
    stats->wipeout = empty;
    if (!empty) { /* words[old] and sizes[old] in one download, into the image (no longer read by the upload) */
        const int32_t *sizes = (const int32_t *)(r.image + m->domain_words * 8);
        PARAC_TRY(parac_cuda_download(context, r.image, r.words[old], r.part_bytes, error));
        memcpy(domains->words, r.image, m->domain_words * 8);
        for (size_t v = 0; v < m->variable_count; v++) domains->size[v] = (uint32_t)sizes[v];
    }
fail:
    parac_cuda_free(context, r.block);
    if (status != PARAC_OK) parac_cuda_synchronize(context, NULL);
    free(r.image); /* every run ends with a synchronising download (or the one above): the upload is done */
    return status;
}

extern "C" parac_status ac_cuda_bitset(parac_cuda_context *context, const ac_model *model, uint64_t *value_bits,
                                       parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    bitset_model m;
    table_gpu tables;
    ac_domains domains;
    int has_tables = ac_table_count(model) > 0;
    double start = parac_now_seconds();
    memset(&m, 0, sizeof m);
    memset(&tables, 0, sizeof tables);
    memset(&domains, 0, sizeof domains);
    if (ac_table_count(model) != model->nary_count)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gpu-bitset: global constraints have no GPU propagator");
    PARAC_TRY(ac_domains_create(model, &domains, error));
    ac_domains_import(model, value_bits, &domains);
    PARAC_TRY(bitset_model_upload(context, model, &m, error));
    if (has_tables) PARAC_TRY(table_gpu_upload(context, model, &domains, &tables, error));
    stats->build_seconds += parac_now_seconds() - start;
    PARAC_TRY(bitset_propagate(context, &m, has_tables ? &tables : NULL, &domains, stats, error));
    ac_domains_export(model, &domains, stats->wipeout, value_bits);
fail:
    table_gpu_free(context, &tables);
    bitset_model_free(context, &m);
    ac_domains_free(&domains);
    return status;
}
