/* core/text_buffer.c — see text_buffer.h. */
#include "core/text_buffer.h"

#include <stdlib.h>
#include <string.h>

size_t parac_format_uint(char *to, uint64_t value)
{
    char digits[PARAC_UINT_DIGITS];
    size_t at = sizeof digits;
    do {
        digits[--at] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    memcpy(to, digits + at, sizeof digits - at);
    return sizeof digits - at;
}

int parac_text_reserve(parac_text_buffer *buffer, size_t more)
{
    size_t capacity = buffer->capacity ? buffer->capacity : 4096;
    char *grown;
    if (buffer->failed) return 0;
    if (more <= buffer->capacity - buffer->size) return 1;
    while (capacity - buffer->size < more) {
        if (capacity > SIZE_MAX / 2) return buffer->failed = 1, 0;
        capacity *= 2;
    }
    grown = realloc(buffer->bytes, capacity);
    if (!grown) return buffer->failed = 1, 0;
    buffer->bytes = grown;
    buffer->capacity = capacity;
    return 1;
}

void parac_text_append(parac_text_buffer *buffer, const char *text, size_t size)
{
    if (!parac_text_reserve(buffer, size)) return;
    memcpy(buffer->bytes + buffer->size, text, size);
    buffer->size += size;
}

void parac_text_append_uint(parac_text_buffer *buffer, uint64_t value)
{
    if (!parac_text_reserve(buffer, PARAC_UINT_DIGITS)) return;
    buffer->size += parac_format_uint(buffer->bytes + buffer->size, value);
}

void parac_text_buffer_free(parac_text_buffer *buffer)
{
    free(buffer->bytes);
    memset(buffer, 0, sizeof *buffer);
}
