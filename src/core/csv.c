/* core/csv.c — a small tokenizer over core/line_reader. */
#include "core/csv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Cuts the line at a '#' and trailing blanks; returns 1 when anything is left. */
static int strip_comment(char *line)
{
    char *hash = strchr(line, '#');
    size_t length;
    if (hash) *hash = '\0';
    length = strlen(line);
    while (length && isspace((unsigned char)line[length - 1])) line[--length] = '\0';
    while (*line && isspace((unsigned char)*line)) line++;
    return *line != '\0';
}

static char detect_delimiter(const char *line)
{
    if (strchr(line, ',')) return ',';
    if (strchr(line, '\t')) return '\t';
    if (strchr(line, ';')) return ';';
    return ' ';
}

/* Splits in place; returns the token count, tokens in *tokens (grown as needed). */
static size_t split(char *line, char delimiter, char ***tokens, size_t *capacity)
{
    size_t count = 0;
    char *cursor = line;
    for (;;) {
        char *start, *end;
        if (delimiter == ' ') {
            while (*cursor && isspace((unsigned char)*cursor)) cursor++;
            if (!*cursor) break;
        }
        start = cursor;
        if (delimiter == ' ')
            while (*cursor && !isspace((unsigned char)*cursor)) cursor++;
        else
            while (*cursor && *cursor != delimiter) cursor++;
        end = cursor;
        if (count == *capacity) {
            size_t bigger = *capacity ? *capacity * 2 : 16;
            char **grown = realloc(*tokens, bigger * sizeof *grown);
            if (!grown) return (size_t)-1;
            *tokens = grown;
            *capacity = bigger;
        }
        while (start < end && isspace((unsigned char)*start)) start++;
        while (end > start && isspace((unsigned char)end[-1])) end--;
        (*tokens)[count++] = start;
        if (*cursor == '\0') {
            *end = '\0';
            break;
        }
        cursor++;
        *end = '\0';
    }
    return count;
}

static int parse_number(const char *token, double *value)
{
    char *end;
    if (!*token) return 0;
    errno = 0;
    *value = strtod(token, &end);
    return *end == '\0';
}

typedef struct row_parse {
    char **tokens;
    size_t capacity;
} row_parse;

/* Parses the reader's current line into values[columns]. Returns the status. */
static parac_status parse_row(parac_csv_reader *reader, row_parse *scratch, double *values, parac_error *error)
{
    char *line = reader->lines.buffer;
    size_t count;
    while (*line && isspace((unsigned char)*line)) line++;
    count = split(line, reader->delimiter, &scratch->tokens, &scratch->capacity);
    if (count == (size_t)-1) return parac_fail_no_memory(error, "a row's tokens", 0);
    if (count != reader->columns)
        return parac_fail_at(error, PARAC_ERR_PARSE, reader->lines.path, reader->lines.line_number,
                             "row has %zu values, expected %zu", count, reader->columns);
    for (size_t c = 0; c < count; c++) {
        if (!parse_number(scratch->tokens[c], &values[c]))
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->lines.path, reader->lines.line_number,
                                 "column %zu: '%.40s' is not a number", c + 1, scratch->tokens[c]);
        if (!reader->options.allow_nonfinite && !isfinite(values[c]))
            return parac_fail_at(error, PARAC_ERR_PARSE, reader->lines.path, reader->lines.line_number,
                                 "column %zu: non-finite value '%.40s'", c + 1, scratch->tokens[c]);
    }
    return PARAC_OK;
}

/* Next line with content after comment stripping: 1, 0 at end, -1 on error. */
static int next_content_line(parac_csv_reader *reader, parac_error *error)
{
    for (;;) {
        int got = parac_line_reader_next(&reader->lines, error);
        if (got <= 0) return got;
        if (strip_comment(reader->lines.buffer)) return 1;
    }
}

/* A header is taken only when it is unambiguous: every field of the first row
 * is not a number. A row mixing names and numbers is data with a typo (or a
 * stray byte), reported at its line and column rather than silently dropped. */
static int row_is_header(char *line, char delimiter)
{
    char **tokens = NULL;
    size_t capacity = 0, count = split(line, delimiter, &tokens, &capacity);
    int header = count != (size_t)-1 && count > 0;
    for (size_t c = 0; header && c < count; c++) {
        double ignored;
        if (parse_number(tokens[c], &ignored)) header = 0;
    }
    free(tokens);
    return header;
}

parac_status parac_csv_open(parac_csv_reader *reader, const char *path, const parac_csv_options *options,
                            parac_error *error)
{
    parac_input input = parac_input_file(path);
    return parac_csv_open_input(reader, &input, options, error);
}

/* The line reader is open: its first content line, or at_end. */
static parac_status find_first_content_line(parac_csv_reader *reader, const parac_csv_options *options,
                                            parac_error *error)
{
    int got;
    if (options) reader->options = *options;
    got = next_content_line(reader, error);
    if (got < 0) return error ? error->status : PARAC_ERR_IO;
    if (got == 0) reader->at_end = 1;
    return PARAC_OK;
}

parac_status parac_csv_open_input(parac_csv_reader *reader, const parac_input *input, const parac_csv_options *options,
                                  parac_error *error)
{
    parac_csv_shape shape;
    parac_status status;
    memset(reader, 0, sizeof *reader);
    status = parac_line_reader_open_input(&reader->lines, input, error);
    if (status == PARAC_OK) status = find_first_content_line(reader, options, error);
    if (status != PARAC_OK || reader->at_end) return status;
    status = parac_csv_piece_shape(reader, &shape, error);
    if (status != PARAC_OK) return status;
    return parac_csv_piece_begin(reader, &shape, 1, error);
}

parac_status parac_csv_open_piece(parac_csv_reader *reader, const void *data, size_t size, const char *name,
                                  long first_line_number, const parac_csv_options *options, parac_error *error)
{
    parac_status status;
    memset(reader, 0, sizeof *reader);
    status = parac_line_reader_open_piece(&reader->lines, data, size, name, first_line_number, error);
    if (status != PARAC_OK) return status;
    return find_first_content_line(reader, options, error);
}

/* Splits a copy, so that the line itself stays whole for parse_row. */
parac_status parac_csv_piece_shape(parac_csv_reader *reader, parac_csv_shape *shape, parac_error *error)
{
    char *copy = strdup(reader->lines.buffer);
    char **tokens = NULL;
    size_t capacity = 0;
    if (!copy) return parac_fail_no_memory(error, "a header row", reader->lines.length);
    shape->delimiter = detect_delimiter(reader->lines.buffer);
    shape->has_header = reader->options.header == PARAC_CSV_HEADER_PRESENT ||
                        (reader->options.header == PARAC_CSV_HEADER_AUTO && row_is_header(copy, shape->delimiter));
    strcpy(copy, reader->lines.buffer); /* row_is_header split it */
    shape->columns = split(copy, shape->delimiter, &tokens, &capacity);
    free(tokens);
    free(copy);
    if (shape->columns == (size_t)-1) return parac_fail_no_memory(error, "a row's tokens", 0);
    return PARAC_OK;
}

parac_status parac_csv_piece_begin(parac_csv_reader *reader, const parac_csv_shape *shape, int holds_first_line,
                                   parac_error *error)
{
    row_parse scratch = {0};
    parac_status status;
    reader->delimiter = shape->delimiter;
    reader->columns = shape->columns;
    reader->has_header = shape->has_header;
    if (holds_first_line && shape->has_header) {
        int got = next_content_line(reader, error);
        if (got < 0) return error ? error->status : PARAC_ERR_IO;
        if (got == 0) {
            reader->at_end = 1;
            return PARAC_OK;
        }
    }
    reader->pending = malloc(reader->columns * sizeof *reader->pending);
    if (!reader->pending) return parac_fail_no_memory(error, "a row", reader->columns * sizeof(double));
    status = parse_row(reader, &scratch, reader->pending, error);
    free(scratch.tokens);
    if (status != PARAC_OK) return status;
    reader->pending_valid = 1;
    return PARAC_OK;
}

parac_status parac_csv_read_rows(parac_csv_reader *reader, double *dst, size_t max_rows, size_t *rows_got,
                                 parac_error *error)
{
    row_parse scratch = {0};
    size_t rows = 0;
    parac_status status = PARAC_OK;
    *rows_got = 0;
    if (reader->pending_valid && max_rows) {
        memcpy(dst, reader->pending, reader->columns * sizeof *dst);
        reader->pending_valid = 0;
        rows = 1;
    }
    while (rows < max_rows && !reader->at_end) {
        int got = next_content_line(reader, error);
        if (got < 0) {
            status = error ? error->status : PARAC_ERR_IO;
            break;
        }
        if (got == 0) {
            reader->at_end = 1;
            break;
        }
        status = parse_row(reader, &scratch, dst + rows * reader->columns, error);
        if (status != PARAC_OK) break;
        rows++;
    }
    free(scratch.tokens);
    *rows_got = rows;
    return status;
}

void parac_csv_close(parac_csv_reader *reader)
{
    parac_line_reader_close(&reader->lines);
    free(reader->pending);
    reader->pending = NULL;
}
