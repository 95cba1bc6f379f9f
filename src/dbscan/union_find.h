/* dbscan/union_find.h — lock-free union-find over uint32 parents (CPU threads).
 *
 * Union links the larger root under the smaller with a compare-and-swap and
 * retries if another thread moved either root first; find halves paths with
 * relaxed CAS (a lost race only leaves a longer path). The final partition is
 * the same for any interleaving; which element is a root is not, which is why
 * labels are renumbered canonically afterwards.
 */
#ifndef PARAC_DBSCAN_UNION_FIND_H
#define PARAC_DBSCAN_UNION_FIND_H

#include <stdint.h>

static inline uint32_t union_find_root(uint32_t *parent, uint32_t x)
{
    for (;;) {
        uint32_t up = __atomic_load_n(&parent[x], __ATOMIC_RELAXED);
        uint32_t grand;
        if (up == x) return x;
        grand = __atomic_load_n(&parent[up], __ATOMIC_RELAXED);
        if (grand != up) __atomic_compare_exchange_n(&parent[x], &up, grand, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        x = grand;
    }
}

static inline void union_find_join(uint32_t *parent, uint32_t a, uint32_t b)
{
    for (;;) {
        uint32_t high, low;
        a = union_find_root(parent, a);
        b = union_find_root(parent, b);
        if (a == b) return;
        high = a > b ? a : b;
        low = a > b ? b : a;
        if (__atomic_compare_exchange_n(&parent[high], &high, low, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return;
    }
}

#endif
