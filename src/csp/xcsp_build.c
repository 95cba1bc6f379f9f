/* csp/xcsp_build.c — variables and extension constraints into the network, shared by the XCSP
 * readers (csp/xcsp_build.h): a value's slot, variables within the budgets, and extension tuples
 * (supports or conflicts, '*') as a binary matrix or an n-ary table of slots. Tokenizing is in
 * xcsp_tokens.c, intension in xcsp_intension.c, the name table in xcsp_names.c. */
#include "csp/xcsp_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp_slot_space.h"

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

/* Flat index of a full slot tuple in the product space. */
static uint64_t product_index(const parac_csp_network *network, const uint32_t *scope, uint32_t arity,
                              const uint32_t *slots)
{
    uint64_t index = 0;
    for (uint32_t i = 0; i < arity; i++) index = index * network->domain_size[scope[i]] + slots[i];
    return index;
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
    return xcsp_table_push(&c->table, slots, c->arity);
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
        if (!parac_bitset_test(c->marked, (size_t)index) && xcsp_table_push(&c->table, slots, c->arity) < 0) return -1;
        index++;
    } while (xcsp_next_combination(c->network, c->scope, c->arity, slots));
    return 0;
}

static parac_status add_nary_extension(parac_csp_network *network, const uint32_t *scope, uint32_t arity,
                                       const xcsp_tuples *tuples, int supports, const xcsp_site *site,
                                       parac_error *error)
{
    nary_context c = {network, scope, arity, {0}, NULL, 0, 0};
    uint64_t product = xcsp_product_size(network, scope, arity);
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
