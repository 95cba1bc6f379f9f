/* ac/global_all_equal.c — allEqual: GAC keeps the values common to every term's domain (without
 * except values). With except values nothing is pruned here (the support search covers small
 * scopes). */
#include "ac/global_propagate.h"

#include <stdlib.h>

AC_PROPAGATOR(all_equal)
{
    const ac_term *terms = global->lists[0];
    size_t n = global->list_length[0], largest = ac_largest_domain(model->network);
    int64_t *values = malloc((largest + 1) * sizeof *values);
    int wipeout = 0;
    (void)stats;
    if (!values || global->value_count || n == 0) goto done;
    for (size_t i = 0; i < n && !wipeout; i++) {
        size_t count = ac_term_values(model, domains, &terms[i], values);
        for (size_t k = 0; k < count && !wipeout; k++) {
            int common = 1;
            for (size_t j = 0; j < n && common; j++) common = j == i || ac_term_has(model, domains, &terms[j], values[k]);
            if (!common) wipeout = ac_term_remove(model, domains, &terms[i], values[k], changed);
        }
        if (!count) wipeout = 1;
    }
done:
    free(values);
    return wipeout;
}
