/* core/arena.c — blocks chained newest first; reset keeps the oldest. */
#include "core/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct parac_arena_block {
    parac_arena_block *next;
    size_t capacity;
    size_t used;
    _Alignas(16) unsigned char data[];
};

#define ARENA_ALIGN 16

void parac_arena_init(parac_arena *arena, size_t block_size)
{
    arena->head = NULL;
    arena->block_size = block_size ? block_size : 64 * 1024;
    arena->bytes_allocated = 0;
}

static parac_arena_block *new_block(size_t capacity)
{
    parac_arena_block *block = malloc(sizeof *block + capacity);
    if (!block) return NULL;
    block->next = NULL;
    block->capacity = capacity;
    block->used = 0;
    return block;
}

void *parac_arena_alloc(parac_arena *arena, size_t bytes)
{
    size_t rounded = (bytes + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    parac_arena_block *block = arena->head;
    void *result;
    if (rounded < bytes) return NULL; /* overflow */
    if (!block || block->capacity - block->used < rounded) {
        size_t capacity = rounded > arena->block_size ? rounded : arena->block_size;
        block = new_block(capacity);
        if (!block) return NULL;
        block->next = arena->head;
        arena->head = block;
    }
    result = block->data + block->used;
    block->used += rounded;
    arena->bytes_allocated += bytes;
    return result;
}

void *parac_arena_calloc(parac_arena *arena, size_t count, size_t size)
{
    void *result;
    if (size && count > SIZE_MAX / size) return NULL;
    result = parac_arena_alloc(arena, count * size);
    if (result) memset(result, 0, count * size);
    return result;
}

void parac_arena_reset(parac_arena *arena)
{
    parac_arena_block *block = arena->head, *oldest = NULL;
    while (block) {
        parac_arena_block *next = block->next;
        if (next) free(block);
        else oldest = block;
        block = next;
    }
    if (oldest) oldest->used = 0;
    arena->head = oldest;
    arena->bytes_allocated = 0;
}

void parac_arena_destroy(parac_arena *arena)
{
    parac_arena_block *block = arena->head;
    while (block) {
        parac_arena_block *next = block->next;
        free(block);
        block = next;
    }
    arena->head = NULL;
    arena->bytes_allocated = 0;
}
