/* tests/csp/test_xcsp_hostile.c — hostile XCSP input (issue 15): each reported class, with the
 * budgets of the internal loader (xcsp_load_memory / xcsp_load_file) set small where the
 * defaults would need gigabytes. A refused document must give its status and a one-line
 * "doc.xml:LINE: problem" message (LINE >= 1); an accepted one must load the right network. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lzma.h>
#include <zlib.h>
#include <parac/csp.h>

#include "csp/csp_handle.h"
#include "csp/xcsp_load.h"
#include "test_util.h"

/* 1 when message is "doc.xml:N: ..." with N >= 1 on one line. */
static int names_file_and_line(const char *message, const char *file)
{
    size_t length = strlen(file);
    const char *at = message + length + 1;
    if (strncmp(message, file, length) != 0 || message[length] != ':' || !isdigit((unsigned char)*at)) return 0;
    if (strtol(at, NULL, 10) < 1) return 0;
    while (isdigit((unsigned char)*at)) at++;
    return at[0] == ':' && at[1] == ' ' && !strchr(message, '\n');
}

static parac_csp *load_limited(const char *xml, size_t size, const xcsp_limits *limits, parac_status expected,
                               const char *needle)
{
    parac_csp *csp = NULL;
    parac_error error = {0};
    parac_status status = xcsp_load_memory(xml, size, "doc.xml", NULL, limits, &csp, &error);
    CHECK(status == expected, "status %d, expected %d: %s", (int)status, (int)expected, error.message);
    if (expected != PARAC_OK) {
        CHECK(names_file_and_line(error.message, "doc.xml"), "message '%s' names no file:line", error.message);
        if (needle) CHECK(strstr(error.message, needle) != NULL, "message '%s' lacks '%s'", error.message, needle);
    }
    return csp;
}

static parac_csp *load(const char *xml, parac_status expected, const char *needle)
{
    return load_limited(xml, strlen(xml), NULL, expected, needle);
}

static double seconds_since(clock_t start) { return (double)(clock() - start) / CLOCKS_PER_SEC; }

#define HEAD "<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"x\" size=\"[3]\"> 0..2 </array>\n</variables>\n<constraints>\n"
#define TAIL "</constraints>\n</instance>\n"

/* A string of `count` copies of `part`, malloc'd. */
static char *repeat(const char *part, size_t count)
{
    size_t length = strlen(part);
    char *out = malloc(length * count + 1);
    for (size_t i = 0; out && i < count; i++) memcpy(out + i * length, part, length);
    if (out) out[length * count] = '\0';
    return out;
}

static char *concat3(const char *a, const char *b, const char *c)
{
    char *out = malloc(strlen(a) + strlen(b) + strlen(c) + 1);
    if (out) strcat(strcat(strcpy(out, a), b), c);
    return out;
}

/* 100,000 nested add(: no recursion in the parser, and the value is right (x0 + 100000 = 100001). */
static void test_deep_expression(void)
{
    char *opens = repeat("add(", 100000), *closes = repeat(",1)", 100000);
    char *expression = concat3("<intension> eq(", opens, "x[0]");
    char *tail = concat3(closes, ", 100001) </intension>\n", TAIL);
    char *xml = concat3(HEAD, expression, tail);
    parac_csp *csp = load(xml, PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_present_value_count(csp), 1 + 3 + 3); /* x[0] = 1 only */
    parac_csp_destroy(csp);
    free(opens), free(closes), free(expression), free(tail), free(xml);
}

/* 30,000 nested <block>s: refused by libxml2's depth limit (256), never a stack overflow; 200
 * nested ones load (the reader walks blocks without recursion). */
static void test_deep_blocks(void)
{
    char *opens = repeat("<block>", 30000), *closes = repeat("</block>", 30000);
    char *body = concat3(opens, "<intension> lt(x[0],x[1]) </intension>", closes);
    char *xml = concat3(HEAD, body, TAIL);
    parac_csp *csp;
    load(xml, PARAC_ERR_PARSE, "Excessive depth");
    free(opens), free(closes), free(body), free(xml);
    opens = repeat("<block>", 200), closes = repeat("</block>", 200);
    body = concat3(opens, "<intension> lt(x[0],x[1]) </intension><block/><intension> lt(x[1],x[2]) </intension>", closes);
    xml = concat3(HEAD, body, TAIL);
    csp = load(xml, PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_constraint_count(csp), 2);
    parac_csp_destroy(csp);
    free(opens), free(closes), free(body), free(xml);
}

static void test_entities(void)
{
    char laughs[4096] = "<?xml version=\"1.0\"?>\n<!DOCTYPE instance [\n<!ENTITY l0 \"lollollollollollollollollol\">\n";
    clock_t start = clock();
    parac_csp *csp;
    for (int i = 1; i < 10; i++) {
        size_t used = strlen(laughs);
        used += (size_t)snprintf(laughs + used, sizeof laughs - used, "<!ENTITY l%d \"", i);
        for (int k = 0; k < 10; k++) used += (size_t)snprintf(laughs + used, sizeof laughs - used, "&l%d;", i - 1);
        snprintf(laughs + used, sizeof laughs - used, "\">\n");
    }
    strcat(laughs, "]>\n<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> 0 1 </var>\n</variables>\n"
                   "<constraints>\n<extension><list> a </list><supports> &l9; </supports></extension>\n" TAIL);
    load(laughs, PARAC_ERR_PARSE, NULL);
    CHECK(seconds_since(start) < 5, "a billion laughs took %.1f s", seconds_since(start));
    /* an internal entity in a domain or a supports list: refused, not dropped */
    load("<?xml version=\"1.0\"?>\n<!DOCTYPE instance [\n<!ENTITY v \"1 2\">\n]>\n<instance format=\"XCSP3\" type=\"CSP\">\n"
         "<variables>\n<var id=\"a\"> 0 &v; </var>\n</variables>\n<constraints/>\n</instance>\n",
         PARAC_ERR_PARSE, "takes no entity declarations");
    /* an undeclared one next to an external DTD (libxml2 only warns there): refused too */
    load("<?xml version=\"1.0\"?>\n<!DOCTYPE instance SYSTEM \"x.dtd\">\n<instance format=\"XCSP3\" type=\"CSP\">\n"
         "<variables>\n<var id=\"a\"> 0 1 2 </var>\n</variables>\n<constraints>\n"
         "<extension><list> a </list><supports> &v; </supports></extension>\n" TAIL,
         PARAC_ERR_PARSE, "doc.xml:8: entity reference &v;");
    /* character references and predefined entities are text: kept */
    csp = load(HEAD "<extension><list> x[0] </list><supports> &#49; </supports></extension>\n"
                    "<intension> eq(x[1], &#50;) </intension>\n" TAIL,
               PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_present_value_count(csp), 1 + 1 + 3);
    parac_csp_destroy(csp);
}

/* The byte and element budgets, in memory and through an .xz file. */
static void test_input_budgets(void)
{
    xcsp_limits limits;
    char *spaces = repeat(" ", 5000), *xml = concat3(HEAD, spaces, TAIL), path[256];
    char *elements = repeat("<comment/>", 200), *many = concat3(HEAD, elements, TAIL);
    uint8_t *compressed = malloc(lzma_stream_buffer_bound(strlen(xml)));
    size_t compressed_size = 0;
    parac_csp *csp = NULL;
    parac_error error = {0};
    FILE *file;
    xcsp_limits_default(&limits);
    CHECK(limits.max_bytes == 4ULL << 30 && limits.max_elements == 100000000ULL);
    limits.max_bytes = 4096;
    load_limited(xml, strlen(xml), &limits, PARAC_ERR_UNSUPPORTED, "more than 4096 bytes of XML");
    limits.max_bytes = 8192;
    parac_csp_destroy(load_limited(xml, strlen(xml), &limits, PARAC_OK, NULL));
    limits.max_elements = 100;
    load_limited(many, strlen(many), &limits, PARAC_ERR_UNSUPPORTED, "more than 100 XML elements");
    limits.max_elements = 300;
    parac_csp_destroy(load_limited(many, strlen(many), &limits, PARAC_OK, NULL));
    {   /* one <block> of 3000 elements against a subtree budget of 1000, then of 5000 (counted as the bytes
         * are read, so a budget is exact only to a few KB of parse-ahead: hence the sizes) */
        char *tags = repeat("<comment/>", 3000), *block = concat3("<block>", tags, "</block>");
        char *nested = concat3(HEAD, block, TAIL), *flat = concat3(HEAD, tags, TAIL);
        limits.max_bytes = 1 << 20;
        limits.max_elements = 10000;
        limits.max_subtree_elements = 1000;
        load_limited(nested, strlen(nested), &limits, PARAC_ERR_UNSUPPORTED, "an element holding more than 1000");
        parac_csp_destroy(load_limited(flat, strlen(flat), &limits, PARAC_OK, NULL)); /* the same 3000, side by side */
        limits.max_subtree_elements = 5000;
        parac_csp_destroy(load_limited(nested, strlen(nested), &limits, PARAC_OK, NULL));
        free(tags), free(flat);
        free(block), free(nested);
    }
    /* a small .xz that expands past the budget */
    CHECK(compressed && lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)xml, strlen(xml), compressed,
                                                &compressed_size, lzma_stream_buffer_bound(strlen(xml))) == LZMA_OK);
    CHECK(compressed_size < 300, "%zu bytes", compressed_size);
    test_temp_path(path, sizeof path, "bomb.xml.xz");
    file = fopen(path, "wb");
    CHECK(file && fwrite(compressed, 1, compressed_size, file) == compressed_size);
    if (file) fclose(file);
    limits.max_bytes = 4096;
    CHECK(xcsp_load_file(path, NULL, &limits, &csp, &error) == PARAC_ERR_UNSUPPORTED, "%s", error.message);
    CHECK(strstr(error.message, "bytes of XML after decompression") && names_file_and_line(error.message, path), "%s",
          error.message);
    limits.max_bytes = 8192;
    CHECK_OK(xcsp_load_file(path, NULL, &limits, &csp, &error), &error);
    parac_csp_destroy(csp);
    remove(path);
    free(spaces), free(xml), free(elements), free(many), free(compressed);
}

static void test_arithmetic(void)
{
    parac_csp *csp;
    clock_t start = clock();
    load(HEAD "<intension> eq(pow(add(x[0],3),70),0) </intension>\n" TAIL, PARAC_ERR_UNSUPPORTED,
         "doc.xml:6: intension arithmetic overflows 64-bit integers at (x[0]=0)");
    /* a huge exponent: squaring, not a loop as long as the exponent (x0 = 0 and 1 are fine, 2 overflows) */
    load(HEAD "<intension> eq(pow(x[0],9000000000000000000),1) </intension>\n" TAIL, PARAC_ERR_UNSUPPORTED, "x[0]=2");
    CHECK(seconds_since(start) < 5, "pow took %.1f s", seconds_since(start));
    load(HEAD "<intension> ge(pow(add(x[0],1),40), 0) </intension>\n" TAIL, PARAC_ERR_UNSUPPORTED,
         "x[0]=2"); /* 2^40 fits, 3^40 does not */
    csp = load(HEAD "<intension> eq(pow(add(x[0],1),39), 4052555153018976267) </intension>\n" TAIL, PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_present_value_count(csp), 1 + 3 + 3); /* 3^39 fits exactly */
    parac_csp_destroy(csp);
    /* INT64_MIN / -1 overflows; INT64_MIN % -1 is 0 (no SIGFPE either way) */
    load(HEAD "<intension> eq(div(sub(-9223372036854775807,add(x[0],1)),-1),0) </intension>\n" TAIL,
         PARAC_ERR_UNSUPPORTED, "overflows");
    csp = load(HEAD "<intension> eq(mod(sub(-9223372036854775807,1),-1),x[0]) </intension>\n" TAIL, PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_present_value_count(csp), 1 + 3 + 3);
    parac_csp_destroy(csp);
    load(HEAD "<intension> gt(abs(sub(-9223372036854775807,add(x[0],1))),0) </intension>\n" TAIL, PARAC_ERR_UNSUPPORTED,
         "overflows");
    load(HEAD "<intension> gt(add(9223372036854775807,x[0]),0) </intension>\n" TAIL, PARAC_ERR_UNSUPPORTED, "x[0]=1");
    load(HEAD "<intension> gt(mul(4611686018427387904,add(x[0],1)),0) </intension>\n" TAIL, PARAC_ERR_UNSUPPORTED,
         "x[0]=1");
    load(HEAD "<intension> lt(x[0],99999999999999999999) </intension>\n" TAIL, PARAC_ERR_PARSE, "64-bit range");
    /* lazy if/and/or/imp: a division by zero the other arguments decide does not matter */
    csp = load(HEAD "<intension> imp(ne(x[1],0), eq(div(x[0],x[1]), 1)) </intension>\n"
                    "<intension> if(eq(x[2],0), 1, gt(div(4,x[2]),2)) </intension>\n" TAIL,
               PARAC_OK, NULL);
    if (csp) { /* x1 = 0 (any x0), x1 = 1 (x0 = 1), x1 = 2 (x0 = 2): all values stay; x2 = 0, 1 (4/1 > 2), not 2 */
        CHECK_EQ_INT(parac_csp_present_value_count(csp), 3 + 3 + 2);
        CHECK_EQ_INT(parac_csp_network_of(csp)->constraints[0].arity, 2);
    }
    parac_csp_destroy(csp);
    /* an overflow in a branch that is not taken does not refuse the constraint */
    csp = load(HEAD "<intension> or(eq(x[0],x[0]), gt(pow(9,x[1]),0), gt(mul(9223372036854775807,add(x[1],2)),0)) </intension>\n" TAIL,
               PARAC_OK, NULL);
    parac_csp_destroy(csp);
}

static void test_arrays_and_domains(void)
{
    xcsp_limits limits;
    parac_csp *csp;
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"x\" size=\"[3]\"> 0..2 </array>\n"
         "<array id=\"y\" size=\"[1]\" as=\"5\"/>\n</variables>\n<constraints/>\n</instance>\n",
         PARAC_ERR_PARSE, "doc.xml:4: as=\"5\"");
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"x\" size=\"[4294967298]\"> 0..2 </array>\n"
         "</variables>\n<constraints/>\n</instance>\n", PARAC_ERR_PARSE, "doc.xml:3: <array> needs");
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"x\" size=\"[65536][65536][65536][65536]\"> 0 </array>\n"
         "</variables>\n<constraints/>\n</instance>\n", PARAC_ERR_UNSUPPORTED, "the variable budget");
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"x\" size=\"[100000][1000]\"> </array>\n"
         "</variables>\n<constraints/>\n</instance>\n", PARAC_ERR_UNSUPPORTED, "doc.xml:3: array 'x' of size");
    /* domains at the ends of the 64-bit range, and their sizes */
    csp = load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> 9223372036854775806..9223372036854775807 </var>\n"
               "<var id=\"b\"> -9223372036854775807 -9223372036854775806 </var>\n<var id=\"e\"> </var>\n</variables>\n"
               "<constraints/>\n</instance>\n", PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_value_count(csp), 4);
    parac_csp_destroy(csp);
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> -9223372036854775807..9223372036854775807 </var>\n"
         "</variables>\n<constraints/>\n</instance>\n", PARAC_ERR_PARSE, "doc.xml:3: variable 'a': more than 100000000 values");
    load("<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> -9223372036854775808 </var>\n"
         "</variables>\n<constraints/>\n</instance>\n", PARAC_ERR_PARSE, "within +-(2^63-1)");
    xcsp_limits_default(&limits);
    limits.max_values = 1000;
    parac_csp_destroy(load_limited(HEAD TAIL, strlen(HEAD TAIL), &limits, PARAC_OK, NULL));
    {
        const char *xml = "<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> 0..599 </var>\n"
                          "<var id=\"b\"> 0..599 </var>\n</variables>\n<constraints/>\n</instance>\n";
        const char *ranges = "<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<var id=\"a\"> 0..599 0..599 </var>\n"
                             "</variables>\n<constraints/>\n</instance>\n";
        load_limited(xml, strlen(xml), &limits, PARAC_ERR_UNSUPPORTED, "doc.xml:4: more than 1000 values in all domains");
        load_limited(ranges, strlen(ranges), &limits, PARAC_ERR_PARSE, "more than 1000 values (the value budget)");
        const char *arrays = "<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"x\" size=\"[3]\"> 0 </array>\n"
                             "<var id=\"a\"> 0 </var>\n<array id=\"y\" size=\"[3][3]\"> 0 </array>\n</variables>\n</instance>\n";
        const char *lists = HEAD "<extension><list> x[] x[] x[] x[] </list><supports/></extension>\n" TAIL;
        limits.max_variables = 10;
        load_limited(arrays, strlen(arrays), &limits, PARAC_ERR_UNSUPPORTED, "doc.xml:5: array 'y'");
        load_limited(lists, strlen(lists), &limits, PARAC_ERR_PARSE, "doc.xml:6: a list of more than 10 terms");
    }
}

static void test_tables(void)
{
    parac_csp *csp;
    /* binary '*' tuples are applied as whole rows and columns */
    csp = load(HEAD "<extension><list> x[0] x[1] </list><supports> (0,*)(*,2)(1,1) </supports></extension>\n"
                    "<extension><list> x[1] x[2] </list><conflicts> (*,0)(2,*) </conflicts></extension>\n" TAIL,
               PARAC_OK, NULL);
    if (csp) {
        const parac_csp_network *n = parac_csp_network_of(csp);
        const parac_csp_constraint *c = &n->constraints[0];
        int expected[3][3] = {{1, 1, 1}, {0, 1, 1}, {0, 0, 1}};
        for (uint32_t a = 0; a < 3; a++)
            for (uint32_t b = 0; b < 3; b++)
                CHECK_EQ_INT(parac_bitset_test(c->matrix + (size_t)a * c->row_words, b), expected[a][b]);
        c = &n->constraints[1];
        for (uint32_t a = 0; a < 3; a++)
            for (uint32_t b = 0; b < 3; b++)
                CHECK_EQ_INT(parac_bitset_test(c->matrix + (size_t)a * c->row_words, b), a != 2 && b != 0);
    }
    parac_csp_destroy(csp);
    /* n-ary '*' expansion stops at max_table_tuples */
    {
        parac_csp_load_options options;
        parac_error error = {0};
        const char *xml = "<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"x\" size=\"[4]\"> 0..49 </array>\n"
                          "</variables>\n<constraints>\n<extension><list> x[] </list><supports> (*,*,*,1)(2,*,*,*) </supports></extension>\n"
                          TAIL;
        parac_csp_load_options_default(&options);
        options.max_table_tuples = 200000;
        CHECK(xcsp_load_memory(xml, strlen(xml), "doc.xml", &options, NULL, &csp, &error) == PARAC_ERR_UNSUPPORTED,
              "%s", error.message);
        CHECK(strstr(error.message, "doc.xml:6: table over 4 variables") != NULL, "%s", error.message);
        options.max_table_tuples = 300000;
        CHECK_OK(xcsp_load_memory(xml, strlen(xml), "doc.xml", &options, NULL, &csp, &error), &error);
        if (csp) CHECK_EQ_INT(parac_csp_network_of(csp)->constraints[0].tuple_count, 125000 + 125000 - 2500);
        parac_csp_destroy(csp);
    }
    /* XCSP 2.1: an arity past what the tuple text could hold, and one past 2^32 */
    load("<instance><presentation format=\"XCSP 2.1\"/>\n<relations>\n"
         "<relation name=\"R\" arity=\"1000000000\" nbTuples=\"1\" semantics=\"supports\">1 1</relation>\n"
         "</relations>\n</instance>\n", PARAC_ERR_PARSE, "doc.xml:3: tuples of arity 1000000000");
    load("<instance><presentation format=\"XCSP 2.1\"/>\n<relations>\n"
         "<relation name=\"R\" arity=\"99999999999\" nbTuples=\"1\" semantics=\"supports\">1 1</relation>\n"
         "</relations>\n</instance>\n", PARAC_ERR_PARSE, "doc.xml:3: <relation> needs");
}

/* %... over 300,000 arguments: each parameter leaf is found in O(1) (the scan was quadratic) */
static void test_long_rest_parameter(void)
{
    char *ones = repeat(" 1", 300000);
    char *group = concat3("<group><intension> ge(add(%...), %0) </intension><args> x[0]", ones, " </args></group>\n");
    char *xml = concat3(HEAD, group, TAIL);
    clock_t start = clock();
    parac_csp *csp = load(xml, PARAC_OK, NULL);
    if (csp) CHECK_EQ_INT(parac_csp_present_value_count(csp), 9);
    parac_csp_destroy(csp);
    CHECK(seconds_since(start) < 10, "took %.1f s", seconds_since(start));
    free(ones), free(group), free(xml);
    /* %N at INT64_MAX next to %... (highest + 1 overflowed: UBSan reports it in the sanitized builds) */
    load(HEAD "<group><extension><list> %9223372036854775807 %... </list><supports>(0,1)</supports></extension>"
              "<args> x[0] x[1] </args></group>\n" TAIL, PARAC_ERR_PARSE, "doc.xml:6: bad parameter '%9223372036854775807'");
    /* 65 distinct variables in one intension: refused by name, not as an unknown variable */
    {
        char text[4096] = "<instance format=\"XCSP3\" type=\"CSP\">\n<variables>\n<array id=\"y\" size=\"[65]\"> 0 1 </array>\n"
                          "</variables>\n<constraints>\n<intension> ge(add(";
        for (int i = 0; i < 65; i++) snprintf(text + strlen(text), sizeof text - strlen(text), "%sy[%d]", i ? "," : "", i);
        strcat(text, "), 0) </intension>\n" TAIL);
        load(text, PARAC_ERR_UNSUPPORTED, "doc.xml:6: intension over more than 64 variables");
    }
}

/* the work of one intension (tuples x program length) is bounded by 1000 x max_table_tuples */
static void test_intension_work(void)
{
    parac_csp_load_options options;
    parac_error error = {0};
    parac_csp *csp = NULL;
    char *adds = repeat("add(", 2000), *closes = repeat(",1)", 2000), *expression = concat3("<intension> gt(", adds, "x[0]");
    char *tail = concat3(closes, ", add(x[1],x[2])) </intension>\n", TAIL), *xml = concat3(HEAD, expression, tail);
    parac_csp_load_options_default(&options);
    options.max_table_tuples = 30; /* 27 tuples x ~4000 operations > 30000 steps */
    CHECK(xcsp_load_memory(xml, strlen(xml), "doc.xml", &options, NULL, &csp, &error) == PARAC_ERR_UNSUPPORTED, "%s",
          error.message);
    CHECK(strstr(error.message, "doc.xml:6: intension of") && strstr(error.message, "evaluation steps"), "%s", error.message);
    options.max_table_tuples = 200;
    CHECK_OK(xcsp_load_memory(xml, strlen(xml), "doc.xml", &options, NULL, &csp, &error), &error);
    parac_csp_destroy(csp);
    free(adds), free(closes), free(expression), free(tail), free(xml);
}

/* gzip goes through zlib's gzread: counted against the byte budget, corruption is an I/O error */
static void test_gzip(void)
{
    xcsp_limits limits;
    char *spaces = repeat(" ", 20000), *xml = concat3(HEAD "<intension> lt(x[0],x[1]) </intension>", spaces, TAIL), path[256];
    parac_csp *csp = NULL;
    parac_error error = {0};
    gzFile gz = gzopen(test_temp_path(path, sizeof path, "doc.xml.gz"), "wb9");
    FILE *file;
    long size;
    char *bytes;
    CHECK(gz && gzwrite(gz, xml, (unsigned)strlen(xml)) == (int)strlen(xml));
    if (gz) gzclose(gz);
    xcsp_limits_default(&limits);
    CHECK_OK(xcsp_load_file(path, NULL, &limits, &csp, &error), &error);
    if (csp) CHECK_EQ_INT(parac_csp_constraint_count(csp), 1);
    parac_csp_destroy(csp);
    limits.max_bytes = 10000;
    CHECK(xcsp_load_file(path, NULL, &limits, &csp, &error) == PARAC_ERR_UNSUPPORTED &&
          strstr(error.message, "bytes of XML after decompression"), "%s", error.message);
    /* flip bytes in the middle of the deflate stream */
    file = fopen(path, "r+b");
    CHECK(file != NULL);
    if (file) {
        fseek(file, 0, SEEK_END);
        size = ftell(file);
        bytes = calloc(1, (size_t)size);
        fseek(file, 0, SEEK_SET);
        CHECK(fread(bytes, 1, (size_t)size, file) == (size_t)size);
        for (long i = 12; i < size - 8; i++) bytes[i] = (char)(bytes[i] ^ 0x5a);
        fseek(file, 0, SEEK_SET);
        fwrite(bytes, 1, (size_t)size, file);
        fclose(file);
        free(bytes);
        CHECK(xcsp_load_file(path, NULL, NULL, &csp, &error) != PARAC_OK && csp == NULL, "%s", error.message);
        CHECK(error.status == PARAC_ERR_IO || error.status == PARAC_ERR_PARSE, "%s", error.message);
    }
    remove(path);
    free(spaces), free(xml);
}

int main(void)
{
    test_gzip();
    test_intension_work();
    test_long_rest_parameter();
    test_deep_expression();
    test_deep_blocks();
    test_entities();
    test_input_budgets();
    test_arithmetic();
    test_arrays_and_domains();
    test_tables();
    return test_finish("csp.xcsp_hostile");
}
