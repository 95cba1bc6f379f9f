/* ac/global_no_overlap.c — noOverlap (1 or k dimensions) by pairwise disjunction on bounds: boxes
 * i and j must be apart in some dimension d (o_i,d + l_i,d <= o_j,d or o_j,d + l_j,d <= o_i,d).
 * Origin a of box i in dimension d stays only if, against every other box j, either a itself
 * leaves room in d (a + min l_i,d <= max o_j,d or min o_j,d + min l_j,d <= a), or the boxes can
 * be apart in another dimension (judged on bounds). Pairs where a length can be 0 are skipped when
 * zero lengths are ignored. Strength "partial" (the support search gives GAC on small scopes).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

typedef struct boxes {
    const ac_model *model;
    ac_domains *domains;
    const ac_term *origins, *lengths;
    size_t k, count;
} boxes;

static int64_t min_of(const boxes *b, const ac_term *t)
{
    return ac_term_min(b->model, b->domains, t);
}

static int64_t max_of(const boxes *b, const ac_term *t)
{
    return ac_term_max(b->model, b->domains, t);
}

/* i and j can be apart in dimension d, on bounds. */
static int can_separate(const boxes *b, size_t i, size_t j, size_t d)
{
    const ac_term *oi = &b->origins[i * b->k + d], *oj = &b->origins[j * b->k + d];
    int64_t li = min_of(b, &b->lengths[i * b->k + d]), lj = min_of(b, &b->lengths[j * b->k + d]);
    return min_of(b, oi) + li <= max_of(b, oj) || min_of(b, oj) + lj <= max_of(b, oi);
}

static int may_be_empty(const boxes *b, size_t i)
{
    for (size_t d = 0; d < b->k; d++)
        if (min_of(b, &b->lengths[i * b->k + d]) <= 0) return 1;
    return 0;
}

AC_PROPAGATOR(no_overlap)
{
    boxes b = {model, domains, global->lists[0], global->lists[1], global->dims[0] > 1 ? (size_t)global->dims[0] : 1, 0};
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    int wipeout = 0;
    (void)stats;
    b.count = global->list_length[0] / b.k;
    if (!values) return 0;
    for (size_t i = 0; i < b.count && !wipeout; i++) {
        if (global->zero_ignored && may_be_empty(&b, i)) continue;
        for (size_t d = 0; d < b.k && !wipeout; d++) {
            const ac_term *origin = &b.origins[i * b.k + d];
            int64_t length = min_of(&b, &b.lengths[i * b.k + d]);
            size_t count = ac_term_values(model, domains, origin, values);
            for (size_t v = 0; v < count && !wipeout; v++) {
                int64_t a = values[v];
                int ok = 1;
                for (size_t j = 0; j < b.count && ok; j++) {
                    const ac_term *other = &b.origins[j * b.k + d];
                    int other_dimension = 0;
                    if (j == i || (global->zero_ignored && may_be_empty(&b, j))) continue;
                    ok = a + length <= max_of(&b, other) || min_of(&b, other) + min_of(&b, &b.lengths[j * b.k + d]) <= a;
                    for (size_t e = 0; e < b.k && !ok && !other_dimension; e++) other_dimension = e != d && can_separate(&b, i, j, e);
                    ok |= other_dimension;
                }
                if (!ok) wipeout = ac_term_remove(model, domains, origin, a, changed);
            }
        }
    }
    free(values);
    return wipeout;
}
