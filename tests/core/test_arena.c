/* tests/core/test_arena.c — alignment, separation, zeroing, big requests, reset and reuse. */
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/rng.h"
#include "test_util.h"

typedef struct allocation {
    unsigned char *pointer;
    size_t bytes;
    unsigned char fill;
} allocation;

/* Many random-size allocations: every one 16-aligned, none overlapping (their fill survives). */
static void check_many(size_t block_size, uint64_t seed)
{
    static allocation list[3000];
    parac_arena arena;
    parac_rng rng;
    size_t requested = 0;
    int intact = 1;
    parac_arena_init(&arena, block_size);
    parac_rng_seed(&rng, seed);
    for (int i = 0; i < 3000; i++) {
        size_t bytes = (size_t)parac_rng_below(&rng, i % 100 == 0 ? 5000 : 100);
        list[i].pointer = parac_arena_alloc(&arena, bytes);
        list[i].bytes = bytes;
        list[i].fill = (unsigned char)(i * 31 + 7);
        CHECK(list[i].pointer != NULL);
        if (!list[i].pointer) return;
        CHECK(((uintptr_t)list[i].pointer % 16) == 0, "allocation %d not 16-aligned", i);
        memset(list[i].pointer, list[i].fill, bytes);
        requested += bytes;
    }
    CHECK_EQ_INT(arena.bytes_allocated, requested);
    for (int i = 0; i < 3000 && intact; i++)
        for (size_t b = 0; b < list[i].bytes; b++)
            if (list[i].pointer[b] != list[i].fill) {
                intact = 0;
                CHECK(0, "allocation %d was overwritten at byte %zu (block size %zu)", i, b, block_size);
                break;
            }
    parac_arena_destroy(&arena);
    CHECK(arena.head == NULL && arena.bytes_allocated == 0);
}

static void check_calloc_and_overflow(void)
{
    parac_arena arena;
    unsigned char *dirty, *zeroed;
    parac_arena_init(&arena, 256);
    dirty = parac_arena_alloc(&arena, 200);
    memset(dirty, 0xab, 200);
    parac_arena_reset(&arena);
    zeroed = parac_arena_calloc(&arena, 50, 4);
    CHECK(zeroed != NULL);
    for (int i = 0; zeroed && i < 200; i++) CHECK(zeroed[i] == 0, "calloc byte %d is %d", i, zeroed[i]);
    CHECK(parac_arena_calloc(&arena, SIZE_MAX / 2, 4) == NULL, "count * size overflow not refused");
    CHECK(parac_arena_alloc(&arena, SIZE_MAX - 3) == NULL, "rounding overflow not refused");
    parac_arena_destroy(&arena);
}

static void check_reset_reuses_first_block(void)
{
    parac_arena arena;
    void *first, *again;
    parac_arena_init(&arena, 1024);
    first = parac_arena_alloc(&arena, 100);
    for (int i = 0; i < 50; i++) CHECK(parac_arena_alloc(&arena, 500) != NULL); /* many more blocks */
    CHECK(parac_arena_alloc(&arena, 100000) != NULL);                           /* one oversized */
    parac_arena_reset(&arena);
    CHECK_EQ_INT(arena.bytes_allocated, 0);
    again = parac_arena_alloc(&arena, 100);
    CHECK(again == first, "reset did not reuse the first block");
    /* Used again after reset: still separate, still aligned. */
    {
        unsigned char *a = parac_arena_alloc(&arena, 3), *b = parac_arena_alloc(&arena, 3);
        CHECK(a && b && b >= a + 16);
    }
    parac_arena_destroy(&arena);
    parac_arena_destroy(&arena); /* destroy twice is harmless */
}

static void check_zero_and_default(void)
{
    parac_arena arena;
    parac_arena_init(&arena, 0); /* 0 means the default block size */
    CHECK(arena.block_size > 0);
    CHECK(parac_arena_alloc(&arena, 0) != NULL);
    parac_arena_reset(&arena);
    parac_arena_reset(&arena);
    parac_arena_destroy(&arena);
    parac_arena_init(&arena, 64);
    parac_arena_reset(&arena); /* reset of an empty arena */
    parac_arena_destroy(&arena);
}

int main(void)
{
    check_many(64, 1);
    check_many(1000, 2);
    check_many(64 * 1024, 3);
    check_calloc_and_overflow();
    check_reset_reuses_first_block();
    check_zero_and_default();
    return test_finish("core.arena");
}
