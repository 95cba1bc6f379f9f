/* tests/csp/test_xcsp3_globals.c — XCSP3 global constraints as the reader builds them
 * (parac_csp_global fields, through the internal network), their syntactic variants, groups,
 * blocks and slides over them, objectives, malformed inputs (file:line), the pycsp3 instances of
 * tests/data/xcsp3, and the reduced-instance writer's round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/ac.h>
#include <parac/csp.h>

#include "csp/csp_handle.h"
#include "csp/xcsp3_writer.h"
#include "csp/xcsp_load.h"
#include "test_util.h"

static parac_csp *load(const char *xml, parac_status expected, const char *needle)
{
    parac_csp *csp = NULL;
    parac_error error = {0};
    parac_status status = parac_csp_load_memory(xml, strlen(xml), "doc.xml", NULL, &csp, &error);
    CHECK(status == expected, "status %d, expected %d: %s\n%s", (int)status, (int)expected, error.message, xml);
    if (needle) CHECK(strstr(error.message, needle) != NULL, "message '%s' lacks '%s'", error.message, needle);
    return csp;
}

#define HEAD                                                                                                \
    "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[4]\"> 0..3 </array>"          \
    "<array id=\"m\" size=\"[2][3]\"> 1..5 </array><var id=\"y\"> 0..10 </var></variables><constraints>\n"
#define TAIL "</constraints></instance>"
#define Y 10 /* the index of y: x[0..3] are 0..3, m 4..9 */

static const parac_csp_global *global_of(const parac_csp *csp, size_t i)
{
    return &parac_csp_network_of(csp)->globals[i];
}

/* 1 when list l of g holds exactly these terms (var >= 0: a variable; else the constant `value`). */
static int list_is(const parac_csp_global *g, size_t l, size_t count, const ac_term *expected)
{
    if (l >= g->list_count || g->list_length[l] != count) return 0;
    for (size_t i = 0; i < count; i++)
        if (g->lists[l][i].var != expected[i].var || (expected[i].var < 0 && g->lists[l][i].value != expected[i].value)) return 0;
    return 1;
}

#define V(i) {(i), 0}
#define C(k) {AC_TERM_CONSTANT, (k)}

static const ac_term X_ALL[] = {V(0), V(1), V(2), V(3)};

static void test_all_different(void)
{
    parac_csp *csp = load(HEAD "<allDifferent> x[] </allDifferent>"
                               "<allDifferent><list> x[0] x[1] 2 </list><except> 0 3 0 </except></allDifferent>"
                               "<allDifferent><matrix> m[][] </matrix></allDifferent>"
                               "<allDifferent><matrix> (x[0],x[1])(x[2],x[3]) </matrix></allDifferent>"
                               "<allEqual> x[1] x[2] </allEqual>"
                               "<allDifferent><matrix> m[1..1][] </matrix></allDifferent>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_global_count(csp), 1 + 1 + 5 + 4 + 1 + 4);
    const ac_term last_row[] = {V(7), V(8), V(9)}, single[] = {V(9)};
    CHECK(list_is(global_of(csp, 12), 0, 3, last_row) && list_is(global_of(csp, 15), 0, 1, single), "a one-row matrix m[1..1][]");
    const parac_csp_global *g = global_of(csp, 0);
    CHECK_EQ_INT(g->kind, AC_GLOBAL_ALL_DIFFERENT);
    CHECK(list_is(g, 0, 4, X_ALL));
    CHECK_EQ_INT(g->value_count, 0);
    g = global_of(csp, 1);
    const ac_term with_constant[] = {V(0), V(1), C(2)};
    CHECK(list_is(g, 0, 3, with_constant));
    CHECK_EQ_INT(g->value_count, 2);
    CHECK(g->values[0] == 0 && g->values[1] == 3);
    const ac_term row1[] = {V(7), V(8), V(9)}, column2[] = {V(6), V(9)};
    CHECK(list_is(global_of(csp, 3), 0, 3, row1), "second row of m");
    CHECK(list_is(global_of(csp, 6), 0, 2, column2), "third column of m");
    const ac_term column0[] = {V(0), V(2)};
    CHECK(list_is(global_of(csp, 9), 0, 2, column0), "first column of the explicit matrix");
    CHECK_EQ_INT(global_of(csp, 11)->kind, AC_GLOBAL_ALL_EQUAL);
    CHECK_EQ_INT(global_of(csp, 11)->line, 2);
    parac_csp_destroy(csp);
}

static void test_sum(void)
{
    parac_csp *csp = load(HEAD "<sum><list> x[0] x[1] 3 </list><coeffs> 2 -1 1 </coeffs><condition> (le, y) </condition></sum>"
                               "<sum><list> x[] </list><condition> (in, 2..5) </condition></sum>"
                               "<sum><list> x[0..1] </list><condition>(notin,{4, 1,1})</condition></sum>"
                               "<sum><list> x[2] x[3] </list><condition> (gt,-7) </condition></sum>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    const parac_csp_global *g = global_of(csp, 0);
    CHECK_EQ_INT(g->kind, AC_GLOBAL_SUM);
    CHECK_EQ_INT(g->coeff_count, 3);
    CHECK(g->coeffs[0] == 2 && g->coeffs[1] == -1 && g->coeffs[2] == 1);
    CHECK(g->condition.op == AC_OP_LE && g->condition.operand.var == Y);
    g = global_of(csp, 1);
    CHECK(g->coeff_count == 4 && g->coeffs[3] == 1, "default coefficients 1");
    CHECK(g->condition.op == AC_OP_IN && g->condition.is_range && g->condition.low == 2 && g->condition.high == 5);
    g = global_of(csp, 2);
    CHECK(g->condition.op == AC_OP_NOT_IN && !g->condition.is_range && g->condition.set_count == 2 &&
          g->condition.set[0] == 1 && g->condition.set[1] == 4);
    g = global_of(csp, 3);
    CHECK(g->condition.op == AC_OP_GT && g->condition.operand.var == AC_TERM_CONSTANT && g->condition.operand.value == -7);
    parac_csp_destroy(csp);
}

static void test_counting(void)
{
    parac_csp *csp = load(HEAD "<count><list> x[] </list><values> 1 y </values><condition> (ge,2) </condition></count>"
                               "<atLeast><list> x[] </list><value> 3 </value><k> 1 </k></atLeast>"
                               "<atMost><list> x[] </list><value> 3 </value><k> y </k></atMost>"
                               "<exactly><list> x[] </list><value> 0 </value><k> 2 </k></exactly>"
                               "<nValues><list> x[] </list><except> 0 </except><condition> (eq,y) </condition></nValues>"
                               "<cardinality><list> x[] </list><values closed=\"true\"> 0 1 2 </values>"
                               "<occurs> 1 0..2 y </occurs></cardinality>"
                               "<cardinality><list> x[] </list><values> 0 1 </values><occurs> m[0][0..1] </occurs></cardinality>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    const parac_csp_global *g = global_of(csp, 0);
    const ac_term counted[] = {C(1), V(Y)};
    CHECK(g->kind == AC_GLOBAL_COUNT && list_is(g, 0, 4, X_ALL) && list_is(g, 1, 2, counted));
    CHECK(g->condition.op == AC_OP_GE && g->condition.operand.value == 2);
    CHECK(global_of(csp, 1)->kind == AC_GLOBAL_COUNT && global_of(csp, 1)->condition.op == AC_OP_GE);
    CHECK(global_of(csp, 2)->condition.op == AC_OP_LE && global_of(csp, 2)->condition.operand.var == Y);
    CHECK(global_of(csp, 3)->condition.op == AC_OP_EQ && global_of(csp, 3)->condition.operand.value == 2);
    g = global_of(csp, 4);
    CHECK(g->kind == AC_GLOBAL_NVALUES && g->value_count == 1 && g->condition.operand.var == Y);
    g = global_of(csp, 5);
    CHECK(g->kind == AC_GLOBAL_CARDINALITY && g->closed && g->has_ranges && g->list_length[2] == 3);
    CHECK(g->lists[2][1].var == AC_TERM_CONSTANT && g->ranges[1].low == 0 && g->ranges[1].high == 2);
    CHECK(g->ranges[0].low == 1 && g->ranges[0].high == 1 && g->lists[2][2].var == Y);
    g = global_of(csp, 6);
    const ac_term occurs[] = {V(4), V(5)};
    CHECK(!g->closed && !g->has_ranges && list_is(g, 2, 2, occurs));
    parac_csp_destroy(csp);
}

static void test_element_channel(void)
{
    parac_csp *csp = load(HEAD "<element><list startIndex=\"1\"> x[] </list><index rank=\"any\"> y </index><value> 2 </value></element>"
                               "<element><list> 4 5 x[3] </list><index> x[0] </index><condition> (ne,x[1]) </condition></element>"
                               "<element><matrix startRowIndex=\"1\"> m[][] </matrix><index> x[0] x[1] </index><value> y </value></element>"
                               "<channel> x[] </channel>"
                               "<channel><list startIndex=\"1\"> x[0..1] </list><list> x[2..3] </list></channel>"
                               "<channel><list> x[] </list><value> y </value></channel>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    const parac_csp_global *g = global_of(csp, 0);
    CHECK(g->kind == AC_GLOBAL_ELEMENT && list_is(g, 0, 4, X_ALL) && g->start_index == 1 && g->index.var == Y);
    CHECK(g->condition.op == AC_OP_EQ && g->condition.operand.value == 2 && g->dims[1] == 0);
    g = global_of(csp, 1);
    const ac_term mixed[] = {C(4), C(5), V(3)};
    CHECK(list_is(g, 0, 3, mixed) && g->condition.op == AC_OP_NE && g->condition.operand.var == 1);
    g = global_of(csp, 2);
    CHECK(g->dims[0] == 2 && g->dims[1] == 3 && g->list_length[0] == 6 && g->index.var == 0 && g->index2.var == 1);
    CHECK(g->start_index == 1 && g->start_index2 == 0 && g->condition.operand.var == Y);
    g = global_of(csp, 3);
    CHECK(g->kind == AC_GLOBAL_CHANNEL && g->list_count == 1 && g->condition.op == AC_OP_NONE);
    g = global_of(csp, 4);
    CHECK(g->list_count == 2 && g->start_index == 1 && g->start_index2 == 0 && g->lists[1][0].var == 2);
    g = global_of(csp, 5);
    CHECK(g->list_count == 1 && g->condition.op == AC_OP_EQ && g->condition.operand.var == Y);
    parac_csp_destroy(csp);
}

static void test_order(void)
{
    parac_csp *csp = load(HEAD "<ordered><list> x[] </list><lengths> 1 0 2 </lengths><operator> le </operator></ordered>"
                               "<ordered><list> x[0..1] </list><operator> gt </operator></ordered>"
                               "<lex><list> x[0..1] </list><list> x[2..3] </list><operator> lt </operator></lex>"
                               "<lex><matrix> m[][] </matrix><operator> ge </operator></lex>"
                               "<lex><list>0</list><list>1</list><list>2</list><list>3</list><list>4</list><list>5</list>"
                               "<operator> le </operator></lex>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_global_count(csp), 2 + 1 + 2 + 2);
    const parac_csp_global *g = global_of(csp, 0);
    CHECK(g->kind == AC_GLOBAL_ORDERED && g->op == AC_OP_LE && g->coeff_count == 3 && g->coeffs[2] == 2);
    CHECK(global_of(csp, 1)->op == AC_OP_GT && global_of(csp, 1)->coeff_count == 0);
    g = global_of(csp, 2);
    CHECK(g->kind == AC_GLOBAL_LEX && g->list_count == 2 && g->op == AC_OP_LT && g->lists[1][1].var == 3);
    g = global_of(csp, 3);
    const ac_term row1[] = {V(7), V(8), V(9)};
    CHECK(g->list_count == 2 && list_is(g, 1, 3, row1) && g->op == AC_OP_GE, "rows of m");
    g = global_of(csp, 4);
    const ac_term column2[] = {V(6), V(9)};
    CHECK(g->list_count == 3 && list_is(g, 2, 2, column2), "columns of m");
    /* six lists: windows 0..3 and 3..5, overlapping on list 3 */
    g = global_of(csp, 5);
    CHECK(g->list_count == 4 && g->lists[3][0].value == 3);
    g = global_of(csp, 6);
    CHECK(g->list_count == 3 && g->lists[0][0].value == 3 && g->lists[2][0].value == 5);
    parac_csp_destroy(csp);
}

static void test_automata(void)
{
    parac_csp *csp = load(HEAD "<regular><list> x[] </list><transitions> (a,0,b)(b,1,a) (a,2,c) </transitions>"
                               "<start> a </start><final> c b </final></regular>"
                               "<mdd><list> x[0] x[1] </list><transitions> (r,0,n)(r,1,n)(n,2,t)(n,3,u) </transitions></mdd>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    const parac_csp_global *g = global_of(csp, 0);
    CHECK(g->kind == AC_GLOBAL_REGULAR && g->state_count == 3 && g->start == 0 && g->transition_count == 3);
    CHECK(g->transitions[0] == 0 && g->transitions[1] == 0 && g->transitions[2] == 1);
    CHECK(g->transitions[6] == 0 && g->transitions[7] == 2 && g->transitions[8] == 2);
    CHECK(g->final_count == 2 && g->finals[0] == 1 && g->finals[1] == 2);
    g = global_of(csp, 1);
    CHECK(g->kind == AC_GLOBAL_MDD && g->state_count == 4 && g->start == 0 && g->final_count == 2);
    CHECK(g->finals[0] == 2 && g->finals[1] == 3);
    parac_csp_destroy(csp);
}

static void test_scheduling(void)
{
    parac_csp *csp = load(HEAD "<minimum><list> x[] </list><condition> (eq,y) </condition></minimum>"
                               "<maximum><list> x[] 7 </list><condition> (le,5) </condition></maximum>"
                               "<noOverlap><origins> x[] </origins><lengths> 1 2 y 0 </lengths></noOverlap>"
                               "<noOverlap zeroIgnored=\"false\"><origins> (x[0],x[1])(x[2],x[3]) </origins>"
                               "<lengths> (1,2)(2,y) </lengths></noOverlap>"
                               "<cumulative><origins> x[] </origins><lengths> 1 2 3 4 </lengths><heights> 1 1 y 2 </heights>"
                               "<condition> (le,3) </condition></cumulative>"
                               "<cumulative><origins> x[0..1] </origins><lengths> 1 2 </lengths><ends> m[0][0..1] </ends>"
                               "<heights> 1 1 </heights><condition> (le,y) </condition></cumulative>"
                               "<circuit> x[] </circuit>"
                               "<circuit><list startIndex=\"1\"> x[] </list><size> y </size></circuit>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    CHECK(global_of(csp, 0)->kind == AC_GLOBAL_MINIMUM && global_of(csp, 0)->condition.operand.var == Y);
    CHECK(global_of(csp, 1)->kind == AC_GLOBAL_MAXIMUM && global_of(csp, 1)->list_length[0] == 5);
    const parac_csp_global *g = global_of(csp, 2);
    CHECK(g->kind == AC_GLOBAL_NO_OVERLAP && g->zero_ignored && g->dims[0] == 1 && g->lists[1][2].var == Y);
    g = global_of(csp, 3);
    CHECK(!g->zero_ignored && g->dims[0] == 2 && g->list_length[0] == 4 && g->lists[1][3].var == Y);
    g = global_of(csp, 4);
    CHECK(g->kind == AC_GLOBAL_CUMULATIVE && g->list_count == 3 && g->lists[2][2].var == Y && g->condition.operand.value == 3);
    g = global_of(csp, 5);
    CHECK(g->list_count == 4 && g->lists[3][1].var == 5 && g->condition.operand.var == Y);
    g = global_of(csp, 6);
    CHECK(g->kind == AC_GLOBAL_CIRCUIT && g->start_index == 0 && g->size.var == AC_TERM_CONSTANT);
    g = global_of(csp, 7);
    CHECK(g->start_index == 1 && g->size.var == Y);
    parac_csp_destroy(csp);
}

/* binPacking and knapsack as pycsp3 writes them; the network with every kind is written and read back
 * in test_every_kind_round_trip. */
static void test_packing(void)
{
    parac_csp *csp = load(HEAD "<binPacking><list> x[] </list><sizes> 2 3 1 2 </sizes><condition> (le,4) </condition></binPacking>"
                               "<binPacking><list> x[0..2] </list><sizes> 1x3 </sizes><condition> (lt,y) </condition></binPacking>"
                               "<knapsack><list> x[] </list><weights> 2 3 1 2 </weights><condition> (le,6) </condition>"
                               "<profits> 1 2 3 1 </profits><condition> (ge,y) </condition></knapsack>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    const parac_csp_global *g = global_of(csp, 0);
    CHECK(g->kind == AC_GLOBAL_BIN_PACKING && g->list_length[0] == 4 && g->coeff_count == 4 && g->coeffs[1] == 3 &&
          g->condition.op == AC_OP_LE && g->condition.operand.value == 4);
    g = global_of(csp, 1);
    CHECK(g->condition.op == AC_OP_LT && g->condition.operand.var == Y);
    CHECK(g->coeff_count == 3 && g->coeffs[0] == 1 && g->coeffs[2] == 1, "1x3: the integer 1 three times");
    g = global_of(csp, 2);
    CHECK(g->kind == AC_GLOBAL_KNAPSACK && g->coeff_count == 4 && g->value_count == 4 && g->values[2] == 3 &&
          g->condition.op == AC_OP_LE && g->condition.operand.value == 6 && g->condition2.op == AC_OP_GE &&
          g->condition2.operand.var == Y);
    parac_csp_destroy(csp);
}

static void test_instantiation(void)
{
    parac_csp *csp = load(HEAD "<instantiation><list> x[0] x[2] y </list><values> 2 9 4 </values></instantiation>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    const parac_csp_network *n = parac_csp_network_of(csp);
    CHECK_EQ_INT(parac_csp_global_count(csp), 0);
    for (uint32_t s = 0; s < 4; s++) {
        CHECK_EQ_INT(parac_bitset_test(n->present, n->value_offset[0] + s), s == 2);
        CHECK_EQ_INT(parac_bitset_test(n->present, n->value_offset[2] + s), 0); /* 9 is outside: emptied */
        CHECK_EQ_INT(parac_bitset_test(n->present, n->value_offset[1] + s), 1);
    }
    for (uint32_t s = 0; s <= 10; s++) CHECK_EQ_INT(parac_bitset_test(n->present, n->value_offset[Y] + s), s == 4);
    parac_csp_destroy(csp);
}

static void test_group_block_slide(void)
{
    parac_csp *csp = load(HEAD "<group><sum><list> %0 %1 </list><coeffs> 1 %2 </coeffs><condition> (ne,%2) </condition></sum>"
                               "<args> x[0] x[1] 3 </args><args> x[2] x[3] -1 </args></group>"
                               "<group><allDifferent> %... </allDifferent><args> x[0..2] </args><args> m[1][] </args></group>"
                               "<block><block><count><list> x[] </list><values> 1 </values><condition> (eq,1) </condition></count>"
                               "</block><circuit> x[] </circuit></block>"
                               "<slide><list> x[] </list><allDifferent> %0 %1 </allDifferent></slide>"
                               "<slide circular=\"true\"><list offset=\"2\"> x[] </list><sum><list> %0 %1 %2 </list>"
                               "<condition> (le,6) </condition></sum></slide>"
                               "<slide><list collect=\"2\" offset=\"2\"> x[] </list><list> m[0][] </list>"
                               "<intension> ne(add(%0,%1),%2) </intension></slide>"
                               "<slide circular=\"true\"><list> x[] </list><intension> ne(%0,%1) </intension></slide>" TAIL,
                          PARAC_OK, NULL);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_global_count(csp), 2 + 2 + 2 + 3 + 2);
    const parac_csp_global *g = global_of(csp, 1);
    CHECK(g->kind == AC_GLOBAL_SUM && g->lists[0][0].var == 2 && g->coeffs[1] == -1 && g->condition.operand.value == -1);
    const ac_term m_row1[] = {V(7), V(8), V(9)};
    CHECK(list_is(global_of(csp, 3), 0, 3, m_row1), "%... over m[1][]");
    CHECK(global_of(csp, 4)->kind == AC_GLOBAL_COUNT && global_of(csp, 5)->kind == AC_GLOBAL_CIRCUIT, "blocks in order");
    const ac_term window2[] = {V(2), V(3)};
    CHECK(list_is(global_of(csp, 8), 0, 2, window2), "third window of the slide");
    const ac_term circular1[] = {V(2), V(3), V(0)};
    CHECK(list_is(global_of(csp, 10), 0, 3, circular1), "circular window wraps around");
    /* intension slides: (x0+x1 != m00), (x2+x3 != m01): two ternary tables; circular ne: 4 binary */
    CHECK_EQ_INT(parac_csp_constraint_count(csp), 2 + 4);
    parac_csp_destroy(csp);
}

static void test_objectives(void)
{
    parac_csp *csp = load("<instance format=\"XCSP3\" type=\"COP\"><variables><array id=\"x\" size=\"[3]\"> 0..3 </array>"
                          "</variables><constraints><allDifferent> x[] </allDifferent></constraints>"
                          "<objectives><minimize type=\"sum\"><list> x[] </list><coeffs> 1 2 3 </coeffs></minimize>"
                          "<maximize> x[0] </maximize></objectives></instance>",
                          PARAC_OK, NULL);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_has_objective(csp), 1);
    CHECK(csp->objectives && strstr(csp->objectives, "<minimize type=\"sum\"><list> x[] </list><coeffs> 1 2 3 </coeffs></minimize>") &&
              strstr(csp->objectives, "<maximize> x[0] </maximize>"),
          "kept verbatim: %s", csp->objectives ? csp->objectives : "(none)");
    parac_csp_destroy(csp);
    csp = load(HEAD "<allDifferent> x[] </allDifferent>" TAIL, PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_has_objective(csp), 0);
    parac_csp_destroy(csp);
    load("<instance format=\"XCSP3\" type=\"COP\"><variables><var id=\"a\"> 0 1 </var></variables>\n"
         "<objectives>\n<pareto> a </pareto></objectives></instance>",
         PARAC_ERR_UNSUPPORTED, "doc.xml:3:");
}

/* Each malformed constraint is refused with its file:line and kind. */
static void test_malformed(void)
{
    static const struct {
        const char *constraint;
        parac_status status;
        const char *needle;
    } cases[] = {
        {"<allDifferent> x[] z </allDifferent>", PARAC_ERR_PARSE, "<allDifferent>: unknown variable 'z'"},
        {"<allDifferent><list> x[] </list><list> m[0][] </list></allDifferent>", PARAC_ERR_UNSUPPORTED, "more than one <list>"},
        {"<allDifferent><matrix> (x[0],x[1])(x[2]) </matrix></allDifferent>", PARAC_ERR_PARSE, "groups of different sizes"},
        {"<allDifferent><matrix> x[] </matrix></allDifferent>", PARAC_ERR_PARSE, "<matrix>"},
        {"<allDifferent> add(x[0],1 x[1] </allDifferent>", PARAC_ERR_PARSE, "unbalanced parentheses"},
        {"<allDifferent> add(x[0],z) x[1] </allDifferent>", PARAC_ERR_PARSE, "'z'"},
        {"<sum><list> mul(x[0],x[1]) %... </list><condition> (le,3) </condition></sum>", PARAC_ERR_UNSUPPORTED, "%..."},
        {"<allEqual><list> x[] </list><foo/></allEqual>", PARAC_ERR_UNSUPPORTED, "<foo>"},
        {"<sum><list> x[] </list><condition> (le,3) </condition><coeffs> 1 2 </coeffs></sum>", PARAC_ERR_PARSE, "2 coefficients"},
        {"<sum><list> add(x[0],1) x[1] x[2] x[3] </list><coeffs> y 1 1 1 </coeffs><condition> (le,3) </condition></sum>", PARAC_ERR_UNSUPPORTED, "variable coefficient of an expression term"},
        {"<sum><list> x[] </list></sum>", PARAC_ERR_PARSE, "no <condition>"},
        {"<sum><list> x[] </list><condition> le,3 </condition></sum>", PARAC_ERR_PARSE, "(operator, operand)"},
        {"<sum><list> x[] </list><condition> (lq,3) </condition></sum>", PARAC_ERR_PARSE, "condition"},
        {"<sum><list> x[] </list><condition> (in,5..2) </condition></sum>", PARAC_ERR_PARSE, "low <= high"},
        {"<sum><list> x[] </list><condition> (in,{1,x}) </condition></sum>", PARAC_ERR_PARSE, "value set"},
        {"<sum><list> x[] </list><condition> (eq,99999999999999999999) </condition></sum>", PARAC_ERR_PARSE, "<sum>"},
        {"<sum><list> x[] </list><condition> (eq,x[0] x[1]) </condition></sum>", PARAC_ERR_PARSE, "one variable or integer"},
        {"<count><list> x[] </list><condition> (eq,1) </condition></count>", PARAC_ERR_PARSE, "no <values>"},
        {"<atLeast><list> x[] </list><value> 1 </value></atLeast>", PARAC_ERR_PARSE, "<k>"},
        {"<nValues><list> x[] </list></nValues>", PARAC_ERR_PARSE, "no <condition>"},
        {"<cardinality><list> x[] </list><values> 1 2 </values><occurs> 1 </occurs></cardinality>", PARAC_ERR_PARSE, "1 occurrences for 2 values"},
        {"<cardinality><list> x[] </list><values> 1 </values><occurs> 3..1 </occurs></cardinality>", PARAC_ERR_PARSE, "bad range"},
        {"<element><list> x[] </list><index rank=\"first\"> y </index><value> 1 </value></element>", PARAC_ERR_UNSUPPORTED, "rank=\"first\""},
        {"<element><list> x[] </list><value> 1 </value></element>", PARAC_ERR_UNSUPPORTED, "<index>"},
        {"<element><list> x[] </list><index> y </index></element>", PARAC_ERR_PARSE, "no <condition>"},
        {"<element><matrix> m[][] </matrix><index> y </index><value> 1 </value></element>", PARAC_ERR_PARSE, "two indices"},
        {"<element><list startIndex=\"a\"> x[] </list><index> y </index><value> 1 </value></element>", PARAC_ERR_PARSE, "startIndex"},
        {"<channel><list> x[0..1] </list><list> x[] </list></channel>", PARAC_ERR_PARSE, "different lengths"},
        {"<ordered><list> x[] </list><operator> eq </operator></ordered>", PARAC_ERR_PARSE, "lt, le, ge or gt"},
        {"<ordered><list> x[] </list><lengths> 1 </lengths><operator> lt </operator></ordered>", PARAC_ERR_PARSE, "1 lengths"},
        {"<lex><list> x[] </list><operator> lt </operator></lex>", PARAC_ERR_PARSE, "two or more"},
        {"<lex><list> x[0..1] </list><list> x[] </list><operator> lt </operator></lex>", PARAC_ERR_PARSE, "different lengths"},
        {"<instantiation><list> x[] </list><values> 1 2 </values></instantiation>", PARAC_ERR_PARSE, "2 values for a list of 4"},
        {"<regular><list> x[] </list><transitions> (a,0,b) </transitions><start> a </start></regular>", PARAC_ERR_PARSE, "<final>"},
        {"<regular><list> x[] </list><transitions> (a,0) </transitions><start> a </start><final> a </final></regular>", PARAC_ERR_PARSE, "(state,value,state)"},
        {"<regular><list> x[] </list><transitions> (a,0,b) </transitions><start> a b </start><final> a </final></regular>", PARAC_ERR_PARSE, "one state"},
        {"<mdd><list> x[] </list><transitions> (a,0,b)(b,1,a) </transitions></mdd>", PARAC_ERR_PARSE, "one root"},
        {"<mdd><list> x[] </list><transitions> </transitions></mdd>", PARAC_ERR_PARSE, "no transition"},
        {"<minimum><list> x[] </list><index> y </index><condition> (eq,1) </condition></minimum>", PARAC_ERR_UNSUPPORTED, "arg-min"},
        {"<noOverlap><origins> x[] </origins><lengths> 1 2 </lengths></noOverlap>", PARAC_ERR_PARSE, "differ in shape"},
        {"<noOverlap><origins> (x[0],x[1]) </origins><lengths> (1,2,3) </lengths></noOverlap>", PARAC_ERR_PARSE, "differ in shape"},
        {"<cumulative><origins> x[] </origins><lengths> 1 1 1 1 </lengths><condition> (le,2) </condition></cumulative>", PARAC_ERR_PARSE, "<heights>"},
        {"<cumulative><origins> x[] </origins><lengths> 1 1 1 </lengths><heights> 1 1 1 1 </heights><condition> (le,2) </condition></cumulative>",
         PARAC_ERR_PARSE, "<lengths> is not as long"},
        {"<circuit><list> x[] </list><size> 1 2 </size></circuit>", PARAC_ERR_PARSE, "one variable or integer"},
        {"<stretch><list> x[] </list></stretch>", PARAC_ERR_UNSUPPORTED, "unsupported constraint <stretch>"},
        {"<binPacking><list> x[] </list><condition> (le,3) </condition></binPacking>", PARAC_ERR_PARSE, "no <sizes>"},
        {"<binPacking><list> x[] </list><sizes> 1x0 1 1 1 </sizes><condition> (le,3) </condition></binPacking>", PARAC_ERR_PARSE, "'1x0'"},
        {"<binPacking><list> x[] </list><sizes> 1 2 </sizes><condition> (le,3) </condition></binPacking>", PARAC_ERR_PARSE, "2 <sizes> for a list of 4"},
        {"<binPacking><list> x[] </list><sizes> 1 2 1 1 </sizes><condition> (ge,3) </condition></binPacking>", PARAC_ERR_UNSUPPORTED, "load condition"},
        {"<binPacking><list> x[] </list><sizes> 1 2 1 1 </sizes><limits> 3 3 3 3 </limits></binPacking>", PARAC_ERR_UNSUPPORTED, "<limits>"},
        {"<knapsack><list> x[] </list><weights> 1 1 1 1 </weights><condition> (le,3) </condition><profits> 1 1 1 1 </profits></knapsack>", PARAC_ERR_PARSE, "two <condition>s"},
        {"<knapsack><list> x[] </list><weights> 1 1 1 1 </weights><condition> (le,3) </condition><condition> (ge,1) </condition></knapsack>", PARAC_ERR_PARSE, "no <profits>"},
        {"<group><sum><list> %0 %5 </list><condition> (le,1) </condition></sum><args> x[0] x[1] </args></group>", PARAC_ERR_PARSE, "bad parameter '%5'"},
        {"<slide><list offset=\"0\"> x[] </list><allDifferent> %0 %1 </allDifferent></slide>", PARAC_ERR_PARSE, "offset and collect"},
        {"<slide><list> x[] </list></slide>", PARAC_ERR_PARSE, "template"},
        {"<slide><list> x[] </list><stretch> %0 </stretch></slide>", PARAC_ERR_UNSUPPORTED, "<stretch>"},
        {"<slide><list> x[] </list><allDifferent> x[0] x[1] </allDifferent></slide>", PARAC_ERR_PARSE, "no %i"},
    };
    char xml[1024];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(xml, sizeof xml, HEAD "\n%s" TAIL, cases[k].constraint);
        parac_csp *csp = load(xml, cases[k].status, cases[k].needle);
        parac_csp_destroy(csp);
        parac_error error = {0};
        csp = NULL;
        parac_csp_load_memory(xml, strlen(xml), "doc.xml", NULL, &csp, &error);
        CHECK(strncmp(error.message, "doc.xml:3:", 10) == 0, "case %zu: no file:line: %s", k, error.message);
        CHECK(strchr(error.message, '\n') == NULL, "case %zu: more than one line", k);
        parac_csp_destroy(csp);
    }
}

static char *slurp(const char *path)
{
    FILE *file = fopen(path, "rb");
    long size;
    char *data;
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    size = ftell(file);
    rewind(file);
    data = malloc((size_t)size + 1);
    if (data && fread(data, 1, (size_t)size, file) != (size_t)size) size = 0;
    if (data) data[size] = '\0';
    fclose(file);
    return data;
}

/* AC's domains of csp, or NULL; wipeout set. */
static uint64_t *enforce(const parac_csp *csp, int *wipeout)
{
    parac_ac_options options;
    parac_ac_stats stats;
    parac_error error = {0};
    uint64_t *domains = calloc(parac_ac_domain_words(parac_csp_value_count(csp)) + 1, sizeof *domains);
    parac_ac_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    if (!domains) return NULL;
    CHECK_OK(parac_ac_enforce(csp, &options, domains, &stats, &error), &error);
    *wipeout = stats.wipeout;
    return domains;
}

/* Write the reduced network, read it back: the same variables, globals and objective, and AC
 * on it removes nothing more. */
static void check_round_trip(const parac_csp *csp, const char *name)
{
    char path[256];
    parac_error error = {0};
    parac_csp *again = NULL;
    int wipeout = 0, wipeout_again = 0;
    uint64_t *domains = enforce(csp, &wipeout), *domains_again;
    if (!domains) return;
    test_temp_path(path, sizeof path, "reduced.xml");
    if (wipeout) {
        CHECK(xcsp3_write_reduced(csp, domains, path, 1, &error) == PARAC_ERR_INVALID_ARGUMENT, "%s: wipe-out written", name);
        free(domains);
        return;
    }
    CHECK_OK(xcsp3_write_reduced(csp, domains, path, 2, &error), &error);
    CHECK_OK(parac_csp_load(path, NULL, &again, &error), &error);
    if (!again) {
        free(domains);
        return;
    }
    CHECK_EQ_INT(parac_csp_variable_count(again), parac_csp_variable_count(csp));
    CHECK_EQ_INT(parac_csp_global_count(again), parac_csp_global_count(csp));
    CHECK_EQ_INT(parac_csp_has_objective(again), parac_csp_has_objective(csp));
    CHECK_EQ_INT(parac_csp_present_value_count(again), parac_bitset_popcount(domains, parac_bitset_words(parac_csp_value_count(csp))));
    for (size_t v = 0; v < parac_csp_variable_count(csp); v++)
        CHECK(strcmp(parac_csp_variable_name(csp, v), parac_csp_variable_name(again, v)) == 0, "%s: name %zu", name, v);
    domains_again = enforce(again, &wipeout_again);
    if (domains_again) {
        size_t n = parac_csp_variable_count(csp);
        int64_t *a = malloc(1024 * sizeof *a), *b = malloc(1024 * sizeof *b);
        for (size_t v = 0; a && b && v < n; v++) {
            if (parac_ac_initial_domain_size(csp, v) > 1024) continue;
            size_t count_a = parac_ac_remaining_values(csp, domains, v, a);
            size_t count_b = parac_ac_remaining_values(again, domains_again, v, b);
            CHECK(count_a == count_b && memcmp(a, b, count_a * sizeof *a) == 0, "%s: %s differs after the round trip", name,
                  parac_csp_variable_name(csp, v));
        }
        free(a);
        free(b);
    }
    CHECK(!wipeout_again, "%s: the reduced network wipes out", name);
    /* writing the re-read network gives the same bytes: nothing more was removed, nothing renamed */
    {
        char path_again[256];
        char *first, *second;
        test_temp_path(path_again, sizeof path_again, "reduced-again.xml");
        CHECK_OK(xcsp3_write_reduced(again, domains_again, path_again, 1, &error), &error);
        first = slurp(path);
        second = slurp(path_again);
        CHECK(first && second && strcmp(first, second) == 0, "%s: second reduced file differs", name);
        free(first);
        free(second);
        remove(path_again);
    }
    remove(path);
    free(domains_again);
    free(domains);
    parac_csp_destroy(again);
}

/* Every pycsp3-compiled instance of tests/data/xcsp3 loads, and survives the reduced round trip. */
static void test_instances(void)
{
    static const char *const files[] = {"queens-8", "magic-square-3", "sudoku-4", "rcpsp-tiny", "regular-mdd",
                                        "tsp-5", "element-channel", "cardinality", "lex-ordered", "min-max", "forms"};
    char path[1024];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        parac_csp *csp = NULL;
        parac_error error = {0};
        snprintf(path, sizeof path, "%s/xcsp3/%s.xml", PARAC_TEST_DATA_DEFAULT, files[k]);
        CHECK_OK(parac_csp_load(path, NULL, &csp, &error), &error);
        if (!csp) continue;
        CHECK(parac_csp_global_count(csp) > 0, "%s has no global constraint", files[k]);
        check_round_trip(csp, files[k]);
        parac_csp_destroy(csp);
    }
}

/* A wipe-out is not written; every kind round-trips through the writer. */
static void test_writer_kinds(void)
{
    parac_csp *csp = load(HEAD "<intension> lt(x[0],x[0]) </intension>" TAIL, PARAC_OK, NULL);
    if (csp) check_round_trip(csp, "wipe-out");
    parac_csp_destroy(csp);
    csp = load("<instance format=\"XCSP3\" type=\"COP\"><variables><array id=\"x\" size=\"[4]\"> 0..3 </array>"
               "<array id=\"m\" size=\"[2][3]\"><domain for=\"m[0][]\"> 1..5 </domain><domain for=\"others\"> 2 4 </domain></array>"
               "<var id=\"y\"> 0..10 </var></variables><constraints>"
               "<allDifferent><list> x[] </list><except> 0 </except></allDifferent><allEqual> m[1][0] m[1][1] </allEqual>"
               "<sum><list> x[0] x[1] 3 </list><coeffs> 2 -1 1 </coeffs><condition> (le, y) </condition></sum>"
               "<sum><list> x[] </list><condition> (notin,{0,1}) </condition></sum>"
               "<count><list> x[] </list><values> 1 y </values><condition> (in,1..2) </condition></count>"
               "<nValues><list> x[] </list><condition> (ge,2) </condition></nValues>"
               "<cardinality><list> x[] </list><values closed=\"true\"> 0 1 2 3 </values><occurs> 1 0..1 y 1 </occurs></cardinality>"
               "<element><list startIndex=\"1\"> x[] </list><index> x[0] </index><value> 2 </value></element>"
               "<element><matrix startColIndex=\"2\"> m[][] </matrix><index> x[0] x[1] </index><value> y </value></element>"
               "<channel><list startIndex=\"1\"> x[0..1] </list><list> x[2..3] </list></channel>"
               "<channel><list> x[] </list><value> y </value></channel>"
               "<ordered><list> x[] </list><lengths> 0 1 0 </lengths><operator> le </operator></ordered>"
               "<lex><list> x[0..1] </list><list> x[2..3] </list><operator> ge </operator></lex>"
               "<regular><list> x[] </list><transitions> (a,0,b)(b,1,a)(a,2,a)(b,3,b) </transitions><start> a </start><final> a b </final></regular>"
               "<mdd><list> x[0] x[1] </list><transitions> (r,0,n)(r,1,n)(n,2,t) </transitions></mdd>"
               "<minimum><list> x[] </list><condition> (le,y) </condition></minimum>"
               "<maximum><list> x[] </list><condition> (ge,1) </condition></maximum>"
               "<noOverlap zeroIgnored=\"false\"><origins> (x[0],x[1])(x[2],x[3]) </origins><lengths> (1,2)(2,1) </lengths></noOverlap>"
               "<cumulative><origins> x[0..1] </origins><lengths> 1 2 </lengths><ends> m[0][0..1] </ends><heights> 1 y </heights>"
               "<condition> (le,3) </condition></cumulative>"
               "<circuit><list startIndex=\"1\"> x[] </list><size> y </size></circuit>"
               "<binPacking><list> x[] </list><sizes> 2 3 1 2 </sizes><condition> (le,y) </condition></binPacking>"
               "<knapsack><list> x[] </list><weights> 2 3 1 2 </weights><condition> (le,9) </condition>"
               "<profits> 1 2 3 1 </profits><condition> (ge,2) </condition></knapsack>"
               "<allDifferent> add(x[0],1) mul(x[1],2) </allDifferent>"
               "<extension><list> x[0] y </list><conflicts> (0,0)(1,1) </conflicts></extension>"
               "<extension><list> x[1] x[2] y </list><supports> (0,1,2)(1,2,3)(2,3,4)(3,0,5) </supports></extension>"
               "</constraints><objectives><minimize> y </minimize></objectives></instance>",
               PARAC_OK, NULL);
    if (csp) check_round_trip(csp, "every kind");
    parac_csp_destroy(csp);
}

/* Under ignore_unsupported a form parac does not read drops its constraint (recorded); a budget
 * is never dropped. */
static void test_ignore_unsupported(void)
{
    const char *xml = HEAD "<element><list> x[] </list><index rank=\"first\"> y </index><value> 1 </value></element>\n"
                           "<stretch> x[] </stretch><allDifferent> x[] </allDifferent>"
                           "<instantiation><list> x[0] 3 </list><values> 1 2 </values></instantiation>" TAIL;
    parac_csp_load_options options;
    parac_csp *csp = NULL;
    parac_error error = {0};
    parac_csp_load_options_default(&options);
    options.ignore_unsupported = 1;
    CHECK_OK(parac_csp_load_memory(xml, strlen(xml), "doc.xml", &options, &csp, &error), &error);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_dropped_count(csp), 3);
    CHECK(strstr(parac_csp_dropped(csp, 0), "element <element> at line 2") && strstr(parac_csp_dropped(csp, 0), "rank=\"first\""),
          "%s", parac_csp_dropped(csp, 0));
    CHECK(strstr(parac_csp_dropped(csp, 2), "<instantiation>"), "%s", parac_csp_dropped(csp, 2));
    CHECK_EQ_INT(parac_csp_global_count(csp), 1);
    CHECK_EQ_INT(parac_csp_present_value_count(csp), 4 * 4 + 6 * 5 + 11); /* the dropped instantiation changed nothing */
    parac_csp_destroy(csp);
}

/* Loads xml under small budgets; returns the status, message in error. */
static parac_status load_small(const char *xml, parac_error *error)
{
    xcsp_limits limits;
    parac_csp *csp = NULL;
    xcsp_limits_default(&limits);
    limits.max_values = 1000;
    limits.max_bytes = 200000;
    parac_status status = xcsp_load_memory(xml, strlen(xml), "doc.xml", NULL, &limits, &csp, error);
    parac_csp_destroy(csp);
    return status;
}

/* Amplification through compact references, group re-reads and slide arithmetic stays bounded. */
static void test_budgets(void)
{
    char *xml = malloc(400000);
    parac_error error = {0};
    size_t used;
    if (!xml) return;
    /* 30 copies of allDifferent over 40 variables: the 26th (line 27) passes 1000 terms */
    used = (size_t)sprintf(xml, "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[40]\"> 0 1 </array>"
                                "</variables><constraints>\n");
    for (int k = 0; k < 30; k++) used += (size_t)sprintf(xml + used, "<allDifferent> x[] </allDifferent>\n");
    sprintf(xml + used, "</constraints></instance>");
    CHECK(load_small(xml, &error) == PARAC_ERR_UNSUPPORTED && strstr(error.message, "doc.xml:27: <allDifferent>: global constraints holding more than 1000 terms"),
          "%s", error.message);
    /* 24 copies fit (960 terms) */
    strcpy(strstr(xml, "<allDifferent> x[] </allDifferent>\n") + 24 * 35, "</constraints></instance>");
    CHECK_OK(load_small(xml, &error), &error);
    /* a group re-reading a 20,000-byte template for 20 args: 400 KB > 200 KB of templates */
    used = (size_t)sprintf(xml, "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[4]\"> 0 1 </array>"
                                "</variables><constraints><group><sum><list> %%0 %%1 </list><condition> (le,1) </condition>"
                                "<coeffs> 1 1 %*s</coeffs></sum>\n", 20000, "");
    for (int k = 0; k < 20; k++) used += (size_t)sprintf(xml + used, "<args> x[0] x[1] </args>\n");
    sprintf(xml + used, "</group></constraints></instance>");
    CHECK(load_small(xml, &error) == PARAC_ERR_UNSUPPORTED && strstr(error.message, "templates re-read"), "%s", error.message);
    /* collect sizes whose sum wraps 64 bits */
    sprintf(xml, "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[4]\"> 0 1 </array>"
                 "</variables><constraints>\n<slide circular=\"true\"><list collect=\"9223372036854775807\"> x[] </list>"
                 "<list collect=\"9223372036854775807\"> x[] </list><list collect=\"2\"> x[] </list><allDifferent> %%0 %%1 </allDifferent>"
                 "</slide></constraints></instance>");
    CHECK(load_small(xml, &error) == PARAC_ERR_UNSUPPORTED && strstr(error.message, "doc.xml:2: <slide> past the value budget"),
          "%s", error.message);
    free(xml);
}

int main(void)
{
    test_all_different();
    test_sum();
    test_counting();
    test_element_channel();
    test_order();
    test_automata();
    test_scheduling();
    test_packing();
    test_instantiation();
    test_group_block_slide();
    test_objectives();
    test_malformed();
    test_instances();
    test_writer_kinds();
    test_budgets();
    test_ignore_unsupported();
    return test_finish("csp.xcsp3_globals");
}
