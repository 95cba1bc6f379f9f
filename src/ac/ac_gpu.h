/* ac/ac_gpu.h — device-side models shared by the ac module's .cu files.
 *
 * ne_model: the N-E model of Li, Li & Li. Nodes are value ids; for binary
 * constraint k over (x, y) the directed edges are laid out as
 *   [edge_offset[k], +|Dx||Dy|)  forward: (x,a) -> (y,b), a-major, counter slot of arc 2k, value a
 *   [.. + |Dx||Dy|, edge_offset[k+1])  reverse: (y,b) -> (x,a), b-major, counter slot of arc 2k+1, value b
 * so counter keys (slots) never decrease along the edge array and reduce-by-key
 * needs no sort. edge_offset is the exclusive scan of 2|Dx||Dy| (BuildNE).
 * Edges live in device memory when they fit; otherwise they are rebuilt chunk
 * by chunk from the bit matrices (ne_edges.resident == 0).
 *
 * bitset_model: arcs, their matrices (both directions) and the word-aligned
 * domain layout, for gpu-bitset and the SAC probes.
 *
 * table_gpu: the compact-table model of the table constraints (table_model.h) on the device,
 * revised inside gpu-bitset's rounds (table_gpu.cu). Include from .cu files only.
 */
#ifndef PARAC_AC_GPU_H
#define PARAC_AC_GPU_H

#include <stdint.h>

#include "ac/ac_algorithms.h"
#include "ac/table_model.h"
#include "cuda/context.h"

typedef struct ne_model {
    uint32_t binary_count;
    uint64_t edge_count, slot_count, value_count;
    size_t variable_count;
    uint32_t *size_x, *size_y;        /* per binary constraint */
    uint64_t *base_x, *base_y;        /* first value id of x and y */
    uint64_t *slot_x, *slot_y;        /* first counter slot of arcs 2k and 2k+1 */
    uint64_t *matrix_offset;          /* words, into matrices */
    uint32_t *row_words;
    uint64_t *matrices;
    uint64_t *edge_offset;            /* binary_count + 1 */
    uint32_t *slot_value;             /* slot -> value id (the value whose counter it is) */
    uint32_t *value_var;              /* value id -> variable */
} ne_model;

typedef struct ne_edges {
    uint32_t *key, *src, *dst;
    uint8_t *satisfied;
    int32_t *live;                    /* satisfied && dst present: reduce-by-key's values */
    uint64_t capacity;                /* edges held at once (edge_count when resident) */
    int resident;
} ne_edges;

/* Uploads the model, runs BuildNE's pair-count scan. Fails with UNSUPPORTED past 2^32 values or slots. */
parac_status ne_model_upload(parac_cuda_context *context, const ac_model *model, ne_model *ne, parac_error *error);
void ne_model_free(parac_cuda_context *context, ne_model *ne);
/* Edge buffers: all edges when they fit in free memory (and edge_limit, when > 0), else the
 * largest chunk that does: halved on every PARAC_ERR_NO_MEMORY down to 2^16 edges. */
parac_status ne_edges_alloc(parac_cuda_context *context, const ne_model *ne, uint64_t edge_limit, ne_edges *edges,
                            parac_error *error);
void ne_edges_free(parac_cuda_context *context, ne_edges *edges);
/* BuildNE: writes edges [first, first + count) into the buffers (at index 0). */
parac_status ne_edges_build(parac_cuda_context *context, const ne_model *ne, ne_edges *edges, uint64_t first,
                            uint64_t count, parac_error *error);
/* live[i] = satisfied[i] && present[dst[i]] for the count edges in the buffers. */
parac_status ne_edges_mark(parac_cuda_context *context, ne_edges *edges, const int32_t *present, uint64_t count,
                           parac_error *error);
/* counters[slot] = live supports: reduce-by-key over every edge (chunked), counters zeroed first. */
parac_status ne_count_supports(parac_cuda_context *context, const ne_model *ne, ne_edges *edges,
                               const int32_t *present, int32_t *counters, int edges_marked, parac_error *error);
/* domain sizes by reduce-by-key of present over value_var; sets *any_empty. */
parac_status ne_domain_sizes(parac_cuda_context *context, const ne_model *ne, const int32_t *present,
                             int32_t *sizes, int *any_empty, parac_error *error);
/* present[v] (int32 per value) from / to value-id bitsets. */
parac_status ne_present_upload(parac_cuda_context *context, const uint64_t *value_bits, uint64_t value_count,
                               int32_t *present, parac_error *error);
parac_status ne_present_download(parac_cuda_context *context, const int32_t *present, uint64_t value_count,
                                 uint64_t *value_bits, parac_error *error);

#define NE_THREADS 256
static inline unsigned ne_blocks(uint64_t items, const parac_cuda_context *context)
{
    uint64_t wanted = (items + NE_THREADS - 1) / NE_THREADS, cap = (uint64_t)context->multiprocessors * 32;
    if (cap == 0) cap = 1024;
    return (unsigned)(wanted == 0 ? 1 : wanted < cap ? wanted : cap);
}

typedef struct bitset_model {
    size_t variable_count, arc_count;
    uint64_t slot_count, domain_words;
    uint32_t *arc_x, *arc_y;
    uint32_t *row_words;
    uint64_t *matrix_offset;
    uint64_t *matrices;
    uint64_t *slot_offset;            /* arc_value_offset, arc_count + 1 */
    uint64_t *arcs_on_offset;         /* variable_count + 1 */
    uint32_t *arcs_on;
    uint64_t *domain_word_offset;     /* variable_count + 1 */
    uint32_t *domain_size;
} bitset_model;

parac_status bitset_model_upload(parac_cuda_context *context, const ac_model *model, bitset_model *bits,
                                 parac_error *error);
void bitset_model_free(parac_cuda_context *context, bitset_model *bits);

typedef struct table_gpu {
    size_t table_count, position_count;
    uint64_t slot_count, valid_words;
    void *block;                      /* the one device allocation every array below lives in */
    uint64_t *words, *valid_offset, *support_offset, *position_offset, *slot_offset; /* as in ac_table_model */
    uint32_t *position_table, *position_var;
    uint32_t *slot_position;          /* slot_count: the position of each table slot (no search per slot) */
    uint64_t *supports;
    uint64_t *valid;                  /* valid_words: the tuples valid in the current round's domains */
    uint64_t *residue;                /* slot_count: the word where the slot's last support was found */
} table_gpu;

/* Builds the support rows on the host, uploads them and the valid sets of `domains`. */
parac_status table_gpu_upload(parac_cuda_context *context, const ac_model *model, const ac_domains *domains,
                              table_gpu *tables, parac_error *error);
void table_gpu_free(parac_cuda_context *context, table_gpu *tables);
/* Round step 1: valid sets from prev_words (D_{k-1}) to old_words (D_k); step 3: the tables'
 * deletions of round k into next_words, stopping once the round's flags say wipe-out (and raising
 * that flag itself when a deletion empties a domain). Both on the context's stream, no sync. */
parac_status table_gpu_update_valid(parac_cuda_context *context, const table_gpu *tables, const bitset_model *m,
                                    const uint64_t *old_words, const uint64_t *prev_words,
                                    const uint8_t *changed_before, parac_error *error);
parac_status table_gpu_check(parac_cuda_context *context, const table_gpu *tables, const bitset_model *m,
                             const uint64_t *old_words, const uint8_t *changed_before, uint64_t *next_words,
                             int32_t *round_flags, parac_error *error);

/* gpu-bitset's flags of one round (ac_bitset_gpu.cu, table_gpu.cu): some domain changed; some
 * domain is empty (the round wipes out). */
enum { BITSET_FLAG_CHANGED = 0, BITSET_FLAG_EMPTY = 1, BITSET_FLAG_COUNT = 2 };

#ifdef __CUDACC__
/* The round already wiped out (another thread emptied a domain): the rest of its work can stop, as
 * the run ends with this round whatever else it deletes. */
static __device__ inline int bitset_round_wiped(const int32_t *round_flags)
{
    return *(const volatile int32_t *)&round_flags[BITSET_FLAG_EMPTY] != 0;
}

/* Deletes bit `bit` of word `word` of D_{k+1} (`next`), where the variable owns words [first, last).
 * When that leaves the variable's domain empty, raises the round's wipe-out flag at once. Words of
 * `next` only lose bits during a round, so a zero read here is final: the flag is never raised
 * early. A miss (two deletions racing on different words) is caught by the round's recount. */
static __device__ inline void bitset_delete_value(unsigned long long *next, uint64_t first, uint64_t last,
                                                  uint64_t word, uint64_t bit, int32_t *round_flags)
{
    unsigned long long mask = 1ull << bit;
    if ((atomicAnd(&next[word], ~mask) & ~mask) != 0) return;
    for (uint64_t w = first; w < last; w++)
        if (((volatile unsigned long long *)next)[w] != 0) return;
    *(volatile int32_t *)&round_flags[BITSET_FLAG_EMPTY] = 1;
}
#endif

#endif
