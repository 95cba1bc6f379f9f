/* fca/io_csv01.c — 0/1 matrices in CSV or TSV. The first row is a header of
 * attribute names when every cell after its first is not 0/1 (a row mixing
 * names and bits is a data row with a typo, reported at its line and cell);
 * the first column holds object names when the first data row starts with a
 * cell that is not 0/1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/line_reader.h"
#include "fca/fca_internal.h"

typedef struct string_list {
    char **items;
    size_t count, capacity;
} string_list;

static int list_push(string_list *list, const char *text, size_t length)
{
    char *copy;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        char **grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown) return -1;
        list->items = grown;
        list->capacity = capacity;
    }
    copy = malloc(length + 1);
    if (!copy) return -1;
    memcpy(copy, text, length);
    copy[length] = 0;
    list->items[list->count++] = copy;
    return 0;
}

static void list_free(string_list *list)
{
    for (size_t i = 0; i < list->count; i++) free(list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* Splits a line at delimiter into cells (trimmed of blanks and CR). */
static int split(const char *line, char delimiter, string_list *cells)
{
    const char *start = line;
    for (;;) {
        const char *end = strchr(start, delimiter);
        const char *stop = end ? end : start + strlen(start);
        const char *from = start;
        while (from < stop && (*from == ' ' || *from == '\t' || *from == '\r') && *from != delimiter) from++;
        while (stop > from && (stop[-1] == ' ' || stop[-1] == '\r' || (stop[-1] == '\t' && delimiter != '\t'))) stop--;
        if (list_push(cells, from, (size_t)(stop - from))) return -1;
        if (!end) return 0;
        start = end + 1;
    }
}

static int is_bit(const char *cell) { return (cell[0] == '0' || cell[0] == '1') && !cell[1]; }

typedef struct csv_table {
    uint8_t *bits;            /* every data cell, row-major, names column excluded */
    size_t bit_count, bit_capacity;
    string_list object_names;
    string_list attribute_names;
    size_t columns;
    size_t rows;
    int has_row_names;
} csv_table;

static int push_bit(csv_table *table, uint8_t bit)
{
    if (table->bit_count == table->bit_capacity) {
        size_t capacity = table->bit_capacity ? table->bit_capacity * 2 : 4096;
        uint8_t *grown = realloc(table->bits, capacity);
        if (!grown) return -1;
        table->bits = grown;
        table->bit_capacity = capacity;
    }
    table->bits[table->bit_count++] = bit;
    return 0;
}

static parac_status add_row(parac_line_reader *reader, csv_table *table, string_list *cells, parac_error *error)
{
    size_t first = 0;
    if (table->rows == 0) table->has_row_names = cells->count > 0 && !is_bit(cells->items[0]);
    if (table->has_row_names) {
        if (list_push(&table->object_names, cells->items[0], strlen(cells->items[0])))
            return parac_fail_no_memory(error, "names", 64);
        first = 1;
    }
    if (table->rows == 0) table->columns = cells->count - first;
    if (cells->count - first != table->columns)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "row has %zu cells, expected %zu", cells->count - first, table->columns);
    if (!fca_context_size_ok(table->rows + 1, table->columns))
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                             "the context (%zu objects x %zu attributes so far) is above the limit of %llu cells",
                             table->rows + 1, table->columns, (unsigned long long)PARAC_FCA_MAX_CONTEXT_CELLS);
    for (size_t i = first; i < cells->count; i++) {
        if (!is_bit(cells->items[i]))
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->path, reader->line_number,
                                 "cell %zu is '%.30s', expected 0 or 1", i + 1, cells->items[i]);
        if (push_bit(table, cells->items[i][0] == '1')) return parac_fail_no_memory(error, "cells", table->bit_capacity);
    }
    table->rows++;
    return PARAC_OK;
}

/* The first content row is a header when it has two cells or more and every
 * one after the first (a corner above the names column) is not 0/1. */
static int is_header(const string_list *cells)
{
    if (cells->count < 2) return 0;
    for (size_t i = 1; i < cells->count; i++)
        if (is_bit(cells->items[i])) return 0;
    return 1;
}

static parac_status read_table(parac_line_reader *reader, csv_table *table, parac_error *error)
{
    string_list cells = {0};
    char delimiter = 0;
    int got, first_row = 1;
    parac_status status = PARAC_OK;
    while (status == PARAC_OK && (got = parac_line_reader_next(reader, error)) == 1) {
        if (!reader->buffer[strspn(reader->buffer, " \t")] || reader->buffer[0] == '#') continue;
        if (!delimiter) delimiter = strchr(reader->buffer, ',') ? ',' : '\t';
        list_free(&cells);
        if (split(reader->buffer, delimiter, &cells)) { status = parac_fail_no_memory(error, "a row", 64); break; }
        if (first_row && is_header(&cells)) {
            /* a header over a names column starts with a corner cell; dropped below once the rows tell */
            for (size_t i = 0; i < cells.count && status == PARAC_OK; i++)
                if (list_push(&table->attribute_names, cells.items[i], strlen(cells.items[i])))
                    status = parac_fail_no_memory(error, "names", 64);
            first_row = 0;
            continue;
        }
        first_row = 0;
        status = add_row(reader, table, &cells, error);
    }
    if (status == PARAC_OK && got < 0) status = error ? error->status : PARAC_ERR_IO;
    list_free(&cells);
    return status;
}

static parac_status take_names(string_list *names, size_t count, size_t skip, char ***target, parac_error *error)
{
    *target = calloc(count ? count : 1, sizeof **target);
    if (!*target) return parac_fail_no_memory(error, "names", count * 8);
    for (size_t i = 0; i < count; i++) {
        (*target)[i] = names->items[i + skip];
        names->items[i + skip] = NULL;
    }
    return PARAC_OK;
}

parac_status fca_read_csv01(const parac_input *input, parac_fca_context **context, parac_error *error)
{
    parac_line_reader reader;
    csv_table table = {0};
    parac_fca_context *made = NULL;
    size_t skip;
    parac_status status = parac_line_reader_open_input(&reader, input, error);
    if (status != PARAC_OK) return status;
    status = read_table(&reader, &table, error);
    if (status == PARAC_OK && table.rows == 0)
        status = parac_fail_at(error, PARAC_ERR_PARSE, reader.path, reader.line_number + 1, "empty file: no data rows");
    /* Only a names column may add one cell to the header: the corner above the names. */
    skip = table.has_row_names && table.attribute_names.count == table.columns + 1;
    if (status == PARAC_OK && table.attribute_names.count && table.attribute_names.count - skip != table.columns)
        status = parac_fail_at(error, PARAC_ERR_PARSE, reader.path, 1, "header has %zu names, rows have %zu cells",
                               table.attribute_names.count, table.columns);
    if (status == PARAC_OK) status = fca_context_alloc(table.rows, table.columns, &made, error);
    if (status == PARAC_OK) {
        for (size_t i = 0; i < table.bit_count && status == PARAC_OK; i++)
            if (table.bits[i]) status = fca_context_add(made, i / table.columns, i % table.columns, error);
        fca_context_end_cells(made);
        if (status == PARAC_OK && table.has_row_names)
            status = take_names(&table.object_names, table.rows, 0, &made->object_names, error);
        if (status == PARAC_OK && table.attribute_names.count)
            status = take_names(&table.attribute_names, table.columns, skip, &made->attribute_names, error);
    }
    parac_line_reader_close(&reader);
    free(table.bits);
    list_free(&table.object_names);
    list_free(&table.attribute_names);
    if (status != PARAC_OK) parac_fca_context_destroy(made);
    else *context = made;
    return status;
}
