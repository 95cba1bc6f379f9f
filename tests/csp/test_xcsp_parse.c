/* tests/csp/test_xcsp_parse.c — one small inline document per XCSP construct, and
 * malformed / unsupported documents (status and file:line in the message). */
#include <stdio.h>
#include <string.h>

#include <parac/csp.h>

#include "csp/csp_handle.h"
#include "test_util.h"

static parac_csp *load(const char *xml, parac_status expected, const char *needle, int ignore_unsupported)
{
    parac_csp *csp = NULL;
    parac_error error = {0};
    parac_csp_load_options options;
    parac_csp_load_options_default(&options);
    options.ignore_unsupported = ignore_unsupported;
    parac_status status = parac_csp_load_memory(xml, strlen(xml), "doc.xml", &options, &csp, &error);
    CHECK(status == expected, "status %d, expected %d: %s", (int)status, (int)expected, error.message);
    if (needle) CHECK(strstr(error.message, needle) != NULL, "message '%s' lacks '%s'", error.message, needle);
    return csp;
}

/* 1 when (a, b) is allowed by the binary constraint over (x, y), x < y, slots. */
static int allows(const parac_csp *csp, size_t constraint, uint32_t a, uint32_t b)
{
    const parac_csp_constraint *c = &parac_csp_network_of(csp)->constraints[constraint];
    return parac_bitset_test(c->matrix + (size_t)a * c->row_words, b);
}

static void test_variables(void)
{
    parac_csp *csp = load("<instance format=\"XCSP3\" type=\"CSP\"><variables>"
                          "<var id=\"a\"> 5 1 3..4 </var><var id=\"b\" as=\"a\"/>"
                          "<array id=\"m\" size=\"[2][3]\"> -1..1 </array>"
                          "<array id=\"y\" size=\"[3]\"><domain for=\"y[0]\"> 7 </domain><domain for=\"others\"> 0 1 </domain></array>"
                          "</variables><constraints/></instance>", PARAC_OK, NULL, 0);
    if (!csp) return;
    const parac_csp_network *n = parac_csp_network_of(csp);
    CHECK_EQ_INT(n->variable_count, 2 + 6 + 3);
    CHECK_EQ_INT(n->domain_size[0], 4);
    CHECK_EQ_INT(n->values[0], 1);
    CHECK_EQ_INT(n->values[3], 5);
    CHECK_EQ_INT(n->domain_size[1], 4);
    CHECK(strcmp(n->variable_names[2 + 4], "m[1][1]") == 0, "%s", n->variable_names[6]);
    CHECK_EQ_INT(n->domain_size[8], 1);
    CHECK_EQ_INT(n->domain_size[10], 2);
    parac_csp_destroy(csp);
}

#define HEAD "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[4]\"> 0..2 </array></variables><constraints>"
#define TAIL "</constraints></instance>"

static void test_extension(void)
{
    parac_csp *csp = load(HEAD "<extension><list> x[1] x[0] </list><supports> (0,1)(2,*) </supports></extension>"
                               "<extension><list> x[0..1] </list><conflicts>(1,2)</conflicts></extension>"
                               "<extension><list> x[2] </list><supports> 0 2 </supports></extension>"
                               "<extension><list> x[0] x[1] x[3] </list><conflicts>(0,0,*)(9,9,9)</conflicts></extension>" TAIL,
                          PARAC_OK, NULL, 0);
    if (!csp) return;
    const parac_csp_network *n = parac_csp_network_of(csp);
    CHECK_EQ_INT(n->constraint_count, 2); /* two binary merged, one unary, one table */
    /* x0 x1: allowed from (x1=0,x0=1), (x1=2, any x0), minus (x0=1,x1=2) */
    CHECK(allows(csp, 0, 1, 0) && allows(csp, 0, 0, 2) && allows(csp, 0, 2, 2) && !allows(csp, 0, 1, 2) && !allows(csp, 0, 0, 0));
    CHECK_EQ_INT(parac_csp_present_value_count(csp), 11);
    CHECK_EQ_INT(n->constraints[1].arity, 3);
    CHECK_EQ_INT(n->constraints[1].tuple_count, 27 - 3);
    parac_csp_destroy(csp);
}

static void test_intension_group_block(void)
{
    parac_csp *csp = load(HEAD "<block><intension> lt(x[0],x[1]) </intension>"
                               "<group><intension> eq(add(%0,%1),%2) </intension><args> x[2] x[3] 2 </args><args> x[1] x[2] 3 </args></group></block>"
                               "<intension><function> or(eq(x[3],0), gt(dist(x[0],x[3]), 1)) </function></intension>"
                               "<intension> ne(x[0], 1) </intension>"
                               "<intension> in(add(x[0],x[1],x[2]), set(3, 6)) </intension>"
                               "<intension> if(eq(mod(x[3],2),0), iff(x[1], x[2]), imp(x[1], not(x[2]))) </intension>" TAIL,
                          PARAC_OK, NULL, 0);
    if (!csp) return;
    const parac_csp_network *n = parac_csp_network_of(csp);
    CHECK_EQ_INT(n->constraint_count, 6);
    CHECK(allows(csp, 0, 0, 1) && !allows(csp, 0, 1, 1) && !allows(csp, 0, 2, 0));
    CHECK(allows(csp, 1, 0, 2) && allows(csp, 1, 2, 0) && !allows(csp, 1, 1, 0)); /* x2 + x3 = 2 */
    CHECK(allows(csp, 2, 1, 2) && !allows(csp, 2, 2, 2));                         /* x1 + x2 = 3 */
    CHECK(!parac_bitset_test(n->present, 1));                                       /* x0 != 1 */
    CHECK_EQ_INT(n->constraints[4].arity, 3);
    CHECK_EQ_INT(n->constraints[4].tuple_count, 7 + 1); /* sums 3: 7 tuples, sum 6: (2,2,2) */
    parac_csp_destroy(csp);
}

/* The table constraint over exactly these sorted variables, or NULL. */
static const parac_csp_constraint *table_over(const parac_csp *csp, uint32_t a, uint32_t b, uint32_t c)
{
    const parac_csp_network *n = parac_csp_network_of(csp);
    for (size_t i = 0; i < n->constraint_count; i++) {
        const parac_csp_constraint *t = &n->constraints[i];
        if (t->arity == 3 && t->scope[0] == a && t->scope[1] == b && t->scope[2] == c) return t;
    }
    return NULL;
}

static void test_rest_parameter_groups(void)
{
    const parac_csp_constraint *t;
    parac_csp *csp = load(HEAD "<group><extension><list> %... </list><supports>(0,0,0)(1,1,1)(2,2,*)</supports></extension>"
                               "<args> x[3] x[0] x[1] </args><args> x[1..3] </args></group>"
                               "<group><extension><list> %0 %... </list><conflicts>(0,1)</conflicts></extension>"
                               "<args> x[2] x[0] </args></group>" TAIL,
                          PARAC_OK, NULL, 0);
    if (csp) {
        CHECK_EQ_INT(parac_csp_constraint_count(csp), 3);
        t = table_over(csp, 0, 1, 3); /* list (x3, x0, x1) permuted to (x0, x1, x3) */
        CHECK(t && t->tuple_count == 5, "x0 x1 x3 table");
        /* (x3=2, x0=2, x1=*) becomes (2,0,2) (2,1,2) (2,2,2), after (0,0,0) (1,1,1) */
        if (t) CHECK(memcmp(t->tuples + 2 * 3, (uint32_t[]){2, 0, 2, 2, 1, 2, 2, 2, 2}, 9 * sizeof(uint32_t)) == 0, "(2,2,*) permuted");
        CHECK(table_over(csp, 1, 2, 3) != NULL, "x[1..3] in <args>");
        /* %0 = x2, %... = x0: (x2=0, x0=1) forbidden, stored as rows of x0 */
        CHECK(!allows(csp, 2, 1, 0) && allows(csp, 2, 0, 0) && allows(csp, 2, 1, 1));
        parac_csp_destroy(csp);
    }
    csp = load(HEAD "<group><intension> eq(add(%...), %0) </intension>"
                    "<args> 2 x[0] x[1] x[2] </args><args> 1 x[1] x[3] </args><args> 4 x[] </args></group>" TAIL,
               PARAC_OK, NULL, 0);
    if (csp) {
        const parac_csp_network *n = parac_csp_network_of(csp);
        CHECK_EQ_INT(n->constraint_count, 3);
        t = table_over(csp, 0, 1, 2);
        CHECK(t && t->tuple_count == 6, "x0+x1+x2 = 2 has 6 tuples");
        CHECK(n->constraints[1].arity == 2 && allows(csp, 1, 0, 1) && allows(csp, 1, 1, 0) && !allows(csp, 1, 1, 1));
        CHECK(n->constraints[2].arity == 4 && n->constraints[2].tuple_count == 19, "x[] sums to 4: 19 tuples");
        parac_csp_destroy(csp);
    }
    load(HEAD "<group><intension> eq(%0, add(%...)) </intension><args> x[0] </args></group>" TAIL, PARAC_ERR_PARSE,
         "%... stands for no argument", 0);
    load(HEAD "<group><extension><list> %0 %3 </list><supports>(0,0)</supports></extension><args> x[0] x[1] </args></group>" TAIL,
         PARAC_ERR_PARSE, "bad parameter '%3'", 0);
    load(HEAD "<intension> eq(add(%...), 1) </intension>" TAIL, PARAC_ERR_PARSE, "'%...'", 0);
}

static void test_compact_lists(void)
{
    parac_csp *csp = load("<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"m\" size=\"[2][3]\"> 0 1 </array>"
                          "</variables><constraints>"
                          "<extension><list> m[][1] m[0][2] </list><supports>(0,1,1)(1,0,1)</supports></extension>"
                          "<extension><list> m[1][0..2] </list><conflicts>(0,0,0)</conflicts></extension>"
                          "<group><extension><list> %0 %1 </list><supports>(1,1)</supports></extension><args> m[0][0..1] </args></group>"
                          "<extension><list> m[][] </list><supports>(0,1,1,0,0,1)(0,1,1,0,0,0)</supports></extension>" TAIL,
                          PARAC_OK, NULL, 0);
    if (!csp) return;
    /* m[][1] = m[0][1], m[1][1] (variables 1, 4), then m[0][2] (2) -> sorted (1, 2, 4) */
    const parac_csp_constraint *t = table_over(csp, 1, 2, 4);
    CHECK(t && t->tuple_count == 2, "m[][1] m[0][2]");
    if (t) CHECK(memcmp(t->tuples, (uint32_t[]){0, 1, 1, 1, 1, 0}, 6 * sizeof(uint32_t)) == 0, "columns permuted");
    t = table_over(csp, 3, 4, 5);
    CHECK(t && t->tuple_count == 7, "m[1][0..2] conflicts");
    CHECK_EQ_INT(parac_csp_network_of(csp)->constraints[parac_csp_constraint_count(csp) - 1].arity, 6);
    parac_csp_destroy(csp);
}

/* Tables over the same variables, in any order, from extension and intension: one table, the intersection. */
static void test_table_merge(void)
{
    parac_csp *csp = load(HEAD "<extension><list> x[0] x[1] x[2] </list><supports>(0,1,2)(1,1,1)(2,0,1)(2,2,2)</supports></extension>"
                               "<extension><list> x[2] x[0] x[1] </list><supports>(2,0,1)(1,1,1)(0,2,2)(1,2,0)</supports></extension>"
                               "<intension> gt(add(x[2],x[1]),x[0]) </intension>"
                               "<extension><list> x[3] x[1] x[2] </list><supports>(0,0,0)</supports></extension>"
                               "<extension><list> x[1] x[2] x[3] </list><supports>(1,1,1)</supports></extension>" TAIL,
                          PARAC_OK, NULL, 0);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_constraint_count(csp), 2);
    const parac_csp_constraint *t = table_over(csp, 0, 1, 2);
    CHECK(t && t->tuple_count == 2, "intersection of three tables");
    if (t) CHECK(memcmp(t->tuples, (uint32_t[]){0, 1, 2, 1, 1, 1}, 6 * sizeof(uint32_t)) == 0, "tuples");
    t = table_over(csp, 1, 2, 3);
    CHECK(t && t->tuple_count == 0, "disjoint tables merge to an empty relation");
    parac_csp_destroy(csp);
}

static void test_xcsp2(void)
{
    parac_csp *csp = load("<instance><presentation format=\"XCSP 2.1\"/><domains><domain name=\"D\" nbValues=\"3\">1..3</domain></domains>"
                          "<variables><variable name=\"V0\" domain=\"D\"/><variable name=\"V1\" domain=\"D\"/><variable name=\"V2\" domain=\"D\"/></variables>"
                          "<relations><relation name=\"R\" arity=\"2\" nbTuples=\"2\" semantics=\"conflicts\">1 1|2 2</relation></relations>"
                          "<predicates><predicate name=\"P\"><parameters>int X int Y int K</parameters>"
                          "<expression><functional>ge(sub(X,Y),K)</functional></expression></predicate></predicates>"
                          "<constraints><constraint name=\"C0\" arity=\"2\" scope=\"V0 V1\" reference=\"R\"/>"
                          "<constraint name=\"C1\" arity=\"2\" scope=\"V1 V2\" reference=\"P\"><parameters>V2 V1 1</parameters></constraint>"
                          "</constraints></instance>", PARAC_OK, NULL, 0);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_constraint_count(csp), 2);
    CHECK(!allows(csp, 0, 0, 0) && allows(csp, 0, 0, 1) && allows(csp, 0, 2, 2) == 0 ? 1 : allows(csp, 0, 2, 2));
    CHECK(allows(csp, 1, 0, 1) && !allows(csp, 1, 1, 1) && !allows(csp, 1, 1, 0)); /* V2 - V1 >= 1 */
    parac_csp_destroy(csp);
}

static void test_errors(void)
{
    parac_csp *csp;
    load(HEAD "<extension><list> x[0] x[1] </list><supports> (0,1)(2 </supports></extension>" TAIL, PARAC_ERR_PARSE,
         "doc.xml:1:", 0);
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> 0 1 </var>\n</variables>\n<constraints>\n"
         "<stretch> a </stretch>\n</constraints></instance>", PARAC_ERR_UNSUPPORTED, "doc.xml:6:", 0);
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> 0 1 </var>\n</variables>\n<constraints>\n"
         "<extension>\n<list> b </list>", PARAC_ERR_PARSE, "doc.xml:", 0);
    load(HEAD "<intension> eq(x[0], y) </intension>" TAIL, PARAC_ERR_PARSE, "unknown variable", 0);
    load(HEAD "<intension> foo(x[0], 1) </intension>" TAIL, PARAC_ERR_PARSE, "unsupported operator", 0);
    load("<instance format=\"XCSP3\" type=\"WCSP\"><variables/></instance>", PARAC_ERR_UNSUPPORTED, "WCSP", 0);
    load("<notxcsp/>", PARAC_ERR_PARSE, "<notxcsp>", 0);
    csp = load(HEAD "<stretch> x[] </stretch><intension> lt(x[0],x[1]) </intension>" TAIL, PARAC_OK, NULL, 1);
    if (csp) {
        CHECK_EQ_INT(parac_csp_dropped_count(csp), 1);
        CHECK(strstr(parac_csp_dropped(csp, 0), "stretch") != NULL);
        CHECK_EQ_INT(parac_csp_constraint_count(csp), 1);
        parac_csp_destroy(csp);
    }
}

int main(void)
{
    test_variables();
    test_extension();
    test_intension_group_block();
    test_rest_parameter_groups();
    test_compact_lists();
    test_table_merge();
    test_xcsp2();
    test_errors();
    return test_finish("csp.xcsp_parse");
}
