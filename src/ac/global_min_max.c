/* ac/global_min_max.c — minimum / maximum: the least (greatest) value of the list satisfies the
 * condition. Worked in "keys" (the values for minimum, their negations for maximum) so both are a
 * minimum. A result m is possible iff every term has a key >= m and some term has m. Term i keeps
 * key a iff some allowed result m (the condition holds for m and some operand value) is possible
 * with x_i = a: m = a with every other term having a key >= a, or m < a taken by another term.
 * GAC for distinct variables; O(M log M + n * d) with M the values of all domains.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct min_view {
    const ac_model *model;
    ac_domains *domains;
    const parac_csp_global *global;
    int64_t sign;           /* 1: minimum, -1: maximum */
} min_view;

static int64_t max_key(const min_view *v, const ac_term *term)
{
    return v->sign > 0 ? ac_term_max(v->model, v->domains, term) : -ac_term_min(v->model, v->domains, term);
}

static int has_key(const min_view *v, const ac_term *term, int64_t key)
{
    return ac_term_has(v->model, v->domains, term, v->sign * key);
}

AC_PROPAGATOR(min_max)
{
    min_view v = {model, domains, global, global->kind == AC_GLOBAL_MAXIMUM ? -1 : 1};
    const ac_term *terms = global->lists[0];
    size_t n = global->list_length[0], total = 0, m = 0, possible_count = 0, largest = ac_largest_domain(model->network);
    int64_t *keys = NULL, *values = malloc((largest + 1) * sizeof *values), *possible = NULL, *maxima = NULL;
    uint32_t *at_least = NULL, *holders = NULL;
    uint8_t *allowed = NULL;
    int wipeout = 0;
    (void)stats;
    if (!values || n == 0) goto done;
    for (size_t i = 0; i < n; i++) total += ac_term_size(model, domains, &terms[i]);
    keys = malloc((total + 1) * sizeof *keys), maxima = malloc((n + 1) * sizeof *maxima);
    if (!keys || !maxima) goto done;
    for (size_t i = 0; i < n; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values);
        if (!count) {
            wipeout = 1;
            goto done;
        }
        for (size_t k = 0; k < count; k++) keys[m++] = v.sign * values[k];
        maxima[i] = max_key(&v, &terms[i]);
    }
    qsort(keys, m, sizeof *keys, compare_i64);
    total = 0;
    for (size_t k = 0; k < m; k++)
        if (k == 0 || keys[k] != keys[k - 1]) keys[total++] = keys[k];
    m = total;
    at_least = calloc(m + 1, sizeof *at_least), holders = calloc(m + 1, sizeof *holders);
    allowed = calloc(m + 1, 1), possible = malloc((m + 1) * sizeof *possible);
    if (!at_least || !holders || !allowed || !possible) goto done;
    for (size_t k = 0; k < m; k++) {
        for (size_t i = 0; i < n; i++) {
            at_least[k] += maxima[i] >= keys[k];
            holders[k] += (uint32_t)has_key(&v, &terms[i], keys[k]);
        }
        allowed[k] = (uint8_t)ac_condition_possible(model, domains, &global->condition, v.sign * keys[k]);
        if (at_least[k] == n && holders[k] > 0) possible[possible_count++] = v.sign * keys[k];
    }
    for (size_t i = 0; i < n && !wipeout; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values);
        int64_t threshold = INT64_MAX; /* keys above it are supported by a smaller result held by another term */
        for (size_t k = 0; k < m && threshold == INT64_MAX; k++)
            if (allowed[k] && at_least[k] == n && holders[k] - (uint32_t)has_key(&v, &terms[i], keys[k]) >= 1)
                threshold = keys[k];
        for (size_t k = 0; k < count && !wipeout; k++) {
            int64_t key = v.sign * values[k];
            size_t at = (size_t)((int64_t *)bsearch(&key, keys, m, sizeof key, compare_i64) - keys);
            int others_above = at_least[at] - (maxima[i] >= key) == n - 1;
            if (key > threshold || (allowed[at] && others_above)) continue;
            wipeout = ac_term_remove(model, domains, &terms[i], values[k], changed);
        }
    }
    if (!wipeout && !possible_count) wipeout = 1;
    if (!wipeout) {
        qsort(possible, possible_count, sizeof *possible, compare_i64);
        wipeout = ac_condition_prune_operand(model, domains, &global->condition, possible, possible_count, changed);
    }
done:
    free(keys), free(values), free(possible), free(maxima), free(at_least), free(holders), free(allowed);
    return wipeout;
}
