/* core/arena.h — a bump allocator for many small objects freed together.
 *
 * Memory comes in blocks (at least block_size bytes each); allocations are
 * 16-byte aligned; nothing is freed until reset or destroy. Not thread-safe:
 * give each thread its own arena.
 */
#ifndef PARAC_CORE_ARENA_H
#define PARAC_CORE_ARENA_H

#include <stddef.h>

typedef struct parac_arena_block parac_arena_block;

typedef struct parac_arena {
    parac_arena_block *head;  /* block being filled; older blocks follow */
    size_t block_size;
    size_t bytes_allocated;   /* sum of all requests since the last reset */
} parac_arena;

void parac_arena_init(parac_arena *arena, size_t block_size);
/* NULL when the host is out of memory. */
void *parac_arena_alloc(parac_arena *arena, size_t bytes);
/* As alloc, zero-filled. */
void *parac_arena_calloc(parac_arena *arena, size_t count, size_t size);
/* Forgets every allocation but keeps the first block for reuse. */
void parac_arena_reset(parac_arena *arena);
void parac_arena_destroy(parac_arena *arena);

#endif
