/* tests/ac/test_global_scale.c — global constraints too large for the support search: the
 * dedicated propagators must be polynomial (a generous time bound catches exponential code) and
 * reach the known closure of instances built so that it is easy to state:
 *  - allDifferent over 200 variables: a Hall set {x0..x9} = {0..9} takes 0..9 from the others;
 *    199 values for 200 variables wipes out (pigeonhole, which pairwise reasoning misses);
 *  - sum over 100 variables of 0..9 = 900 forces every variable to 9; = 450 removes nothing;
 *  - regular over 120 variables ("no two 1s in a row" with x[60] = 1): x[59], x[61] lose 1;
 *  - element over 1000 cells, count over 300 variables, cumulative over 60 tasks, minimum over
 *    300 variables, cardinality over 100 (a Hall set only the flow sees) and over 3,000 with
 *    occurrence variables (nothing to remove, within the time bound), cumulative and noOverlap
 *    over 1,000 tasks of horizon 10,000: expected domains stated per case;
 * each through ac_enforce_network with ac3bit and ac4 (same domains).
 */
#include <stdlib.h>
#include <string.h>

#include "ac/ac_algorithms.h"
#include "ac/global_propagate.h"
#include "core/timer.h"
#include "test_util.h"

#define TIME_LIMIT_SECONDS 10.0

typedef struct scale_case {
    parac_csp_network net;
    uint64_t *result;
    int wipeout;
} scale_case;

static void init_case(scale_case *c)
{
    parac_error error = {0};
    memset(c, 0, sizeof *c);
    CHECK_OK(parac_csp_network_init(&c->net, &error), &error);
}

static void add_range_variable(scale_case *c, int64_t low, int64_t high)
{
    parac_error error = {0};
    size_t count = (size_t)(high - low + 1);
    int64_t *values = malloc(count * sizeof *values);
    uint32_t index;
    for (size_t i = 0; i < count; i++) values[i] = low + (int64_t)i;
    CHECK_OK(parac_csp_add_variable(&c->net, "x", values, (uint32_t)count, &index, &error), &error);
    free(values);
}

static void add_global(scale_case *c, parac_csp_global *g)
{
    parac_error error = {0};
    CHECK_OK(parac_csp_add_global(&c->net, g, &error), &error);
}

/* Runs ac3bit and ac4; checks time and agreement; leaves ac3bit's result in c->result. */
static void run_case(scale_case *c, const char *label)
{
    size_t words = parac_ac_domain_words(c->net.value_count) + 1;
    uint64_t *other = calloc(words, sizeof *other);
    parac_ac_algorithm algorithms[2] = {PARAC_AC_AC3BIT, PARAC_AC_AC4};
    c->result = calloc(words, sizeof *c->result);
    for (int i = 0; i < 2; i++) {
        parac_ac_options options = {{PARAC_DEVICE_CPU, 1, 0, NULL, NULL, NULL}, algorithms[i], 0, PARAC_AC_VARIANT_AUTO};
        parac_ac_stats stats;
        parac_error error = {0};
        double start = parac_now_seconds(), seconds;
        CHECK_OK(ac_enforce_network(&c->net, &options, i ? other : c->result, &stats, &error), &error);
        seconds = parac_now_seconds() - start;
        printf("%-40s %-7s %8.3f s, %llu values left%s\n", label, parac_ac_algorithm_name(algorithms[i]), seconds,
               (unsigned long long)stats.values_after, stats.wipeout ? " (wipe-out)" : "");
        CHECK(seconds < test_time_limit(TIME_LIMIT_SECONDS), "%s: %s took %.1f s", label,
              parac_ac_algorithm_name(algorithms[i]), seconds);
        if (i == 0) c->wipeout = stats.wipeout;
        else CHECK(stats.wipeout == c->wipeout, "%s: ac4 and ac3bit disagree on the wipe-out", label);
    }
    CHECK(memcmp(other, c->result, (words - 1) * sizeof *other) == 0, "%s: ac4 and ac3bit domains differ", label);
    free(other);
}

static int has(const scale_case *c, uint32_t var, int64_t value)
{
    long slot = ac_value_slot(&c->net, var, value);
    return slot >= 0 && parac_bitset_test(c->result, c->net.value_offset[var] + (uint64_t)slot);
}

static uint32_t size_of(const scale_case *c, uint32_t var)
{
    uint32_t count = 0;
    for (uint64_t id = c->net.value_offset[var]; id < c->net.value_offset[var + 1]; id++)
        count += (uint32_t)parac_bitset_test(c->result, id);
    return count;
}

static void free_case(scale_case *c)
{
    free(c->result);
    parac_csp_network_free(&c->net);
}

static ac_term *variable_terms(size_t first, size_t count)
{
    ac_term *terms = malloc(count * sizeof *terms);
    for (size_t i = 0; i < count; i++) terms[i] = (ac_term){(int64_t)(first + i), 0};
    return terms;
}

static void all_different_cases(void)
{
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *terms = variable_terms(0, 200);
    init_case(&c);
    for (int v = 0; v < 200; v++) add_range_variable(&c, 0, v < 10 ? 9 : 199);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    ac_global_init(&g, AC_GLOBAL_ALL_DIFFERENT);
    g.lists[0] = terms, g.list_length[0] = 200, g.list_count = 1;
    add_global(&c, &g);
    run_case(&c, "allDifferent 200 vars, Hall set 0..9");
    CHECK(!c.wipeout, "Hall set: no wipe-out");
    for (uint32_t v = 0; v < 200 && !c.wipeout; v++)
        CHECK(size_of(&c, v) == (v < 10 ? 10u : 190u) && (v < 10 || !has(&c, v, 9)), "Hall set: x%u", v);
    free_case(&c);

    init_case(&c);
    for (int v = 0; v < 200; v++) add_range_variable(&c, 0, 198);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    add_global(&c, &g);
    run_case(&c, "allDifferent 200 vars, 199 values");
    CHECK(c.wipeout, "pigeonhole: wipe-out");
    free_case(&c);
    free(terms);
}

static void sum_cases(void)
{
    int64_t targets[2] = {900, 450};
    for (int t = 0; t < 2; t++) {
        scale_case c;
        parac_csp_global g;
        parac_error error = {0};
        ac_term *terms = variable_terms(0, 100);
        init_case(&c);
        for (int v = 0; v < 100; v++) add_range_variable(&c, 0, 9);
        CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
        ac_global_init(&g, AC_GLOBAL_SUM);
        g.lists[0] = terms, g.list_length[0] = 100, g.list_count = 1;
        g.condition.op = AC_OP_EQ, g.condition.operand = (ac_term){AC_TERM_CONSTANT, targets[t]};
        add_global(&c, &g);
        CHECK(ac_global_strength(&c.net, &c.net.globals[0]) == AC_STRENGTH_GAC, "sum over 100: dynamic programming");
        run_case(&c, t == 0 ? "sum 100 vars = 900" : "sum 100 vars = 450");
        for (uint32_t v = 0; v < 100 && !c.wipeout; v++)
            CHECK(t == 0 ? size_of(&c, v) == 1 && has(&c, v, 9) : size_of(&c, v) == 10, "sum: x%u", v);
        CHECK(!c.wipeout, "sum: no wipe-out");
        free_case(&c);
        free(terms);
    }
}

/* sum over 100 variables of 0..999 (DP work ~ 5 * 10^9: bounds reasoning): sum >= 99,000 leaves
 * each variable 99..999 (the 99 others reach at most 98,901); the level reported is "bounds" */
static void sum_bounds_case(void)
{
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *terms = variable_terms(0, 100);
    init_case(&c);
    for (int v = 0; v < 100; v++) add_range_variable(&c, 0, 999);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    ac_global_init(&g, AC_GLOBAL_SUM);
    g.lists[0] = terms, g.list_length[0] = 100, g.list_count = 1;
    g.condition.op = AC_OP_GE, g.condition.operand = (ac_term){AC_TERM_CONSTANT, 99000};
    add_global(&c, &g);
    CHECK(ac_global_strength(&c.net, &c.net.globals[0]) == AC_STRENGTH_BOUNDS, "large sum: bounds");
    run_case(&c, "sum 100 vars of 0..999 >= 99000");
    for (uint32_t v = 0; v < 100 && !c.wipeout; v++)
        CHECK(size_of(&c, v) == 901 && has(&c, v, 99) && !has(&c, v, 98), "sum bounds: x%u", v);
    CHECK(!c.wipeout, "sum bounds: no wipe-out");
    free_case(&c);
    free(terms);
}

static void regular_case(void)
{
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *terms = variable_terms(0, 120);
    int64_t transitions[] = {0, 0, 0, 0, 1, 1, 1, 0, 0}, finals[] = {0, 1};
    init_case(&c);
    for (int v = 0; v < 120; v++) add_range_variable(&c, v == 60 ? 1 : 0, 1);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    ac_global_init(&g, AC_GLOBAL_REGULAR);
    g.lists[0] = terms, g.list_length[0] = 120, g.list_count = 1;
    g.state_count = 2, g.start = 0, g.transitions = transitions, g.transition_count = 3;
    g.finals = finals, g.final_count = 2;
    add_global(&c, &g);
    run_case(&c, "regular 120 vars, no two 1s in a row");
    for (uint32_t v = 0; v < 120 && !c.wipeout; v++)
        CHECK(size_of(&c, v) == (v == 59 || v == 61 || v == 60 ? 1u : 2u), "regular: x%u", v);
    free_case(&c);
    free(terms);
}

static void element_count_min_cases(void)
{
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *cells = malloc(1000 * sizeof *cells), *terms = variable_terms(0, 300);
    int64_t counted[1] = {0};
    ac_term counted_term = {AC_TERM_CONSTANT, counted[0]};
    /* element: cells are constants i % 50; index 0..999 (x0), value x1 in 0..9: index keeps i % 50 < 10 */
    init_case(&c);
    add_range_variable(&c, 0, 999);
    add_range_variable(&c, 0, 9);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    for (int i = 0; i < 1000; i++) cells[i] = (ac_term){AC_TERM_CONSTANT, i % 50};
    ac_global_init(&g, AC_GLOBAL_ELEMENT);
    g.lists[0] = cells, g.list_length[0] = 1000, g.list_count = 1;
    g.index = (ac_term){0, 0}, g.condition.op = AC_OP_EQ, g.condition.operand = (ac_term){1, 0};
    add_global(&c, &g);
    run_case(&c, "element 1000 constant cells");
    CHECK(size_of(&c, 0) == 200 && has(&c, 0, 59) && !has(&c, 0, 60) && size_of(&c, 1) == 10, "element: index / value");
    free_case(&c);

    /* count: at least 300 of 300 variables (domains 0..5) equal 0: all become 0 */
    init_case(&c);
    for (int v = 0; v < 300; v++) add_range_variable(&c, 0, 5);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    ac_global_init(&g, AC_GLOBAL_COUNT);
    g.lists[0] = terms, g.list_length[0] = 300, g.lists[1] = &counted_term, g.list_length[1] = 1, g.list_count = 2;
    g.condition.op = AC_OP_GE, g.condition.operand = (ac_term){AC_TERM_CONSTANT, 300};
    add_global(&c, &g);
    /* minimum of the same 300 variables >= 0 leaves them; a second minimum >= 3 then wipes out */
    run_case(&c, "count 300 vars >= 300");
    for (uint32_t v = 0; v < 300 && !c.wipeout; v++) CHECK(size_of(&c, v) == 1 && has(&c, v, 0), "count: x%u", v);
    ac_global_init(&g, AC_GLOBAL_MINIMUM);
    g.lists[0] = terms, g.list_length[0] = 300, g.list_count = 1;
    g.condition.op = AC_OP_GE, g.condition.operand = (ac_term){AC_TERM_CONSTANT, 3};
    add_global(&c, &g);
    free(c.result);
    run_case(&c, "count + minimum 300 vars");
    CHECK(c.wipeout, "count + minimum: wipe-out");
    free_case(&c);
    free(cells), free(terms);
}

static void cumulative_case(void)
{
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *origins = variable_terms(0, 60), lengths[60], heights[60];
    /* 60 tasks of length 2, height 1, capacity 1; task 0 fixed at 0: the others cannot start at
     * -1 or 0 or 1 (overlap with [0, 2)) */
    init_case(&c);
    for (int v = 0; v < 60; v++) add_range_variable(&c, v == 0 ? 0 : -1, v == 0 ? 0 : 200);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    for (int i = 0; i < 60; i++) lengths[i] = heights[i] = (ac_term){AC_TERM_CONSTANT, i == 0 ? 2 : 2};
    for (int i = 0; i < 60; i++) heights[i].value = 1;
    ac_global_init(&g, AC_GLOBAL_CUMULATIVE);
    g.lists[0] = origins, g.lists[1] = lengths, g.lists[2] = heights, g.list_count = 3;
    g.list_length[0] = g.list_length[1] = g.list_length[2] = 60;
    g.condition.op = AC_OP_LE, g.condition.operand = (ac_term){AC_TERM_CONSTANT, 1};
    add_global(&c, &g);
    run_case(&c, "cumulative 60 tasks");
    for (uint32_t v = 1; v < 60 && !c.wipeout; v++)
        CHECK(!has(&c, v, -1) && !has(&c, v, 0) && !has(&c, v, 1) && has(&c, v, 2), "cumulative: task %u", v);
    free_case(&c);
    free(origins);
}

/* 1,000 tasks over origins 0..10000 with variable lengths 1..50 and heights 10..12; task 0 fixed at
 * 5000, length 50, height 15. cumulative (capacity 20): no other task fits beside task 0's
 * [5000, 5050), so each loses the origins 5000..5049; noOverlap: the same (lengths >= 1). Both
 * propagators tested every value against every task with bounds read from the domains (cumulative
 * 16 s, noOverlap minutes at this size, 2026-12-04); now one walk per task over sorted intervals. */
static void scheduling_scale_case(ac_global_kind kind)
{
    enum { TASKS = 1000, HORIZON = 10000 };
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *origins = variable_terms(0, TASKS), *lengths = variable_terms(TASKS, TASKS),
            *heights = variable_terms(2 * TASKS, TASKS);
    const char *label = kind == AC_GLOBAL_CUMULATIVE ? "cumulative 1000 tasks" : "noOverlap 1000 boxes";
    init_case(&c);
    for (int v = 0; v < TASKS; v++) add_range_variable(&c, v == 0 ? 5000 : 0, v == 0 ? 5000 : HORIZON);
    for (int v = 0; v < TASKS; v++) add_range_variable(&c, v == 0 ? 50 : 1, 50);
    for (int v = 0; v < TASKS; v++) add_range_variable(&c, v == 0 ? 15 : 10, v == 0 ? 15 : 12);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    ac_global_init(&g, kind);
    g.lists[0] = origins, g.lists[1] = lengths, g.list_length[0] = g.list_length[1] = TASKS, g.list_count = 2;
    if (kind == AC_GLOBAL_CUMULATIVE) {
        g.lists[2] = heights, g.list_length[2] = TASKS, g.list_count = 3;
        g.condition.op = AC_OP_LE, g.condition.operand = (ac_term){AC_TERM_CONSTANT, 20};
    }
    add_global(&c, &g);
    run_case(&c, label);
    CHECK(!c.wipeout && has(&c, 0, 5000), "%s: task 0 keeps its origin", label);
    for (uint32_t v = 1; v < TASKS && !c.wipeout; v++)
        CHECK(size_of(&c, v) == HORIZON + 1 - 50 && has(&c, v, 4999) && !has(&c, v, 5000) && !has(&c, v, 5049) &&
                  has(&c, v, 5050),
              "%s: task %u keeps %u origins", label, v, size_of(&c, v));
    free_case(&c);
    free(origins), free(lengths), free(heights);
}

/* cardinality over 100 variables, values 0..99 each at most once (ranges [0, 1]), x0..x49 in 0..49:
 * the flow takes 0..49 from x50..x99 (counting alone sees nothing: no value is sure anywhere) */
static void cardinality_case(void)
{
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *terms = variable_terms(0, 100), values[100], occurs[100];
    ac_range ranges[100];
    init_case(&c);
    for (int v = 0; v < 100; v++) add_range_variable(&c, 0, v < 50 ? 49 : 99);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    for (int k = 0; k < 100; k++) {
        values[k] = (ac_term){AC_TERM_CONSTANT, k};
        occurs[k] = (ac_term){AC_TERM_CONSTANT, 0};
        ranges[k] = (ac_range){0, 1};
    }
    ac_global_init(&g, AC_GLOBAL_CARDINALITY);
    g.lists[0] = terms, g.lists[1] = values, g.lists[2] = occurs, g.list_count = 3;
    g.list_length[0] = g.list_length[1] = g.list_length[2] = 100;
    g.ranges = ranges, g.has_ranges = 1;
    add_global(&c, &g);
    CHECK(ac_global_strength(&c.net, &c.net.globals[0]) == AC_STRENGTH_GAC, "cardinality: flow is GAC");
    run_case(&c, "cardinality 100 vars, Hall set 0..49");
    for (uint32_t v = 50; v < 100 && !c.wipeout; v++) CHECK(size_of(&c, v) == 50 && !has(&c, v, 49), "cardinality: x%u", v);
    CHECK(!c.wipeout, "cardinality: no wipe-out");
    free_case(&c);
    free(terms);
}

/* cardinality over 3,000 variables of 0..2999, closed values 0..2999, each occurring a variable
 * 0..3000 times (the shape of a hostile input): every value is supported, nothing goes. The flow's
 * lower-bound phase searched afresh from every term for a value short of its lower bound (all are
 * 0: none), terms x edges = 3,000 x 9 M, and each closed-value check scanned the value list: over
 * the time bound before both were fixed (2,000 variables took 5.2 s, 3,000 about 17 s; now 0.4 s
 * and about 1 s; `parac ac` on 5,000 x 5,000 took over 30 s, now 2.9 s). */
static void cardinality_occurrence_variables_case(void)
{
    enum { N = 3000 };
    scale_case c;
    parac_csp_global g;
    parac_error error = {0};
    ac_term *terms = variable_terms(0, N), *values = malloc(N * sizeof *values), *occurs = variable_terms(N, N);
    init_case(&c);
    for (int v = 0; v < N; v++) add_range_variable(&c, 0, N - 1);
    for (int v = 0; v < N; v++) add_range_variable(&c, 0, N);
    CHECK_OK(parac_csp_finish_variables(&c.net, &error), &error);
    for (int k = 0; k < N; k++) values[k] = (ac_term){AC_TERM_CONSTANT, k};
    ac_global_init(&g, AC_GLOBAL_CARDINALITY);
    g.lists[0] = terms, g.lists[1] = values, g.lists[2] = occurs, g.list_count = 3;
    g.list_length[0] = g.list_length[1] = g.list_length[2] = N;
    g.closed = 1;
    add_global(&c, &g);
    run_case(&c, "cardinality 3000 vars, occurrence vars");
    CHECK(!c.wipeout, "cardinality with occurrence variables: no wipe-out");
    for (uint32_t v = 0; v < N && !c.wipeout; v += 199)
        CHECK(size_of(&c, v) == N && size_of(&c, N + v) == N + 1, "cardinality with occurrence variables: x%u lost values", v);
    free_case(&c);
    free(terms);
    free(values);
    free(occurs);
}

int main(void)
{
    cardinality_case();
    cardinality_occurrence_variables_case();
    all_different_cases();
    sum_cases();
    sum_bounds_case();
    regular_case();
    element_count_min_cases();
    cumulative_case();
    scheduling_scale_case(AC_GLOBAL_CUMULATIVE);
    scheduling_scale_case(AC_GLOBAL_NO_OVERLAP);
    return test_finish("ac.global_scale");
}
