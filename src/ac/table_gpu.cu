/* ac/table_gpu.cu — table constraints on the GPU: compact-table revisions inside gpu-bitset's rounds.
 *
 * The CPU twin is ac_run_table_rounds (table_rounds.c): the same rounds, step for step, so the
 * same round count. Layout (table_model.h): per table a valid-tuple bitset, per (position,
 * value) a support row over the table's tuples, all tables in one array each. A round k of
 * gpu-bitset on a network with tables (ac_bitset_gpu.cu) is:
 *   1. update_valid_kernel  before D_k is copied to the next buffer, which still holds D_{k-1}:
 *                           one thread per valid word; per position whose variable changed,
 *                           word &= ~OR(rows of deleted values) or &= OR(rows of remaining
 *                           values), whichever reads fewer rows (compact-table's reset)
 *   2. gpu-bitset's binary revisions (revise_slots_kernel) against D_k
 *   3. check_kernel         one warp per table slot (position, value) present in D_k on a table
 *                           with a changed variable (its position read from slot_position, no
 *                           search): the lanes scan valid & row 32 words at a time from the slot's
 *                           residue word (the last word that held a support); none found: the
 *                           value's bit is cleared in D_{k+1} (atomicAnd). A clear that empties a
 *                           domain raises the round's wipe-out flag; every warp polls it before
 *                           its next slot and stops (the run ends with this round anyway).
 *   4. gpu-bitset's recount (sizes, changed and empty flags) and the round's one host sync.
 * A warp per slot rather than a thread: one table of 10^6 tuples has rows of 15,625 words and
 * only (sum of its domain sizes) slots, so a thread per slot would leave the GPU idle; small
 * tables (rows of one word) waste 31 lanes of one warp, which costs little at that size.
 * Memory: the support rows (ac_network_table_support_bytes), valid sets, and 12 bytes per slot (its
 * residue and its position), all in one device allocation.
 */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_gpu.h"
#include "ac/table_launch.cuh"
#include "core/error.h"
#include "cuda/cuda_check.h"

/* Last index i < count with offset[i] <= item (offset ascending, offset[0] = 0). */
static __device__ uint64_t owner_of(const uint64_t *offset, uint64_t count, uint64_t item)
{
    uint64_t low = 0, high = count;
    while (high - low > 1) {
        uint64_t mid = low + (high - low) / 2;
        if (offset[mid] <= item) low = mid;
        else high = mid;
    }
    return low;
}

/* First word of the support row of table slot `slot` (of table t). */
static __device__ uint64_t row_start(const table_gpu &g, uint64_t t, uint64_t slot)
{
    return g.support_offset[t] + (slot - g.slot_offset[g.position_offset[t]]) * g.words[t];
}

static __device__ int table_touched(const table_gpu &g, uint64_t t, const uint8_t *changed_before)
{
    for (uint64_t p = g.position_offset[t]; p < g.position_offset[t + 1]; p++)
        if (changed_before[g.position_var[p]]) return 1;
    return 0;
}

/* One valid word brought from D_{k-1} (prev) to D_k (old) along position p. */
static __device__ uint64_t narrow_along(const table_gpu &g, uint64_t t, uint64_t p, uint64_t w, uint64_t word,
                                        const uint64_t *domain_word_offset, const uint64_t *old,
                                        const uint64_t *prev)
{
    uint32_t x = g.position_var[p];
    uint64_t first = domain_word_offset[x], last = domain_word_offset[x + 1], removed = 0, present = 0;
    uint64_t row = row_start(g, t, g.slot_offset[p]), words = g.words[t], mask = 0;
    int reset;
    for (uint64_t k = first; k < last; k++) {
        removed += __popcll(prev[k] & ~old[k]);
        present += __popcll(old[k]);
    }
    if (removed == 0) return word;
    reset = removed > present;
    for (uint64_t k = first; k < last; k++) {
        uint64_t bits = reset ? old[k] : prev[k] & ~old[k];
        while (bits) {
            uint64_t a = (k - first) * 64 + (uint64_t)(__ffsll((long long)bits) - 1);
            bits &= bits - 1;
            mask |= g.supports[row + a * words + w];
        }
    }
    return reset ? word & mask : word & ~mask;
}

static __global__ void update_valid_kernel(table_gpu g, const uint64_t *domain_word_offset, const uint64_t *old,
                                           const uint64_t *prev, const uint8_t *changed_before)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < g.valid_words;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t t = owner_of(g.valid_offset, g.table_count, i), w = i - g.valid_offset[t], word = g.valid[i];
        for (uint64_t p = g.position_offset[t]; p < g.position_offset[t + 1] && word; p++)
            if (changed_before[g.position_var[p]])
                word = narrow_along(g, t, p, w, word, domain_word_offset, old, prev);
        g.valid[i] = word;
    }
}

/* 1 when valid & row has a bit; the warp's lanes scan 32 words at a time from the residue. */
static __device__ int warp_finds_support(const uint64_t *valid, const uint64_t *row, uint64_t words,
                                         uint64_t *residue, unsigned lane)
{
    uint64_t start = *residue < words ? *residue : 0;
    for (uint64_t base = 0; base < words; base += TABLE_WARP) {
        uint64_t i = base + lane, w = start + i >= words ? start + i - words : start + i;
        unsigned hits = __ballot_sync(0xffffffffu, i < words && (valid[w] & row[w]) != 0);
        if (hits) {
            if (lane == (unsigned)(__ffs((int)hits) - 1)) *residue = w;
            return 1;
        }
    }
    return 0;
}

static __global__ void check_kernel(table_gpu g, const uint64_t *domain_word_offset, const uint64_t *old,
                                    const uint8_t *changed_before, unsigned long long *next, int32_t *round_flags)
{
    unsigned lane = threadIdx.x % TABLE_WARP;
    uint64_t warps = (uint64_t)gridDim.x * blockDim.x / TABLE_WARP;
    for (uint64_t s = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / TABLE_WARP; s < g.slot_count; s += warps) {
        int wiped = lane == 0 ? bitset_round_wiped(round_flags) : 0;
        if (__shfl_sync(0xffffffffu, wiped, 0)) return; /* one answer for the whole warp (its ballots) */
        uint64_t p = g.slot_position[s], t = g.position_table[p], a = s - g.slot_offset[p];
        uint32_t x = g.position_var[p];
        uint64_t word = domain_word_offset[x] + a / 64;
        if (!((old[word] >> (a % 64)) & 1u) || !table_touched(g, t, changed_before)) continue;
        if (!warp_finds_support(g.valid + g.valid_offset[t], g.supports + row_start(g, t, s), g.words[t],
                                &g.residue[s], lane) &&
            lane == 0)
            bitset_delete_value(next, domain_word_offset[x], domain_word_offset[x + 1], word, a % 64, round_flags);
    }
}

parac_status table_gpu_update_valid(parac_cuda_context *context, const table_gpu *tables, const bitset_model *m,
                                    const uint64_t *old_words, const uint64_t *prev_words,
                                    const uint8_t *changed_before, parac_error *error)
{
    return table_launch(update_valid_kernel, tables->valid_words, 1, context, error, *tables, m->domain_word_offset,
                        old_words, prev_words, changed_before);
}

parac_status table_gpu_check(parac_cuda_context *context, const table_gpu *tables, const bitset_model *m,
                             const uint64_t *old_words, const uint8_t *changed_before, uint64_t *next_words,
                             int32_t *round_flags, parac_error *error)
{
    return table_launch(check_kernel, tables->slot_count, TABLE_WARP, context, error, *tables, m->domain_word_offset,
                        old_words, changed_before, (unsigned long long *)next_words, round_flags);
}

/* ---- the upload ---- */

/* One array of the model: where it goes in the block, what fills it (NULL: zeros), its bytes. */
typedef struct table_part {
    void **field;
    const void *source;
    size_t bytes;
} table_part;

#define TABLE_PART(field_name, source, count) \
    {(void **)&tables->field_name, source, ((count) + 1) * sizeof *tables->field_name}
#define TABLE_ALIGN 256

/* Every array in one allocation (one free at the end of the call, which is timed as propagation),
 * filled by one upload per array. */
static parac_status upload_parts(parac_cuda_context *context, table_gpu *tables, const table_part *parts, size_t count,
                                 parac_error *error)
{
    parac_status status = PARAC_OK;
    size_t total = 0, offset = 0;
    for (size_t i = 0; i < count; i++) total += (parts[i].bytes + TABLE_ALIGN - 1) / TABLE_ALIGN * TABLE_ALIGN;
    PARAC_TRY(parac_cuda_alloc(context, &tables->block, total, error));
    for (size_t i = 0; i < count; i++) {
        *parts[i].field = (char *)tables->block + offset;
        if (parts[i].source)
            PARAC_TRY(parac_cuda_upload(context, *parts[i].field, parts[i].source, parts[i].bytes, error));
        else PARAC_TRY(parac_cuda_memset(context, *parts[i].field, 0, parts[i].bytes, error));
        offset += (parts[i].bytes + TABLE_ALIGN - 1) / TABLE_ALIGN * TABLE_ALIGN;
    }
fail:
    return status;
}

parac_status table_gpu_upload(parac_cuda_context *context, const ac_model *model, const ac_domains *domains,
                              table_gpu *tables, parac_error *error)
{
    parac_status status = PARAC_OK;
    ac_table_model host;
    parac_word *valid = NULL;
    uint32_t *slot_position = NULL;
    memset(tables, 0, sizeof *tables);
    memset(&host, 0, sizeof host);
    PARAC_TRY(ac_table_model_build(model, &host, error));
    valid = (parac_word *)calloc(host.valid_words + 1, sizeof *valid);
    slot_position = (uint32_t *)malloc((host.slot_count + 1) * sizeof *slot_position);
    if (!valid || !slot_position) {
        status = parac_fail_no_memory(error, "valid tuples and slot positions",
                                      (unsigned long long)(host.valid_words * 8 + host.slot_count * 4));
        goto fail;
    }
    ac_table_valid_init(model, &host, domains, valid);
    for (size_t p = 0; p < host.position_count; p++)
        for (uint64_t s = host.slot_offset[p]; s < host.slot_offset[p + 1]; s++) slot_position[s] = (uint32_t)p;
    slot_position[host.slot_count] = 0;
    tables->table_count = host.table_count;
    tables->position_count = host.position_count;
    tables->slot_count = host.slot_count;
    tables->valid_words = host.valid_words;
    {
        const table_part parts[] = {
            TABLE_PART(words, host.words, host.table_count),
            TABLE_PART(valid_offset, host.valid_offset, host.table_count),
            TABLE_PART(support_offset, host.support_offset, host.table_count),
            TABLE_PART(position_offset, host.position_offset, host.table_count),
            TABLE_PART(position_table, host.position_table, host.position_count),
            TABLE_PART(position_var, host.position_var, host.position_count),
            TABLE_PART(slot_offset, host.slot_offset, host.position_count),
            TABLE_PART(slot_position, slot_position, host.slot_count),
            TABLE_PART(supports, host.supports, host.support_words),
            TABLE_PART(valid, valid, host.valid_words),
            TABLE_PART(residue, NULL, host.slot_count),
        };
        PARAC_TRY(upload_parts(context, tables, parts, sizeof parts / sizeof parts[0], error));
    }
    PARAC_TRY(parac_cuda_synchronize(context, error)); /* the host buffers go next */
fail:
    if (status != PARAC_OK) parac_cuda_synchronize(context, NULL);
    ac_table_model_free(&host);
    free(valid);
    free(slot_position);
    if (status != PARAC_OK) table_gpu_free(context, tables);
    return status;
}

void table_gpu_free(parac_cuda_context *context, table_gpu *tables)
{
    parac_cuda_free(context, tables->block);
    memset(tables, 0, sizeof *tables);
}
