/* tests/ac/test_global_malformed.c — global constraints whose fields do not fit their kind (the
 * reader refuses them; a library caller may still build them): every CPU algorithm runs without a
 * crash or an out-of-bounds read (ASan builds) and prunes nothing on their account. */
#include <string.h>

#include "ac/ac_algorithms.h"
#include "ac/global_propagate.h"
#include "test_util.h"

int main(void)
{
    parac_csp_network net;
    parac_error error = {0};
    int64_t values[4] = {0, 1, 2, 3};
    uint32_t index;
    ac_term terms[4] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}}, two[2] = {{AC_TERM_CONSTANT, 1}, {AC_TERM_CONSTANT, 2}};
    parac_csp_global g;
    static const parac_ac_algorithm algorithms[] = {PARAC_AC_AC3, PARAC_AC_AC3BIT, PARAC_AC_AC2001, PARAC_AC_AC4,
                                                    PARAC_AC_GPU_BITSET};
    CHECK_OK(parac_csp_network_init(&net, &error), &error);
    for (int v = 0; v < 4; v++) CHECK_OK(parac_csp_add_variable(&net, "x", values, 4, &index, &error), &error);
    CHECK_OK(parac_csp_finish_variables(&net, &error), &error);
    ac_global_init(&g, AC_GLOBAL_CARDINALITY); /* occurrences shorter than values */
    g.lists[0] = terms, g.list_length[0] = 4, g.lists[1] = two, g.list_length[1] = 2, g.lists[2] = two,
    g.list_length[2] = 1, g.list_count = 3;
    CHECK(!ac_global_well_formed(&g), "cardinality with 1 occurrence for 2 values: malformed");
    CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
    ac_global_init(&g, AC_GLOBAL_NO_OVERLAP); /* lengths shorter than origins */
    g.lists[0] = terms, g.list_length[0] = 4, g.lists[1] = two, g.list_length[1] = 2, g.list_count = 2;
    CHECK(!ac_global_well_formed(&g), "noOverlap with 2 lengths for 4 origins: malformed");
    CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
    ac_global_init(&g, AC_GLOBAL_CUMULATIVE); /* no heights */
    g.lists[0] = terms, g.list_length[0] = 2, g.lists[1] = two, g.list_length[1] = 2, g.list_count = 2;
    g.condition.op = AC_OP_LE;
    CHECK(!ac_global_well_formed(&g), "cumulative without heights: malformed");
    CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
    ac_global_init(&g, AC_GLOBAL_ELEMENT); /* a 10^12-row matrix over 4 cells: rows past the list are empty */
    g.lists[0] = terms, g.list_length[0] = 4, g.list_count = 1, g.dims[0] = 1000000000000, g.dims[1] = 2;
    g.index = terms[0], g.index2 = terms[1], g.condition.op = AC_OP_EQ, g.condition.operand = terms[2];
    CHECK(ac_global_well_formed(&g), "a tall element matrix is well formed");
    CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
    g.dims[0] = 2, g.dims[1] = 1000000000000; /* and a wide one: columns past the list are empty */
    CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
    for (size_t i = 0; i < sizeof algorithms / sizeof algorithms[0]; i++) {
        parac_ac_options options = {{PARAC_DEVICE_CPU, 2, 0, NULL, NULL, NULL}, algorithms[i], 0, PARAC_AC_VARIANT_AUTO};
        parac_ac_stats stats;
        uint64_t domains[2] = {0, 0};
        CHECK_OK(ac_enforce_network(&net, &options, domains, &stats, &error), &error);
        /* only the elements prune: the wide one (its 4 cells all in row 0) fixes x0 = 0; the tall one
         * (cells x0 x1 / x2 x3) then has row 0: x2 = x0 = 0 (column 0) or x2 = x1 = 1 (column 1), so
         * x1, x2 in 0..1 and x3 free: 1 + 2 + 2 + 4 values */
        CHECK(!stats.wipeout && stats.values_after == 9, "%s: %llu values left", parac_ac_algorithm_name(algorithms[i]),
              (unsigned long long)stats.values_after);
    }
    parac_csp_network_free(&net);

    { /* the dedicated element propagator on a 2 x 10^12 matrix of 4 constant cells (distinct
         variables: no support search): row x0 = 0, column x1 in 0..3, value x2 in 0..3 */
        ac_term cells[4] = {{AC_TERM_CONSTANT, 0}, {AC_TERM_CONSTANT, 1}, {AC_TERM_CONSTANT, 2}, {AC_TERM_CONSTANT, 3}};
        ac_model model;
        ac_domains domains = {0};
        CHECK_OK(parac_csp_network_init(&net, &error), &error);
        for (int v = 0; v < 3; v++) CHECK_OK(parac_csp_add_variable(&net, "x", values, 4, &index, &error), &error);
        CHECK_OK(parac_csp_finish_variables(&net, &error), &error);
        ac_global_init(&g, AC_GLOBAL_ELEMENT);
        g.lists[0] = cells, g.list_length[0] = 4, g.list_count = 1, g.dims[0] = 2, g.dims[1] = 1000000000000;
        g.index = terms[0], g.index2 = terms[1], g.condition.op = AC_OP_EQ, g.condition.operand = terms[2];
        CHECK_OK(parac_csp_add_global(&net, &g, &error), &error);
        CHECK(ac_global_dedicated_strength(&net, &net.globals[0]) == AC_STRENGTH_GAC, "element: dedicated, exact");
        CHECK_OK(ac_model_build(&net, 1, &model, &error), &error);
        CHECK_OK(ac_domains_init(&model, &domains, &error), &error);
        CHECK(ac_propagate_element(&model, &domains, &net.globals[0], NULL, NULL) == 0, "wide element: no wipe-out");
        CHECK(domains.size[0] == 1 && domains.size[1] == 4 && domains.size[2] == 4, "wide element: sizes %u %u %u",
              domains.size[0], domains.size[1], domains.size[2]);
        ac_domains_free(&domains);
        ac_model_free(&model);
        parac_csp_network_free(&net);
    }
    return test_finish("ac.global_malformed");
}
