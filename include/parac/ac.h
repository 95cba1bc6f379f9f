/* parac/ac.h — arc consistency (AC) and singleton arc consistency (SAC) on a
 * constraint network loaded with parac/csp.h.
 *
 * Enforcing AC removes every value that has no support on some constraint,
 * until nothing changes. The result (the "closure") is unique, so every
 * algorithm and every device gives the same remaining domains, or the same
 * wipe-out (some domain became empty). Binary constraints are revised as bit
 * matrices; table constraints (arity >= 3) get generalized AC (GAC) on the CPU
 * algorithms, and so do global constraints (XCSP3 allDifferent, sum, element, ...) wherever GAC is
 * polynomial (parac_ac_global_consistency says which level each kind reaches). On the GPU,
 * gpu-bitset also revises table constraints (compact-table bitsets, same closure); ac4-gpu,
 * ac4-gpu-plus and GPU SAC handle binary networks only, and no GPU algorithm handles global
 * constraints: those report PARAC_ERR_UNSUPPORTED (AUTO runs them on the CPU).
 *
 * Domains are reported as one bitset over value ids (the N-E model's node
 * numbering: variable 0's values first, each variable's in increasing order;
 * parac_csp_value_count ids in all): bit v of word v / 64 is 1 when value id v
 * remains. The caller owns that buffer; it must hold
 * parac_ac_domain_words(parac_csp_value_count(csp)) words. On a wipe-out every
 * bit is 0. parac_ac_remaining_values turns it back into integer values.
 * No function keeps global state or prints; handles are only read.
 */
#ifndef PARAC_AC_H
#define PARAC_AC_H

#include <stddef.h>
#include <stdint.h>

#include "csp.h"
#include "exec.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac_ac_algorithm {
    PARAC_AC_AUTO = 0,      /* GPU: ac4-gpu-plus on binary networks, gpu-bitset with tables; CPU (or
                               global constraints, or fewer than PARAC_AC_AUTO_GPU_MIN_EDGES N-E edges
                               on a binary network, or a table network the cost model gives to the
                               CPU, with exec.device AUTO): ac3bit */
    PARAC_AC_AC3,           /* CPU, serial: AC3 (variable queue, scan for a support) */
    PARAC_AC_AC3RM,         /* CPU, serial: AC3 with residues */
    PARAC_AC_AC3BIT,        /* CPU, serial: AC3bit+rm (word-wise bitset revision, residue words) */
    PARAC_AC_AC2001,        /* CPU, serial: AC2001 (last support, resumed in order) */
    PARAC_AC_AC4,           /* CPU, serial: AC4 (support counters, CSR support lists) */
    PARAC_AC_AC4_GPU,       /* GPU: N-E model, reduce-by-key counters every round */
    PARAC_AC_AC4_GPU_PLUS,  /* GPU: N-E model, counters once, atomic decrements */
    PARAC_AC_GPU_BITSET     /* GPU: rounds of parallel bitset revisions; on the CPU: the same rounds with OpenMP */
} parac_ac_algorithm;

/* How ac4-gpu and ac4-gpu-plus lay out the N-E model on the GPU (same closure, same rounds). */
typedef enum parac_ac_variant {
    PARAC_AC_VARIANT_AUTO = 0,     /* rows; edges when the rows layout does not fit in device memory */
    PARAC_AC_VARIANT_EDGES,        /* the paper's layout: edge arrays (key, src, dst, satisfied) built by
                                      BuildNE, CUB reduce-by-key, one host check per round */
    PARAC_AC_VARIANT_ROWS          /* implicit edges: the edges of one counter slot are one row of a bit
                                      matrix (both directions built on the GPU), counters by popcount,
                                      several rounds per host check, one allocation */
} parac_ac_variant;

/* Below this many N-E edges the GPU's fixed costs (context, uploads) exceed AC3bit+rm's whole run,
 * so AUTO with exec.device AUTO stays on the CPU (an explicit CUDA device is obeyed). */
#define PARAC_AC_AUTO_GPU_MIN_EDGES ((uint64_t)2 << 20)

typedef struct parac_ac_options {
    parac_exec exec;               /* device and threads; zero = auto device, all cores */
    parac_ac_algorithm algorithm;  /* zero = PARAC_AC_AUTO */
    int singleton;                 /* 1: enforce SAC (SAC1 on the CPU, batched probes on the GPU) */
    parac_ac_variant variant;      /* N-E layout of ac4-gpu / ac4-gpu-plus; zero = PARAC_AC_VARIANT_AUTO */
} parac_ac_options;

/* The defaults: AUTO algorithm and N-E layout, plain AC (no SAC), parac_exec_init's device and
 * threads. */
void parac_ac_options_init(parac_ac_options *options);

typedef struct parac_ac_stats {
    parac_ac_algorithm algorithm;  /* the algorithm that ran (AUTO resolved) */
    parac_device device;           /* CPU or CUDA */
    uint64_t values_before;        /* values present before propagation */
    uint64_t values_after;         /* values remaining (0 on wipe-out) */
    uint64_t removed;              /* values_before - values_after */
    int wipeout;                   /* 1 when some domain became empty */
    uint64_t iterations;           /* rounds (round-based algorithms) or queue pops (serial ones); SAC: passes */
    uint64_t revisions;            /* arc / constraint revisions, or edges visited (N-E algorithms) */
    uint64_t ne_nodes;             /* N-E model size: values */
    uint64_t ne_edges;             /* N-E model size: value pairs of binary constraints */
    double build_seconds;          /* data structures: residues, counters, BuildNE, transfers to the GPU */
    double propagate_seconds;      /* propagation proper, results copied back */
    uint64_t table_count;          /* table constraints (arity >= 3); they ran on `device`: compact-table
                                      kernels on CUDA (gpu-bitset), tuple walks on the CPU */
    uint64_t tuple_entries;        /* their size: sum of arity x tuples */
} parac_ac_stats;

/* Words a domain bitset over value_count values needs. */
size_t parac_ac_domain_words(uint64_t value_count);

/* "ac3", "ac3rm", "ac3bit", "ac2001", "ac4", "ac4-gpu", "ac4-gpu-plus", "gpu-bitset", "auto". */
const char *parac_ac_algorithm_name(parac_ac_algorithm algorithm);
/* Parses such a name; PARAC_ERR_INVALID_ARGUMENT for an unknown one. */
parac_status parac_ac_algorithm_parse(const char *name, parac_ac_algorithm *algorithm, parac_error *error);

/* "auto", "edges", "rows"; parsing fails with PARAC_ERR_INVALID_ARGUMENT for another name. */
const char *parac_ac_variant_name(parac_ac_variant variant);
parac_status parac_ac_variant_parse(const char *name, parac_ac_variant *variant, parac_error *error);

/* Enforces AC (or SAC when options->singleton) on csp, which is not modified.
 * domains (caller-owned, parac_ac_domain_words(value count) words, may be NULL)
 * receives the remaining values; stats (may be NULL) the figures above.
 * Device: the serial algorithms always run on the CPU (with exec.device CUDA
 * they are refused: PARAC_ERR_INVALID_ARGUMENT); ac4-gpu and ac4-gpu-plus need
 * a GPU (PARAC_ERR_NO_DEVICE without one, PARAC_ERR_INVALID_ARGUMENT with
 * exec.device CPU); gpu-bitset and SAC run on the device exec resolves to.
 * Fails with PARAC_ERR_UNSUPPORTED for a GPU run of ac4-gpu, ac4-gpu-plus or SAC
 * on a network with tables, or of any GPU algorithm with global constraints
 * (AUTO falls back to the CPU instead), PARAC_ERR_NO_MEMORY when even the
 * smallest chunking does not fit, PARAC_ERR_DEVICE when a CUDA call fails. */
parac_status parac_ac_enforce(const parac_csp *csp, const parac_ac_options *options, uint64_t *domains,
                              parac_ac_stats *stats, parac_error *error);

/* The consistency the CPU algorithms reach on the global constraints of csp (XCSP3 allDifferent,
 * sum, ...; docs/ac.md lists the propagators): one entry per kind present, in a fixed kind order,
 * kinds[i] its XCSP3 name and levels[i] "gac" (every unsupported value is removed), "bounds"
 * (bounds consistency) or "partial" (a weaker documented filtering), the weakest over the
 * constraints of that kind. Writes at most capacity entries (the strings are static); returns how
 * many kinds there are (0 for a network without global constraints). */
size_t parac_ac_global_consistency(const parac_csp *csp, const char **kinds, const char **levels, size_t capacity);

/* Reading a result: the initial domain size of `variable` (slots), and the
 * integer values of `variable` still set in `domains`, written to `values`
 * (room for parac_ac_initial_domain_size entries) in increasing order; returns
 * how many. */
uint32_t parac_ac_initial_domain_size(const parac_csp *csp, size_t variable);
size_t parac_ac_remaining_values(const parac_csp *csp, const uint64_t *domains, size_t variable, int64_t *values);

#ifdef __cplusplus
}
#endif
#endif
