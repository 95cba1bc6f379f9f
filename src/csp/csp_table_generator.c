/* csp/csp_table_generator.c — random table constraints (parac_csp_generate with arity >= 3).
 *
 * Table i draws from its own RNG sub-stream (parac_rng_split(seed, 1 + i), as the binary
 * generator's matrices do): `arity` distinct variables, then `tuples` tuples of uniform slots,
 * with repetition (the network builder sorts them and drops duplicates). Batches of tables are
 * drawn in parallel and added in order, so the network does not depend on the thread count.
 * This makes the large n-ary networks of bench/bench_ac.c (10^7 tuple entries and more).
 */
#include "csp/csp_table_generator.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/threads.h"

#define TABLE_ARITY_MAX 8
#define TABLE_CELLS_FOR_DEFAULT ((uint64_t)1 << 24)
#define BATCH_ENTRIES ((uint64_t)1 << 23) /* tuple entries drawn per parallel batch (32 MB) */

/* D^arity, or UINT64_MAX past 2^63. */
static uint64_t tuple_space(uint32_t domain, uint32_t arity)
{
    uint64_t cells = 1;
    for (uint32_t i = 0; i < arity; i++) {
        if (cells > UINT64_MAX / 2 / domain) return UINT64_MAX;
        cells *= domain;
    }
    return cells;
}

static uint64_t tuples_per_table(const parac_csp_generate_options *o)
{
    if (o->tuples) return o->tuples;
    return (uint64_t)llround((1.0 - o->tightness) * (double)tuple_space(o->domain, o->arity));
}

parac_status csp_check_table_options(const parac_csp_generate_options *o, parac_error *error)
{
    if (o->arity > TABLE_ARITY_MAX || o->arity > o->variables)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "table arity %u is not in 3..%d (and at most the %u variables)",
                          o->arity, TABLE_ARITY_MAX, o->variables);
    if (o->tuples == 0 && tuple_space(o->domain, o->arity) > TABLE_CELLS_FOR_DEFAULT)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "D^arity = %u^%u tuples is too many to draw a fraction of: give the tuples per table",
                          o->domain, o->arity);
    if (tuples_per_table(o) > (uint64_t)1 << 32)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "at most 2^32 tuples per table");
    return PARAC_OK;
}

/* One table: its scope, then its tuples (tuple-major, slots in scope order). */
static void draw_table(const parac_csp_generate_options *o, uint64_t index, uint64_t count, uint32_t *scope,
                       uint32_t *tuples)
{
    parac_rng rng;
    parac_rng_split(&rng, o->seed, 1 + index);
    for (uint32_t i = 0; i < o->arity; i++) {
        uint32_t j;
        do {
            scope[i] = (uint32_t)parac_rng_below(&rng, o->variables);
            for (j = 0; j < i && scope[j] != scope[i]; j++) continue;
        } while (j < i);
    }
    for (uint64_t e = 0; e < count * o->arity; e++) tuples[e] = (uint32_t)parac_rng_below(&rng, o->domain);
}

parac_status csp_add_random_tables(parac_csp *csp, const parac_csp_generate_options *o, parac_error *error)
{
    uint64_t count = tuples_per_table(o), entries = count * o->arity;
    uint64_t batch = entries >= BATCH_ENTRIES ? 1 : BATCH_ENTRIES / (entries ? entries : 1);
    uint32_t *scopes = malloc(batch * o->arity * sizeof *scopes), *tuples = malloc((batch * entries + 1) * sizeof *tuples);
    parac_status status = PARAC_OK;
    int threads = parac_threads_resolve(o->threads);
    if (!scopes || !tuples) {
        free(scopes), free(tuples);
        return parac_fail_no_memory(error, "generator tables", (unsigned long long)(batch * entries * 4));
    }
    for (uint64_t start = 0; start < o->constraints && status == PARAC_OK; start += batch) {
        uint64_t end = start + batch < o->constraints ? start + batch : o->constraints;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int64_t i = (int64_t)start; i < (int64_t)end; i++)
            draw_table(o, (uint64_t)i, count, scopes + (uint64_t)(i - (int64_t)start) * o->arity,
                       tuples + (uint64_t)(i - (int64_t)start) * entries);
        for (uint64_t i = start; i < end && status == PARAC_OK; i++)
            status = parac_csp_add_table(&csp->network, o->arity, scopes + (i - start) * o->arity,
                                         tuples + (i - start) * entries, (size_t)count, error);
    }
    free(scopes);
    free(tuples);
    return status;
}
