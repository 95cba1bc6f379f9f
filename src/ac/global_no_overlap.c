/* ac/global_no_overlap.c — noOverlap in one dimension by pairwise disjunction on bounds: origin a
 * of task i stays only if, against every other task j, i can end before j's latest start or start
 * after j's earliest end (a + min l_i <= max o_j or min o_j + min l_j <= a). Tasks whose length
 * can be 0 are skipped when zero lengths are ignored. Strength "partial" (the support search gives
 * GAC on small scopes); the k-dimensional form is left to the support search.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

AC_PROPAGATOR(no_overlap)
{
    const ac_term *origins = global->lists[0], *lengths = global->lists[1];
    size_t n = global->list_length[0];
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    int wipeout = 0;
    (void)stats;
    if (!values || global->dims[0] > 1 || global->list_count < 2 || global->list_length[1] < n) goto done;
    for (size_t i = 0; i < n && !wipeout; i++) {
        int64_t length_i = ac_term_min(model, domains, &lengths[i]);
        size_t count;
        if (length_i < 0 || (length_i == 0 && global->zero_ignored)) continue;
        count = ac_term_values(model, domains, &origins[i], values);
        for (size_t k = 0; k < count && !wipeout; k++) {
            int64_t a = values[k];
            int ok = 1;
            for (size_t j = 0; j < n && ok; j++) {
                int64_t length_j = ac_term_min(model, domains, &lengths[j]);
                if (j == i || length_j < 0 || (length_j == 0 && global->zero_ignored)) continue;
                ok = a + length_i <= ac_term_max(model, domains, &origins[j]) ||
                     ac_term_min(model, domains, &origins[j]) + length_j <= a;
            }
            if (!ok) wipeout = ac_term_remove(model, domains, &origins[i], a, changed);
        }
    }
done:
    free(values);
    return wipeout;
}
