/* ac/global_no_overlap.c — noOverlap (1 or k dimensions) by pairwise disjunction on bounds: boxes
 * i and j must be apart in some dimension d (o_i,d + l_i,d <= o_j,d or o_j,d + l_j,d <= o_i,d).
 * Origin a of box i in dimension d stays only if, against every other box j, either a itself
 * leaves room in d (a + min l_i,d <= max o_j,d or min o_j,d + min l_j,d <= a), or the boxes can
 * be apart in another dimension (judged on bounds). Pairs where a length can be 0 are skipped when
 * zero lengths are ignored. Strength "partial" (the support search gives GAC on small scopes).
 * Each other box rules out an interval of origins, so a box's origins are checked against the
 * sorted intervals in one walk: boxes x (boxes + values) a pass, where testing every value against
 * every box with bounds read from the domains took boxes x values x boxes x domain words (1,000
 * tasks over 0..10000: minutes).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

/* The boxes' bounds at the start of a pass (one row per box and dimension). A pass judges every
 * origin on them; a value removed meanwhile only narrows bounds that the next pass sees, and
 * revise() runs this weak propagator again until a pass removes nothing: the rule is monotone
 * (narrower bounds support fewer origins), so that fixpoint is the one live bounds would reach. */
typedef struct box_bounds {
    int64_t origin_min, origin_max, length_min;
} box_bounds;

typedef struct boxes {
    box_bounds *bounds;    /* count x k */
    uint8_t *may_be_empty; /* count: some length can be <= 0 */
    size_t k, count;
} boxes;

static const box_bounds *bounds_of(const boxes *b, size_t box, size_t d) { return &b->bounds[box * b->k + d]; }

static int take_bounds(const ac_model *model, const ac_domains *domains, const parac_csp_global *global, boxes *b)
{
    b->bounds = malloc((b->count * b->k + 1) * sizeof *b->bounds);
    b->may_be_empty = calloc(b->count + 1, 1);
    if (!b->bounds || !b->may_be_empty) return -1;
    for (size_t i = 0; i < b->count; i++)
        for (size_t d = 0; d < b->k; d++) {
            box_bounds *bounds = &b->bounds[i * b->k + d];
            const ac_term *origin = &global->lists[0][i * b->k + d], *length = &global->lists[1][i * b->k + d];
            bounds->origin_min = ac_term_min(model, domains, origin);
            bounds->origin_max = ac_term_max(model, domains, origin);
            bounds->length_min = ac_term_min(model, domains, length);
            if (bounds->length_min <= 0) b->may_be_empty[i] = 1;
        }
    return 0;
}

/* i and j can be apart in dimension e, on bounds (sums in 128 bits: values may reach the int64 ends). */
static int can_separate(const boxes *b, size_t i, size_t j, size_t e)
{
    const box_bounds *bi = bounds_of(b, i, e), *bj = bounds_of(b, j, e);
    return (__int128)bi->origin_min + bi->length_min <= bj->origin_max ||
           (__int128)bj->origin_min + bj->length_min <= bi->origin_max;
}

/* Origins a of box i in dimension d that box j rules out: a + min l_i > max o_j and
 * a < min o_j + min l_j, i.e. the open interval (max o_j - min l_i, min o_j + min l_j). */
/* The intervals other boxes forbid to box i's origin in dimension d, sorted; returns how many. */
static size_t forbidden_intervals(const boxes *b, size_t i, size_t d, int zero_ignored, ac_open_interval *out)
{
    const box_bounds *bi = bounds_of(b, i, d);
    size_t count = 0;
    for (size_t j = 0; j < b->count; j++) {
        const box_bounds *bj = bounds_of(b, j, d);
        int elsewhere = 0;
        if (j == i || (zero_ignored && b->may_be_empty[j])) continue;
        for (size_t e = 0; e < b->k && !elsewhere; e++) elsewhere = e != d && can_separate(b, i, j, e);
        if (elsewhere) continue;
        out[count].after = (__int128)bj->origin_max - bi->length_min;
        out[count].before = (__int128)bj->origin_min + bj->length_min;
        if (out[count].after + 1 < out[count].before) count++;
    }
    ac_sort_intervals(out, count);
    return count;
}

AC_PROPAGATOR(no_overlap)
{
    boxes b = {NULL, NULL, global->dims[0] > 1 ? (size_t)global->dims[0] : 1, 0};
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    ac_open_interval *intervals = NULL;
    int wipeout = 0;
    (void)stats;
    b.count = global->list_length[0] / b.k;
    intervals = malloc((b.count + 1) * sizeof *intervals);
    if (values && intervals && take_bounds(model, domains, global, &b) == 0) /* out of memory: nothing removed */
        for (size_t i = 0; i < b.count && !wipeout; i++) {
            if (global->zero_ignored && b.may_be_empty[i]) continue;
            for (size_t d = 0; d < b.k && !wipeout; d++) {
                const ac_term *origin = &global->lists[0][i * b.k + d];
                size_t count = forbidden_intervals(&b, i, d, global->zero_ignored, intervals);
                if (count) wipeout = ac_term_remove_intervals(model, domains, origin, intervals, count, values, changed);
            }
        }
    free(values);
    free(intervals);
    free(b.bounds);
    free(b.may_be_empty);
    return wipeout;
}
