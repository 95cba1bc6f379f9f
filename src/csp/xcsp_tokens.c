/* csp/xcsp_tokens.c — the XCSP readers' tokenizing (csp/xcsp_build.h): integers, domains
 * ("0..9 12 15..17") and tuple lists (XCSP3 "(1,2)(3,*)", unary "1 3 5..7", XCSP 2.1 "1 2|3 4").
 *
 * Tuple lists are the bulk of big XCSP files (a 20 MB file is almost all
 * "(12,34)"), so integers are read by hand, not with strtoll/sscanf. */
#include "csp/xcsp_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

int xcsp_read_integer(const char **cursor, int64_t *value)
{
    const char *at = *cursor;
    int negative = 0;
    uint64_t magnitude = 0;
    while (is_space(*at)) at++;
    if (*at == '-' || *at == '+') negative = *at++ == '-';
    if (*at < '0' || *at > '9') return 0;
    while (*at >= '0' && *at <= '9') {
        uint64_t digit = (uint64_t)(*at++ - '0');
        if (magnitude > (XCSP_MAX_VALUE - digit) / 10) return 0; /* outside +-(2^63 - 1) */
        magnitude = magnitude * 10 + digit;
    }
    *value = negative ? -(int64_t)magnitude : (int64_t)magnitude;
    *cursor = at;
    return 1;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int push_value(int64_t **values, size_t *count, size_t *capacity, int64_t value)
{
    if (*count == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 64;
        int64_t *grown = realloc(*values, grown_capacity * sizeof *grown);
        if (!grown) return -1;
        *values = grown;
        *capacity = grown_capacity;
    }
    (*values)[(*count)++] = value;
    return 0;
}

/* Values and ranges "a..b" until the end of text, appended to *values; at most max_values of
 * them (counted before duplicates are removed, so the memory is bounded too). */
static int parse_value_list(const char *text, uint64_t max_values, int64_t **values, size_t *count,
                            size_t *capacity, char *why, size_t why_size)
{
    const char *at = text;
    int64_t low, high;
    for (;;) {
        uint64_t width;
        while (is_space(*at)) at++;
        if (!*at) return 0;
        if (!xcsp_read_integer(&at, &low)) {
            snprintf(why, why_size, "expected an integer value within +-(2^63-1), found '%.20s'", at);
            return -1;
        }
        high = low;
        if (at[0] == '.' && at[1] == '.') {
            at += 2;
            if (!xcsp_read_integer(&at, &high) || high < low) {
                snprintf(why, why_size, "bad range ending '%.20s'", at);
                return -1;
            }
        }
        width = (uint64_t)high - (uint64_t)low; /* values - 1: no overflow, both lie within +-(2^63-1) */
        if (width >= max_values || *count + width >= max_values) {
            snprintf(why, why_size, "more than %llu values (the value budget)", (unsigned long long)max_values);
            return -1;
        }
        for (uint64_t i = 0; i <= width; i++)
            if (push_value(values, count, capacity, low + (int64_t)i) < 0) {
                snprintf(why, why_size, "out of memory");
                return -1;
            }
    }
}

int xcsp_parse_domain(const char *text, uint64_t max_values, int64_t **values, uint32_t *count, char *why,
                      size_t why_size)
{
    size_t n = 0, capacity = 0, kept = 0;
    *values = NULL;
    *count = 0;
    if (parse_value_list(text, max_values, values, &n, &capacity, why, why_size) < 0) {
        free(*values);
        *values = NULL;
        return -1;
    }
    if (n > UINT32_MAX) { /* a budget above 2^32 values */
        free(*values);
        *values = NULL;
        snprintf(why, why_size, "more than 2^32 values in one domain");
        return -1;
    }
    if (n) qsort(*values, n, sizeof **values, compare_int64);
    for (size_t i = 0; i < n; i++)
        if (!kept || (*values)[kept - 1] != (*values)[i]) (*values)[kept++] = (*values)[i];
    *count = (uint32_t)kept;
    return 0;
}

static int tuples_reserve(xcsp_tuples *out, size_t more)
{
    size_t need = (out->count + more) * out->arity;
    if (need <= out->capacity) return 0;
    size_t capacity = out->capacity ? out->capacity : 256;
    while (capacity < need) capacity *= 2;
    int64_t *grown = realloc(out->values, capacity * sizeof *grown);
    if (!grown) return -2;
    out->values = grown;
    out->capacity = capacity;
    return 0;
}

static int read_tuple_value(const char **at, int64_t *value)
{
    while (is_space(**at)) (*at)++;
    if (**at == '*') {
        (*at)++;
        *value = XCSP_STAR;
        return 1;
    }
    return xcsp_read_integer(at, value);
}

static int parse_unary_tuples(const char *text, uint64_t max_values, xcsp_tuples *out, char *why, size_t why_size)
{
    int64_t *values = NULL;
    size_t n = 0, capacity = 0;
    if (parse_value_list(text, max_values, &values, &n, &capacity, why, why_size) < 0) {
        free(values);
        return -1;
    }
    if (tuples_reserve(out, n) < 0) {
        free(values);
        return -2;
    }
    if (n) memcpy(out->values + out->count, values, n * sizeof *values);
    out->count += n;
    free(values);
    return 0;
}

/* A tuple takes at least one character per value: checked before room for the first one is made,
 * so an arity taken from the input cannot reserve more memory than the text could fill. */
static int arity_fits(const char *text, uint32_t arity, char *why, size_t why_size)
{
    size_t length = 0;
    while (is_space(*text)) text++;
    while (length < arity && text[length]) length++;
    if (!*text || length >= arity) return 1;
    snprintf(why, why_size, "tuples of arity %u, but the list holds fewer characters", arity);
    return 0;
}

int xcsp_parse_tuples3(const char *text, uint32_t arity, uint64_t max_values, xcsp_tuples *out, char *why,
                       size_t why_size)
{
    const char *at = text;
    out->arity = arity;
    if (arity == 0) {
        snprintf(why, why_size, "tuples over an empty list");
        return -1;
    }
    if (arity == 1) {
        while (is_space(*at)) at++;
        if (*at != '(') return parse_unary_tuples(text, max_values, out, why, why_size);
    }
    if (!arity_fits(text, arity, why, why_size)) return -1;
    for (;;) {
        while (is_space(*at)) at++;
        if (!*at) return 0;
        if (*at != '(') break;
        at++;
        if (tuples_reserve(out, 1) < 0) return -2;
        int64_t *tuple = out->values + out->count * arity;
        for (uint32_t i = 0; i < arity; i++) {
            if (i) {
                while (is_space(*at)) at++;
                if (*at++ != ',') goto bad;
            }
            if (!read_tuple_value(&at, &tuple[i])) goto bad;
        }
        while (is_space(*at)) at++;
        if (*at++ != ')') goto bad;
        out->count++;
    }
bad:
    snprintf(why, why_size, "malformed tuple %zu (arity %u) near '%.30s'", out->count + 1, arity,
             at > text ? at - 1 : at);
    return -1;
}

int xcsp_parse_tuples2(const char *text, uint32_t arity, xcsp_tuples *out, char *why, size_t why_size)
{
    const char *at = text;
    out->arity = arity;
    if (arity == 0) {
        snprintf(why, why_size, "relation of arity 0");
        return -1;
    }
    if (!arity_fits(text, arity, why, why_size)) return -1;
    for (;;) {
        while (is_space(*at)) at++;
        if (!*at) return 0;
        if (tuples_reserve(out, 1) < 0) return -2;
        int64_t *tuple = out->values + out->count * arity;
        for (uint32_t i = 0; i < arity; i++)
            if (!read_tuple_value(&at, &tuple[i])) {
                snprintf(why, why_size, "malformed tuple %zu (arity %u) near '%.30s'", out->count + 1, arity, at);
                return -1;
            }
        out->count++;
        while (is_space(*at)) at++;
        if (*at == '|') at++;
        else if (*at) {
            snprintf(why, why_size, "expected '|' between tuples near '%.30s'", at);
            return -1;
        }
    }
}

void xcsp_tuples_free(xcsp_tuples *tuples)
{
    free(tuples->values);
    memset(tuples, 0, sizeof *tuples);
}
