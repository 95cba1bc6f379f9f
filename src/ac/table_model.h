/* ac/table_model.h — the compact-table view of a network's table constraints, shared by the
 * CPU twin of the GPU table rounds (table_rounds.c) and the GPU path (table_gpu.cu).
 *
 * For table t with T tuples, "valid" is a bitset of T bits (words = ceil(T / 64)): the tuples
 * whose values are all still present. For each position i of t and each slot a of the
 * position's variable, support row (i, a) is a T-bit set of the tuples with value a at
 * position i. A deletion of (x, a) clears row (i, a) out of valid; a value (x, a) keeps a
 * support on t iff valid & row (i, a) is not empty. That is GAC on the table, in word ANDs.
 *
 * Numbering: positions are numbered across tables (table t owns positions
 * [position_offset[t], position_offset[t+1])), and so are "table slots", one per (position,
 * slot of its variable): position p owns table slots [slot_offset[p], slot_offset[p+1]).
 * Table slot s's support row starts at word support_offset[t] + (s - slot_offset[first
 * position of t]) * words[t]. Valid sets live at valid_offset[t] in one array.
 *
 * Memory: support rows cost sum over tables of (sum of the scope's domain sizes) x T / 8 bytes,
 * e.g. 10^6 tuples of arity 5 over domains of 10 values: 6.25 MB; ac_network_table_support_bytes
 * says it before anything is allocated.
 */
#ifndef PARAC_AC_TABLE_MODEL_H
#define PARAC_AC_TABLE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ac/ac_algorithms.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ac_table_model {
    size_t table_count, position_count;
    uint64_t slot_count, valid_words, support_words;
    uint32_t *constraint;        /* per table: its index in network->constraints */
    uint64_t *words;             /* per table: words of its valid set and of each support row */
    uint64_t *valid_offset;      /* table_count + 1 */
    uint64_t *support_offset;    /* table_count + 1 */
    uint64_t *position_offset;   /* table_count + 1 */
    uint32_t *position_table;    /* position_count: the table of each position */
    uint32_t *position_var;      /* position_count: the variable at that position */
    uint64_t *slot_offset;       /* position_count + 1 */
    parac_word *supports;        /* support_words */
} ac_table_model;

/* The tables of the model (model->nary entries without a global constraint). */
size_t ac_table_count(const ac_model *model);
/* Of a network, before any model is built: its tables (arity >= 3), their tuple entries (sum of
 * arity x tuples: what a tuple walk reads) and the bytes of their support rows (the dominant
 * size of the compact-table model; what a GPU run uploads for them). */
uint64_t ac_network_table_count(const parac_csp_network *network);
uint64_t ac_network_tuple_entries(const parac_csp_network *network);
uint64_t ac_network_table_support_bytes(const parac_csp_network *network);
/* Builds the index and the support rows (PARAC_ERR_NO_MEMORY when they do not fit). */
parac_status ac_table_model_build(const ac_model *model, ac_table_model *tables, parac_error *error);
void ac_table_model_free(ac_table_model *tables);
/* valid (valid_words words) = the tuples whose values are all in `domains`. */
void ac_table_valid_init(const ac_model *model, const ac_table_model *tables, const ac_domains *domains,
                         parac_word *valid);

/* The CPU twin of gpu-bitset's rounds on a network with tables (table_rounds.c): Jacobi rounds, each
 * revising every arc whose support variable changed in the previous round and every table one of
 * whose variables did (compact-table, above) against the domains at the round's start, until a round
 * changes nothing or empties a domain. Global constraints are not handled (PARAC_ERR_UNSUPPORTED). */
parac_status ac_run_table_rounds(const ac_model *model, ac_domains *domains, parac_ac_stats *stats,
                                 parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
