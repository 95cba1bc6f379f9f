/* tests/csp/test_xcsp3_expression_terms.c — expressions as terms of global constraints' lists
 * (pycsp3's AllDifferent(x[i] + i), Sum(x[i] * y[i]), Maximum(x[i] + y[i]) == M), which the reader
 * replaces by auxiliary variables defined by tables.
 *
 * Random instances: one global (allDifferent, sum, count, nValues, minimum, maximum) whose list
 * mixes variables, constants and expressions (add, sub, mul, dist, gt, with variables and
 * constants) over 3-4 variables with small domains, written as XCSP3 text and loaded. Brute force
 * enumerates the declared variables' assignments, evaluates every term with this file's own
 * reading of the operators and the global with its own reading of the kind, and keeps the values
 * of satisfying assignments. parac must keep exactly those values when no variable occurs in two
 * terms (the decomposition is Berge-acyclic: "gac" in the JSON's consistency) and at least those
 * otherwise ("decomposition"). Also: the auxiliary variables stay out of the public API (names,
 * counts, values before and after), a constant expression becomes a constant, groups bind %i
 * inside expressions, and every CPU algorithm agrees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/ac.h>
#include <parac/csp.h>

#include "csp/csp_handle.h"
#include "test_util.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static int64_t rnd(int64_t low, int64_t high) /* inclusive */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return low + (int64_t)(rng_state % (uint64_t)(high - low + 1));
}

#define MAX_VARS 4
#define MAX_TERMS 5

typedef enum form { VARIABLE, CONSTANT, ADD_CONSTANT, SUB_VARIABLES, MUL_VARIABLES, MUL_CONSTANT, DIST, GT } form;
typedef struct term_spec {
    form form;
    int a, b;         /* variables */
    int64_t constant;
} term_spec;

typedef enum kind { ALL_DIFFERENT, SUM, COUNT, NVALUES, MINIMUM, MAXIMUM, KIND_COUNT } kind;
static const char *const KIND_NAMES[] = {"allDifferent", "sum", "count", "nValues", "minimum", "maximum"};

typedef struct instance {
    int vars;
    int64_t low[MAX_VARS], high[MAX_VARS];
    kind kind;
    term_spec terms[MAX_TERMS];
    int term_count;
    const char *op; /* condition operator: le, eq, ge */
    int64_t bound;  /* condition operand (a constant) */
    int64_t counted;
} instance;

static int64_t term_value(const term_spec *t, const int64_t *x)
{
    switch (t->form) {
    case VARIABLE: return x[t->a];
    case CONSTANT: return t->constant;
    case ADD_CONSTANT: return x[t->a] + t->constant;
    case SUB_VARIABLES: return x[t->a] - x[t->b];
    case MUL_VARIABLES: return x[t->a] * x[t->b];
    case MUL_CONSTANT: return x[t->a] * t->constant;
    case DIST: return x[t->a] > x[t->b] ? x[t->a] - x[t->b] : x[t->b] - x[t->a];
    default: return x[t->a] > t->constant;
    }
}

static int condition_holds(const instance *in, int64_t v)
{
    if (strcmp(in->op, "le") == 0) return v <= in->bound;
    if (strcmp(in->op, "ge") == 0) return v >= in->bound;
    return v == in->bound;
}

static int satisfied(const instance *in, const int64_t *x)
{
    int64_t v[MAX_TERMS], total = 0, count = 0, low = INT64_MAX, high = INT64_MIN, distinct = 0;
    for (int i = 0; i < in->term_count; i++) {
        int seen = 0;
        v[i] = term_value(&in->terms[i], x);
        for (int j = 0; j < i; j++) seen |= v[j] == v[i];
        distinct += !seen;
        total += v[i];
        count += v[i] == in->counted;
        if (v[i] < low) low = v[i];
        if (v[i] > high) high = v[i];
    }
    switch (in->kind) {
    case ALL_DIFFERENT: return distinct == in->term_count;
    case SUM: return condition_holds(in, total);
    case COUNT: return condition_holds(in, count);
    case NVALUES: return condition_holds(in, distinct);
    case MINIMUM: return condition_holds(in, low);
    default: return condition_holds(in, high);
    }
}

static int write_term(char *out, size_t size, const term_spec *t)
{
    switch (t->form) {
    case VARIABLE: return snprintf(out, size, "x[%d]", t->a);
    case CONSTANT: return snprintf(out, size, "%lld", (long long)t->constant);
    case ADD_CONSTANT: return snprintf(out, size, "add(x[%d],%lld)", t->a, (long long)t->constant);
    case SUB_VARIABLES: return snprintf(out, size, "sub(x[%d], x[%d])", t->a, t->b); /* a space inside */
    case MUL_VARIABLES: return snprintf(out, size, "mul(x[%d],x[%d])", t->a, t->b);
    case MUL_CONSTANT: return snprintf(out, size, "mul(x[%d],%lld)", t->a, (long long)t->constant);
    case DIST: return snprintf(out, size, "dist(x[%d],x[%d])", t->a, t->b);
    default: return snprintf(out, size, "gt(x[%d],%lld)", t->a, (long long)t->constant);
    }
}

static void write_instance(const instance *in, char *xml, size_t size)
{
    size_t used = (size_t)snprintf(xml, size, "<instance format=\"XCSP3\" type=\"CSP\"><variables>\n"
                                                  "<array id=\"x\" size=\"[%d]\">\n", in->vars);
    for (int v = 0; v < in->vars; v++)
        used += (size_t)snprintf(xml + used, size - used, "<domain for=\"x[%d]\"> %lld..%lld </domain>\n", v,
                                 (long long)in->low[v], (long long)in->high[v]);
    used += (size_t)snprintf(xml + used, size - used, "</array></variables><constraints>\n<%s><list>",
                             KIND_NAMES[in->kind]);
    for (int i = 0; i < in->term_count; i++) {
        xml[used++] = ' ';
        used += (size_t)write_term(xml + used, size - used, &in->terms[i]);
    }
    used += (size_t)snprintf(xml + used, size - used, " </list>");
    if (in->kind == COUNT) used += (size_t)snprintf(xml + used, size - used, "<values> %lld </values>", (long long)in->counted);
    if (in->kind != ALL_DIFFERENT)
        used += (size_t)snprintf(xml + used, size - used, "<condition> (%s,%lld) </condition>", in->op, (long long)in->bound);
    snprintf(xml + used, size - used, "</%s>\n</constraints></instance>\n", KIND_NAMES[in->kind]);
}

/* x[0..3], each with its own domain; the generator rejects nothing. */
static void random_instance(instance *in)
{
    static const char *const ops[] = {"le", "eq", "ge"};
    memset(in, 0, sizeof *in);
    in->vars = (int)rnd(2, MAX_VARS);
    for (int v = 0; v < in->vars; v++) {
        in->low[v] = rnd(-2, 1);
        in->high[v] = in->low[v] + rnd(1, 3);
    }
    in->kind = (kind)rnd(0, KIND_COUNT - 1);
    in->term_count = (int)rnd(2, MAX_TERMS);
    for (int i = 0; i < in->term_count; i++) {
        term_spec *t = &in->terms[i];
        t->form = (form)rnd(VARIABLE, GT);
        t->a = (int)rnd(0, in->vars - 1);
        t->b = (int)rnd(0, in->vars - 1);
        t->constant = rnd(-2, 3);
    }
    in->op = ops[rnd(0, 2)];
    in->bound = rnd(-3, 6);
    in->counted = rnd(-1, 2);
    if (in->kind == NVALUES) in->bound = rnd(1, 4);
}

/* 1 when a variable occurs in two terms of which one is an expression: GAC over the auxiliary
 * variables is then weaker (a repeat inside one expression is handled by its table). */
static int shares_expression_variable(const instance *in)
{
    int uses[MAX_VARS][MAX_TERMS] = {{0}};
    for (int i = 0; i < in->term_count; i++) {
        const term_spec *t = &in->terms[i];
        if (t->form == CONSTANT) continue;
        uses[t->a][i] = 1;
        if (t->form == SUB_VARIABLES || t->form == MUL_VARIABLES || t->form == DIST) uses[t->b][i] = 1;
    }
    for (int v = 0; v < in->vars; v++) {
        int terms = 0, in_expression = 0;
        for (int i = 0; i < in->term_count; i++) {
            terms += uses[v][i];
            in_expression |= uses[v][i] && in->terms[i].form != VARIABLE;
        }
        if (terms > 1 && in_expression) return 1;
    }
    return 0;
}

static int has_expression(const instance *in)
{
    for (int i = 0; i < in->term_count; i++)
        if (in->terms[i].form != VARIABLE && in->terms[i].form != CONSTANT) return 1;
    return 0;
}

static int exact_count, decomposed_count, wipe_count, pruned_count;

static void check_instance(uint64_t seed)
{
    static const parac_ac_algorithm algorithms[] = {PARAC_AC_AC3, PARAC_AC_AC3BIT, PARAC_AC_AC2001, PARAC_AC_AC4};
    instance in;
    char xml[4096];
    parac_csp *csp = NULL;
    parac_error error = {0};
    int64_t x[MAX_VARS];
    int supported[MAX_VARS][8] = {{0}}, any = 0, shared;
    uint64_t *domains[4] = {0};
    const char *kinds[4], *levels[4];
    parac_ac_stats stats[4];
    random_instance(&in);
    write_instance(&in, xml, sizeof xml);
    if (parac_csp_load_memory(xml, strlen(xml), "expr.xml", NULL, &csp, &error) != PARAC_OK) {
        CHECK(0, "seed %llu: %s\n%s", (unsigned long long)seed, error.message, xml);
        return;
    }
    for (int v = 0; v < in.vars; v++) x[v] = in.low[v];
    for (;;) { /* every assignment of the declared variables */
        int v = 0;
        if (satisfied(&in, x)) {
            any = 1;
            for (int u = 0; u < in.vars; u++) supported[u][x[u] - in.low[u]] = 1;
        }
        while (v < in.vars && ++x[v] > in.high[v]) x[v] = in.low[v], v++;
        if (v == in.vars) break;
    }
    shared = shares_expression_variable(&in);
    CHECK_EQ_INT(parac_csp_variable_count(csp), (size_t)in.vars);
    for (size_t a = 0; a < sizeof algorithms / sizeof algorithms[0]; a++) {
        parac_ac_options options = {0};
        options.algorithm = algorithms[a];
        domains[a] = calloc(parac_ac_domain_words(parac_csp_value_count(csp)) + 1, sizeof *domains[a]);
        CHECK_OK(parac_ac_enforce(csp, &options, domains[a], &stats[a], &error), &error);
    }
    for (size_t a = 1; a < sizeof algorithms / sizeof algorithms[0]; a++) {
        CHECK(memcmp(domains[a], domains[0], parac_ac_domain_words(parac_csp_value_count(csp)) * 8) == 0,
              "seed %llu: algorithm %zu differs from ac3", (unsigned long long)seed, a);
        CHECK_EQ_INT(stats[a].values_after, stats[0].values_after);
    }
    uint64_t before = 0, after = 0;
    for (int v = 0; v < in.vars; v++) {
        int64_t values[8];
        size_t count = parac_ac_remaining_values(csp, domains[0], (size_t)v, values);
        before += (uint64_t)(in.high[v] - in.low[v] + 1);
        after += count;
        for (int64_t value = in.low[v]; value <= in.high[v]; value++) {
            int kept = 0;
            for (size_t k = 0; k < count; k++) kept |= values[k] == value;
            if (supported[v][value - in.low[v]] && !kept)
                CHECK(0, "seed %llu: x[%d] = %lld has a support but was removed\n%s", (unsigned long long)seed, v,
                      (long long)value, xml);
            if (!shared && !supported[v][value - in.low[v]] && kept && any)
                CHECK(0, "seed %llu: x[%d] = %lld has no support but was kept (exact case)\n%s",
                      (unsigned long long)seed, v, (long long)value, xml);
        }
    }
    CHECK_EQ_INT(stats[0].values_before, before);
    CHECK_EQ_INT(stats[0].values_after, after);
    if (!shared) CHECK(stats[0].wipeout == !any, "seed %llu: wipe-out %d, brute force %d\n%s",
                       (unsigned long long)seed, stats[0].wipeout, !any, xml);
    CHECK(!any || !stats[0].wipeout, "seed %llu: wiped out a satisfiable instance\n%s", (unsigned long long)seed, xml);
    size_t level_count = parac_ac_global_consistency(csp, kinds, levels, 4);
    CHECK_EQ_INT(level_count, (size_t)1);
    if (level_count == 1 && has_expression(&in)) {
        const char *expected = shared ? "decomposition" : "gac";
        CHECK(strcmp(levels[0], expected) == 0, "seed %llu: consistency %s, expected %s\n%s", (unsigned long long)seed,
              levels[0], expected, xml);
    }
    exact_count += !shared;
    decomposed_count += shared;
    wipe_count += !any;
    pruned_count += stats[0].removed > 0;
    for (size_t a = 0; a < 4; a++) free(domains[a]);
    parac_csp_destroy(csp);
}

/* maximum(x[0]+x[1], x[2]*2) == y in a group with %i inside expressions; add(2,3) a constant. */
static void check_group_and_constant(void)
{
    const char *xml =
        "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[3]\"> 0..3 </array>"
        "<var id=\"y\"> 0..20 </var></variables><constraints>\n"
        "<group><maximum><list> add(%0,%1) mul(%2,2) add(2,3) </list><condition> (eq,%3) </condition></maximum>"
        "<args> x[0] x[1] x[2] y </args></group>\n"
        "</constraints></instance>\n";
    parac_csp *csp = NULL;
    parac_error error = {0};
    parac_ac_stats stats;
    int64_t values[32];
    CHECK_OK(parac_csp_load_memory(xml, strlen(xml), "group.xml", NULL, &csp, &error), &error);
    if (!csp) return;
    const parac_csp_network *n = parac_csp_network_of(csp);
    CHECK_EQ_INT(parac_csp_variable_count(csp), (size_t)4);
    CHECK_EQ_INT(n->variable_count, (size_t)6); /* two auxiliary variables; add(2,3) is the constant 5 */
    CHECK(n->globals[0].lists[0][2].var == AC_TERM_CONSTANT && n->globals[0].lists[0][2].value == 5, "add(2,3) = 5");
    CHECK(parac_csp_variable_name(csp, 4) == NULL, "auxiliary variables have no public name");
    uint64_t *domains = calloc(parac_ac_domain_words(parac_csp_value_count(csp)) + 1, sizeof *domains);
    CHECK_OK(parac_ac_enforce(csp, NULL, domains, &stats, &error), &error);
    size_t count = parac_ac_remaining_values(csp, domains, 3, values);
    /* max(x0+x1, 2*x2, 5) takes 5..6 */
    CHECK(count == 2 && values[0] == 5 && values[1] == 6, "y keeps 5 and 6 (%zu values)", count);
    CHECK_EQ_INT(stats.values_before, (uint64_t)(4 * 3 + 21));
    free(domains);
    parac_csp_destroy(csp);
}

/* A scalar product (pycsp3's x * y <= k: variable <coeffs>) against brute force over x[0..2] in 0..3:
 * x0*x2 + 2*x1 <= 3 (exact: gac) and x0*x2 + 3*x1 + 2*x0 <= 4 (x0 shared: decomposition, a superset). */
static void check_scalar_product(const char *list, const char *coeffs, int64_t limit, int shared)
{
    char xml[1024];
    parac_csp *csp = NULL;
    parac_error error = {0};
    parac_ac_stats stats;
    int supported[3][4] = {{0}};
    const char *kinds[2], *levels[2];
    snprintf(xml, sizeof xml,
             "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[3]\"> 0..3 </array>"
             "</variables><constraints><sum><list> %s </list><coeffs> %s </coeffs><condition> (le,%lld) </condition>"
             "</sum></constraints></instance>", list, coeffs, (long long)limit);
    CHECK_OK(parac_csp_load_memory(xml, strlen(xml), "scalar.xml", NULL, &csp, &error), &error);
    if (!csp) return;
    for (int64_t a = 0; a < 4; a++)
        for (int64_t b = 0; b < 4; b++)
            for (int64_t c = 0; c < 4; c++) {
                int64_t total = shared ? a * c + 3 * b + 2 * a : a * c + 2 * b;
                if (total <= limit) supported[0][a] = supported[1][b] = supported[2][c] = 1;
            }
    uint64_t *domains = calloc(parac_ac_domain_words(parac_csp_value_count(csp)) + 1, sizeof *domains);
    CHECK_OK(parac_ac_enforce(csp, NULL, domains, &stats, &error), &error);
    for (size_t v = 0; v < 3; v++) {
        int64_t values[4];
        int kept[4] = {0};
        size_t count = parac_ac_remaining_values(csp, domains, v, values);
        for (size_t k = 0; k < count; k++) kept[values[k]] = 1;
        for (int a = 0; a < 4; a++) {
            CHECK(!supported[v][a] || kept[a], "%s: x[%zu] = %d supported but removed", xml, v, a);
            if (!shared) CHECK(supported[v][a] == kept[a], "%s: x[%zu] = %d: GAC differs", xml, v, a);
        }
    }
    CHECK(parac_ac_global_consistency(csp, kinds, levels, 2) == 1 &&
              strcmp(levels[0], shared ? "decomposition" : "gac") == 0, "%s: consistency %s", xml, levels[0]);
    CHECK(stats.removed > 0, "%s: something is removed", xml);
    free(domains);
    parac_csp_destroy(csp);
}

/* pycsp3 puts the expressions of a group over a global in its <args>: max(x0 + 2, 2 * x1) = y keeps
 * y in 2..6, and the second <args> gets auxiliary variables of its own. */
static void check_expressions_in_args(void)
{
    const char *xml =
        "<instance format=\"XCSP3\" type=\"CSP\"><variables><array id=\"x\" size=\"[3]\"> 0..3 </array>"
        "<var id=\"y\"> 0..20 </var></variables><constraints>\n"
        "<group><maximum><list> %0 %1 </list><condition> (eq,%2) </condition></maximum>"
        "<args> add(x[0],2) mul(x[1],2) y </args><args> x[2] add(x[2], 1) y </args></group>\n"
        "</constraints></instance>\n";
    parac_csp *csp = NULL;
    parac_error error = {0};
    parac_ac_stats stats;
    int64_t values[32];
    const char *kinds[2], *levels[2];
    CHECK_OK(parac_csp_load_memory(xml, strlen(xml), "args.xml", NULL, &csp, &error), &error);
    if (!csp) return;
    CHECK_EQ_INT(parac_csp_network_of(csp)->variable_count, (size_t)(4 + 3));
    uint64_t *domains = calloc(parac_ac_domain_words(parac_csp_value_count(csp)) + 1, sizeof *domains);
    CHECK_OK(parac_ac_enforce(csp, NULL, domains, &stats, &error), &error);
    size_t count = parac_ac_remaining_values(csp, domains, 3, values);
    /* and max(x2, x2 + 1) = x2 + 1 = y: y in 1..4 too, so 2..4 */
    CHECK(count == 3 && values[0] == 2 && values[2] == 4, "y keeps 2..4 (%zu values)", count);
    /* the second group member shares x[2] between its terms: decomposition */
    CHECK(parac_ac_global_consistency(csp, kinds, levels, 2) == 1 && strcmp(levels[0], "decomposition") == 0,
          "consistency %s", levels[0]);
    free(domains);
    parac_csp_destroy(csp);
}

int main(void)
{
    check_expressions_in_args();
    int instances = test_quick() ? 300 : 1500;
    check_group_and_constant();
    check_scalar_product("x[0] x[1]", "x[2] 2", 3, 0);
    check_scalar_product("x[0] x[1] 2", "x[2] 3 x[0]", 4, 1);
    for (int i = 0; i < instances; i++) check_instance((uint64_t)i);
    printf("%d instances: %d exact (gac), %d with shared variables (decomposition), %d without solution, %d pruned\n",
           instances, exact_count, decomposed_count, wipe_count, pruned_count);
    CHECK(exact_count > instances / 10 && decomposed_count > instances / 10, "both cases are exercised");
    CHECK(pruned_count > instances / 10 && wipe_count > 0, "pruning and wipe-outs are exercised");
    return test_finish("csp.xcsp3_expression_terms");
}
