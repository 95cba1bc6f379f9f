/* ac/global_circuit.c — circuit: successors in the index range, allDifferent on them (Régin), and
 * no sub-circuit through a fixed chain: a chain of fixed successors i -> ... -> e of 2 or more
 * nodes may not close (e -> i) unless it covers every node that cannot stay out of the circuit
 * (x[k] = k impossible). Strength "partial" (the support search gives GAC on small scopes).
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

AC_PROPAGATOR(circuit)
{
    const ac_term *x = global->lists[0];
    size_t n = global->list_length[0], required = 0;
    int64_t start = global->start_index;
    int wipeout = 0;
    (void)stats;
    for (size_t i = 0; i < n && !wipeout; i++)
        wipeout = ac_term_restrict(model, domains, &x[i], start, start + (int64_t)n - 1, changed);
    if (wipeout || ac_all_different_terms(model, domains, x, n, NULL, 0, changed)) return 1;
    for (size_t k = 0; k < n; k++) required += !ac_term_has(model, domains, &x[k], (int64_t)k + start);
    for (size_t i = 0; i < n && !wipeout; i++) { /* walk the fixed chain from each node i */
        size_t at = i, length = 1, covered = !ac_term_has(model, domains, &x[i], (int64_t)i + start);
        while (ac_term_size(model, domains, &x[at]) == 1 && length <= n) {
            size_t next = (size_t)(ac_term_min(model, domains, &x[at]) - start);
            if (next == at || next == i) break;
            at = next, length++;
            covered += !ac_term_has(model, domains, &x[at], (int64_t)at + start);
        }
        if (length >= 2 && at != i && length <= n && covered < required)
            wipeout = ac_term_remove(model, domains, &x[at], (int64_t)i + start, changed);
    }
    return wipeout;
}
