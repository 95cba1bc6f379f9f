/* ac/global_all_equal.c — allEqual (except values E: terms taking one of them are ignored). GAC for
 * distinct variables: with W the counted values (not in E) of the domains and c(w) the number of
 * terms that can take w or an except value,
 *  - a counted value v of term i is kept iff every other term can take v or an except value;
 *  - an except value of term i is kept iff every other term can take an except value, or some w
 *    of W suits every other term (c(w) minus term i's own share = n - 1).
 * Without except values this is the intersection of the domains. O(W * n) plus the lookups.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int is_except(const parac_csp_global *g, int64_t v)
{
    return g->value_count && bsearch(&v, g->values, g->value_count, sizeof v, compare_i64) != NULL;
}

AC_PROPAGATOR(all_equal)
{
    const ac_term *terms = global->lists[0];
    size_t n = global->list_length[0], total = 0, w_count = 0, largest = ac_largest_domain(model->network);
    int64_t *values = malloc((largest + 1) * sizeof *values), *w = NULL;
    uint8_t *has_except = calloc(n + 1, 1);
    uint32_t *suits = NULL; /* c(w) */
    size_t except_terms = 0;
    int wipeout = 0;
    (void)stats;
    if (!values || !has_except || n == 0) goto done;
    for (size_t i = 0; i < n; i++) total += ac_term_size(model, domains, &terms[i]);
    w = malloc((total + 1) * sizeof *w);
    if (!w) goto done;
    for (size_t i = 0; i < n; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values);
        if (!count) {
            wipeout = 1;
            goto done;
        }
        for (size_t k = 0; k < count; k++) {
            if (is_except(global, values[k])) has_except[i] = 1;
            else w[w_count++] = values[k];
        }
        except_terms += has_except[i];
    }
    qsort(w, w_count, sizeof *w, compare_i64);
    total = 0;
    for (size_t k = 0; k < w_count; k++)
        if (k == 0 || w[k] != w[k - 1]) w[total++] = w[k];
    w_count = total;
    suits = calloc(w_count + 1, sizeof *suits);
    if (!suits) goto done;
    for (size_t k = 0; k < w_count; k++)
        for (size_t j = 0; j < n; j++) suits[k] += has_except[j] || ac_term_has(model, domains, &terms[j], w[k]);
    for (size_t i = 0; i < n && !wipeout; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values);
        int except_ok = except_terms - has_except[i] == n - 1;
        for (size_t k = 0; k < w_count && !except_ok; k++)
            except_ok = suits[k] - (uint32_t)(has_except[i] || ac_term_has(model, domains, &terms[i], w[k])) == n - 1;
        for (size_t k = 0; k < count && !wipeout; k++) {
            int ok;
            if (is_except(global, values[k])) {
                ok = except_ok;
            } else {
                size_t at = (size_t)((int64_t *)bsearch(&values[k], w, w_count, sizeof *w, compare_i64) - w);
                ok = suits[at] - (uint32_t)1 == n - 1; /* term i suits its own value */
            }
            if (!ok) wipeout = ac_term_remove(model, domains, &terms[i], values[k], changed);
        }
    }
done:
    free(values), free(w), free(has_except), free(suits);
    return wipeout;
}
