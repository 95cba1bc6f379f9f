/* core/text_pieces.c — pieces of whole lines of a text in memory (text_pieces.h). */
#include "core/text_pieces.h"

#include <string.h>

/* Byte p*size/P, without overflowing for any size. */
static uint64_t byte_boundary(uint64_t size, uint64_t pieces, uint64_t piece)
{
    return size / pieces * piece + size % pieces * piece / pieces;
}

/* The first line start at or after offset: offset itself when a line starts there. */
static uint64_t line_start_at_or_after(const unsigned char *bytes, uint64_t size, uint64_t offset)
{
    const unsigned char *newline;
    if (offset == 0 || offset >= size) return offset;
    newline = memchr(bytes + offset - 1, '\n', (size_t)(size - offset + 1));
    return newline ? (uint64_t)(newline - bytes) + 1 : size;
}

uint64_t parac_text_piece_start(const unsigned char *bytes, uint64_t size, uint64_t pieces, uint64_t piece)
{
    if (piece >= pieces) return size;
    return line_start_at_or_after(bytes, size, byte_boundary(size, pieces, piece));
}

uint64_t parac_text_count_newlines(const unsigned char *bytes, uint64_t size)
{
    uint64_t count = 0;
    const unsigned char *end = bytes + size, *newline;
    while (bytes < end && (newline = memchr(bytes, '\n', (size_t)(end - bytes)))) {
        count++;
        bytes = newline + 1;
    }
    return count;
}
