/* cuda/union_find.cuh — the GPU union-find: lock-free, over uint32 parents in device memory.
 *
 * The twin of core/union_find.h with the same linking rule (the larger root goes under the
 * smaller, so every set's root ends as its lowest element): find halves paths with atomicCAS,
 * union retries its CAS when another thread moved either root first. Parents only ever decrease,
 * so a stale read only lengthens a walk. Every kernel that joins sets uses these two functions
 * (dbscan's link, union and fused passes). */
#ifndef PARAC_CUDA_UNION_FIND_CUH
#define PARAC_CUDA_UNION_FIND_CUH

#include <stdint.h>

__device__ static inline uint32_t gpu_union_find_parent(const uint32_t *parent, uint32_t x)
{
    return *(const volatile uint32_t *)&parent[x];
}

/* Root of x, halving the path walked. */
__device__ static inline uint32_t gpu_union_find_root(uint32_t *parent, uint32_t x)
{
    for (;;) {
        uint32_t up = gpu_union_find_parent(parent, x), grand;
        if (up == x) return x;
        grand = gpu_union_find_parent(parent, up);
        if (grand != up) atomicCAS(&parent[x], up, grand);
        x = grand;
    }
}

/* Joins the sets of a and b. Returns the joined set's root as of the link, a cheap start for
 * the caller's next find. */
__device__ static inline uint32_t gpu_union_find_join(uint32_t *parent, uint32_t a, uint32_t b)
{
    for (;;) {
        uint32_t high, low;
        a = gpu_union_find_root(parent, a);
        b = gpu_union_find_root(parent, b);
        if (a == b) return a;
        high = a > b ? a : b;
        low = a > b ? b : a;
        if (atomicCAS(&parent[high], high, low) == high) return low;
    }
}

#endif
