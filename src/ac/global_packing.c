/* ac/global_packing.c — binPacking and knapsack, whose GAC is NP-hard (both contain subset sum).
 *
 * binPacking (list of bins, sizes, a load condition le / lt with a constant or variable capacity):
 * the load of the items already fixed to a bin, plus item j's size, must fit the capacity for j to
 * go there (the first rule of Shaw's propagator, CP 2004, without its knapsack and lower-bound
 * reasoning); a variable capacity loses the values below the largest fixed load. Sizes that can be
 * negative disable it. Strength "partial".
 *
 * knapsack (list, weights, a condition on the weight, profits, a condition on the profit): each
 * of the two weighted sums is propagated alone by the sum propagator (GAC by dynamic programming
 * when it fits, bounds otherwise), which misses values only the conjunction rules out. Strength
 * "partial".
 *
 * Both are repeated by the engines until they remove nothing, and small scopes get GAC from the
 * generic support search instead (global_propagate.c).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

typedef struct bin_load {
    int64_t bin, load;
} bin_load;

static int compare_bins(const void *a, const void *b)
{
    int64_t x = ((const bin_load *)a)->bin, y = ((const bin_load *)b)->bin;
    return (x > y) - (x < y);
}

/* The load already in `bin` (0 when no fixed item is there); loads sorted by bin. */
static int64_t load_of(const bin_load *loads, size_t count, int64_t bin)
{
    bin_load key = {bin, 0};
    const bin_load *found = bsearch(&key, loads, count, sizeof *loads, compare_bins);
    return found ? found->load : 0;
}

/* The fixed items' loads per bin, sorted by bin and merged; the number of bins, or SIZE_MAX when a
 * load overflows (then nothing is pruned). */
static size_t fixed_loads(const ac_model *model, const ac_domains *domains, const parac_csp_global *global,
                          bin_load *loads)
{
    size_t n = global->list_length[0], count = 0, merged = 0;
    for (size_t i = 0; i < n; i++)
        if (ac_term_size(model, domains, &global->lists[0][i]) == 1)
            loads[count++] = (bin_load){ac_term_min(model, domains, &global->lists[0][i]), global->coeffs[i]};
    qsort(loads, count, sizeof *loads, compare_bins);
    for (size_t i = 0; i < count; i++) {
        if (merged && loads[merged - 1].bin == loads[i].bin) {
            if (__builtin_add_overflow(loads[merged - 1].load, loads[i].load, &loads[merged - 1].load)) return SIZE_MAX;
        } else {
            loads[merged++] = loads[i];
        }
    }
    return merged;
}

AC_PROPAGATOR(bin_packing)
{
    size_t n = global->list_length[0], bins;
    bin_load *loads = malloc((n + 1) * sizeof *loads);
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values), capacity, heaviest = 0;
    int wipeout = 0;
    (void)stats;
    if (!loads || !values) goto done;
    for (size_t i = 0; i < n; i++)
        if (global->coeffs[i] < 0) goto done;
    capacity = ac_term_max(model, domains, &global->condition.operand);
    if (global->condition.op == AC_OP_LT) capacity = capacity == INT64_MIN ? INT64_MIN : capacity - 1;
    if ((bins = fixed_loads(model, domains, global, loads)) == SIZE_MAX) goto done;
    for (size_t b = 0; b < bins; b++)
        if (loads[b].load > heaviest) heaviest = loads[b].load;
    for (size_t j = 0; j < n && !wipeout; j++) {
        const ac_term *item = &global->lists[0][j];
        size_t count;
        if (ac_term_size(model, domains, item) == 1) {
            /* a fixed item over capacity: its bin is already too full */
            if (load_of(loads, bins, ac_term_min(model, domains, item)) > capacity)
                wipeout = ac_term_remove(model, domains, item, ac_term_min(model, domains, item), changed);
            continue;
        }
        count = ac_term_values(model, domains, item, values);
        for (size_t k = 0; k < count && !wipeout; k++) {
            int64_t load = load_of(loads, bins, values[k]);
            if (capacity < global->coeffs[j] || load > capacity - global->coeffs[j])
                wipeout = ac_term_remove(model, domains, item, values[k], changed);
        }
    }
    if (!wipeout && global->condition.operand.var >= 0)
        wipeout = ac_term_restrict(model, domains, &global->condition.operand,
                                   heaviest + (global->condition.op == AC_OP_LT), INT64_MAX, changed);
done:
    free(loads), free(values);
    return wipeout;
}

AC_PROPAGATOR(knapsack)
{
    parac_csp_global half = *global;
    half.kind = AC_GLOBAL_SUM;
    half.list_count = 1;
    half.value_count = 0;
    half.values = NULL;
    if (ac_propagate_sum(model, domains, &half, changed, stats)) return 1; /* the weight */
    half.coeffs = global->values;
    half.condition = global->condition2;
    return ac_propagate_sum(model, domains, &half, changed, stats); /* the profit */
}
