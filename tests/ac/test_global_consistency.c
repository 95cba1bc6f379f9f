/* tests/ac/test_global_consistency.c — parac_ac_global_consistency, what `parac ac --json`
 * reports as "consistency": one entry per kind present, in kind order, at the weakest level over
 * that kind's constraints (gac on small scopes and exact propagators, else the propagator's). */
#include <string.h>

#include <parac/ac.h>

#include "ac/global_propagate.h"
#include "csp/csp_handle.h"
#include "test_util.h"

static void add_variables(parac_csp_network *net, int count, int64_t size)
{
    parac_error error = {0};
    int64_t values[64];
    uint32_t index;
    for (int64_t k = 0; k < size; k++) values[k] = k;
    for (int v = 0; v < count; v++) CHECK_OK(parac_csp_add_variable(net, "x", values, (uint32_t)size, &index, &error), &error);
}

int main(void)
{
    parac_error error = {0};
    parac_csp *csp = parac_csp_handle_create(&error);
    parac_csp_network *net = &csp->network;
    parac_csp_global g;
    ac_term terms[12], lengths[12], heights[12];
    const char *kinds[8], *levels[8];
    size_t count;
    CHECK(parac_ac_global_consistency(csp, kinds, levels, 8) == 0, "no globals: no entries");
    add_variables(net, 12, 40);
    CHECK_OK(parac_csp_finish_variables(net, &error), &error);
    for (int i = 0; i < 12; i++) {
        terms[i] = (ac_term){i, 0};
        lengths[i] = (ac_term){AC_TERM_CONSTANT, 3};
        heights[i] = (ac_term){AC_TERM_CONSTANT, 1};
    }
    ac_global_init(&g, AC_GLOBAL_ALL_DIFFERENT); /* exact propagator over 12 variables */
    g.lists[0] = terms, g.list_length[0] = 12, g.list_count = 1;
    CHECK_OK(parac_csp_add_global(net, &g, &error), &error);
    ac_global_init(&g, AC_GLOBAL_CUMULATIVE); /* 40^3 tuples fit the support search: gac */
    g.lists[0] = terms, g.lists[1] = lengths, g.lists[2] = heights, g.list_count = 3;
    g.list_length[0] = g.list_length[1] = g.list_length[2] = 3;
    g.condition.op = AC_OP_LE, g.condition.operand = (ac_term){AC_TERM_CONSTANT, 2};
    CHECK_OK(parac_csp_add_global(net, &g, &error), &error);
    count = parac_ac_global_consistency(csp, kinds, levels, 8);
    CHECK(count == 2 && strcmp(kinds[0], "allDifferent") == 0 && strcmp(levels[0], "gac") == 0 &&
          strcmp(kinds[1], "cumulative") == 0 && strcmp(levels[1], "gac") == 0, "small cumulative: gac");
    g.list_length[0] = g.list_length[1] = g.list_length[2] = 12; /* 40^12 tuples: timetable only */
    CHECK_OK(parac_csp_add_global(net, &g, &error), &error);
    ac_global_init(&g, AC_GLOBAL_SUM); /* coefficients 10^9 over 12 variables: beyond the DP's states */
    {
        int64_t coeffs[12];
        for (int i = 0; i < 12; i++) coeffs[i] = 1000000000;
        g.lists[0] = terms, g.list_length[0] = 12, g.list_count = 1, g.coeffs = coeffs, g.coeff_count = 12;
        g.condition.op = AC_OP_LE, g.condition.operand = (ac_term){AC_TERM_CONSTANT, 5};
        CHECK_OK(parac_csp_add_global(net, &g, &error), &error);
    }
    count = parac_ac_global_consistency(csp, kinds, levels, 8);
    CHECK(count == 3, "three kinds, %zu", count);
    CHECK(strcmp(kinds[1], "sum") == 0 && strcmp(levels[1], "bounds") == 0, "huge sum: bounds (%s %s)", kinds[1], levels[1]);
    CHECK(strcmp(kinds[2], "cumulative") == 0 && strcmp(levels[2], "partial") == 0, "large cumulative: the weakest, partial");
    CHECK(parac_ac_global_consistency(csp, kinds, levels, 1) == 3 && strcmp(kinds[0], "allDifferent") == 0,
          "capacity 1: the count, one entry written");
    { /* the bounds sum forces x0..x11 to 0 (10^9 x >= 10^9 > 5 otherwise), allDifferent then fails */
        parac_ac_options options;
        parac_ac_stats stats;
        uint64_t domains[16];
        parac_ac_options_init(&options);
        options.exec.device = PARAC_DEVICE_CPU;
        CHECK_OK(parac_ac_enforce(csp, &options, domains, &stats, &error), &error);
        CHECK(stats.wipeout, "sum (bounds) + allDifferent: wipe-out");
    }
    parac_csp_destroy(csp);
    return test_finish("ac.global_consistency");
}
