/* ac/ac_algorithms.h — what the AC algorithms share inside the ac module.
 *
 * ac_model: the network seen as directed arcs. Binary constraint c over (x, y)
 * gives arc 2c (revise x against y, rows = slots of x) and arc 2c + 1 (revise y
 * against x, the transposed matrix). Per-(arc, value) arrays (residues,
 * counters, N-E counter slots) are indexed arc_value_offset[arc] + slot.
 * ac_domains: the current domains, one word-aligned bitset per variable plus
 * its size, so a revision is a few word ANDs.
 */
#ifndef PARAC_AC_ALGORITHMS_H
#define PARAC_AC_ALGORITHMS_H

#include <stddef.h>
#include <stdint.h>

#include <parac/ac.h>

#include "ac/network.h"
#include "core/bitset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ac_arc {
    uint32_t x, y;               /* revise x's values against y */
    uint32_t constraint;
    const parac_word *matrix;    /* domain_size[x] rows of row_words words over y's slots (see ac_model_build) */
    size_t row_words;
} ac_arc;

/* One n-ary constraint as the engines see it: its scope (distinct variables, ascending) and what to
 * revise, a table (constraint index) or a global constraint (global != NULL). */
typedef struct ac_nary {
    const uint32_t *scope;
    uint32_t arity;
    uint32_t table;                 /* index in network->constraints when global is NULL */
    const parac_csp_global *global;
    int exact;                      /* global: its dedicated propagator is GAC (computed once) */
} ac_nary;

typedef struct ac_model {
    const parac_csp_network *network;
    size_t arc_count;
    ac_arc *arcs;
    parac_word *transposed;         /* storage of the odd arcs' matrices */
    uint64_t *arc_value_offset;     /* arc_count + 1 */
    size_t *arcs_on_offset;         /* variable_count + 1: arcs whose y is the variable (revise when y changes) */
    uint32_t *arcs_on;
    size_t *arcs_of_offset;         /* variable_count + 1: arcs whose x is the variable */
    uint32_t *arcs_of;
    /* n-ary constraints (tables, arity >= 3, and global constraints): one numbering, 0..nary_count-1,
     * tables first (in constraint order), then the globals; revised by ac_revise_nary (GAC). */
    size_t nary_count;
    struct ac_nary *nary;
    uint32_t *nary_scope_storage;   /* the globals' scopes (the tables' are their own) */
    size_t *nary_on_offset;         /* variable_count + 1: n-ary constraints over the variable */
    uint32_t *nary_on;
    parac_word *table_scratch;      /* GAC revision's supported-value bits, sized for the largest table */
    size_t *table_base;             /* and its per-position word offsets (n-ary ones are revised serially) */
    size_t *domain_word_offset;     /* variable_count + 1 */
    struct parac_progress_gate *progress; /* NULL without a progress callback; set by ac_enforce_network */
} ac_model;

/* The CPU algorithms' checkpoint: 1 (and *status = PARAC_ERR_CANCELLED, error filled) once the
 * progress callback asked to stop; reports progress when due. Costs a clock read: call it every few
 * thousand steps, not per value. */
int ac_cancelled(const ac_model *model, parac_error *error, parac_status *status);

typedef struct ac_domains {
    parac_word *words;              /* domain_word_offset[n] words */
    uint32_t *size;                 /* variable_count */
} ac_domains;

/* transposed = 0 leaves the odd arcs' matrices NULL: only the N-E algorithms, which read the
 * even arcs alone, may run on such a model (it saves the transposition of every matrix). */
parac_status ac_model_build(const parac_csp_network *network, int transposed, ac_model *model, parac_error *error);
void ac_model_free(ac_model *model);

/* Domains from the network's initial `present` bits; copies; back to value-id bitsets. */
parac_status ac_domains_init(const ac_model *model, ac_domains *domains, parac_error *error);
parac_status ac_domains_create(const ac_model *model, ac_domains *domains, parac_error *error); /* all empty */
parac_status ac_domains_clone(const ac_model *model, const ac_domains *from, ac_domains *to, parac_error *error);
void ac_domains_copy(const ac_model *model, ac_domains *to, const ac_domains *from);
void ac_domains_free(ac_domains *domains);
/* Domains from a value-id bitset (the inverse of ac_domains_export). */
void ac_domains_import(const ac_model *model, const uint64_t *value_bits, ac_domains *domains);
void ac_domains_export(const ac_model *model, const ac_domains *domains, int wipeout, uint64_t *value_bits);
uint64_t ac_domains_total(const ac_model *model, const ac_domains *domains);
static inline parac_word *ac_domain_of(const ac_model *model, const ac_domains *domains, uint32_t var)
{
    return domains->words + model->domain_word_offset[var];
}

/* The first value b >= from of D(y) that row (a's supports) allows, checked one value at a time as the
 * AC3 family does; size_y when there is none. */
static inline size_t ac_next_support(const parac_word *dom_y, const parac_word *row, size_t from, size_t size_y)
{
    size_t b = from;
    while (b < size_y && !(parac_bitset_test(dom_y, b) && parac_bitset_test(row, b))) b++;
    return b;
}

/* GAC revision of table constraint `table`: removes values without a valid tuple.
 * Sets changed[var] = 1 for each reduced variable (changed may be NULL). Returns 1 on wipe-out. */
int ac_revise_table(const ac_model *model, ac_domains *domains, size_t table, uint8_t *changed, parac_ac_stats *stats);
/* The one revision of n-ary constraint `nary` (model->nary[nary]): GAC on a table, or the global
 * constraint's propagator (global_propagate.c). Same contract as ac_revise_table. */
int ac_revise_nary(const ac_model *model, ac_domains *domains, size_t nary, uint8_t *changed, parac_ac_stats *stats);

/* Revises arc `arc` (x against y): removes x's unsupported values; returns how many. */
typedef struct ac_reviser {
    uint64_t (*revise)(void *state, const ac_model *model, ac_domains *domains, size_t arc);
    void *state;
} ac_reviser;

/* The AC3 family's engine: a queue of variables whose domain shrank; the queue
 * starts with `start` (NULL: every variable). Returns 1 on wipe-out. */
int ac_propagate_variables(const ac_model *model, ac_domains *domains, const ac_reviser *reviser,
                           const uint32_t *start, size_t start_count, parac_ac_stats *stats, parac_error *error,
                           parac_status *status);

/* Runs a variable-queue propagation whose reviser keeps one uint32 per (arc, value of x),
 * zero-initialised (AC3rm's residues, AC2001's last supports); `what` names it in errors. */
parac_status ac_run_with_arc_value_state(const ac_model *model, ac_domains *domains,
                                         uint64_t (*revise)(void *, const ac_model *, ac_domains *, size_t),
                                         const char *what, parac_ac_stats *stats, parac_error *error);

/* The serial algorithms: propagate on `domains`; return PARAC_OK and set stats->wipeout. */
parac_status ac_run_ac3(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error);
parac_status ac_run_ac3rm(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error);
parac_status ac_run_ac3bit(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error);
parac_status ac_run_ac2001(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error);
parac_status ac_run_ac4(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error);
/* Rounds of parallel revisions (OpenMP), the CPU twin of gpu-bitset: same rounds, same closure. */
parac_status ac_run_bitset_rounds(const ac_model *model, ac_domains *domains, int threads, parac_ac_stats *stats,
                                  parac_error *error);
/* SAC1 on the CPU (AC3bit+rm inside). */
parac_status ac_run_sac1(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error);

/* AC3bit+rm from a given state with only `start` queued; for SAC probes. Returns 1 on wipe-out. */
int ac3bit_propagate_from(const ac_model *model, ac_domains *domains, void *residues, const uint32_t *start,
                          size_t start_count, parac_ac_stats *stats, parac_error *error, parac_status *status);
void *ac3bit_residues_create(const ac_model *model);

/* The whole run on a network, used by parac_ac_enforce and the tests. */
parac_status ac_enforce_network(const parac_csp_network *network, const parac_ac_options *options, uint64_t *domains,
                                parac_ac_stats *stats, parac_error *error);
/* As ac_enforce_network; edge_limit > 0 caps the N-E edges held on the GPU at once (chunking). */
parac_status ac_enforce_network_limited(const parac_csp_network *network, const parac_ac_options *options,
                                        uint64_t edge_limit, uint64_t *domains, parac_ac_stats *stats,
                                        parac_error *error);

#ifdef PARAC_HAVE_CUDA
#include "cuda/context.h"
/* GPU paths (binary networks). value_bits in/out: the value-id bitset (initial domains in, closure out). */
/* edge_limit > 0 caps the N-E edges held on the device (tests use it to force chunking). */
parac_status ac_cuda_ac4(parac_cuda_context *context, const ac_model *model, int plus, uint64_t edge_limit,
                         uint64_t *value_bits, parac_ac_stats *stats, parac_error *error);
/* The same two algorithms in the rows layout (ac4_gpu_rows.cu): domains in/out (wiped-out runs leave
 * them partly emptied: export with stats->wipeout). PARAC_ERR_NO_MEMORY when the layout does not fit. */
parac_status ac_cuda_ac4_rows(parac_cuda_context *context, const ac_model *model, int plus, ac_domains *domains,
                              parac_ac_stats *stats, parac_error *error);
parac_status ac_cuda_bitset(parac_cuda_context *context, const ac_model *model, uint64_t *value_bits,
                            parac_ac_stats *stats, parac_error *error);
parac_status ac_cuda_sac(parac_cuda_context *context, const ac_model *model, uint64_t *value_bits,
                         parac_ac_stats *stats, parac_error *error);
#endif

#ifdef __cplusplus
}
#endif
#endif
