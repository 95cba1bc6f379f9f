/* csp/csp_generator.c — random binary constraint networks (parac_csp_generate; tables with
 * arity >= 3 come from csp_table_generator.c).
 *
 * Model B: C distinct scopes drawn uniformly among the N(N-1)/2 pairs; each
 * constraint forbids exactly round(T*D*D) pairs drawn uniformly. Model RB
 * (Xu & Li): the same, but scopes are drawn independently, with repetition
 * (repeated scopes are merged by AND, as a reader would). Every constraint draws
 * from its own RNG sub-stream (parac_rng_split(seed, 1 + index)), so matrices can
 * be drawn in parallel and the network does not depend on the thread count.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hash_index.h"
#include "core/rng.h"
#include "core/threads.h"
#include "csp/csp_handle.h"
#include "csp/csp_table_generator.h"
#include "csp/xcsp_input.h"

#define BATCH_CONSTRAINTS 1024
#define BATCH_BYTES (256ULL << 20) /* matrices drawn at a time, in bytes, unless one thread each needs more */

void parac_csp_generate_options_default(parac_csp_generate_options *options)
{
    memset(options, 0, sizeof *options);
    options->model = PARAC_CSP_MODEL_B;
    options->variables = 50;
    options->domain = 10;
    options->constraints = 200;
    options->tightness = 0.3;
    options->seed = 1;
}

static parac_status check_options(const parac_csp_generate_options *o, parac_error *error)
{
    uint64_t pairs = (uint64_t)o->variables * (o->variables - 1) / 2;
    xcsp_limits limits;
    xcsp_limits_default(&limits);
    if (o->model != PARAC_CSP_MODEL_B && o->model != PARAC_CSP_MODEL_RB)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "unknown model %d", (int)o->model);
    if (o->variables < 2 || o->domain < 1 || o->domain > 1u << 20)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "need at least 2 variables and a domain of 1..2^20 values");
    if ((uint64_t)o->variables * o->domain > limits.max_values)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "%u variables of %u values: more than the %llu values in all domains that parac's XCSP "
                          "readers accept (the value budget, docs/xcsp.md)",
                          o->variables, o->domain, (unsigned long long)limits.max_values);
    if (!(o->tightness >= 0.0 && o->tightness <= 1.0))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "tightness %g is not in [0, 1]", o->tightness);
    if (o->arity >= 3) return csp_check_table_options(o, error);
    if (o->arity == 1) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "arity 1 constraints are domains, not constraints");
    if ((uint64_t)o->domain * o->domain > (1ULL << 32)) /* the readers' largest binary bit matrix */
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "binary constraints over %u values: more than the 2^32 pairs a binary constraint may hold",
                          o->domain);
    if (o->model == PARAC_CSP_MODEL_B && o->constraints > pairs)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "model B needs constraints <= N(N-1)/2 = %llu distinct scopes", (unsigned long long)pairs);
    return PARAC_OK;
}

/* ---- scopes ------------------------------------------------------------------------------- */

/* The pairs drawn so far (items of a core/hash_index, to reject repeats). */
typedef struct pair_set {
    uint64_t *pairs;
    size_t count;
    parac_hash_index index;
} pair_set;

static uint64_t hash_pair(uint64_t pair) { return pair * 0x9E3779B97F4A7C15ULL; }
static uint64_t stored_pair_hash(const void *context, size_t item) { return hash_pair(((const pair_set *)context)->pairs[item]); }
static int stored_pair_is(const void *context, size_t item, const void *pair)
{
    return ((const pair_set *)context)->pairs[item] == *(const uint64_t *)pair;
}

static int pair_set_contains(const pair_set *set, uint64_t pair)
{
    return parac_hash_index_find(&set->index, hash_pair(pair), &pair, stored_pair_is, set, NULL) != SIZE_MAX;
}

/* Adds pair (room for it in set->pairs is the caller's): 1 when new, 0 when present, -1 out of memory. */
static int pair_set_insert(pair_set *set, uint64_t pair)
{
    size_t slot;
    if (parac_hash_index_reserve(&set->index, stored_pair_hash, set) != 0) return -1;
    if (parac_hash_index_find(&set->index, hash_pair(pair), &pair, stored_pair_is, set, &slot) != SIZE_MAX) return 0;
    set->pairs[set->count] = pair;
    parac_hash_index_insert(&set->index, slot, set->count++);
    return 1;
}

static uint64_t random_pair(parac_rng *rng, uint32_t n)
{
    uint32_t x = (uint32_t)parac_rng_below(rng, n), y = (uint32_t)parac_rng_below(rng, n - 1);
    if (y >= x) y++;
    return x < y ? ((uint64_t)x << 32 | y) : ((uint64_t)y << 32 | x);
}

static int compare_pairs(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Model B: `count` distinct pairs, sorted. When more than half of all pairs are wanted, the
 * pairs left out are drawn instead (rejection then stays cheap). */
static int distinct_pairs(uint32_t n, uint64_t count, parac_rng *rng, uint64_t *pairs)
{
    uint64_t all = (uint64_t)n * (n - 1) / 2, drawn = count * 2 > all ? all - count : count, kept = 0;
    pair_set set = {NULL, 0, {0}};
    int added = 0;
    /* drawing the pairs themselves: they land in `pairs`; drawing those left out: in a buffer */
    set.pairs = drawn == count ? pairs : malloc((size_t)(drawn ? drawn : 1) * sizeof *set.pairs);
    if (!set.pairs) return -1;
    for (uint64_t i = 0; i < drawn && added >= 0;)
        if ((added = pair_set_insert(&set, random_pair(rng, n))) > 0) i++;
    if (added >= 0 && drawn != count) { /* walk all pairs, keep those not drawn */
        for (uint32_t x = 0; x < n; x++)
            for (uint32_t y = x + 1; y < n; y++)
                if (!pair_set_contains(&set, (uint64_t)x << 32 | y)) pairs[kept++] = (uint64_t)x << 32 | y;
    }
    if (set.pairs != pairs) free(set.pairs);
    parac_hash_index_free(&set.index);
    if (added < 0) return -1;
    qsort(pairs, (size_t)count, sizeof *pairs, compare_pairs);
    return 0;
}

static void repeated_pairs(uint32_t n, uint64_t count, parac_rng *rng, uint64_t *pairs)
{
    for (uint64_t i = 0; i < count; i++) pairs[i] = random_pair(rng, n);
}

/* ---- relations ---------------------------------------------------------------------------- */

/* A D x D matrix with exactly `forbidden` zero cells chosen uniformly: the rarer kind of cell
 * is drawn by rejection on the matrix itself, so each draw costs O(1) expected. */
static void draw_matrix(uint32_t domain, uint64_t forbidden, parac_rng *rng, parac_word *matrix)
{
    uint64_t cells = (uint64_t)domain * domain;
    size_t row_words = parac_bitset_words(domain);
    int draw_forbidden = forbidden * 2 <= cells;
    uint64_t draws = draw_forbidden ? forbidden : cells - forbidden;
    for (uint32_t r = 0; r < domain; r++) {
        if (draw_forbidden) parac_bitset_fill(matrix + (size_t)r * row_words, domain);
        else parac_bitset_zero(matrix + (size_t)r * row_words, row_words);
    }
    for (uint64_t i = 0; i < draws;) {
        uint64_t cell = parac_rng_below(rng, cells);
        parac_word *row = matrix + (size_t)(cell / domain) * row_words;
        uint32_t column = (uint32_t)(cell % domain);
        if (parac_bitset_test(row, column) != draw_forbidden) continue;
        if (draw_forbidden) parac_bitset_clear_bit(row, column);
        else parac_bitset_set(row, column);
        i++;
    }
}

static parac_status add_constraints(parac_csp *csp, const parac_csp_generate_options *o, const uint64_t *pairs,
                                    parac_error *error)
{
    size_t matrix_words = (size_t)o->domain * parac_bitset_words(o->domain);
    uint64_t forbidden = (uint64_t)llround(o->tightness * (double)o->domain * (double)o->domain);
    int threads = parac_threads_resolve(o->threads);
    /* BATCH_CONSTRAINTS matrices at a time, fewer when they are large (at most BATCH_BYTES, never
     * fewer than the threads): the matrices depend on the constraint's index, not on the batch */
    uint64_t batch_size = o->constraints < BATCH_CONSTRAINTS ? o->constraints : BATCH_CONSTRAINTS;
    uint64_t by_bytes = BATCH_BYTES / (matrix_words * sizeof(parac_word) + 1);
    parac_word *batch;
    parac_status status = PARAC_OK;
    if (batch_size > by_bytes) batch_size = by_bytes > (uint64_t)threads ? by_bytes : (uint64_t)threads;
    if (batch_size < 1) batch_size = 1;
    batch = malloc(batch_size * matrix_words * sizeof *batch);
    if (!batch) return parac_fail_no_memory(error, "generator matrices", batch_size * matrix_words * 8);
    for (uint64_t start = 0; start < o->constraints && status == PARAC_OK; start += batch_size) {
        uint64_t end = start + batch_size < o->constraints ? start + batch_size : o->constraints;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
        for (int64_t i = (int64_t)start; i < (int64_t)end; i++) {
            parac_rng rng;
            parac_rng_split(&rng, o->seed, 1 + (uint64_t)i);
            draw_matrix(o->domain, forbidden, &rng, batch + (size_t)(i - (int64_t)start) * matrix_words);
        }
        for (uint64_t i = start; i < end && status == PARAC_OK; i++)
            status = parac_csp_add_binary(&csp->network, (uint32_t)(pairs[i] >> 32), (uint32_t)pairs[i],
                                          batch + (size_t)(i - start) * matrix_words, error);
    }
    free(batch);
    return status;
}

static parac_status add_variables(parac_csp *csp, const parac_csp_generate_options *o, parac_error *error)
{
    int64_t *values = malloc(o->domain * sizeof *values);
    char name[32];
    parac_status status = PARAC_OK;
    if (!values) return parac_fail_no_memory(error, "domain", o->domain * 8);
    for (uint32_t v = 0; v < o->domain; v++) values[v] = v;
    for (uint32_t i = 0; i < o->variables && status == PARAC_OK; i++) {
        snprintf(name, sizeof name, "x[%u]", i);
        status = parac_csp_add_variable(&csp->network, name, values, o->domain, NULL, error);
    }
    free(values);
    return status == PARAC_OK ? parac_csp_finish_variables(&csp->network, error) : status;
}

parac_status parac_csp_generate(const parac_csp_generate_options *options, parac_csp **out, parac_error *error)
{
    parac_csp *csp;
    uint64_t *pairs;
    parac_rng rng;
    parac_status status = check_options(options, error);
    *out = NULL;
    if (status != PARAC_OK) return status;
    if (!(csp = parac_csp_handle_create(error))) return PARAC_ERR_NO_MEMORY;
    if (options->arity >= 3) { /* tables: csp_table_generator.c */
        status = add_variables(csp, options, error);
        if (status == PARAC_OK) status = csp_add_random_tables(csp, options, error);
        if (status != PARAC_OK) {
            parac_csp_destroy(csp);
            return status;
        }
        *out = csp;
        return PARAC_OK;
    }
    pairs = malloc((options->constraints + 1) * sizeof *pairs);
    if (!pairs) status = parac_fail_no_memory(error, "scopes", options->constraints * 8);
    parac_rng_split(&rng, options->seed, 0);
    if (status == PARAC_OK) status = add_variables(csp, options, error);
    if (status == PARAC_OK && options->model == PARAC_CSP_MODEL_B &&
        distinct_pairs(options->variables, options->constraints, &rng, pairs) < 0)
        status = parac_fail_no_memory(error, "scope set", options->constraints * 16);
    if (status == PARAC_OK && options->model == PARAC_CSP_MODEL_RB)
        repeated_pairs(options->variables, options->constraints, &rng, pairs);
    if (status == PARAC_OK) status = add_constraints(csp, options, pairs, error);
    free(pairs);
    if (status != PARAC_OK) {
        parac_csp_destroy(csp);
        return status;
    }
    *out = csp;
    return PARAC_OK;
}
