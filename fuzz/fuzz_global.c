/* fuzz/fuzz_global.c — global constraint propagation, differential: the bytes describe a small
 * network (1-6 variables, domains of 1-6 values) and one to three global constraints of any kind
 * with arbitrary fields (malformed ones included); every CPU engine (ac3, ac3bit, ac4, the OpenMP
 * rounds) must give the same domains, and they must equal the fixpoint of the generic support
 * search (exact GAC by enumeration) when every constraint reports "gac", and keep every value of
 * that fixpoint otherwise. A disagreement aborts (a fuzzer crash). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ac/ac_algorithms.h"
#include "ac/global_propagate.h"

typedef struct byte_reader {
    const uint8_t *data;
    size_t size, at;
} byte_reader;

static unsigned next(byte_reader *r)
{
    return r->at < r->size ? r->data[r->at++] : 0;
}

static int64_t small(byte_reader *r, int64_t low, int64_t high)
{
    return low + (int64_t)(next(r) % (unsigned)(high - low + 1));
}

typedef struct global_storage {
    ac_term lists[AC_GLOBAL_MAX_LISTS][6];
    int64_t coeffs[6], values[4], set[6], transitions[3 * 8], finals[3];
    ac_range ranges[6];
} global_storage;

static ac_term term(byte_reader *r, uint32_t variables)
{
    unsigned b = next(r);
    if (b & 0x80) return (ac_term){AC_TERM_CONSTANT, (int64_t)(b % 9) - 2};
    return (ac_term){(int64_t)(b % variables), 0};
}

/* Sorted distinct values from a bit mask over -2..5. */
static size_t mask_values(unsigned mask, int64_t *out, size_t capacity)
{
    size_t count = 0;
    for (int k = 0; k < 8 && count < capacity; k++)
        if (mask >> k & 1) out[count++] = k - 2;
    return count;
}

static void decode_global(byte_reader *r, uint32_t variables, parac_csp_global *g, global_storage *s)
{
    static const size_t lists_of[AC_GLOBAL_KIND_COUNT] = {0, 1, 1, 1, 2, 1, 3, 1, 2, 1, 3, 1, 1, 1, 1, 2, 3, 1, 1, 1};
    ac_global_kind kind = (ac_global_kind)(1 + next(r) % (AC_GLOBAL_KIND_COUNT - 1));
    size_t length = (size_t)small(r, 1, 5), list_count = lists_of[kind];
    ac_global_init(g, kind);
    if (kind == AC_GLOBAL_CHANNEL || kind == AC_GLOBAL_LEX) list_count = (size_t)small(r, 1, 3);
    if (kind == AC_GLOBAL_CUMULATIVE && next(r) % 4 == 0) list_count = 4;
    g->list_count = list_count;
    for (size_t l = 0; l < list_count; l++) {
        size_t n = next(r) % 8 == 0 ? (size_t)small(r, 1, 5) : length; /* now and then unequal lengths */
        for (size_t i = 0; i < n; i++) s->lists[l][i] = term(r, variables);
        g->lists[l] = s->lists[l], g->list_length[l] = n;
    }
    if (next(r) & 1) {
        for (size_t i = 0; i < 6; i++) s->coeffs[i] = small(r, -3, 3);
        g->coeffs = s->coeffs, g->coeff_count = (size_t)small(r, 0, 6);
    }
    g->value_count = mask_values(next(r) & 0x11, s->values, 4);
    g->values = s->values;
    g->condition.op = (ac_operator)(next(r) % 9);
    g->condition.operand = term(r, variables);
    g->condition.is_range = (int)(next(r) & 1);
    g->condition.low = small(r, -3, 6), g->condition.high = g->condition.low + small(r, -1, 4);
    g->condition.set_count = mask_values(next(r), s->set, 6);
    g->condition.set = s->set;
    g->op = (ac_operator)small(r, AC_OP_LT, AC_OP_GT);
    if (kind == AC_GLOBAL_ELEMENT || kind == AC_GLOBAL_CIRCUIT || kind == AC_GLOBAL_CHANNEL) {
        g->index = term(r, variables), g->start_index = small(r, -1, 1), g->start_index2 = small(r, -1, 1);
        if (kind == AC_GLOBAL_ELEMENT && next(r) % 3 == 0)
            g->index2 = term(r, variables), g->dims[0] = small(r, 0, 3), g->dims[1] = small(r, 1, 3);
        if (kind == AC_GLOBAL_CIRCUIT && next(r) % 3 == 0) g->size = term(r, variables);
    }
    if (kind == AC_GLOBAL_NO_OVERLAP && next(r) % 3 == 0) g->dims[0] = 2;
    if (kind == AC_GLOBAL_KNAPSACK) { /* the profit's condition; profits are the values (their count must fit) */
        g->condition2.op = (ac_operator)small(r, AC_OP_LT, AC_OP_NE);
        g->condition2.operand = term(r, variables);
    }
    g->zero_ignored = (int)(next(r) & 1), g->closed = (int)(next(r) & 1), g->has_ranges = (int)(next(r) & 1);
    for (size_t k = 0; k < 6; k++) s->ranges[k].low = small(r, 0, 2), s->ranges[k].high = s->ranges[k].low + small(r, -1, 2);
    g->ranges = s->ranges;
    g->state_count = small(r, 1, 4), g->start = small(r, 0, 3);
    g->transition_count = (size_t)small(r, 0, 8);
    for (size_t t = 0; t < 3 * g->transition_count; t++) s->transitions[t] = t % 3 == 1 ? small(r, -2, 5) : small(r, 0, 3);
    g->transitions = s->transitions;
    g->final_count = (size_t)small(r, 0, 3);
    for (size_t f = 0; f < g->final_count; f++) s->finals[f] = small(r, 0, 3);
    g->finals = s->finals;
}

/* The fixpoint of exact support searches on `domains`; returns 1 on wipe-out. */
static int reference_fixpoint(const ac_model *model, ac_domains *domains)
{
    const parac_csp_network *net = model->network;
    uint64_t before = 0;
    for (;;) {
        uint64_t now;
        for (size_t g = 0; g < net->global_count; g++) {
            int applied;
            if (!ac_global_well_formed(&net->globals[g])) continue;
            if (ac_global_support_search(model, domains, &net->globals[g], UINT64_MAX, NULL, &applied)) return 1;
        }
        for (size_t v = 0; v < net->variable_count; v++)
            if (domains->size[v] == 0) return 1;
        now = ac_domains_total(model, domains);
        if (now == before) return 0;
        before = now;
    }
}

static void check(const parac_csp_network *net)
{
    static const parac_ac_algorithm algorithms[] = {PARAC_AC_AC3BIT, PARAC_AC_AC3, PARAC_AC_AC4, PARAC_AC_GPU_BITSET};
    uint64_t first[4] = {0}, got[4] = {0}, reference[4] = {0};
    int first_wipeout = 0, reference_wipeout, all_gac = 1;
    ac_model model;
    ac_domains domains = {0};
    parac_error error = {0};
    for (size_t i = 0; i < sizeof algorithms / sizeof algorithms[0]; i++) {
        parac_ac_options options = {{PARAC_DEVICE_CPU, 2, 0, NULL, NULL, NULL}, algorithms[i], 0, PARAC_AC_VARIANT_AUTO};
        parac_ac_stats stats;
        if (ac_enforce_network(net, &options, i ? got : first, &stats, &error) != PARAC_OK) return; /* memory */
        if (i == 0) first_wipeout = stats.wipeout;
        else if (stats.wipeout != first_wipeout || memcmp(got, first, sizeof got) != 0) abort();
    }
    if (ac_model_build(net, 1, &model, &error) != PARAC_OK) return;
    if (ac_domains_init(&model, &domains, &error) != PARAC_OK) {
        ac_model_free(&model);
        return;
    }
    reference_wipeout = reference_fixpoint(&model, &domains);
    ac_domains_export(&model, &domains, reference_wipeout, reference);
    for (size_t g = 0; g < net->global_count; g++) all_gac &= ac_global_strength(net, &net->globals[g]) == AC_STRENGTH_GAC;
    if (all_gac && (first_wipeout != reference_wipeout || memcmp(first, reference, sizeof first) != 0)) abort();
    if (!reference_wipeout) { /* sound: every value of the GAC fixpoint stays */
        if (first_wipeout) abort();
        for (size_t w = 0; w < 4; w++)
            if (reference[w] & ~first[w]) abort();
    }
    ac_domains_free(&domains);
    ac_model_free(&model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    byte_reader r = {data, size, 0};
    parac_csp_network net;
    parac_error error = {0};
    uint32_t variables = (uint32_t)small(&r, 1, 6), globals = (uint32_t)small(&r, 1, 3), index;
    global_storage storage;
    if (parac_csp_network_init(&net, &error) != PARAC_OK) return 0;
    for (uint32_t v = 0; v < variables; v++) {
        int64_t values[6], start = small(&r, -3, 3), step = small(&r, 1, 3);
        uint32_t count = (uint32_t)small(&r, 1, 6);
        for (uint32_t k = 0; k < count; k++) values[k] = start + (int64_t)k * step;
        if (parac_csp_add_variable(&net, "x", values, count, &index, &error) != PARAC_OK) goto done;
    }
    if (parac_csp_finish_variables(&net, &error) != PARAC_OK) goto done;
    for (uint32_t k = 0; k < globals; k++) {
        parac_csp_global g;
        memset(&storage, 0, sizeof storage);
        decode_global(&r, variables, &g, &storage);
        if (parac_csp_add_global(&net, &g, &error) != PARAC_OK) goto done;
    }
    check(&net);
done:
    parac_csp_network_free(&net);
    return 0;
}
