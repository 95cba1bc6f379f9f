/* core/text_buffer.h — a growable buffer of text, and decimal formatting of unsigned integers: the
 * writers that format large outputs in pieces (fca's concept text, formatted on several threads
 * and written in order) and the CLI's id lists. */
#ifndef PARAC_CORE_TEXT_BUFFER_H
#define PARAC_CORE_TEXT_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#define PARAC_UINT_DIGITS 20 /* the longest decimal uint64_t */

/* value in decimal at to (room for PARAC_UINT_DIGITS characters); returns how many were written. */
size_t parac_format_uint(char *to, uint64_t value);

typedef struct parac_text_buffer {
    char *bytes;
    size_t size, capacity;
    int failed; /* an allocation failed: what was appended since is lost */
} parac_text_buffer;

/* Room for `more` bytes after size; 0 (and failed set) when out of memory. */
int parac_text_reserve(parac_text_buffer *buffer, size_t more);
void parac_text_append(parac_text_buffer *buffer, const char *text, size_t size);
void parac_text_append_uint(parac_text_buffer *buffer, uint64_t value);
void parac_text_buffer_free(parac_text_buffer *buffer);

#endif
