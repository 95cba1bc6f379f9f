/* tests/ac/test_global_gac.c — every global constraint kind against brute force.
 *
 * (About 840 lines: the brute-force GAC oracle and the random instance builders serve the three
 * checks below, the kinds, the networks and the large scopes, and stay in one file beside them;
 * the XCSP3 semantics the oracle reads are apart, in support_global_semantics.c.)
 *
 * For each kind, hundreds of small random instances (2-6 variables, domains of 1-6 values, negative
 * ones included, random parameters and conditions). The expected GAC is computed by enumeration
 * with the tests' own reading of the XCSP3 semantics (test_satisfied, support_global_semantics.c, apart from the
 * library's ac_global_satisfied so that both are checked): a value stays iff some satisfying tuple
 * of the scope holds it. Then
 *  - the kind's dedicated propagator: exactly that when it claims GAC for the instance
 *    (ac_global_dedicated_strength), else never removes a supported value;
 *  - one revision (ac_revise_global: dedicated or support search): exactly GAC (the scopes are
 *    small), and a second revision changes nothing;
 *  - networks of several globals and binary constraints: the brute-force fixpoint, reached by every
 *    CPU algorithm (ac3, ac3rm, ac3bit, ac2001, ac4, the OpenMP rounds at 1 and 3 threads, auto).
 */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_algorithms.h"
#include "ac/global_propagate.h"
#include "support_global_semantics.h"
#include "test_util.h"

/* ---- random numbers ---- */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t rnd(int64_t low, int64_t high) /* inclusive */
{
    return low + (int64_t)(rng_next() % (uint64_t)(high - low + 1));
}
static int chance(double p)
{
    return (double)(rng_next() % 1000000) < p * 1000000.0;
}

/* ---- brute force over alive[var][slot] ---- */
typedef struct brute {
    const parac_csp_network *net;
    uint8_t *alive; /* per value id */
} brute;

static int var_empty(const brute *b, size_t v)
{
    for (uint64_t id = b->net->value_offset[v]; id < b->net->value_offset[v + 1]; id++)
        if (b->alive[id]) return 0;
    return 1;
}

/* One GAC pass on global g: returns the number of values removed, or -1 when no tuple satisfies.
 * Enumerates the tuples of the alive values only (odometer over each variable's alive value ids). */
static long brute_global(brute *b, const parac_csp_global *g)
{
    const parac_csp_network *net = b->net;
    uint32_t scope[64];
    size_t count = ac_global_scope(g, scope, 64), at[64] = {0}, first[65];
    uint64_t *ids = malloc((net->value_count + 1) * sizeof *ids);
    uint8_t *supported = calloc(net->value_count + 1, 1);
    int64_t *x = calloc(net->variable_count + 1, sizeof *x);
    long removed = 0;
    int any = 0, more = 1;
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        first[i] = total;
        for (uint64_t id = net->value_offset[scope[i]]; id < net->value_offset[scope[i] + 1]; id++)
            if (b->alive[id]) ids[total++] = id;
        if (total == first[i]) more = 0;
    }
    first[count] = total;
    while (more) {
        for (size_t i = 0; i < count; i++) x[scope[i]] = net->values[ids[first[i] + at[i]]];
        if (test_satisfied(g, x)) {
            any = 1;
            for (size_t i = 0; i < count; i++) supported[ids[first[i] + at[i]]] = 1;
        }
        more = 0;
        for (size_t i = count; i-- > 0;) {
            if (first[i] + ++at[i] < first[i + 1]) {
                more = 1;
                break;
            }
            at[i] = 0;
        }
    }
    free(ids);
    if (count == 0) any = test_satisfied(g, x);
    for (size_t i = 0; i < count && any; i++)
        for (uint64_t id = net->value_offset[scope[i]]; id < net->value_offset[scope[i] + 1]; id++)
            if (b->alive[id] && !supported[id]) b->alive[id] = 0, removed++;
    free(supported), free(x);
    return any ? removed : -1;
}

static long brute_binary(brute *b, const parac_csp_constraint *c)
{
    const parac_csp_network *net = b->net;
    uint32_t xv = c->scope[0], yv = c->scope[1];
    long removed = 0;
    for (uint32_t a = 0; a < net->domain_size[xv]; a++) {
        int ok = 0;
        if (!b->alive[net->value_offset[xv] + a]) continue;
        for (uint32_t s = 0; s < net->domain_size[yv] && !ok; s++)
            ok = b->alive[net->value_offset[yv] + s] && parac_bitset_test(c->matrix + a * c->row_words, s);
        if (!ok) b->alive[net->value_offset[xv] + a] = 0, removed++;
    }
    for (uint32_t s = 0; s < net->domain_size[yv]; s++) {
        int ok = 0;
        if (!b->alive[net->value_offset[yv] + s]) continue;
        for (uint32_t a = 0; a < net->domain_size[xv] && !ok; a++)
            ok = b->alive[net->value_offset[xv] + a] && parac_bitset_test(c->matrix + a * c->row_words, s);
        if (!ok) b->alive[net->value_offset[yv] + s] = 0, removed++;
    }
    return removed;
}

/* The alive tuples of g's scope (capped at 2^62). */
static uint64_t brute_tuples(const brute *b, const parac_csp_global *g)
{
    uint32_t scope[64];
    size_t count = ac_global_scope(g, scope, 64);
    uint64_t tuples = 1;
    for (size_t i = 0; i < count; i++) {
        uint64_t alive = 0;
        for (uint64_t id = b->net->value_offset[scope[i]]; id < b->net->value_offset[scope[i] + 1]; id++) alive += b->alive[id];
        tuples = alive && tuples > ((uint64_t)1 << 62) / alive ? (uint64_t)1 << 62 : tuples * alive;
    }
    return tuples;
}

/* The fixpoint; returns 1 on wipe-out. Each pass revises the globals with the fewest alive tuples
 * first (the same fixpoint in any order; a large scope is enumerated after the small ones shrank it). */
static int brute_fixpoint(brute *b)
{
    long changed = 1;
    size_t order[64], count = b->net->global_count < 64 ? b->net->global_count : 64;
    uint64_t tuples[64];
    while (changed) {
        changed = 0;
        for (size_t c = 0; c < b->net->constraint_count; c++) changed += brute_binary(b, &b->net->constraints[c]);
        for (size_t g = 0; g < count; g++) {
            size_t at = g;
            tuples[g] = brute_tuples(b, &b->net->globals[g]);
            for (; at > 0 && tuples[order[at - 1]] > tuples[g]; at--) order[at] = order[at - 1];
            order[at] = g;
        }
        for (size_t k = 0; k < count; k++) {
            long r = brute_global(b, &b->net->globals[order[k]]);
            if (r < 0) return 1;
            changed += r;
        }
        for (size_t v = 0; v < b->net->variable_count; v++)
            if (var_empty(b, v)) return 1;
    }
    return 0;
}

/* ---- random instances ---- */
typedef struct instance {
    parac_csp_network net;
    parac_csp_global g;
    ac_term lists[AC_GLOBAL_MAX_LISTS][16];
    int64_t coeffs[16], values[8], set[8], transitions[3 * 24], finals[4];
    ac_range ranges[8];
    uint32_t vars_used;
} instance;

static int64_t value_low = -3, value_high = 6;
static int64_t domain_min = 1, domain_max = 6, list_min = 2; /* sizes drawn by add_variables, random_global */

static void add_variables(instance *in, uint32_t count)
{
    parac_error error = {0};
    for (uint32_t v = 0; v < count; v++) {
        int64_t values[8];
        uint32_t size = 0, want = (uint32_t)rnd(domain_min, domain_max), index;
        char name[16];
        for (int64_t k = value_low; k <= value_high; k++) /* a random subset, ascending */
            if (size < want && chance((double)(want - size) / (double)(value_high - k + 1))) values[size++] = k;
        if (!size) values[size++] = rnd(value_low, value_high);
        snprintf(name, sizeof name, "x%u", v);
        CHECK_OK(parac_csp_add_variable(&in->net, name, values, size, &index, &error), &error);
    }
}

/* A term over a fresh variable (distinct variables), or now and then a constant. */
static ac_term fresh(instance *in, uint32_t variables, double constant_rate)
{
    if (in->vars_used >= variables || chance(constant_rate)) return (ac_term){AC_TERM_CONSTANT, rnd(value_low, value_high)};
    return (ac_term){(int64_t)in->vars_used++, 0};
}

static void set_list(instance *in, size_t l, size_t length, uint32_t variables, double constant_rate)
{
    for (size_t i = 0; i < length; i++) in->lists[l][i] = fresh(in, variables, constant_rate);
    in->g.lists[l] = in->lists[l];
    in->g.list_length[l] = length;
    if (in->g.list_count < l + 1) in->g.list_count = l + 1;
}

static void random_condition(instance *in, uint32_t variables, int64_t low, int64_t high, int allow_sets)
{
    ac_condition *c = &in->g.condition;
    static const ac_operator ops[] = {AC_OP_LT, AC_OP_LE, AC_OP_GE, AC_OP_GT, AC_OP_EQ, AC_OP_NE, AC_OP_IN, AC_OP_NOT_IN};
    c->op = ops[rnd(0, allow_sets ? 7 : 5)];
    if (c->op == AC_OP_IN || c->op == AC_OP_NOT_IN) {
        c->is_range = (int)chance(0.5);
        c->low = rnd(low, high), c->high = c->low + rnd(0, 3);
        if (!c->is_range) {
            size_t count = 0;
            for (int64_t k = low; k <= high; k++)
                if (chance(0.3) && count < 8) in->set[count++] = k;
            c->set = in->set, c->set_count = count;
        }
        return;
    }
    c->operand = chance(0.3) ? fresh(in, variables, 0.0) : (ac_term){AC_TERM_CONSTANT, rnd(low, high)};
}

static void random_global(instance *in, ac_global_kind kind, uint32_t variables)
{
    parac_csp_global *g = &in->g;
    int64_t longest = variables > 2 ? variables - 1 : 2;
    size_t n = (size_t)rnd(list_min < longest ? list_min : longest, longest);
    ac_global_init(g, kind);
    in->vars_used = 0;
    switch (kind) {
    case AC_GLOBAL_ALL_DIFFERENT:
    case AC_GLOBAL_ALL_EQUAL:
    case AC_GLOBAL_NVALUES:
        set_list(in, 0, n, variables, 0.15);
        if (chance(0.3)) in->values[0] = rnd(value_low, value_high), g->values = in->values, g->value_count = 1;
        if (kind == AC_GLOBAL_NVALUES) random_condition(in, variables, 0, (int64_t)n, 0);
        break;
    case AC_GLOBAL_SUM:
        set_list(in, 0, n, variables, 0.15);
        if (chance(0.6)) {
            for (size_t i = 0; i < n; i++) in->coeffs[i] = rnd(-3, 3);
            g->coeffs = in->coeffs, g->coeff_count = n;
        }
        random_condition(in, variables, -8, 12, 1);
        if (chance(0.3) && n > 1) in->lists[0][n - 1] = in->lists[0][0]; /* x + ... + x: merged, still GAC */
        if (chance(0.2) && g->condition.operand.var >= 0) g->condition.operand = in->lists[0][0];
        break;
    case AC_GLOBAL_COUNT:
        set_list(in, 0, n, variables, 0.1);
        set_list(in, 1, (size_t)rnd(1, 3), 0, 1.0); /* constant values */
        if (chance(0.1)) in->lists[1][0] = fresh(in, variables, 0.0);
        if (chance(0.35)) in->lists[1][0] = fresh(in, variables, 0.0), g->list_length[1] = 1; /* count(x, [y]) */
        random_condition(in, variables, 0, (int64_t)n, 0);
        break;
    case AC_GLOBAL_CARDINALITY: {
        size_t k = (size_t)rnd(1, 3);
        set_list(in, 0, n, variables, 0.1);
        set_list(in, 1, k, 0, 1.0);
        g->has_ranges = (int)chance(0.3);
        for (size_t i = 0; i < k; i++) {
            in->lists[2][i] = chance(0.3) ? fresh(in, variables, 0.0) : (ac_term){AC_TERM_CONSTANT, rnd(0, (int64_t)n)};
            in->ranges[i].low = rnd(0, 2), in->ranges[i].high = in->ranges[i].low + rnd(0, 2);
        }
        g->lists[2] = in->lists[2], g->list_length[2] = k, g->list_count = 3;
        g->ranges = in->ranges;
        g->closed = (int)chance(0.3);
        break;
    }
    case AC_GLOBAL_ELEMENT:
        g->start_index = rnd(0, 1);
        if (chance(0.3)) {
            g->dims[0] = 2, g->dims[1] = 2, g->start_index2 = rnd(0, 1);
            g->index = fresh(in, variables, 0.0), g->index2 = fresh(in, variables, 0.0);
            set_list(in, 0, 4, variables, 0.5);
        } else {
            g->index = fresh(in, variables, 0.0);
            set_list(in, 0, n > 1 ? n - 1 : 1, variables, 0.2);
        }
        if (chance(0.7)) g->condition.op = AC_OP_EQ, g->condition.operand = fresh(in, variables, 0.3);
        else random_condition(in, variables, value_low, value_high, 1);
        break;
    case AC_GLOBAL_CHANNEL:
        g->start_index = rnd(0, 1);
        if (chance(0.3)) {
            set_list(in, 0, n > 1 ? n - 1 : 1, variables, 0.0);
            g->condition.op = AC_OP_EQ, g->condition.operand = fresh(in, variables, 0.0);
        } else if (chance(0.5)) {
            set_list(in, 0, n, variables, 0.0);
        } else {
            size_t a = (size_t)rnd(1, 3);
            set_list(in, 0, a, variables, 0.0);
            set_list(in, 1, a + (size_t)rnd(0, 1), variables, 0.0);
            g->start_index2 = rnd(0, 1);
        }
        break;
    case AC_GLOBAL_ORDERED:
        set_list(in, 0, n, variables, 0.15);
        g->op = (ac_operator)rnd(AC_OP_LT, AC_OP_GT);
        if (chance(0.4)) {
            for (size_t i = 0; i + 1 < n; i++) in->coeffs[i] = rnd(-1, 2);
            g->coeffs = in->coeffs, g->coeff_count = n - 1;
        }
        break;
    case AC_GLOBAL_LEX: {
        size_t lists = chance(0.2) ? 3 : 2, length = (size_t)rnd(1, variables / lists > 1 ? variables / lists : 1);
        for (size_t l = 0; l < lists; l++) set_list(in, l, length, variables, 0.15);
        g->op = (ac_operator)rnd(AC_OP_LT, AC_OP_GT);
        break;
    }
    case AC_GLOBAL_REGULAR:
    case AC_GLOBAL_MDD:
        set_list(in, 0, n, variables, 0.1);
        g->state_count = rnd(2, 4), g->start = 0;
        g->transition_count = (size_t)rnd(3, 24);
        for (size_t t = 0; t < g->transition_count; t++) {
            in->transitions[3 * t] = rnd(0, g->state_count - 1);
            in->transitions[3 * t + 1] = rnd(value_low, value_high);
            in->transitions[3 * t + 2] = rnd(0, g->state_count - 1);
        }
        g->transitions = in->transitions;
        g->final_count = (size_t)rnd(1, 2);
        for (size_t f = 0; f < g->final_count; f++) in->finals[f] = rnd(0, g->state_count - 1);
        g->finals = in->finals;
        break;
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM:
        set_list(in, 0, n, variables, 0.15);
        random_condition(in, variables, value_low, value_high, 1);
        break;
    case AC_GLOBAL_NO_OVERLAP:
        if (chance(0.25) && variables >= 4) {
            g->dims[0] = 2;
            set_list(in, 0, 4, variables, 0.0);
            set_list(in, 1, 4, 0, 1.0);
            for (size_t i = 0; i < 4; i++) in->lists[1][i].value = rnd(0, 3);
        } else {
            size_t tasks = n > 3 ? 3 : n;
            set_list(in, 0, tasks, variables, 0.0);
            set_list(in, 1, tasks, variables, chance(0.5) ? 1.0 : 0.6);
            for (size_t i = 0; i < tasks; i++)
                if (in->lists[1][i].var < 0) in->lists[1][i].value = rnd(0, 3);
        }
        g->zero_ignored = (int)chance(0.5);
        break;
    case AC_GLOBAL_CUMULATIVE: {
        size_t tasks = n > 3 ? 3 : n;
        set_list(in, 0, tasks, variables, 0.0);
        set_list(in, 1, tasks, variables, 0.8);
        set_list(in, 2, tasks, variables, 0.8);
        for (size_t i = 0; i < tasks; i++) {
            if (in->lists[1][i].var < 0) in->lists[1][i].value = rnd(0, 3);
            if (in->lists[2][i].var < 0) in->lists[2][i].value = rnd(0, 3);
        }
        g->condition.op = chance(0.7) ? AC_OP_LE : AC_OP_LT;
        g->condition.operand = chance(0.2) ? fresh(in, variables, 0.0) : (ac_term){AC_TERM_CONSTANT, rnd(1, 5)};
        break;
    }
    case AC_GLOBAL_CIRCUIT:
        g->start_index = rnd(0, 1);
        set_list(in, 0, n, variables, 0.0);
        if (chance(0.2)) g->size = fresh(in, variables, 0.5);
        break;
    case AC_GLOBAL_BIN_PACKING: /* bins are values; a few items fixed by constants */
        set_list(in, 0, n, variables, 0.15);
        for (size_t i = 0; i < n; i++) in->coeffs[i] = rnd(0, 4);
        g->coeffs = in->coeffs, g->coeff_count = n;
        g->condition.op = chance(0.7) ? AC_OP_LE : AC_OP_LT;
        g->condition.operand = chance(0.25) ? fresh(in, variables, 0.0) : (ac_term){AC_TERM_CONSTANT, rnd(2, 7)};
        break;
    case AC_GLOBAL_KNAPSACK:
        set_list(in, 0, n, variables, 0.1);
        for (size_t i = 0; i < n; i++) in->coeffs[i] = rnd(0, 4), in->values[i] = rnd(-1, 4);
        g->coeffs = in->coeffs, g->coeff_count = n;
        g->values = in->values, g->value_count = n;
        random_condition(in, variables, -4, 14, 0); /* the profit's (no set: in->set is the weight's) */
        g->condition2 = g->condition;
        random_condition(in, variables, -4, 14, 1);
        break;
    default: break;
    }
}

static void domain_range(ac_global_kind kind)
{
    value_low = -3, value_high = 6;
    if (kind == AC_GLOBAL_CIRCUIT || kind == AC_GLOBAL_ELEMENT) value_low = -1, value_high = 5;
    if (kind == AC_GLOBAL_CHANNEL) value_low = 0, value_high = 3; /* mostly indexes: Hall sets happen */
    if (kind == AC_GLOBAL_CARDINALITY || kind == AC_GLOBAL_COUNT || kind == AC_GLOBAL_NVALUES) value_low = -1, value_high = 3;
    if (kind == AC_GLOBAL_NO_OVERLAP || kind == AC_GLOBAL_CUMULATIVE) value_low = -1, value_high = 5;
    if (kind == AC_GLOBAL_BIN_PACKING) value_low = 0, value_high = 3; /* bins: items share them */
    if (kind == AC_GLOBAL_KNAPSACK) value_low = 0, value_high = 3;    /* quantities */
}

static int build_instance(instance *in, ac_global_kind kind, uint32_t variables)
{
    parac_error error = {0};
    memset(in, 0, sizeof *in);
    domain_range(kind);
    CHECK_OK(parac_csp_network_init(&in->net, &error), &error);
    add_variables(in, variables);
    CHECK_OK(parac_csp_finish_variables(&in->net, &error), &error);
    random_global(in, kind, variables);
    if (parac_csp_add_global(&in->net, &in->g, &error) != PARAC_OK) {
        CHECK(0, "add_global: %s", error.message);
        return -1;
    }
    return 0;
}

/* ---- comparisons ---- */
typedef int (*propagator)(const ac_model *, ac_domains *, const parac_csp_global *, uint8_t *, parac_ac_stats *);

static propagator dedicated_of(ac_global_kind kind)
{
    switch (kind) {
    case AC_GLOBAL_ALL_DIFFERENT: return ac_propagate_all_different;
    case AC_GLOBAL_ALL_EQUAL: return ac_propagate_all_equal;
    case AC_GLOBAL_SUM: return ac_propagate_sum;
    case AC_GLOBAL_COUNT: return ac_propagate_count;
    case AC_GLOBAL_NVALUES: return ac_propagate_nvalues;
    case AC_GLOBAL_CARDINALITY: return ac_propagate_cardinality;
    case AC_GLOBAL_ELEMENT: return ac_propagate_element;
    case AC_GLOBAL_CHANNEL: return ac_propagate_channel;
    case AC_GLOBAL_ORDERED: return ac_propagate_ordered;
    case AC_GLOBAL_LEX: return ac_propagate_lex;
    case AC_GLOBAL_REGULAR:
    case AC_GLOBAL_MDD: return ac_propagate_regular;
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM: return ac_propagate_min_max;
    case AC_GLOBAL_NO_OVERLAP: return ac_propagate_no_overlap;
    case AC_GLOBAL_CUMULATIVE: return ac_propagate_cumulative;
    case AC_GLOBAL_CIRCUIT: return ac_propagate_circuit;
    case AC_GLOBAL_BIN_PACKING: return ac_propagate_bin_packing;
    case AC_GLOBAL_KNAPSACK: return ac_propagate_knapsack;
    default: return NULL;
    }
}

static int domains_wiped(const ac_model *model, const ac_domains *d)
{
    for (size_t v = 0; v < model->network->variable_count; v++)
        if (d->size[v] == 0) return 1;
    return 0;
}

static int is_alive(const ac_model *model, const ac_domains *d, uint64_t id, size_t v)
{
    return parac_bitset_test(ac_domain_of(model, d, (uint32_t)v), (size_t)(id - model->network->value_offset[v]));
}

/* exact: domains equal the brute force (alive) or both wiped out; else sound: keeps every alive value. */
static int compare(const ac_model *model, const ac_domains *d, int wipe_reported, const brute *b, int brute_wipe,
                   int exact)
{
    const parac_csp_network *net = model->network;
    int wiped = wipe_reported || domains_wiped(model, d);
    if (brute_wipe) return exact ? wiped : 1;
    if (wiped) return 0;
    for (size_t v = 0; v < net->variable_count; v++)
        for (uint64_t id = net->value_offset[v]; id < net->value_offset[v + 1]; id++) {
            int got = is_alive(model, d, id, v);
            if (b->alive[id] && !got) return 0;
            if (exact && !b->alive[id] && got) return 0;
        }
    return 1;
}

static int gac_instances, exact_dedicated, sound_dedicated, wipeouts, prunings;

static void check_kind_instance(ac_global_kind kind, uint64_t seed)
{
    instance in;
    ac_model model;
    ac_domains d = {0}, again = {0};
    parac_error error = {0};
    uint32_t variables = (uint32_t)rnd(2, 6);
    brute b;
    int brute_wipe, exact, wipe;
    if (build_instance(&in, kind, variables) != 0) return;
    b.net = &in.net;
    b.alive = calloc(in.net.value_count + 1, 1);
    for (uint64_t id = 0; id < in.net.value_count; id++) b.alive[id] = 1;
    brute_wipe = brute_global(&b, &in.net.globals[0]) < 0;
    for (size_t v = 0; v < in.net.variable_count && !brute_wipe; v++) brute_wipe = var_empty(&b, v);
    CHECK_OK(ac_model_build(&in.net, 1, &model, &error), &error);
    CHECK_OK(ac_domains_init(&model, &d, &error), &error);
    CHECK_OK(ac_domains_init(&model, &again, &error), &error);
    /* the dedicated propagator alone */
    exact = ac_global_dedicated_strength(&in.net, &in.net.globals[0]) == AC_STRENGTH_GAC;
    wipe = dedicated_of(kind)(&model, &d, &in.net.globals[0], NULL, NULL);
    CHECK(compare(&model, &d, wipe, &b, brute_wipe, exact), "%s seed %llu: dedicated propagator (%s) differs from brute force",
          ac_global_kind_name(kind), (unsigned long long)seed, exact ? "exact" : "sound");
    exact ? exact_dedicated++ : sound_dedicated++;
    /* one revision: GAC on these small scopes, then idempotent */
    CHECK(ac_global_strength(&in.net, &in.net.globals[0]) == AC_STRENGTH_GAC, "%s: small scope not GAC",
          ac_global_kind_name(kind));
    ac_domains_import(&model, in.net.present, &d);
    wipe = ac_revise_global(&model, &d, &in.net.globals[0], NULL, NULL);
    CHECK(compare(&model, &d, wipe, &b, brute_wipe, 1), "%s seed %llu: revision is not GAC", ac_global_kind_name(kind),
          (unsigned long long)seed);
    CHECK(!wipe || domains_wiped(&model, &d) || ac_global_scope(&in.net.globals[0], NULL, 0) == 0,
          "%s: wipe-out reported, no domain empty", ac_global_kind_name(kind));
    if (!wipe) {
        ac_domains_copy(&model, &again, &d);
        CHECK(ac_revise_global(&model, &again, &in.net.globals[0], NULL, NULL) == 0, "%s: second revision wipes out",
              ac_global_kind_name(kind));
        CHECK(memcmp(again.words, d.words, model.domain_word_offset[in.net.variable_count] * sizeof *d.words) == 0,
              "%s seed %llu: revision not idempotent", ac_global_kind_name(kind), (unsigned long long)seed);
        if (ac_domains_total(&model, &d) < in.net.value_count) prunings++;
    } else {
        wipeouts++;
    }
    { /* the library's semantics (the support search's check) agree with this file's on random tuples */
        uint32_t scope[64];
        size_t count = ac_global_scope(&in.net.globals[0], scope, 64);
        int64_t tuple[64], *x = calloc(in.net.variable_count + 1, sizeof *x);
        for (int trial = 0; trial < 20; trial++) {
            for (size_t i = 0; i < count; i++) {
                uint32_t var = scope[i];
                tuple[i] = x[var] = in.net.values[in.net.value_offset[var] + (uint64_t)rnd(0, in.net.domain_size[var] - 1)];
            }
            CHECK(ac_global_satisfied(&in.net.globals[0], scope, tuple, count) == test_satisfied(&in.net.globals[0], x),
                  "%s seed %llu: ac_global_satisfied disagrees with the test's semantics", ac_global_kind_name(kind),
                  (unsigned long long)seed);
        }
        free(x);
    }
    gac_instances++;
    ac_domains_free(&d), ac_domains_free(&again);
    ac_model_free(&model);
    free(b.alive);
    parac_csp_network_free(&in.net);
}

/* ---- networks of several globals and binary constraints, every CPU algorithm ---- */
static const parac_ac_algorithm ALGORITHMS[] = {PARAC_AC_AC3,  PARAC_AC_AC3RM,      PARAC_AC_AC3BIT, PARAC_AC_AC2001,
                                                PARAC_AC_AC4,  PARAC_AC_GPU_BITSET, PARAC_AC_AUTO};

/* Up to three random binary constraints between distinct variables of net, each pair of values
 * allowed with probability density. */
static void add_random_binaries(parac_csp_network *net, uint32_t variables, double density)
{
    parac_error error = {0};
    for (int c = (int)rnd(0, 3); c > 0; c--) {
        uint32_t x = (uint32_t)rnd(0, variables - 1), y = (uint32_t)rnd(0, variables - 1);
        size_t row_words = parac_bitset_words(net->domain_size[y]);
        parac_word *matrix;
        if (x == y) continue;
        matrix = calloc(net->domain_size[x] * row_words + 1, sizeof *matrix);
        for (uint32_t a = 0; a < net->domain_size[x]; a++)
            for (uint32_t s = 0; s < net->domain_size[y]; s++)
                if (chance(density)) parac_bitset_set(matrix + a * row_words, s);
        CHECK_OK(parac_csp_add_binary(net, x, y, matrix, &error), &error);
        free(matrix);
    }
}

static int network_agreements, network_wipeouts;

static void check_network(uint64_t seed)
{
    instance in[3];
    parac_csp_network net;
    parac_error error = {0};
    uint32_t variables = (uint32_t)rnd(4, 6), globals = (uint32_t)rnd(2, 3);
    size_t words;
    uint64_t *got, *expected;
    brute b;
    int brute_wipe;
    domain_range(AC_GLOBAL_SUM);
    value_low = -1, value_high = 4;
    CHECK_OK(parac_csp_network_init(&net, &error), &error);
    memset(&in[0], 0, sizeof in[0]);
    in[0].net = net;
    add_variables(&in[0], variables);
    net = in[0].net;
    CHECK_OK(parac_csp_finish_variables(&net, &error), &error);
    for (uint32_t k = 0; k < globals; k++) { /* globals over shuffled variable numbers */
        ac_global_kind kind = (ac_global_kind)rnd(1, AC_GLOBAL_KIND_COUNT - 1);
        uint32_t shift = (uint32_t)rnd(0, variables - 1);
        random_global(&in[k], kind, variables);
        for (size_t l = 0; l < AC_GLOBAL_MAX_LISTS; l++)
            for (size_t i = 0; i < in[k].g.list_length[l]; i++)
                if (in[k].lists[l][i].var >= 0) in[k].lists[l][i].var = (in[k].lists[l][i].var + shift) % variables;
        if (in[k].g.condition.operand.var >= 0) in[k].g.condition.operand.var = (in[k].g.condition.operand.var + shift) % variables;
        if (in[k].g.index.var >= 0) in[k].g.index.var = (in[k].g.index.var + shift) % variables;
        if (in[k].g.index2.var >= 0) in[k].g.index2.var = (in[k].g.index2.var + shift) % variables;
        if (in[k].g.size.var >= 0) in[k].g.size.var = (in[k].g.size.var + shift) % variables;
        CHECK_OK(parac_csp_add_global(&net, &in[k].g, &error), &error);
    }
    add_random_binaries(&net, variables, 0.75);
    words = parac_ac_domain_words(net.value_count) + 1;
    got = calloc(words, sizeof *got), expected = calloc(words, sizeof *expected);
    b.net = &net;
    b.alive = calloc(net.value_count + 1, 1);
    for (uint64_t id = 0; id < net.value_count; id++) b.alive[id] = (uint8_t)parac_bitset_test(net.present, id);
    brute_wipe = brute_fixpoint(&b);
    for (uint64_t id = 0; id < net.value_count && !brute_wipe; id++)
        if (b.alive[id]) parac_bitset_set(expected, id);
    network_wipeouts += brute_wipe;
    for (size_t i = 0; i < sizeof ALGORITHMS / sizeof ALGORITHMS[0]; i++)
        for (int threads = 1; threads <= (ALGORITHMS[i] == PARAC_AC_GPU_BITSET ? 3 : 1); threads += 2)
            for (int singleton = 0; singleton <= (ALGORITHMS[i] == PARAC_AC_AUTO); singleton++) {
                parac_ac_options options = {{PARAC_DEVICE_CPU, threads, 0, NULL, NULL, NULL}, ALGORITHMS[i], singleton,
                                            PARAC_AC_VARIANT_AUTO};
                parac_ac_stats stats;
                memset(got, 0xab, words * sizeof *got);
                CHECK_OK(ac_enforce_network(&net, &options, got, &stats, &error), &error);
                if (singleton) { /* SAC: at least as strong as GAC, never keeps what GAC removes */
                    for (uint64_t id = 0; id < net.value_count; id++)
                        CHECK(!parac_bitset_test(got, id) || parac_bitset_test(expected, id),
                              "seed %llu: SAC keeps a value GAC removes", (unsigned long long)seed);
                    continue;
                }
                CHECK(stats.wipeout == brute_wipe, "seed %llu %s t%d: wipeout %d, brute force %d", (unsigned long long)seed,
                      parac_ac_algorithm_name(ALGORITHMS[i]), threads, stats.wipeout, brute_wipe);
                CHECK(memcmp(got, expected, (words - 1) * sizeof *got) == 0, "seed %llu %s t%d: domains differ",
                      (unsigned long long)seed, parac_ac_algorithm_name(ALGORITHMS[i]), threads);
                network_agreements++;
            }
    free(got), free(expected), free(b.alive);
    parac_csp_network_free(&net);
}

/* ---- networks whose globals start beyond the support search's budget ----
 * There a weak global revision runs its dedicated propagator, and the support search takes over
 * once the scope's tuples fall under AC_SUPPORT_SEARCH_BUDGET: what every engine reaches must
 * still be one state. Checked for every CPU algorithm (ac3, ac3rm, ac3bit, ac2001, ac4, the OpenMP
 * rounds at 1 and 3 threads, auto): identical domains and wipe-out; that state is a fixpoint (a
 * further revision of any global or binary constraint removes nothing); it keeps every value the
 * brute-force GAC fixpoint keeps (every propagator is sound), and equals it when `exact`; SAC keeps
 * no value it removes. And one revision of each global is idempotent from the initial domains (the
 * AC3 family never revises a constraint for its own removals). */
#define LARGE_NETWORKS 60
static int large_runs, large_weak_globals, large_prunings;

static void check_all_algorithms(const parac_csp_network *net, const char *what, uint64_t seed, int exact)
{
    parac_error error = {0};
    size_t words = parac_ac_domain_words(net->value_count) + 1;
    uint64_t *got = calloc(words, sizeof *got), *first = calloc(words, sizeof *first);
    uint8_t *kept = calloc(net->value_count + 1, 1);
    int first_wipe = -1, brute_wipe;
    brute b = {net, calloc(net->value_count + 1, 1)};
    ac_model model;
    ac_domains d = {0}, again = {0};
    for (uint64_t id = 0; id < net->value_count; id++) b.alive[id] = (uint8_t)parac_bitset_test(net->present, id);
    brute_wipe = brute_fixpoint(&b);
    CHECK_OK(ac_model_build(net, 1, &model, &error), &error);
    CHECK_OK(ac_domains_init(&model, &d, &error), &error);
    CHECK_OK(ac_domains_init(&model, &again, &error), &error);
    for (size_t g = 0; g < net->global_count; g++) { /* idempotent from the initial domains */
        ac_domains_import(&model, net->present, &d);
        if (ac_revise_global(&model, &d, &net->globals[g], NULL, NULL)) continue;
        ac_domains_copy(&model, &again, &d);
        CHECK(ac_revise_global(&model, &again, &net->globals[g], NULL, NULL) == 0 &&
                  memcmp(again.words, d.words, model.domain_word_offset[net->variable_count] * sizeof *d.words) == 0,
              "%s %llu: a second revision of global %zu (%s) removes values", what, (unsigned long long)seed, g,
              ac_global_kind_name(net->globals[g].kind));
    }
    for (size_t i = 0; i < sizeof ALGORITHMS / sizeof ALGORITHMS[0]; i++)
        for (int threads = 1; threads <= (ALGORITHMS[i] == PARAC_AC_GPU_BITSET ? 3 : 1); threads += 2) {
            parac_ac_options options = {{PARAC_DEVICE_CPU, threads, 0, NULL, NULL, NULL}, ALGORITHMS[i], 0,
                                        PARAC_AC_VARIANT_AUTO};
            parac_ac_stats stats;
            memset(got, 0xab, words * sizeof *got);
            CHECK_OK(ac_enforce_network(net, &options, got, &stats, &error), &error);
            large_runs++;
            if (first_wipe < 0) {
                memcpy(first, got, words * sizeof *got), first_wipe = stats.wipeout;
                continue;
            }
            CHECK(stats.wipeout == first_wipe && memcmp(got, first, (words - 1) * sizeof *got) == 0,
                  "%s %llu: %s t%d differs from %s", what, (unsigned long long)seed, parac_ac_algorithm_name(ALGORITHMS[i]),
                  threads, parac_ac_algorithm_name(ALGORITHMS[0]));
        }
    if (exact) CHECK(first_wipe == brute_wipe, "%s %llu: wipe-out %d, brute force %d", what, (unsigned long long)seed, first_wipe, brute_wipe);
    if (!brute_wipe) {
        CHECK(!first_wipe, "%s %llu: wipe-out where the brute-force GAC fixpoint keeps values", what, (unsigned long long)seed);
        for (uint64_t id = 0; id < net->value_count && !first_wipe; id++) {
            CHECK(!b.alive[id] || parac_bitset_test(first, id), "%s %llu: value id %llu has a support in every constraint, removed",
                  what, (unsigned long long)seed, (unsigned long long)id);
            if (exact) CHECK(b.alive[id] || !parac_bitset_test(first, id), "%s %llu: value id %llu kept, the GAC fixpoint removes it",
                             what, (unsigned long long)seed, (unsigned long long)id);
        }
    }
    if (!first_wipe) { /* a fixpoint: nothing more to remove, by any constraint */
        brute kept_b = {net, kept};
        for (uint64_t id = 0; id < net->value_count; id++) kept[id] = (uint8_t)parac_bitset_test(first, id);
        for (size_t c = 0; c < net->constraint_count; c++)
            CHECK(brute_binary(&kept_b, &net->constraints[c]) == 0, "%s %llu: binary constraint %zu still prunes",
                  what, (unsigned long long)seed, c);
        ac_domains_import(&model, first, &d);
        for (size_t c = 0; c < model.nary_count; c++) {
            ac_domains_copy(&model, &again, &d);
            CHECK(ac_revise_nary(&model, &again, c, NULL, NULL) == 0 &&
                      memcmp(again.words, d.words, model.domain_word_offset[net->variable_count] * sizeof *d.words) == 0,
                  "%s %llu: the result is not a fixpoint of n-ary constraint %zu", what, (unsigned long long)seed, c);
        }
        if (ac_domains_total(&model, &d) < net->value_count) large_prunings++;
        { /* SAC (CPU SAC1 over AC3bit+rm) keeps no value AC removes */
            parac_ac_options options = {{PARAC_DEVICE_CPU, 1, 0, NULL, NULL, NULL}, PARAC_AC_AUTO, 1, PARAC_AC_VARIANT_AUTO};
            parac_ac_stats stats;
            CHECK_OK(ac_enforce_network(net, &options, got, &stats, &error), &error);
            for (uint64_t id = 0; id < net->value_count; id++)
                CHECK(!parac_bitset_test(got, id) || parac_bitset_test(first, id), "%s %llu: SAC keeps a value AC removes",
                      what, (unsigned long long)seed);
        }
    }
    ac_domains_free(&d), ac_domains_free(&again);
    ac_model_free(&model);
    free(got), free(first), free(kept), free(b.alive);
}

/* The network fuzz_xcsp3 found (tests/regress/xcsp3/ac-circuit-element-*.xml): circuit over
 * succ[0..7] in 0..8 and element constraints with constant lists that fix succ[1] = 3 and
 * succ[3] = 1 (cost[1] = [3 0 4 6 3][succ[1]] = [2 6 5 0 6][succ[3]], succ[3] < 3 by
 * [7 3 8 600][succ[3]] = cost[4] in 0..8). 1 -> 3 -> 1 closes a sub-circuit, so every other node
 * loops on itself. The circuit's 9^8 tuples exceed the support search's budget at first; ac3bit
 * and ac2001 stopped with 50 values where the GAC fixpoint keeps 21. */
static void check_fuzz_circuit_network(void)
{
    static const int64_t lists[5][5] = {{0, 3, 4, 2, 7}, {3, 0, 4, 6, 3}, {4, 4, 0, 5, 8}, {2, 6, 5, 0, 6}, {7, 3, 8, 600, 0}};
    static const size_t lengths[5] = {5, 5, 5, 5, 4};
    static const int index_of[5] = {1, 1, 2, 3, 3}, value_of[5] = {0, 1, 2, 1, 4};
    parac_csp_network net;
    parac_csp_global g;
    parac_error error = {0};
    ac_term succ[8], cells[5][5];
    int64_t values[9];
    uint32_t index;
    size_t words;
    uint64_t *got;
    parac_ac_options options = {{PARAC_DEVICE_CPU, 1, 0, NULL, NULL, NULL}, PARAC_AC_AC3BIT, 0, PARAC_AC_VARIANT_AUTO};
    parac_ac_stats stats;
    for (int k = 0; k < 9; k++) values[k] = k;
    CHECK_OK(parac_csp_network_init(&net, &error), &error);
    for (int v = 0; v < 13; v++) /* succ[0..7] = variables 0..7, cost[0..4] = 8..12 */
        CHECK_OK(parac_csp_add_variable(&net, v < 8 ? "succ" : "cost", values, 9, &index, &error), &error);
    CHECK_OK(parac_csp_finish_variables(&net, &error), &error);
    ac_global_init(&g, AC_GLOBAL_CIRCUIT); /* in the file's order (the engines' schedule follows it) */
    for (int i = 0; i < 8; i++) succ[i] = (ac_term){i, 0};
    g.lists[0] = succ, g.list_length[0] = 8, g.list_count = 1;
    CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
    for (int e = 0; e < 5; e++) {
        ac_global_init(&g, AC_GLOBAL_ELEMENT);
        for (size_t i = 0; i < lengths[e]; i++) cells[e][i] = (ac_term){AC_TERM_CONSTANT, lists[e][i]};
        g.lists[0] = cells[e], g.list_length[0] = lengths[e], g.list_count = 1;
        g.index = (ac_term){index_of[e], 0};
        g.condition.op = AC_OP_EQ, g.condition.operand = (ac_term){8 + value_of[e], 0};
        CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
    }
    CHECK(ac_global_strength(&net, &net.globals[0]) == AC_STRENGTH_PARTIAL, "the circuit starts beyond the support search");
    check_all_algorithms(&net, "fuzz circuit network", 0, 1);
    words = parac_ac_domain_words(net.value_count) + 1;
    got = calloc(words, sizeof *got);
    CHECK_OK(ac_enforce_network(&net, &options, got, &stats, &error), &error);
    CHECK(!stats.wipeout, "fuzz circuit network: no wipe-out");
    for (uint32_t v = 0; v < 8; v++) { /* the closed sub-circuit 1 -> 3 -> 1 leaves every other node out */
        int64_t expect = v == 1 ? 3 : v == 3 ? 1 : v;
        for (uint32_t slot = 0; slot < 9; slot++)
            CHECK(parac_bitset_test(got, net.value_offset[v] + slot) == (net.values[net.value_offset[v] + slot] == expect),
                  "fuzz circuit network: succ[%u] value %lld", v, (long long)net.values[net.value_offset[v] + slot]);
    }
    free(got);
    parac_csp_network_free(&net);
}

/* Kinds whose dedicated propagator is weaker than GAC (at least on some instances). */
static const ac_global_kind WEAK_KINDS[] = {AC_GLOBAL_CIRCUIT,   AC_GLOBAL_NVALUES,     AC_GLOBAL_CUMULATIVE,
                                            AC_GLOBAL_NO_OVERLAP, AC_GLOBAL_BIN_PACKING, AC_GLOBAL_KNAPSACK,
                                            AC_GLOBAL_COUNT,     AC_GLOBAL_CARDINALITY, AC_GLOBAL_CHANNEL,
                                            AC_GLOBAL_LEX};

static void check_large_network(uint64_t seed)
{
    instance in[3];
    parac_csp_network net;
    parac_error error = {0};
    uint32_t variables = 8, globals = (uint32_t)rnd(2, 3);
    value_low = -1, value_high = 6, domain_min = 6, domain_max = 8, list_min = variables - 1;
    CHECK_OK(parac_csp_network_init(&net, &error), &error);
    memset(&in[0], 0, sizeof in[0]);
    in[0].net = net;
    add_variables(&in[0], variables);
    net = in[0].net;
    CHECK_OK(parac_csp_finish_variables(&net, &error), &error);
    for (uint32_t k = 0; k < globals; k++) { /* a circuit and an element half the time, then any kind */
        ac_global_kind kind = (ac_global_kind)rnd(1, AC_GLOBAL_KIND_COUNT - 1);
        uint32_t shift = (uint32_t)rnd(0, variables - 1);
        if (chance(0.6)) kind = WEAK_KINDS[rnd(0, sizeof WEAK_KINDS / sizeof WEAK_KINDS[0] - 1)];
        if (k == 0 && chance(0.5)) kind = AC_GLOBAL_CIRCUIT;
        if (k == 1 && chance(0.5)) kind = AC_GLOBAL_ELEMENT;
        random_global(&in[k], kind, variables);
        for (size_t l = 0; l < AC_GLOBAL_MAX_LISTS; l++)
            for (size_t i = 0; i < in[k].g.list_length[l]; i++)
                if (in[k].lists[l][i].var >= 0) in[k].lists[l][i].var = (in[k].lists[l][i].var + shift) % variables;
        if (in[k].g.condition.operand.var >= 0) in[k].g.condition.operand.var = (in[k].g.condition.operand.var + shift) % variables;
        if (in[k].g.condition2.operand.var >= 0) in[k].g.condition2.operand.var = (in[k].g.condition2.operand.var + shift) % variables;
        if (in[k].g.index.var >= 0) in[k].g.index.var = (in[k].g.index.var + shift) % variables;
        if (in[k].g.index2.var >= 0) in[k].g.index2.var = (in[k].g.index2.var + shift) % variables;
        if (in[k].g.size.var >= 0) in[k].g.size.var = (in[k].g.size.var + shift) % variables;
        CHECK_OK(parac_csp_add_global(&net, &in[k].g, &error), &error);
        large_weak_globals += ac_global_strength(&net, &net.globals[net.global_count - 1]) != AC_STRENGTH_GAC;
    }
    add_random_binaries(&net, variables, 0.8);
    check_all_algorithms(&net, "large network seed", seed, 0);
    value_low = -3, value_high = 6, domain_min = 1, domain_max = 6, list_min = 2;
    parac_csp_network_free(&net);
}

int main(void)
{
    for (int kind = 1; kind < AC_GLOBAL_KIND_COUNT; kind++)
        for (uint64_t seed = 1; seed <= 400; seed++) {
            rng_state = 0x9E3779B97F4A7C15ull * (seed + 1000u * (uint64_t)kind);
            check_kind_instance((ac_global_kind)kind, seed);
        }
    printf("%d single-global instances (%d with an exact dedicated propagator, %d sound-only; %d wipe-outs, %d prunings)\n",
           gac_instances, exact_dedicated, sound_dedicated, wipeouts, prunings);
    CHECK(wipeouts > 50 && prunings > 1000, "the instances exercise wipe-outs and prunings");
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rng_state = 0xD1B54A32D192ED03ull * seed;
        check_network(seed);
    }
    printf("%d network runs agree with the brute-force fixpoint (%d wiped-out networks)\n", network_agreements,
           network_wipeouts);
    check_fuzz_circuit_network();
    for (uint64_t seed = 1; seed <= LARGE_NETWORKS; seed++) {
        rng_state = 0x94D049BB133111EBull * seed;
        check_large_network(seed);
    }
    printf("%d runs on networks beyond the support search's budget (%d weak globals at the start, %d prunings) agree\n",
           large_runs, large_weak_globals, large_prunings);
    CHECK(large_weak_globals > LARGE_NETWORKS / 2 && large_prunings > LARGE_NETWORKS / 4,
          "the large networks exercise weak revisions and prunings");
    return test_finish("ac.global_gac");
}
