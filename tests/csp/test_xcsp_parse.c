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
         "<allDifferent> a </allDifferent>\n</constraints></instance>", PARAC_ERR_UNSUPPORTED, "doc.xml:6:", 0);
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> 0 1 </var>\n</variables>\n<constraints>\n"
         "<extension>\n<list> b </list>", PARAC_ERR_PARSE, "doc.xml:", 0);
    load(HEAD "<intension> eq(x[0], y) </intension>" TAIL, PARAC_ERR_PARSE, "unknown variable", 0);
    load(HEAD "<intension> foo(x[0], 1) </intension>" TAIL, PARAC_ERR_PARSE, "unsupported operator", 0);
    load("<instance format=\"XCSP3\" type=\"COP\"><variables/></instance>", PARAC_ERR_UNSUPPORTED, "COP", 0);
    load("<notxcsp/>", PARAC_ERR_PARSE, "<notxcsp>", 0);
    csp = load(HEAD "<allDifferent> x[] </allDifferent><intension> lt(x[0],x[1]) </intension>" TAIL, PARAC_OK, NULL, 1);
    if (csp) {
        CHECK_EQ_INT(parac_csp_dropped_count(csp), 1);
        CHECK(strstr(parac_csp_dropped(csp, 0), "allDifferent") != NULL);
        CHECK_EQ_INT(parac_csp_constraint_count(csp), 1);
        parac_csp_destroy(csp);
    }
}

int main(void)
{
    test_variables();
    test_extension();
    test_intension_group_block();
    test_xcsp2();
    test_errors();
    return test_finish("csp.xcsp_parse");
}
