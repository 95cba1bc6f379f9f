/* csp/xcsp3_terms.c — the XCSP3 reader's lists: references to variables and arrays ("x",
 * "x[3][1]", "x[]", "x[2..4][]"), integer constants, group parameters (%i, %...), the
 * whitespace-separated lists made of them (xcsp3_parse_terms), the shape of a compact matrix
 * reference, and where one term of a list ends.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_internal.h"

int xcsp3_push_term(term_list *list, int64_t var, int64_t constant)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        term *grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown) return -1;
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = (term){var, constant};
    return 0;
}

/* ---- references: "x", "x[3][1]", "x[]", "x[2..4][]" ---------------------------------------- */

typedef struct index_range {
    uint32_t low, high;
} index_range;

/* Parses the bracket parts of a reference against an array's dims. 0 ok, -1 bad. */
static int parse_brackets(const char *at, const char *end, const xcsp3_array *array, index_range *ranges)
{
    uint32_t d = 0;
    while (at < end) {
        int64_t low, high;
        if (*at != '[' || d >= array->dim_count) return -1;
        at++;
        if (*at == ']') {
            ranges[d].low = 0;
            ranges[d].high = array->dims[d] - 1;
        } else {
            if (!xcsp_read_integer(&at, &low)) return -1;
            high = low;
            if (at[0] == '.' && at[1] == '.') {
                at += 2;
                if (!xcsp_read_integer(&at, &high)) return -1;
            }
            if (low < 0 || high < low || high >= array->dims[d]) return -1;
            ranges[d].low = (uint32_t)low;
            ranges[d].high = (uint32_t)high;
        }
        if (*at != ']') return -1;
        at++;
        d++;
    }
    if (d == 0) { /* a bare array name: every cell */
        for (; d < array->dim_count; d++) ranges[d] = (index_range){0, array->dims[d] - 1};
    }
    return d == array->dim_count ? 0 : -1;
}

/* 1 when `more` terms still fit a list (the budget is max_variables: a list names variables). */
static int terms_fit(const xcsp3 *x, const term_list *out, uint64_t more)
{
    return more <= x->in->limits.max_variables && out->count <= x->in->limits.max_variables - more;
}

static uint64_t range_cells(const xcsp3_array *array, const index_range *ranges)
{
    uint64_t cells = 1;
    for (uint32_t d = 0; d < array->dim_count; d++) cells *= (uint64_t)(ranges[d].high - ranges[d].low) + 1;
    return cells; /* at most the array's cells, which fit the variable budget */
}

static int push_cells(term_list *out, const xcsp3_array *array, const index_range *ranges)
{
    uint32_t index[XCSP3_MAX_DIMS];
    for (uint32_t d = 0; d < array->dim_count; d++) index[d] = ranges[d].low;
    for (;;) {
        uint64_t cell = 0;
        uint32_t d;
        for (d = 0; d < array->dim_count; d++) cell = cell * array->dims[d] + index[d];
        if (xcsp3_push_term(out, (int64_t)(array->base + cell), 0) < 0) return -2;
        for (d = array->dim_count; d-- > 0;) {
            if (++index[d] <= ranges[d].high) break;
            index[d] = ranges[d].low;
        }
        if (d == UINT32_MAX) return 0;
    }
}

/* Appends the variables a reference names. 0 ok, -1 unknown/bad, -2 no memory, -3 over the budget. */
int xcsp3_expand_reference(const xcsp3 *x, const char *token, size_t length, term_list *out)
{
    size_t name_length = 0;
    int64_t entry;
    index_range ranges[XCSP3_MAX_DIMS];
    while (name_length < length && token[name_length] != '[') name_length++;
    entry = xcsp_names_get(&x->names, token, name_length);
    if (entry == -1) return -1;
    if (entry >= 0) return name_length == length && xcsp3_push_term(out, entry, 0) < 0 ? -2 : (name_length == length ? 0 : -1);
    {
        const xcsp3_array *array = &x->arrays[-2 - entry];
        if (parse_brackets(token + name_length, token + length, array, ranges) < 0) return -1;
        if (!terms_fit(x, out, range_cells(array, ranges))) return -3;
        return push_cells(out, array, ranges);
    }
}

int xcsp3_is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

/* The highest N of the parameters %N in a template text, or -1 when it has none. %... stands for
 * the arguments after that one (XCSP3: "all effective parameters after the highest numbered"). */
int64_t xcsp3_highest_parameter(const char *text)
{
    int64_t highest = -1, value;
    for (const char *at = strchr(text, '%'); at; at = strchr(at, '%')) {
        const char *digits = ++at;
        if (*digits >= '0' && *digits <= '9' && xcsp_read_integer(&digits, &value) && value > highest) highest = value;
    }
    return highest < INT32_MAX ? highest : INT32_MAX; /* past any <args> anyway; keeps highest + 1 in range */
}

static int is_rest_parameter(const char *token, size_t length) { return length == 4 && memcmp(token, "%...", 4) == 0; }

static int terms_over_budget(xcsp3 *x)
{
    snprintf(x->why, sizeof x->why, "a list of more than %llu terms (the variable budget)",
             (unsigned long long)x->in->limits.max_variables);
    return -1;
}

/* Pushes args[i] (%i) or the arguments after the highest numbered parameter (%...). 0 ok, -1 bad, -2 no memory. */
static int push_parameter(xcsp3 *x, const char *start, const char *end, const term_list *args, int64_t rest_start,
                          term_list *out)
{
    const char *digits = start + 1;
    int64_t value;
    if (is_rest_parameter(start, (size_t)(end - start))) {
        if (!terms_fit(x, out, args->count)) return terms_over_budget(x);
        for (size_t i = (size_t)rest_start; i < args->count; i++)
            if (xcsp3_push_term(out, args->items[i].var, args->items[i].constant) < 0) return -2;
        return 0;
    }
    if (!xcsp_read_integer(&digits, &value) || digits != end || value < 0 || (size_t)value >= args->count) {
        snprintf(x->why, sizeof x->why, "bad parameter '%.*s' (the <args> have %zu terms)", (int)(end - start), start,
                 args->count);
        return -1;
    }
    if (!terms_fit(x, out, 1)) return terms_over_budget(x);
    return xcsp3_push_term(out, args->items[value].var, args->items[value].constant) < 0 ? -2 : 0;
}

/* Terms of a whitespace-separated list; %i take args[i] and %... the rest when args is given;
 * integers are constants; references may be compact (x[], x[0..4], m[1][]). */
int xcsp3_parse_terms(xcsp3 *x, const char *text, const term_list *args, term_list *out)
{
    const char *at = text;
    int64_t rest_start = args ? xcsp3_highest_parameter(text) + 1 : 0;
    for (;;) {
        const char *start;
        int64_t value;
        while (xcsp3_is_space(*at)) at++;
        if (!*at) return 0;
        start = at;
        while (*at && !xcsp3_is_space(*at)) at++;
        if (*start == '%' && args) {
            int status = push_parameter(x, start, at, args, rest_start, out);
            if (status < 0) return status;
            continue;
        }
        if ((*start >= '0' && *start <= '9') || *start == '-') {
            const char *digits = start;
            int64_t times = 1;
            if (!xcsp_read_integer(&digits, &value)) goto unknown;
            /* "3x4": the integer 3 four times, XCSP3's compact form (pycsp3 writes sizes so) */
            if (*digits == 'x' && digits + 1 < at) {
                digits++;
                if (!xcsp_read_integer(&digits, &times) || times < 1) goto unknown;
            }
            if (digits != at) goto unknown;
            if ((uint64_t)times > x->in->limits.max_variables || !terms_fit(x, out, (uint64_t)times))
                return terms_over_budget(x);
            for (int64_t k = 0; k < times; k++)
                if (xcsp3_push_term(out, -1, value) < 0) return -2;
            continue;
        }
        int status = xcsp3_expand_reference(x, start, (size_t)(at - start), out);
        if (status == -2) return -2;
        if (status == -3) return terms_over_budget(x);
        if (status < 0) goto unknown;
        continue;
    unknown:
        snprintf(x->why, sizeof x->why, "unknown variable '%.*s'", (int)(at - start), start);
        return -1;
    }
}

int xcsp3_matrix_shape(const xcsp3 *x, const char *token, size_t length, size_t *rows, size_t *columns)
{
    size_t name_length = 0, sizes[2], varying = 0;
    int64_t entry;
    index_range ranges[XCSP3_MAX_DIMS];
    while (name_length < length && token[name_length] != '[') name_length++;
    entry = xcsp_names_get(&x->names, token, name_length);
    if (entry > -2) return -1; /* unknown, or a single variable */
    const xcsp3_array *array = &x->arrays[-2 - entry];
    if (parse_brackets(token + name_length, token + length, array, ranges) < 0) return -1;
    for (uint32_t d = 0; d < array->dim_count; d++) {
        if (ranges[d].low == ranges[d].high && array->dim_count > 2) continue; /* m[1..1][] of a 2-D array: one row */
        if (varying == 2) return -1;
        sizes[varying++] = (size_t)(ranges[d].high - ranges[d].low) + 1;
    }
    if (varying != 2) return -1;
    *rows = sizes[0];
    *columns = sizes[1];
    return 0;
}

const char *xcsp3_term_end(const char *at)
{
    int depth = 0;
    for (; *at && (depth > 0 || !xcsp3_is_space(*at)); at++) {
        depth += *at == '(';
        depth -= *at == ')';
        if (depth < 0) return NULL;
    }
    return depth ? NULL : at;
}
