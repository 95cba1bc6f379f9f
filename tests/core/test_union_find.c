/* tests/core/test_union_find.c — the one CPU union-find (core/union_find.h) used by dbscan's
 * threads, its serial oracle and birch's Ward cut: partitions against a naive labelling, roots
 * the lowest member, and the same partition for any join order and thread interleaving. */
#include <stdint.h>
#include <stdlib.h>

#include "core/union_find.h"
#include "test_util.h"

#define COUNT 2000

/* Naive components of the same joins: relabel every member of b's set as a's, repeatedly. */
static void naive_components(const uint32_t (*pairs)[2], size_t pair_count, uint32_t *component)
{
    for (size_t i = 0; i < COUNT; i++) component[i] = (uint32_t)i;
    for (size_t p = 0; p < pair_count; p++) {
        uint32_t from = component[pairs[p][1]], to = component[pairs[p][0]];
        uint32_t low = from < to ? from : to, high = from < to ? to : from;
        for (size_t i = 0; i < COUNT; i++)
            if (component[i] == high) component[i] = low;
    }
}

int main(void)
{
    static uint32_t pairs[COUNT][2], parent[COUNT], threaded[COUNT], component[COUNT];
    size_t pair_count = COUNT * 3 / 4;
    uint64_t state = 12345;
    for (size_t p = 0; p < pair_count; p++)
        for (int side = 0; side < 2; side++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            pairs[p][side] = (uint32_t)((state >> 33) % COUNT);
        }
    naive_components((const uint32_t(*)[2])pairs, pair_count, component);
    /* serial, in order: every root is its set's lowest member, the naive component's label */
    union_find_init(parent, COUNT);
    for (size_t p = 0; p < pair_count; p++) union_find_join(parent, pairs[p][0], pairs[p][1]);
    for (size_t i = 0; i < COUNT; i++)
        CHECK(union_find_root(parent, (uint32_t)i) == component[i], "element %zu: root %u, component %u", i,
              union_find_root(parent, (uint32_t)i), component[i]);
    /* reversed order and many threads: the same roots */
    union_find_init(threaded, COUNT);
#pragma omp parallel for schedule(dynamic, 7)
    for (long p = (long)pair_count - 1; p >= 0; p--) union_find_join(threaded, pairs[p][1], pairs[p][0]);
    for (size_t i = 0; i < COUNT; i++)
        CHECK(union_find_root(threaded, (uint32_t)i) == component[i], "threaded, element %zu", i);
    return test_finish("core.union_find");
}
