/* core/union_find.h — the CPU union-find: lock-free, over uint32 parents.
 *
 * Used by dbscan's threads (dbscan_cpu.c), its serial oracle (dbscan_reference.c), its slab
 * merge (dbscan_slabs.c) and birch's Ward cut (ward.c); in a serial caller the atomics are plain
 * loads and stores. The GPU twin is cuda/union_find.cuh (same linking rule).
 *
 * Union links the larger root under the smaller with a compare-and-swap and
 * retries if another thread moved either root first; find halves paths with
 * relaxed CAS (a lost race only leaves a longer path). The final partition is
 * the same for any interleaving, and so is each set's root: its lowest element
 * (a root is only ever linked under a smaller one).
 */
#ifndef PARAC_CORE_UNION_FIND_H
#define PARAC_CORE_UNION_FIND_H

#include <stddef.h>
#include <stdint.h>

/* Every element its own set. */
static inline void union_find_init(uint32_t *parent, size_t count)
{
    for (size_t i = 0; i < count; i++) parent[i] = (uint32_t)i;
}

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

/* Joins the sets of a and b; the joined set's root is the lower of the two roots, so every
 * set's root is its lowest element once all joins are done. */
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
