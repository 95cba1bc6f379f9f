/* tests/ac/test_table_rounds.c — the CPU twin of the GPU table rounds (ac_run_table_rounds:
 * compact-table Jacobi rounds, src/ac/table_rounds.c) against the existing engines (AC3bit+rm,
 * AC4, the OpenMP rounds) and, on small networks, a brute-force fixpoint, on fresh random
 * networks of tables of arity 2..6 with 1 to 2*10^5 tuples, binary matrices beside them,
 * multi-word domains, initial removals and wipe-outs. The runs must include wipe-outs and
 * removals without wipe-out (else the shapes test nothing). */
#include <stdlib.h>
#include <string.h>

#include "ac/table_model.h"
#include "support_random_network.h"
#include "support_random_tables.h"
#include "test_util.h"

typedef struct outcome_counts {
    int wipeouts, reduced, untouched;
} outcome_counts;

/* The twin's closure as a value-id bitset; returns its stats. */
static parac_ac_stats twin_closure(const parac_csp_network *network, uint64_t *value_bits)
{
    ac_model model;
    ac_domains domains = {0};
    parac_ac_stats stats = {0};
    parac_error error = {0};
    CHECK_OK(ac_model_build(network, 1, &model, &error), &error);
    CHECK_OK(ac_domains_init(&model, &domains, &error), &error);
    stats.values_before = ac_domains_total(&model, &domains);
    CHECK_OK(ac_run_table_rounds(&model, &domains, &stats, &error), &error);
    ac_domains_export(&model, &domains, stats.wipeout, value_bits);
    stats.values_after = stats.wipeout ? 0 : ac_domains_total(&model, &domains);
    ac_domains_free(&domains);
    ac_model_free(&model);
    return stats;
}

static void compare_on(const parac_csp_network *network, const char *label, int brute, outcome_counts *counts)
{
    static const parac_ac_algorithm engines[] = {PARAC_AC_AC3BIT, PARAC_AC_AC4, PARAC_AC_GPU_BITSET};
    size_t words = parac_ac_domain_words(network->value_count) + 1;
    uint64_t *twin = calloc(words, 8), *other = calloc(words, 8);
    parac_ac_stats stats = twin_closure(network, twin), reference;
    parac_error error = {0};
    CHECK(stats.iterations >= 1, "%s: the twin ran no round", label);
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
        parac_ac_options cpu = {{PARAC_DEVICE_CPU, 2, 0, NULL, NULL, NULL}, engines[e], 0, PARAC_AC_VARIANT_AUTO};
        memset(other, 0xa5, words * 8);
        CHECK_OK(ac_enforce_network(network, &cpu, other, &reference, &error), &error);
        CHECK(reference.wipeout == stats.wipeout, "%s: wipeout %d, %s %d", label, stats.wipeout,
              parac_ac_algorithm_name(engines[e]), reference.wipeout);
        CHECK(memcmp(twin, other, (words - 1) * 8) == 0, "%s: domains differ from %s", label,
              parac_ac_algorithm_name(engines[e]));
    }
    if (brute) {
        int wipeout = brute_force_ac(network, other);
        CHECK(wipeout == stats.wipeout, "%s: wipeout %d, brute force %d", label, stats.wipeout, wipeout);
        CHECK(memcmp(twin, other, (words - 1) * 8) == 0, "%s: domains differ from brute force", label);
    }
    if (stats.wipeout) counts->wipeouts++;
    else if (reference.removed > 0) counts->reduced++;
    else counts->untouched++;
    free(twin);
    free(other);
}

static void check_globals_refused(void)
{
    parac_csp_network network;
    parac_csp_global global;
    ac_model model;
    ac_domains domains = {0};
    parac_ac_stats stats = {0};
    parac_error error = {0};
    random_tables_shape shape = {6, 3, 0, 0.0, 1, 3, 3, 5, 5, 0.0};
    ac_term terms[3] = {{0}};
    CHECK(random_tables_network(&shape, 5, &network) == 0);
    memset(&global, 0, sizeof global);
    global.kind = AC_GLOBAL_ALL_DIFFERENT;
    for (int i = 0; i < 3; i++) terms[i].var = i;
    global.list_count = 1;
    global.lists[0] = terms;
    global.list_length[0] = 3;
    CHECK_OK(parac_csp_add_global(&network, &global, &error), &error);
    CHECK_OK(ac_model_build(&network, 1, &model, &error), &error);
    CHECK_OK(ac_domains_init(&model, &domains, &error), &error);
    CHECK(ac_run_table_rounds(&model, &domains, &stats, &error) == PARAC_ERR_UNSUPPORTED,
          "the twin must refuse global constraints");
    ac_domains_free(&domains);
    ac_model_free(&model);
    parac_csp_network_free(&network);
}

int main(void)
{
    /* vars, max dom, binary, tightness, tables, arity min..max, tuples min..max, unary removals */
    static const random_tables_shape shapes[] = {
        {5, 3, 2, 0.3, 2, 3, 3, 1, 12, 0.0},          /* tiny: a few tuples, wipe-outs */
        {8, 4, 4, 0.4, 5, 2, 4, 3, 40, 0.05},         /* arity 2 tables become matrices */
        {20, 6, 10, 0.3, 15, 2, 6, 5, 600, 0.02},     /* every arity */
        {12, 9, 0, 0.0, 10, 3, 6, 20, 3000, 0.0},     /* tables only */
        {12, 100, 10, 0.6, 6, 3, 3, 200, 8000, 0.0},  /* multi-word domains (up to 100 values) */
        {30, 5, 25, 0.25, 30, 3, 5, 30, 200, 0.1},    /* long propagation chains */
        {15, 12, 8, 0.2, 3, 4, 6, 100000, 200000, 0.0}, /* >= 10^5 tuples per table: multi-word rows */
    };
    outcome_counts counts = {0, 0, 0};
    uint64_t seeds = test_quick() ? 2 : 12;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (uint64_t seed = 1; seed <= (k == 6 ? 2 : seeds); seed++) {
            parac_csp_network network;
            char label[64];
            snprintf(label, sizeof label, "shape %zu seed %llu", k, (unsigned long long)seed);
            if (random_tables_network(&shapes[k], seed * 7919 + k, &network)) {
                CHECK(0, "%s: build failed", label);
                continue;
            }
            compare_on(&network, label, shapes[k].max_tuples <= 3000, &counts);
            parac_csp_network_free(&network);
        }
    CHECK(counts.wipeouts > 0, "no network wiped out: the shapes test nothing of that");
    CHECK(counts.reduced > 0, "no network lost values without a wipe-out");
    check_globals_refused();
    printf("ac.table_rounds: %d wipe-outs, %d reduced, %d unchanged\n", counts.wipeouts, counts.reduced,
           counts.untouched);
    return test_finish("ac.table_rounds");
}
