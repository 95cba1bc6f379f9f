/* core/input.h — where a reader's bytes come from: a file named by path ("-" is standard input) or
 * a buffer in memory that the caller keeps alive while the reader runs.
 *
 * Every reader of a text or .npy format has one parsing body that takes a parac_input; its path
 * entry (parac_matrix_load, parac_fca_context_read, ...) and its memory entry (for the Python
 * package, and for the fuzz targets, which then never touch the file system) both end there. The
 * name is what messages call the input ("name:line: problem") and, for readers that choose a format
 * by extension (.npy, .mtx, .cxt), it chooses it for a buffer just as a path does for a file. */
#ifndef PARAC_CORE_INPUT_H
#define PARAC_CORE_INPUT_H

#include <stddef.h>

typedef struct parac_input {
    const char *name;  /* the path, or the buffer's name in messages */
    const void *data;  /* the bytes when in_memory (may be NULL when size is 0) */
    size_t size;
    int in_memory;     /* 0: read the file `name` */
} parac_input;

static inline parac_input parac_input_file(const char *path)
{
    parac_input input = {path, NULL, 0, 0};
    return input;
}

static inline parac_input parac_input_memory(const void *data, size_t size, const char *name)
{
    parac_input input = {name ? name : "<memory>", data, size, 1};
    return input;
}

#endif
