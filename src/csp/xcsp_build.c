/* csp/xcsp_build.c — tokenizing and constraint building shared by the XCSP readers.
 *
 * Tuple lists are the bulk of big XCSP files (a 20 MB file is almost all
 * "(12,34)"), so integers are read by hand, not with strtoll/sscanf. */
#include "csp/xcsp_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

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

int64_t xcsp_slot_of(const parac_csp_network *network, uint32_t var, int64_t value)
{
    const int64_t *values = network->values + network->value_offset[var];
    int64_t low = 0, high = (int64_t)network->domain_size[var] - 1;
    if (high < 0 || value < values[0] || value > values[high]) return -1;
    if ((uint64_t)values[high] - (uint64_t)values[0] == (uint64_t)high) /* a range: no search */
        return (int64_t)((uint64_t)value - (uint64_t)values[0]);
    while (low <= high) {
        int64_t mid = (low + high) / 2;
        if (values[mid] == value) return mid;
        if (values[mid] < value) low = mid + 1;
        else high = mid - 1;
    }
    return -1;
}

parac_status xcsp_add_variable(parac_csp_network *network, const xcsp_limits *limits, const char *name,
                               const int64_t *values, uint32_t count, uint32_t *index, const xcsp_site *site,
                               parac_error *error)
{
    if (network->variable_count >= limits->max_variables)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "more than %llu variables (the variable budget)", (unsigned long long)limits->max_variables);
    if (network->value_count > limits->max_values || count > limits->max_values - network->value_count)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "more than %llu values in all domains (the value budget)",
                             (unsigned long long)limits->max_values);
    return parac_csp_add_variable(network, name, values, count, index, error);
}

/* ---- extension ---------------------------------------------------------------------------- */

/* Slots of one tuple (XCSP_STAR kept as -2); 0 when a value lies outside its domain. */
static int tuple_slots(const parac_csp_network *network, const uint32_t *scope, uint32_t arity, const int64_t *tuple,
                       int64_t *slots)
{
    for (uint32_t i = 0; i < arity; i++) {
        slots[i] = tuple[i] == XCSP_STAR ? -2 : xcsp_slot_of(network, scope[i], tuple[i]);
        if (slots[i] == -1) return 0;
    }
    return 1;
}

/* The largest bit matrix one binary constraint may take: 2^32 bits (512 MiB), e.g. two domains
 * of 65,536 values. */
#define MAX_MATRIX_BITS (1ULL << 32)

/* A binary table's '*' parts: tuples (a,*) mark row a, (*,b) column b, (*,*) everything. They are
 * applied once at the end, so a list of many such tuples costs one pass over the matrix. */
typedef struct star_marks {
    parac_word *rows;    /* one bit per row */
    parac_word *columns; /* one bit per column: a row-sized mask */
    int everything;
} star_marks;

static void apply_stars(parac_word *matrix, size_t row_words, uint32_t rows, uint32_t columns, const star_marks *marks,
                        int supports)
{
    int have_columns = !parac_bitset_is_empty(marks->columns, row_words);
    for (uint32_t r = 0; r < rows; r++) {
        parac_word *row = matrix + (size_t)r * row_words;
        if (marks->everything || parac_bitset_test(marks->rows, r)) {
            if (supports) parac_bitset_fill(row, columns);
            else parac_bitset_zero(row, row_words);
        } else if (have_columns) {
            if (supports) parac_bitset_or(row, row, marks->columns, row_words);
            else parac_bitset_andnot(row, row, marks->columns, row_words);
        }
    }
}

static parac_status add_binary_extension(parac_csp_network *network, const uint32_t *scope, const xcsp_tuples *tuples,
                                         int supports, const xcsp_site *site, parac_error *error)
{
    uint32_t rows = network->domain_size[scope[0]], columns = network->domain_size[scope[1]];
    size_t row_words = parac_bitset_words(columns), words = (size_t)rows * row_words;
    parac_word *matrix;
    star_marks marks = {NULL, NULL, 0};
    int64_t slots[2];
    parac_status status;
    if ((uint64_t)rows * columns > MAX_MATRIX_BITS)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "binary constraint over domains of %u and %u values: more than 2^32 pairs", rows, columns);
    matrix = calloc(words ? words : 1, sizeof *matrix);
    marks.rows = calloc(parac_bitset_words(rows) + 1, sizeof *marks.rows);
    marks.columns = calloc(row_words + 1, sizeof *marks.columns);
    if (!matrix || !marks.rows || !marks.columns) {
        status = parac_fail_no_memory(error, "binary constraint", words * 8);
        goto done;
    }
    if (!supports)
        for (uint32_t r = 0; r < rows; r++) parac_bitset_fill(matrix + (size_t)r * row_words, columns);
    for (size_t t = 0; t < tuples->count; t++) {
        if (!tuple_slots(network, scope, 2, tuples->values + 2 * t, slots)) continue;
        if (slots[0] < 0 && slots[1] < 0) marks.everything = 1;
        else if (slots[1] < 0) parac_bitset_set(marks.rows, (size_t)slots[0]);
        else if (slots[0] < 0) parac_bitset_set(marks.columns, (size_t)slots[1]);
        else if (supports) parac_bitset_set(matrix + (size_t)slots[0] * row_words, (size_t)slots[1]);
        else parac_bitset_clear_bit(matrix + (size_t)slots[0] * row_words, (size_t)slots[1]);
    }
    apply_stars(matrix, row_words, rows, columns, &marks, supports);
    status = parac_csp_add_binary(network, scope[0], scope[1], matrix, error);
done:
    free(matrix);
    free(marks.rows);
    free(marks.columns);
    return status;
}

/* Product of the domain sizes of scope, saturating at UINT64_MAX. */
static uint64_t product_size(const parac_csp_network *network, const uint32_t *scope, uint32_t arity)
{
    uint64_t product = 1;
    for (uint32_t i = 0; i < arity; i++) {
        uint64_t size = network->domain_size[scope[i]];
        if (size && product > UINT64_MAX / size) return UINT64_MAX;
        product *= size;
    }
    return product;
}

/* Mixed-radix increment of slots (last position fastest); 0 when it wrapped around. */
static int next_combination(const parac_csp_network *network, const uint32_t *scope, uint32_t arity, uint32_t *slots)
{
    for (uint32_t i = arity; i-- > 0;) {
        if (++slots[i] < network->domain_size[scope[i]]) return 1;
        slots[i] = 0;
    }
    return 0;
}

/* Flat index of a full slot tuple in the product space. */
static uint64_t product_index(const parac_csp_network *network, const uint32_t *scope, uint32_t arity,
                              const uint32_t *slots)
{
    uint64_t index = 0;
    for (uint32_t i = 0; i < arity; i++) index = index * network->domain_size[scope[i]] + slots[i];
    return index;
}

typedef struct slot_table {
    uint32_t *tuples;
    size_t count, capacity; /* in tuples */
} slot_table;

static int table_push(slot_table *table, const uint32_t *slots, uint32_t arity)
{
    if (table->count == table->capacity) {
        size_t capacity = table->capacity ? table->capacity * 2 : 64;
        uint32_t *grown = realloc(table->tuples, capacity * arity * sizeof *grown);
        if (!grown) return -1;
        table->tuples = grown;
        table->capacity = capacity;
    }
    memcpy(table->tuples + table->count * arity, slots, arity * sizeof *slots);
    table->count++;
    return 0;
}

/* Calls visit for every full slot tuple that matches a tuple with stars (-2 = any); stops with
 * visit's negative answer. */
static int expand_stars(const parac_csp_network *network, const uint32_t *scope, uint32_t arity, const int64_t *pattern,
                        uint32_t *slots, int (*visit)(void *, const uint32_t *), void *context)
{
    for (uint32_t i = 0; i < arity; i++) slots[i] = pattern[i] < 0 ? 0 : (uint32_t)pattern[i];
    for (;;) {
        uint32_t i;
        int visited = visit(context, slots);
        if (visited < 0) return visited;
        for (i = arity; i-- > 0;) {
            if (pattern[i] >= 0) continue;
            if (++slots[i] < network->domain_size[scope[i]]) break;
            slots[i] = 0;
        }
        if (i == UINT32_MAX) return 0;
    }
}

typedef struct nary_context {
    const parac_csp_network *network;
    const uint32_t *scope;
    uint32_t arity;
    slot_table table;  /* supports */
    parac_word *marked; /* conflicts: one bit per product index */
    uint64_t visits, max_visits; /* full tuples visited: the listed ones plus what '*' expands to */
} nary_context;

static int visit_support(void *context, const uint32_t *slots)
{
    nary_context *c = context;
    if (++c->visits > c->max_visits) return -2;
    return table_push(&c->table, slots, c->arity);
}

static int visit_conflict(void *context, const uint32_t *slots)
{
    nary_context *c = context;
    if (++c->visits > c->max_visits) return -2;
    parac_bitset_set(c->marked, (size_t)product_index(c->network, c->scope, c->arity, slots));
    return 0;
}

/* Conflicts become supports by walking the product and keeping unmarked tuples. */
static int complement_conflicts(nary_context *c, uint32_t *slots)
{
    uint64_t index = 0;
    memset(slots, 0, c->arity * sizeof *slots);
    do {
        if (!parac_bitset_test(c->marked, (size_t)index) && table_push(&c->table, slots, c->arity) < 0) return -1;
        index++;
    } while (next_combination(c->network, c->scope, c->arity, slots));
    return 0;
}

static parac_status add_nary_extension(parac_csp_network *network, const uint32_t *scope, uint32_t arity,
                                       const xcsp_tuples *tuples, int supports, const xcsp_site *site,
                                       parac_error *error)
{
    nary_context c = {network, scope, arity, {0}, NULL, 0, 0};
    uint64_t product = product_size(network, scope, arity);
    uint32_t *slots = malloc(arity * sizeof *slots);
    int64_t *pattern = malloc(arity * sizeof *pattern);
    parac_status status = PARAC_OK;
    if (!supports && product > site->max_table_tuples) {
        free(slots);
        free(pattern);
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "conflicts table over %u variables spans %llu tuples (limit %llu)", arity,
                             (unsigned long long)product, (unsigned long long)site->max_table_tuples);
    }
    if (!supports) c.marked = calloc(parac_bitset_words((size_t)product) + 1, sizeof *c.marked);
    if (!slots || !pattern || (!supports && !c.marked)) goto no_memory;
    c.max_visits = site->max_table_tuples + tuples->count; /* '*' may add at most max_table_tuples */
    for (size_t t = 0; t < tuples->count; t++) {
        int expanded;
        if (!tuple_slots(network, scope, arity, tuples->values + t * arity, pattern)) continue;
        expanded = expand_stars(network, scope, arity, pattern, slots, supports ? visit_support : visit_conflict, &c);
        if (expanded == -2) {
            status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                                   "table over %u variables: its '*' tuples expand past %llu tuples (limit)", arity,
                                   (unsigned long long)site->max_table_tuples);
            goto done;
        }
        if (expanded < 0) goto no_memory;
    }
    if (!supports && complement_conflicts(&c, slots) < 0) goto no_memory;
    status = parac_csp_add_table(network, arity, scope, c.table.tuples, c.table.count, error);
    goto done;
no_memory:
    status = parac_fail_no_memory(error, "table constraint", c.table.count * arity * 4);
done:
    free(slots);
    free(pattern);
    free(c.table.tuples);
    free(c.marked);
    return status;
}

static parac_status add_unary_extension(parac_csp_network *network, uint32_t var, const xcsp_tuples *tuples,
                                        int supports, parac_error *error)
{
    uint32_t size = network->domain_size[var];
    parac_word *listed = calloc(parac_bitset_words(size) + 1, sizeof *listed);
    if (!listed) return parac_fail_no_memory(error, "unary constraint", size / 8 + 8);
    for (size_t t = 0; t < tuples->count; t++) {
        int64_t slot = tuples->values[t] == XCSP_STAR ? -2 : xcsp_slot_of(network, var, tuples->values[t]);
        if (slot == -2) parac_bitset_fill(listed, size);
        else if (slot >= 0) parac_bitset_set(listed, (size_t)slot);
    }
    for (uint32_t a = 0; a < size; a++)
        if (parac_bitset_test(listed, a) != supports) parac_csp_remove_initial_value(network, var, a);
    free(listed);
    return PARAC_OK;
}

parac_status xcsp_add_extension(parac_csp_network *network, const uint32_t *scope, uint32_t arity,
                                const xcsp_tuples *tuples, int supports, const xcsp_site *site, parac_error *error)
{
    if (arity == 1) return add_unary_extension(network, scope[0], tuples, supports, error);
    if (arity == 2 && scope[0] != scope[1]) return add_binary_extension(network, scope, tuples, supports, site, error);
    return add_nary_extension(network, scope, arity, tuples, supports, site, error);
}

/* ---- intension ---------------------------------------------------------------------------- */

typedef struct intension {
    uint32_t scope[64];
    uint32_t arity;
    int64_t *operands;  /* values handed to the evaluator */
    int32_t *position;  /* operand -> scope position, or -1 for a constant */
    int64_t *stack;
    uint8_t *states;    /* the evaluator's state per stack entry */
} intension;

/* Distinct variables of the operands, in order of first appearance. */
static int collect_scope(intension *in, const int64_t *operand_var, size_t operand_count)
{
    in->arity = 0;
    for (size_t k = 0; k < operand_count; k++) {
        uint32_t p = 0;
        if (operand_var[k] < 0) {
            in->position[k] = -1;
            continue;
        }
        while (p < in->arity && in->scope[p] != (uint32_t)operand_var[k]) p++;
        if (p == in->arity) {
            if (in->arity == 64) return -1;
            in->scope[in->arity++] = (uint32_t)operand_var[k];
        }
        in->position[k] = (int32_t)p;
    }
    return 0;
}

/* The expression's value at these scope slots: 1 and *result, 0 when undefined, -1 on overflow. */
static int evaluate_at(const parac_csp_network *network, const xcsp_expr *expr, intension *in, size_t operand_count,
                       const uint32_t *slots, int64_t *result)
{
    for (size_t k = 0; k < operand_count; k++) {
        int32_t p = in->position[k];
        if (p >= 0) in->operands[k] = network->values[network->value_offset[in->scope[p]] + slots[p]];
    }
    return xcsp_expr_eval(expr, in->operands, in->stack, in->states, result);
}

/* 1 when the expression holds at these scope slots, 0 when not (or undefined), -1 on overflow. */
static int holds(const parac_csp_network *network, const xcsp_expr *expr, intension *in, size_t operand_count,
                 const uint32_t *slots)
{
    int64_t result;
    int evaluated = evaluate_at(network, expr, in, operand_count, slots, &result);
    return evaluated < 0 ? -1 : evaluated && result != 0;
}

/* Refuses a constraint whose expression overflows 64 bits at `slots`, naming the tuple. */
static parac_status fail_overflow(const parac_csp_network *network, const intension *in, const uint32_t *slots,
                                  const xcsp_site *site, parac_error *error)
{
    char tuple[160] = "";
    size_t used = 0;
    for (uint32_t p = 0; p < in->arity && p < 4 && used < sizeof tuple; p++)
        used += (size_t)snprintf(tuple + used, sizeof tuple - used, "%s%s=%lld", p ? ", " : "",
                                 network->variable_names[in->scope[p]],
                                 (long long)network->values[network->value_offset[in->scope[p]] + (slots ? slots[p] : 0)]);
    return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                         "intension arithmetic overflows 64-bit integers%s%s%s", in->arity ? " at (" : "", tuple,
                         in->arity ? (in->arity > 4 ? ", ...)" : ")") : "");
}

/* Evaluation steps (tuples times program length) allowed per tuple of max_table_tuples: 10^10 steps,
 * tens of seconds, with the default 10^7. */
#define INTENSION_STEPS_PER_TUPLE 1000

/* PARAC_OK when evaluating expr on every one of `product` tuples fits the budgets. */
static parac_status intension_work_fits(const xcsp_expr *expr, uint32_t arity, uint64_t product, const xcsp_site *site,
                                        parac_error *error)
{
    uint64_t steps;
    if (product > site->max_table_tuples)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "intension over %u variables spans %llu tuples (limit %llu)", arity,
                             (unsigned long long)product, (unsigned long long)site->max_table_tuples);
    /* the work of one constraint: every tuple runs the whole program (a 10^7-byte expression over
     * 10^7 tuples would run for days) */
    if (__builtin_mul_overflow(product, (uint64_t)expr->count, &steps) ||
        steps / INTENSION_STEPS_PER_TUPLE > site->max_table_tuples)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "intension of %zu operations over %llu tuples: more than %llu evaluation steps (limit: "
                             "%d per allowed table tuple)", expr->count, (unsigned long long)product,
                             (unsigned long long)site->max_table_tuples * INTENSION_STEPS_PER_TUPLE,
                             INTENSION_STEPS_PER_TUPLE);
    return PARAC_OK;
}

static parac_status enumerate_intension(parac_csp_network *network, const xcsp_expr *expr, intension *in,
                                        size_t operand_count, const xcsp_site *site, parac_error *error)
{
    uint64_t product = product_size(network, in->scope, in->arity);
    slot_table table = {0};
    uint32_t slots[64] = {0};
    parac_status status = intension_work_fits(expr, in->arity, product, site, error);
    if (status != PARAC_OK) return status;
    if (product) do {
            int allowed = holds(network, expr, in, operand_count, slots);
            if (allowed < 0) {
                free(table.tuples);
                return fail_overflow(network, in, slots, site, error);
            }
            if (allowed && table_push(&table, slots, in->arity) < 0) {
                free(table.tuples);
                return parac_fail_no_memory(error, "intension table", table.count * in->arity * 4);
            }
        } while (next_combination(network, in->scope, in->arity, slots));
    status = parac_csp_add_table(network, in->arity, in->scope, table.tuples, table.count, error);
    free(table.tuples);
    return status;
}

/* The evaluator's buffers for expr and its operands, and the scope; PARAC_OK or an error. */
static parac_status intension_begin(intension *in, const xcsp_expr *expr, const int64_t *operand_var,
                                    const int64_t *operand_constant, size_t operand_count, const xcsp_site *site,
                                    parac_error *error)
{
    memset(in, 0, sizeof *in);
    in->operands = malloc((operand_count + 1) * sizeof *in->operands);
    in->position = malloc((operand_count + 1) * sizeof *in->position);
    in->stack = malloc((expr->max_stack + 1) * sizeof *in->stack);
    in->states = malloc(expr->max_stack + 1);
    if (!in->operands || !in->position || !in->stack || !in->states)
        return parac_fail_no_memory(error, "intension", operand_count * 8);
    for (size_t k = 0; k < operand_count; k++) in->operands[k] = operand_constant ? operand_constant[k] : 0;
    if (collect_scope(in, operand_var, operand_count) < 0)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line, "intension over more than 64 variables");
    return PARAC_OK;
}

static void intension_end(intension *in)
{
    free(in->operands);
    free(in->position);
    free(in->stack);
    free(in->states);
}

parac_status xcsp_add_intension(parac_csp_network *network, const xcsp_expr *expr, const int64_t *operand_var,
                                const int64_t *operand_constant, size_t operand_count, const xcsp_site *site,
                                parac_error *error)
{
    intension in;
    parac_status status = intension_begin(&in, expr, operand_var, operand_constant, operand_count, site, error);
    if (status != PARAC_OK) {
        /* reported by intension_begin */
    } else if (in.arity == 0) {
        int64_t result;
        int evaluated = xcsp_expr_eval(expr, in.operands, in.stack, in.states, &result);
        if (evaluated < 0) status = fail_overflow(network, &in, NULL, site, error);
        else if (!evaluated || !result)
            status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                                   "intension without variables is always false");
    } else {
        status = enumerate_intension(network, expr, &in, operand_count, site, error);
    }
    intension_end(&in);
    return status;
}

/* ---- expressions as terms of a list ------------------------------------------------------- */

static int compare_values(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The value of expr at every combination of in's scope (defined[t] = 0 where it is undefined). */
static parac_status expression_image(const parac_csp_network *network, const xcsp_expr *expr, intension *in,
                                     size_t operand_count, uint64_t product, const xcsp_site *site, int64_t *results,
                                     uint8_t *defined, parac_error *error)
{
    uint32_t slots[64] = {0};
    uint64_t t = 0;
    if (product) do {
            int evaluated = evaluate_at(network, expr, in, operand_count, slots, &results[t]);
            if (evaluated < 0) return fail_overflow(network, in, slots, site, error);
            defined[t++] = (uint8_t)evaluated;
        } while (next_combination(network, in->scope, in->arity, slots));
    return PARAC_OK;
}

/* The auxiliary variable z = expr over in's scope: its domain is the image of expr, its table
 * (scope..., z) the graph of expr (one tuple per combination where expr is defined). */
static parac_status add_expression_table(parac_csp_network *network, const xcsp_expr *expr, intension *in,
                                         size_t operand_count, const char *name, uint64_t max_values,
                                         const xcsp_site *site, int64_t *var, parac_error *error)
{
    uint64_t product = product_size(network, in->scope, in->arity);
    parac_status status = intension_work_fits(expr, in->arity, product, site, error);
    int64_t *results = NULL, *image = NULL;
    uint8_t *defined = NULL;
    uint32_t *tuples = NULL, scope[65], slots[64] = {0}, aux;
    size_t distinct = 0, rows = 0;
    if (status != PARAC_OK) return status;
    results = malloc((product + 1) * sizeof *results);
    image = malloc((product + 1) * sizeof *image);
    defined = malloc(product + 1);
    tuples = malloc((product + 1) * (in->arity + 1) * sizeof *tuples);
    if (!results || !image || !defined || !tuples) {
        status = parac_fail_no_memory(error, "expression term", (product + 1) * (in->arity + 17) * 4);
        goto done;
    }
    status = expression_image(network, expr, in, operand_count, product, site, results, defined, error);
    if (status != PARAC_OK) goto done;
    for (uint64_t t = 0; t < product; t++)
        if (defined[t]) image[distinct++] = results[t];
    qsort(image, distinct, sizeof *image, compare_values);
    if (distinct) {
        size_t kept = 1;
        for (size_t i = 1; i < distinct; i++)
            if (image[i] != image[kept - 1]) image[kept++] = image[i];
        distinct = kept;
    }
    if (network->value_count + distinct > max_values) {
        status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                               "an expression term's values take the domains past %llu values (the value budget)",
                               (unsigned long long)max_values);
        goto done;
    }
    status = parac_csp_add_auxiliary_variable(network, name, image, (uint32_t)distinct, &aux, error);
    if (status != PARAC_OK) goto done;
    memcpy(scope, in->scope, in->arity * sizeof *scope);
    scope[in->arity] = aux;
    for (uint64_t t = 0; t < product; t++, next_combination(network, in->scope, in->arity, slots)) {
        int64_t *at;
        if (!defined[t]) continue;
        at = bsearch(&results[t], image, distinct, sizeof *image, compare_values);
        memcpy(tuples + rows * (in->arity + 1), slots, in->arity * sizeof *slots);
        tuples[rows * (in->arity + 1) + in->arity] = (uint32_t)(at - image);
        rows++;
    }
    status = parac_csp_add_table(network, in->arity + 1, scope, tuples, rows, error);
    *var = aux;
done:
    free(results);
    free(image);
    free(defined);
    free(tuples);
    return status;
}

parac_status xcsp_add_expression_variable(parac_csp_network *network, const xcsp_expr *expr, const int64_t *operand_var,
                                          const int64_t *operand_constant, size_t operand_count, const char *name,
                                          uint64_t max_values, const xcsp_site *site, int64_t *var, int64_t *constant,
                                          parac_error *error)
{
    intension in;
    parac_status status = intension_begin(&in, expr, operand_var, operand_constant, operand_count, site, error);
    *var = -1;
    *constant = 0;
    if (status != PARAC_OK) {
        /* reported by intension_begin */
    } else if (in.arity == 0) { /* add(2,3): a constant */
        int evaluated = xcsp_expr_eval(expr, in.operands, in.stack, in.states, constant);
        if (evaluated < 0) status = fail_overflow(network, &in, NULL, site, error);
        else if (!evaluated)
            status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                                   "an expression term without variables that has no value (division by zero)");
    } else {
        status = add_expression_table(network, expr, &in, operand_count, name, max_values, site, var, error);
    }
    intension_end(&in);
    return status;
}

/* ---- names -------------------------------------------------------------------------------- */

typedef struct name_key {
    const char *text;
    size_t length;
} name_key;

static uint64_t entry_hash(const void *context, size_t item)
{
    const char *key = ((const xcsp_names *)context)->keys[item];
    return parac_hash_bytes(key, strlen(key));
}

static int entry_matches(const void *context, size_t item, const void *key)
{
    const char *stored = ((const xcsp_names *)context)->keys[item];
    const name_key *k = key;
    return strncmp(stored, k->text, k->length) == 0 && stored[k->length] == '\0';
}

static size_t names_find(const xcsp_names *names, const char *key, size_t length, size_t *slot)
{
    name_key k = {key, length};
    return parac_hash_index_find(&names->index, parac_hash_bytes(key, length), &k, entry_matches, names, slot);
}

/* Room for one more entry in the arrays and the index: 0, or -1 out of memory. */
static int names_reserve(xcsp_names *names)
{
    if (names->count == names->capacity) {
        size_t capacity = names->capacity ? names->capacity * 2 : 64;
        char **keys = realloc(names->keys, capacity * sizeof *keys);
        int64_t *values;
        if (!keys) return -1;
        names->keys = keys;
        if (!(values = realloc(names->values, capacity * sizeof *values))) return -1;
        names->values = values;
        names->capacity = capacity;
    }
    return parac_hash_index_reserve(&names->index, entry_hash, names);
}

int xcsp_names_put(xcsp_names *names, const char *key, size_t length, int64_t value)
{
    size_t slot, entry;
    char *copy;
    if (names_reserve(names) < 0) return -1;
    entry = names_find(names, key, length, &slot);
    if (entry != SIZE_MAX) {
        names->values[entry] = value;
        return 0;
    }
    if (!(copy = malloc(length + 1))) return -1;
    memcpy(copy, key, length);
    copy[length] = '\0';
    names->keys[names->count] = copy;
    names->values[names->count] = value;
    parac_hash_index_insert(&names->index, slot, names->count++);
    return 0;
}

int64_t xcsp_names_get(const xcsp_names *names, const char *key, size_t length)
{
    size_t entry = names_find(names, key, length, NULL);
    return entry == SIZE_MAX ? -1 : names->values[entry];
}

void xcsp_names_free(xcsp_names *names)
{
    for (size_t i = 0; i < names->count; i++) free(names->keys[i]);
    free(names->keys);
    free(names->values);
    parac_hash_index_free(&names->index);
    memset(names, 0, sizeof *names);
}
