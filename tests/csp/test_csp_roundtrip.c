/* tests/csp/test_csp_roundtrip.c — generator determinism (same seed, any thread count, same
 * bytes), writer -> reader round trip (same domains and relations), and .xz input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/csp.h>

#include "csp/csp_handle.h"
#include "test_util.h"

static char *slurp(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    char *data;
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    *size = (size_t)ftell(file);
    rewind(file);
    data = malloc(*size + 1);
    if (data && fread(data, 1, *size, file) != *size) *size = 0;
    fclose(file);
    return data;
}

static parac_csp *generate(parac_csp_model model, uint64_t seed, int threads)
{
    parac_csp_generate_options options;
    parac_csp *csp = NULL;
    parac_error error;
    parac_csp_generate_options_default(&options);
    options.model = model;
    options.variables = 40;
    options.domain = 13;
    options.constraints = 300;
    options.tightness = 0.37;
    options.seed = seed;
    options.threads = threads;
    CHECK_OK(parac_csp_generate(&options, &csp, &error), &error);
    return csp;
}

/* Same variables, domains, present values and binary relations. */
static int same_network(const parac_csp *a, const parac_csp *b)
{
    const parac_csp_network *x = parac_csp_network_of(a), *y = parac_csp_network_of(b);
    if (x->variable_count != y->variable_count || x->value_count != y->value_count ||
        x->constraint_count != y->constraint_count)
        return 0;
    if (memcmp(x->values, y->values, x->value_count * sizeof *x->values) != 0) return 0;
    if (!parac_bitset_equal(x->present, y->present, parac_bitset_words(x->value_count))) return 0;
    for (size_t c = 0; c < x->constraint_count; c++) {
        const parac_csp_constraint *p = &x->constraints[c], *q = &y->constraints[c];
        if (p->arity != 2 || q->arity != 2 || p->scope[0] != q->scope[0] || p->scope[1] != q->scope[1]) return 0;
        if (memcmp(p->matrix, q->matrix, x->domain_size[p->scope[0]] * p->row_words * sizeof *p->matrix) != 0) return 0;
    }
    return 1;
}

static void test_model(parac_csp_model model)
{
    char path1[256], path2[256], path_xz[256], command[700];
    size_t size1 = 0, size2 = 0;
    parac_error error;
    parac_csp *one = generate(model, 7, 1), *two = generate(model, 7, 2), *other = generate(model, 8, 2), *back = NULL;
    test_temp_path(path1, sizeof path1, "gen1.xml");
    test_temp_path(path2, sizeof path2, "gen2.xml");
    CHECK_OK(parac_csp_write_xcsp3(one, path1, 1, &error), &error);
    CHECK_OK(parac_csp_write_xcsp3(two, path2, 2, &error), &error);
    char *text1 = slurp(path1, &size1), *text2 = slurp(path2, &size2);
    CHECK(text1 && text2 && size1 == size2 && size1 > 1000 && memcmp(text1, text2, size1) == 0, "same seed, same bytes");
    CHECK(!same_network(one, other), "another seed gives another network");
    if (model == PARAC_CSP_MODEL_B) CHECK_EQ_INT(parac_csp_constraint_count(one), 300);
    CHECK_OK(parac_csp_load(path1, NULL, &back, &error), &error);
    CHECK(back && same_network(one, back), "writer -> reader round trip");
    parac_csp_destroy(back);
    back = NULL;
    test_temp_path(path_xz, sizeof path_xz, "gen1.xml.xz");
    snprintf(command, sizeof command, "xz -c '%s' > '%s'", path1, path_xz);
    if (system(command) == 0) {
        CHECK_OK(parac_csp_load(path_xz, NULL, &back, &error), &error);
        CHECK(back && same_network(one, back), ".xz round trip");
        parac_csp_destroy(back);
        back = NULL;
        snprintf(command, sizeof command, "head -c 600 '%s' > '%s.cut'", path_xz, path_xz);
        CHECK(system(command) == 0);
        strcat(path_xz, ".cut");
        CHECK(parac_csp_load(path_xz, NULL, &back, &error) != PARAC_OK && back == NULL, "truncated .xz fails");
        remove(path_xz);
        path_xz[strlen(path_xz) - 4] = '\0';
        remove(path_xz);
    }
    remove(path1);
    remove(path2);
    free(text1);
    free(text2);
    parac_csp_destroy(one);
    parac_csp_destroy(two);
    parac_csp_destroy(other);
}

static void test_tightness_and_limits(void)
{
    parac_csp_generate_options options;
    parac_csp *csp = NULL;
    parac_error error;
    parac_csp_generate_options_default(&options);
    options.variables = 10;
    options.domain = 8;
    options.constraints = 45; /* all pairs: the complement path */
    options.tightness = 0.25;
    CHECK_OK(parac_csp_generate(&options, &csp, &error), &error);
    if (csp) {
        const parac_csp_network *n = parac_csp_network_of(csp);
        int exact = 1;
        for (size_t c = 0; c < n->constraint_count; c++)
            exact &= parac_bitset_popcount(n->constraints[c].matrix, 8) == 64 - 16;
        CHECK(exact, "every relation forbids exactly round(T*D*D) pairs");
        CHECK_EQ_INT(n->constraint_count, 45);
        parac_csp_destroy(csp);
    }
    options.constraints = 46;
    CHECK(parac_csp_generate(&options, &csp, &error) == PARAC_ERR_INVALID_ARGUMENT);
    options.constraints = 10;
    options.tightness = 1.5;
    CHECK(parac_csp_generate(&options, &csp, &error) == PARAC_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    test_model(PARAC_CSP_MODEL_B);
    test_model(PARAC_CSP_MODEL_RB);
    test_tightness_and_limits();
    return test_finish("csp.roundtrip");
}
