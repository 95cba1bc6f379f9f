/* ac/sac_gpu.cu — SAC on the GPU: every (x, a) probe of a pass runs at once.
 *
 * One thread block per probe (grid-stride over probes, so any number fits):
 * the block copies the current domains, sets D(x) = {a}, and runs rounds of
 * bitset revisions, each round revising only the arcs (z, y) whose y changed
 * in the previous round, one warp per arc, lanes over z's values. A probe fails when a
 * domain empties. The host then removes every failed value at once (sound:
 * a probe that fails on domains D fails on any subset of D), re-establishes
 * AC with AC3bit+rm, and starts the next pass; a pass without failures ends
 * the run. The SAC closure is unique, so this equals SAC1's.
 *
 * Kernel: sac_probe_kernel (one block per probe, SAC_THREADS threads, one warp per revised arc).
 */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_gpu.h"
#include "core/error.h"
#include "core/timer.h"
#include "cuda/cuda_check.h"

#define SAC_THREADS 256 /* a multiple of 32: revise_changed_arcs works per warp */

typedef struct sac_scratch {
    uint64_t *words;   /* per block: current and next domains */
    uint32_t *lists;   /* per block: changed variables now and next */
} sac_scratch;

/* One warp per arc (z, y) with y changed, lanes over z's values: domains of a few dozen
 * values would leave most of a block idle if the whole block shared one arc. */
static __device__ void revise_changed_arcs(const bitset_model &m, const uint64_t *cur, unsigned long long *next,
                                    const uint32_t *changed, int changed_count)
{
    uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (int i = 0; i < changed_count; i++) {
        uint32_t y = changed[i];
        const uint64_t *dom_y = cur + m.domain_word_offset[y];
        for (uint64_t j = m.arcs_on_offset[y] + warp; j < m.arcs_on_offset[y + 1]; j += warps) {
            uint32_t arc = m.arcs_on[j], z = m.arc_x[arc];
            uint64_t base = m.domain_word_offset[z];
            for (uint32_t a = lane; a < m.domain_size[z]; a += 32) {
                const uint64_t *row = m.matrices + m.matrix_offset[arc] + (uint64_t)a * m.row_words[arc];
                uint32_t w = 0;
                if (!((cur[base + a / 64] >> (a % 64)) & 1u)) continue;
                while (w < m.row_words[arc] && !(row[w] & dom_y[w])) w++;
                if (w == m.row_words[arc]) atomicAnd(&next[base + a / 64], ~(1ull << (a % 64)));
            }
        }
    }
}

/* Lists the variables whose domain changed; flags an empty one. */
static __device__ void collect_changes(const bitset_model &m, const uint64_t *cur, const uint64_t *next, uint32_t *list,
                                int *count, int *empty)
{
    for (uint64_t x = threadIdx.x; x < m.variable_count; x += blockDim.x) {
        int differs = 0, any = 0;
        for (uint64_t w = m.domain_word_offset[x]; w < m.domain_word_offset[x + 1]; w++) {
            differs |= cur[w] != next[w];
            any |= next[w] != 0;
        }
        if (differs) list[atomicAdd(count, 1)] = (uint32_t)x;
        if (!any) *empty = 1;
    }
}

static __global__ void sac_probe_kernel(bitset_model m, const uint64_t *base_words, const uint32_t *probe_var,
                                 const uint32_t *probe_slot, uint64_t probe_count, sac_scratch scratch,
                                 uint8_t *failed)
{
    __shared__ int changed_count, next_count, empty;
    uint64_t words = m.domain_words;
    for (uint64_t p = blockIdx.x; p < probe_count; p += gridDim.x) {
        uint64_t *cur = scratch.words + blockIdx.x * 2 * (words + 1), *next = cur + words + 1;
        uint32_t *list = scratch.lists + blockIdx.x * 2 * (m.variable_count + 1), *list_next = list + m.variable_count + 1;
        uint32_t x = probe_var[p], a = probe_slot[p];
        uint64_t x_first = m.domain_word_offset[x], x_last = m.domain_word_offset[x + 1];
        for (uint64_t w = threadIdx.x; w < words; w += blockDim.x)
            cur[w] = w >= x_first && w < x_last ? (w - x_first == a / 64 ? 1ull << (a % 64) : 0) : base_words[w];
        if (threadIdx.x == 0) list[0] = x, changed_count = 1, empty = 0;
        __syncthreads();
        while (changed_count > 0 && !empty) {
            for (uint64_t w = threadIdx.x; w < words; w += blockDim.x) next[w] = cur[w];
            if (threadIdx.x == 0) next_count = 0;
            __syncthreads();
            revise_changed_arcs(m, cur, (unsigned long long *)next, list, changed_count);
            __syncthreads();
            collect_changes(m, cur, next, list_next, &next_count, &empty);
            __syncthreads();
            uint64_t *swap_words = cur;
            uint32_t *swap_list = list;
            cur = next, next = swap_words, list = list_next, list_next = swap_list;
            if (threadIdx.x == 0) changed_count = next_count;
            __syncthreads();
        }
        if (threadIdx.x == 0) failed[p] = (uint8_t)empty;
        __syncthreads();
    }
}

typedef struct sac_batch {
    uint64_t *base;
    uint32_t *probe_var, *probe_slot;
    uint8_t *failed;
    sac_scratch scratch;
    unsigned blocks;
} sac_batch;

/* Blocks that fit in 3/4 of free memory, at most multiprocessors * 16; fewer probes need fewer. */
static parac_status batch_alloc(parac_cuda_context *context, const bitset_model *m, sac_batch *b, parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t free_bytes = 0, total_bytes = 0;
    uint64_t per_block = 2 * (m->domain_words + 1) * 8 + 2 * (m->variable_count + 1) * 4, values = 0;
    PARAC_TRY(parac_cuda_memory_info(context, &free_bytes, &total_bytes, error));
    values = m->domain_words * 64 + 1;
    b->blocks = (unsigned)(context->multiprocessors > 0 ? context->multiprocessors * 16 : 1024);
    while (b->blocks > 1 && (uint64_t)b->blocks * per_block > (uint64_t)free_bytes * 3 / 4) b->blocks /= 2;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&b->base, (m->domain_words + 1) * 8, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&b->probe_var, values * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&b->probe_slot, values * 4, error));
    PARAC_TRY(parac_cuda_alloc(context, (void **)&b->failed, values, error));
    for (;;) { /* degrade: fewer blocks (probes in flight) when the device is short of memory */
        status = parac_cuda_alloc(context, (void **)&b->scratch.words, b->blocks * 2 * (m->domain_words + 1) * 8, error);
        if (status == PARAC_OK)
            status = parac_cuda_alloc(context, (void **)&b->scratch.lists,
                                      (uint64_t)b->blocks * 2 * (m->variable_count + 1) * 4, error);
        if (status != PARAC_ERR_NO_MEMORY || b->blocks == 1) break;
        (void)cudaGetLastError(); /* handled: do not let it surface at the next launch check */
        parac_cuda_free(context, b->scratch.words);
        b->scratch.words = NULL;
        b->blocks /= 2;
    }
fail:
    return status;
}

static void batch_free(parac_cuda_context *context, sac_batch *b)
{
    parac_cuda_free(context, b->base);
    parac_cuda_free(context, b->probe_var);
    parac_cuda_free(context, b->probe_slot);
    parac_cuda_free(context, b->failed);
    parac_cuda_free(context, b->scratch.words);
    parac_cuda_free(context, b->scratch.lists);
}

/* Host arrays of one pass: the probes and their outcome. */
typedef struct sac_probes {
    uint32_t *var, *slot;
    uint8_t *failed;
    uint64_t count;
} sac_probes;

static void list_probes(const ac_model *model, const ac_domains *domains, sac_probes *probes)
{
    const parac_csp_network *net = model->network;
    probes->count = 0;
    for (uint32_t x = 0; x < net->variable_count; x++) {
        const parac_word *dom = ac_domain_of(model, domains, x);
        for (size_t a = parac_bitset_next(dom, net->domain_size[x], 0); a < net->domain_size[x];
             a = parac_bitset_next(dom, net->domain_size[x], a + 1)) {
            probes->var[probes->count] = x;
            probes->slot[probes->count++] = (uint32_t)a;
        }
    }
}

/* Runs every probe of the pass on the GPU; fills probes->failed. */
static parac_status run_probes(parac_cuda_context *context, const bitset_model *m, sac_batch *b,
                               const ac_domains *domains, sac_probes *probes, parac_error *error)
{
    parac_status status = PARAC_OK;
    PARAC_TRY(parac_cuda_upload(context, b->base, domains->words, m->domain_words * 8, error));
    PARAC_TRY(parac_cuda_upload(context, b->probe_var, probes->var, probes->count * 4, error));
    PARAC_TRY(parac_cuda_upload(context, b->probe_slot, probes->slot, probes->count * 4, error));
    sac_probe_kernel<<<b->blocks, SAC_THREADS, 0, (cudaStream_t)context->stream>>>(
        *m, b->base, b->probe_var, b->probe_slot, probes->count, b->scratch, b->failed);
    PARAC_CUDA_TRY_LAUNCH();
    PARAC_TRY(parac_cuda_download(context, probes->failed, b->failed, probes->count, error));
fail:
    return status;
}

/* Removes the failed values, then AC from their variables. Returns 1 when something was removed. */
static int apply_failures(const ac_model *model, ac_domains *domains, void *residues, const sac_probes *probes,
                          uint32_t *touched, parac_ac_stats *stats, parac_error *error, parac_status *status)
{
    size_t touched_count = 0;
    parac_ac_stats inner;
    memset(&inner, 0, sizeof inner);
    for (uint64_t i = 0; i < probes->count; i++) {
        uint32_t x = probes->var[i];
        if (!probes->failed[i]) continue;
        parac_bitset_clear_bit(ac_domain_of(model, domains, x), probes->slot[i]);
        if (--domains->size[x] == 0) stats->wipeout = 1;
        if (touched_count == 0 || touched[touched_count - 1] != x) touched[touched_count++] = x;
    }
    if (!touched_count || stats->wipeout) return touched_count != 0;
    stats->wipeout = ac3bit_propagate_from(model, domains, residues, touched, touched_count, &inner, error, status);
    stats->revisions += inner.revisions;
    return 1;
}

static parac_status sac_passes(parac_cuda_context *context, const ac_model *model, const bitset_model *m,
                               ac_domains *domains, void *residues, parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    uint64_t values = model->network->value_count + 1;
    sac_batch b;
    sac_probes probes = {(uint32_t *)malloc(values * 4), (uint32_t *)malloc(values * 4), (uint8_t *)malloc(values), 0};
    uint32_t *touched = (uint32_t *)malloc((model->network->variable_count + 1) * 4);
    memset(&b, 0, sizeof b);
    if (!probes.var || !probes.slot || !probes.failed || !touched) {
        status = parac_fail_no_memory(error, "SAC probes", (unsigned long long)values * 9);
        goto fail;
    }
    PARAC_TRY(batch_alloc(context, m, &b, error));
    while (!stats->wipeout) {
        stats->iterations++;
        list_probes(model, domains, &probes);
        stats->revisions += probes.count;
        PARAC_TRY(run_probes(context, m, &b, domains, &probes, error));
        if (!apply_failures(model, domains, residues, &probes, touched, stats, error, &status)) break;
        if (status != PARAC_OK) goto fail;
    }
fail:
    batch_free(context, &b);
    parac_cuda_synchronize(context, NULL);
    free(probes.var), free(probes.slot), free(probes.failed), free(touched);
    return status;
}

extern "C" parac_status ac_cuda_sac(parac_cuda_context *context, const ac_model *model, uint64_t *value_bits,
                                    parac_ac_stats *stats, parac_error *error)
{
    parac_status status = PARAC_OK;
    bitset_model m;
    ac_domains domains;
    void *residues = ac3bit_residues_create(model);
    double start = parac_now_seconds();
    memset(&m, 0, sizeof m);
    memset(&domains, 0, sizeof domains);
    if (!residues) return parac_fail_no_memory(error, "SAC residues", 0);
    PARAC_TRY(ac_domains_create(model, &domains, error));
    ac_domains_import(model, value_bits, &domains);
    PARAC_TRY(bitset_model_upload(context, model, &m, error));
    stats->build_seconds += parac_now_seconds() - start;
    stats->wipeout = ac3bit_propagate_from(model, &domains, residues, NULL, 0, stats, error, &status);
    stats->iterations = 0;
    if (status != PARAC_OK) goto fail;
    if (!stats->wipeout) PARAC_TRY(sac_passes(context, model, &m, &domains, residues, stats, error));
    ac_domains_export(model, &domains, stats->wipeout, value_bits);
fail:
    bitset_model_free(context, &m);
    ac_domains_free(&domains);
    free(residues);
    return status;
}
