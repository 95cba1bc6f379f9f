/* tests/core/test_parallel_copy.c — parac_parallel_copy gives memcpy's bytes for every size around its
 * thresholds (one thread below 1 MiB, 64 KiB pieces above), unaligned ends and starts, and thread
 * counts from 1 to more threads than pieces; bytes outside the destination range stay untouched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel_copy.h"
#include "test_util.h"

static void fill(unsigned char *bytes, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        bytes[i] = (unsigned char)(seed >> 24);
    }
}

static void check_copy(size_t bytes, size_t source_shift, size_t target_shift, int threads)
{
    size_t guard = 64, room = bytes + 2 * guard + 16;
    unsigned char *source = malloc(room), *target = malloc(room), *expected = malloc(room);
    CHECK(source && target && expected);
    if (!source || !target || !expected) goto done;
    fill(source, room, (uint32_t)(bytes * 31 + (size_t)threads));
    fill(target, room, 7u);
    memcpy(expected, target, room);
    memcpy(expected + guard + target_shift, source + source_shift, bytes);
    parac_parallel_copy(target + guard + target_shift, source + source_shift, bytes, threads);
    CHECK(memcmp(target, expected, room) == 0, "%zu bytes, shifts %zu/%zu, %d threads: the bytes differ", bytes,
          source_shift, target_shift, threads);
done:
    free(source);
    free(target);
    free(expected);
}

int main(void)
{
    const size_t sizes[] = {0, 1, 4095, 65536, (1u << 20) - 1, 1u << 20, (1u << 20) + 1, (3u << 20) + 12345,
                            17u << 20};
    const int thread_counts[] = {1, 2, 3, 7, 64, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            check_copy(sizes[s], 0, 0, thread_counts[t]);
            check_copy(sizes[s], 3, 5, thread_counts[t]);
        }
    return test_finish("core.parallel_copy");
}
