/* csp/xcsp3_writer.c — a network as XCSP3 (parac_csp_write_xcsp3, and
 * xcsp3_write_reduced for `parac ac --write-reduced`).
 *
 * Variables keep their names when the names are those an XCSP3 reader gives
 * (plain ids, and arrays whose cells "a[i][j]" follow each other row-major:
 * each becomes an <array> again); otherwise they are written as one array
 * x[N], and an instance with an objective (which names variables) is then
 * refused. Domains are the initially present values, or the values an AC run
 * left. Each binary constraint lists its supports or its conflicts, whichever
 * is shorter, as values; tables list their supports; global constraints are
 * written back in XCSP3 syntax (put_global); objectives are copied verbatim. Constraints are formatted in
 * parallel into per-constraint text blocks, then written in order, so the
 * bytes do not depend on the thread count; a 10^8-edge network is written in
 * seconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/threads.h"
#include "csp/csp_handle.h"
#include "csp/xcsp3_writer.h"
#include "csp/xcsp_build.h"

#define WRITE_BATCH 4096

typedef struct text {
    char *data;
    size_t length, capacity;
    int failed;
} text;

static void reserve(text *t, size_t more)
{
    size_t capacity;
    char *grown;
    if (t->length + more <= t->capacity || t->failed) return;
    capacity = t->capacity ? t->capacity : 4096;
    while (capacity < t->length + more) capacity *= 2;
    grown = realloc(t->data, capacity);
    if (!grown) {
        t->failed = 1;
        return;
    }
    t->data = grown;
    t->capacity = capacity;
}

static void put(text *t, const char *s)
{
    size_t n = strlen(s);
    reserve(t, n);
    if (t->failed) return;
    memcpy(t->data + t->length, s, n);
    t->length += n;
}

static void put_int(text *t, int64_t value)
{
    char digits[24];
    int n = 0;
    uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    reserve(t, 24);
    if (t->failed) return;
    do {
        digits[n++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (value < 0) t->data[t->length++] = '-';
    while (n) t->data[t->length++] = digits[--n];
}

/* What is written: the network, the domains (AC's result or the initial ones), and how variables
 * are named. */
typedef struct writer {
    const parac_csp_network *n;
    const parac_word *domains; /* value-id bitset of the values to write */
    int named;                 /* 1: variables keep their names; 0: x[i] */
} writer;

static int present(const writer *w, uint32_t var, uint32_t slot)
{
    return parac_bitset_test(w->domains, (size_t)(w->n->value_offset[var] + slot));
}

static void put_domain(text *t, const writer *w, uint32_t var)
{
    const parac_csp_network *n = w->n;
    for (uint32_t s = 0; s < n->domain_size[var]; s++) {
        if (!present(w, var, s)) continue;
        put(t, " ");
        put_int(t, n->values[n->value_offset[var] + s]);
    }
}

static int same_domain(const writer *w, size_t v, size_t first)
{
    const parac_csp_network *n = w->n;
    if (n->domain_size[v] != n->domain_size[first]) return 0;
    for (uint32_t s = 0; s < n->domain_size[v]; s++)
        if (n->values[n->value_offset[v] + s] != n->values[n->value_offset[first] + s] ||
            present(w, (uint32_t)v, s) != present(w, (uint32_t)first, s))
            return 0;
    return 1;
}

static void put_variable(text *t, const writer *w, size_t v)
{
    if (!w->named) {
        put(t, "x[");
        put_int(t, (int64_t)v);
        put(t, "]");
    } else {
        put(t, w->n->variable_names[v]);
    }
}

static void put_term(text *t, const writer *w, const ac_term *term)
{
    if (term->var >= 0) put_variable(t, w, (size_t)term->var);
    else put_int(t, term->value);
}

/* ---- variables: named arrays rebuilt from "a[i][j]" names ---------------------------------- */

#define MAX_NAME_DIMS 8

typedef struct array_run {
    size_t first, count;   /* variables first .. first + count - 1 */
    size_t base_length;    /* "a" in "a[i][j]"; 0 for a plain <var> */
    uint64_t dims[MAX_NAME_DIMS];
    unsigned dim_count;
} array_run;

/* The indices of name "a[i][j]..." after a base of base_length characters. -1 when malformed. */
static int name_indices(const char *name, size_t base_length, uint64_t *indices, unsigned *count)
{
    const char *at = name + base_length;
    *count = 0;
    while (*at == '[') {
        uint64_t value = 0;
        at++;
        if (*at < '0' || *at > '9' || *count == MAX_NAME_DIMS) return -1;
        while (*at >= '0' && *at <= '9') {
            if (value > UINT32_MAX) return -1;
            value = value * 10 + (uint64_t)(*at++ - '0');
        }
        if (*at++ != ']') return -1;
        indices[(*count)++] = value;
    }
    return *at == '\0' && *count ? 0 : -1;
}

static int is_identifier(const char *name, size_t length)
{
    if (!length || !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_')) return 0;
    for (size_t i = 1; i < length; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return 0;
    }
    return 1;
}

/* The run of variables from `first` that forms one array (cells in row-major order, starting at
 * [0]...[0], ending at the last cell), or one plain variable. -1 when the names form neither. */
static int next_run(const parac_csp_network *n, size_t first, array_run *run)
{
    const char *name = n->variable_names[first];
    const char *bracket = strchr(name, '[');
    uint64_t indices[MAX_NAME_DIMS], expected = 0;
    unsigned count;
    memset(run, 0, sizeof *run);
    run->first = first;
    if (!bracket) {
        run->count = 1;
        return is_identifier(name, strlen(name)) ? 0 : -1;
    }
    run->base_length = (size_t)(bracket - name);
    if (!is_identifier(name, run->base_length) || name_indices(name, run->base_length, indices, &run->dim_count) < 0) return -1;
    /* the run: consecutive variables with this base; its last cell gives the dimensions */
    size_t end = first;
    while (end < n->variable_count && strncmp(n->variable_names[end], name, run->base_length) == 0 &&
           n->variable_names[end][run->base_length] == '[')
        end++;
    if (name_indices(n->variable_names[end - 1], run->base_length, run->dims, &count) < 0 || count != run->dim_count) return -1;
    for (unsigned d = 0; d < count; d++) run->dims[d]++;
    for (size_t v = first; v < end; v++, expected++) {
        uint64_t rest = expected;
        if (name_indices(n->variable_names[v], run->base_length, indices, &count) < 0 || count != run->dim_count) return -1;
        for (unsigned d = count; d-- > 0;) {
            if (indices[d] != rest % run->dims[d]) return -1;
            rest /= run->dims[d];
        }
        if (rest) return -1;
    }
    {
        uint64_t cells = 1;
        for (unsigned d = 0; d < count; d++) cells *= run->dims[d]; /* = expected, so no overflow */
        if (cells != expected) return -1;
    }
    run->count = end - first;
    return 0;
}

/* 1 when every variable's name can be written back (plain ids and whole arrays, each base once). */
static int names_writable(const parac_csp_network *n)
{
    array_run run;
    xcsp_names seen = {0};
    int ok = 1;
    for (size_t v = 0; v < n->variable_count && ok; v += run.count) {
        const char *name = n->variable_names[v];
        size_t length;
        if (next_run(n, v, &run) < 0) {
            ok = 0;
            break;
        }
        length = run.base_length ? run.base_length : strlen(name);
        if (xcsp_names_get(&seen, name, length) >= 0 || xcsp_names_put(&seen, name, length, 1) < 0) ok = 0;
    }
    xcsp_names_free(&seen);
    return ok;
}

static void put_array(text *t, const writer *w, const array_run *run)
{
    const parac_csp_network *n = w->n;
    int shared = 1;
    for (size_t v = run->first + 1; v < run->first + run->count && shared; v++) shared = same_domain(w, v, run->first);
    put(t, "    <array id=\"");
    reserve(t, run->base_length);
    if (!t->failed) {
        memcpy(t->data + t->length, n->variable_names[run->first], run->base_length);
        t->length += run->base_length;
    }
    put(t, "\" size=\"");
    for (unsigned d = 0; d < run->dim_count; d++) {
        put(t, "[");
        put_int(t, (int64_t)run->dims[d]);
        put(t, "]");
    }
    put(t, "\">");
    if (shared) {
        put_domain(t, w, (uint32_t)run->first);
        put(t, " </array>\n");
        return;
    }
    put(t, "\n");
    for (size_t v = run->first; v < run->first + run->count; v++) {
        put(t, "      <domain for=\"");
        put(t, n->variable_names[v]);
        put(t, "\">");
        put_domain(t, w, (uint32_t)v);
        put(t, " </domain>\n");
    }
    put(t, "    </array>\n");
}

static void put_named_variables(text *t, const writer *w)
{
    array_run run;
    for (size_t v = 0; v < w->n->variable_count; v += run.count) {
        next_run(w->n, v, &run); /* names_writable checked every run */
        if (run.base_length) {
            put_array(t, w, &run);
            continue;
        }
        put(t, "    <var id=\"");
        put(t, w->n->variable_names[v]);
        put(t, "\">");
        put_domain(t, w, (uint32_t)v);
        put(t, " </var>\n");
    }
}

static void put_flat_variables(text *t, const writer *w)
{
    const parac_csp_network *n = w->n;
    int shared = 1;
    for (size_t v = 1; v < n->variable_count && shared; v++) shared = same_domain(w, v, 0);
    put(t, "    <array id=\"x\" size=\"[");
    put_int(t, (int64_t)n->variable_count);
    put(t, "]\">");
    if (n->variable_count && shared) {
        put_domain(t, w, 0);
        put(t, " </array>\n");
        return;
    }
    put(t, "\n");
    for (size_t v = 0; v < n->variable_count; v++) {
        put(t, "      <domain for=\"x[");
        put_int(t, (int64_t)v);
        put(t, "]\">");
        put_domain(t, w, (uint32_t)v);
        put(t, " </domain>\n");
    }
    put(t, "    </array>\n");
}

static void put_variables(text *t, const writer *w, const char *type)
{
    put(t, "<instance format=\"XCSP3\" type=\"");
    put(t, type);
    put(t, "\">\n  <variables>\n");
    if (w->named) put_named_variables(t, w);
    else put_flat_variables(t, w);
    put(t, "  </variables>\n  <constraints>\n");
}

/* ---- binary and table constraints ----------------------------------------------------------- */

static void put_scope(text *t, const writer *w, const parac_csp_constraint *c)
{
    put(t, "    <extension>\n      <list>");
    for (uint32_t i = 0; i < c->arity; i++) {
        put(t, " ");
        put_variable(t, w, c->scope[i]);
    }
    put(t, " </list>\n");
}

static void put_binary(text *t, const writer *w, const parac_csp_constraint *c)
{
    const parac_csp_network *n = w->n;
    uint32_t x = c->scope[0], y = c->scope[1];
    uint64_t allowed = 0, pairs = 0;
    int as_supports;
    for (uint32_t a = 0; a < n->domain_size[x]; a++) {
        if (!present(w, x, a)) continue;
        for (uint32_t b = 0; b < n->domain_size[y]; b++) {
            if (!present(w, y, b)) continue;
            pairs++;
            allowed += (uint64_t)parac_bitset_test(c->matrix + (size_t)a * c->row_words, b);
        }
    }
    as_supports = allowed * 2 <= pairs;
    put_scope(t, w, c);
    put(t, as_supports ? "      <supports> " : "      <conflicts> ");
    for (uint32_t a = 0; a < n->domain_size[x]; a++) {
        if (!present(w, x, a)) continue;
        for (uint32_t b = 0; b < n->domain_size[y]; b++) {
            if (!present(w, y, b) || parac_bitset_test(c->matrix + (size_t)a * c->row_words, b) != as_supports) continue;
            put(t, "(");
            put_int(t, n->values[n->value_offset[x] + a]);
            put(t, ",");
            put_int(t, n->values[n->value_offset[y] + b]);
            put(t, ")");
        }
    }
    put(t, as_supports ? " </supports>\n    </extension>\n" : " </conflicts>\n    </extension>\n");
}

static void put_table(text *t, const writer *w, const parac_csp_constraint *c)
{
    const parac_csp_network *n = w->n;
    put_scope(t, w, c);
    put(t, "      <supports> ");
    for (size_t k = 0; k < c->tuple_count; k++) {
        const uint32_t *tuple = c->tuples + k * c->arity;
        int all_present = 1;
        for (uint32_t i = 0; i < c->arity; i++) all_present &= present(w, c->scope[i], tuple[i]);
        if (!all_present) continue;
        for (uint32_t i = 0; i < c->arity; i++) {
            put(t, i ? "," : "(");
            put_int(t, n->values[n->value_offset[c->scope[i]] + tuple[i]]);
        }
        put(t, ")");
    }
    put(t, " </supports>\n    </extension>\n");
}

/* ---- global constraints, in XCSP3 syntax ---------------------------------------------------- */

static void put_terms(text *t, const writer *w, const ac_term *terms, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        put(t, " ");
        put_term(t, w, &terms[i]);
    }
}

static void put_integers(text *t, const int64_t *values, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        put(t, " ");
        put_int(t, values[i]);
    }
}

/* <name> terms </name> */
static void put_element(text *t, const char *name, const writer *w, const ac_term *terms, size_t count)
{
    put(t, "      <");
    put(t, name);
    put(t, ">");
    put_terms(t, w, terms, count);
    put(t, " </");
    put(t, name);
    put(t, ">\n");
}

static void put_list_from(text *t, const writer *w, const parac_csp_global *g, size_t l, int64_t start_index)
{
    put(t, "      <list");
    if (start_index) {
        put(t, " startIndex=\"");
        put_int(t, start_index);
        put(t, "\"");
    }
    put(t, ">");
    put_terms(t, w, g->lists[l], g->list_length[l]);
    put(t, " </list>\n");
}

static const char *operator_name(ac_operator op)
{
    static const char *const names[] = {"", "lt", "le", "ge", "gt", "eq", "ne", "in", "notin"};
    return op >= AC_OP_NONE && op <= AC_OP_NOT_IN ? names[op] : "";
}

static void put_condition(text *t, const writer *w, const ac_condition *c)
{
    if (c->op == AC_OP_NONE) return;
    put(t, "      <condition> (");
    put(t, operator_name(c->op));
    put(t, ",");
    if (c->op != AC_OP_IN && c->op != AC_OP_NOT_IN) {
        put_term(t, w, &c->operand);
    } else if (c->is_range) {
        put_int(t, c->low);
        put(t, "..");
        put_int(t, c->high);
    } else {
        put(t, "{");
        for (size_t i = 0; i < c->set_count; i++) {
            if (i) put(t, ",");
            put_int(t, c->set[i]);
        }
        put(t, "}");
    }
    put(t, ") </condition>\n");
}

static void put_except(text *t, const parac_csp_global *g)
{
    if (!g->value_count) return;
    put(t, "      <except>");
    put_integers(t, g->values, g->value_count);
    put(t, " </except>\n");
}

static void put_operator(text *t, ac_operator op)
{
    put(t, "      <operator> ");
    put(t, operator_name(op));
    put(t, " </operator>\n");
}

/* (from,value,to) triples with states named q0, q1, ... */
static void put_transitions(text *t, const parac_csp_global *g)
{
    put(t, "      <transitions>");
    for (size_t k = 0; k < g->transition_count; k++) {
        put(t, " (q");
        put_int(t, g->transitions[3 * k]);
        put(t, ",");
        put_int(t, g->transitions[3 * k + 1]);
        put(t, ",q");
        put_int(t, g->transitions[3 * k + 2]);
        put(t, ")");
    }
    put(t, " </transitions>\n");
}

/* k-dimensional boxes as (a,b)(c,d); one dimension as a plain list. */
static void put_boxes(text *t, const char *name, const writer *w, const ac_term *terms, size_t count, int64_t k)
{
    if (k <= 1) {
        put_element(t, name, w, terms, count);
        return;
    }
    put(t, "      <");
    put(t, name);
    put(t, "> ");
    for (size_t i = 0; i < count; i++) {
        put(t, i % (size_t)k == 0 ? "(" : ",");
        put_term(t, w, &terms[i]);
        if (i % (size_t)k == (size_t)k - 1) put(t, ")");
    }
    put(t, " </");
    put(t, name);
    put(t, ">\n");
}

static void put_cardinality(text *t, const writer *w, const parac_csp_global *g)
{
    put_list_from(t, w, g, 0, 0);
    put(t, g->closed ? "      <values closed=\"true\">" : "      <values>");
    put_terms(t, w, g->lists[1], g->list_length[1]);
    put(t, " </values>\n      <occurs>");
    for (size_t k = 0; k < g->list_length[2]; k++) {
        put(t, " ");
        if (g->has_ranges && g->lists[2][k].var < 0) {
            put_int(t, g->ranges[k].low);
            put(t, "..");
            put_int(t, g->ranges[k].high);
        } else {
            put_term(t, w, &g->lists[2][k]);
        }
    }
    put(t, " </occurs>\n");
}

static void put_element_global(text *t, const writer *w, const parac_csp_global *g)
{
    if (g->dims[1] > 0) {
        put(t, "      <matrix");
        if (g->start_index) put(t, " startRowIndex=\""), put_int(t, g->start_index), put(t, "\"");
        if (g->start_index2) put(t, " startColIndex=\""), put_int(t, g->start_index2), put(t, "\"");
        put(t, "> ");
        for (size_t i = 0; i < g->list_length[0]; i++) {
            put(t, i % (size_t)g->dims[1] == 0 ? "(" : ",");
            put_term(t, w, &g->lists[0][i]);
            if (i % (size_t)g->dims[1] == (size_t)g->dims[1] - 1) put(t, ")");
        }
        put(t, " </matrix>\n      <index> ");
        put_term(t, w, &g->index);
        put(t, " ");
        put_term(t, w, &g->index2);
        put(t, " </index>\n");
    } else {
        put_list_from(t, w, g, 0, g->start_index);
        put_element(t, "index", w, &g->index, 1);
    }
    put_condition(t, w, &g->condition);
}

static void put_global_body(text *t, const writer *w, const parac_csp_global *g)
{
    switch (g->kind) {
    case AC_GLOBAL_ALL_DIFFERENT:
    case AC_GLOBAL_ALL_EQUAL:
        put_list_from(t, w, g, 0, 0);
        put_except(t, g);
        break;
    case AC_GLOBAL_SUM:
        put_list_from(t, w, g, 0, 0);
        put(t, "      <coeffs>");
        put_integers(t, g->coeffs, g->coeff_count);
        put(t, " </coeffs>\n");
        put_condition(t, w, &g->condition);
        break;
    case AC_GLOBAL_COUNT:
        put_list_from(t, w, g, 0, 0);
        put_element(t, "values", w, g->lists[1], g->list_length[1]);
        put_condition(t, w, &g->condition);
        break;
    case AC_GLOBAL_NVALUES:
        put_list_from(t, w, g, 0, 0);
        put_except(t, g);
        put_condition(t, w, &g->condition);
        break;
    case AC_GLOBAL_CARDINALITY: put_cardinality(t, w, g); break;
    case AC_GLOBAL_ELEMENT: put_element_global(t, w, g); break;
    case AC_GLOBAL_CHANNEL:
        put_list_from(t, w, g, 0, g->start_index);
        if (g->list_count > 1) put_list_from(t, w, g, 1, g->start_index2);
        if (g->condition.op == AC_OP_EQ) put_element(t, "value", w, &g->condition.operand, 1);
        break;
    case AC_GLOBAL_ORDERED:
        put_list_from(t, w, g, 0, 0);
        if (g->coeff_count) {
            put(t, "      <lengths>");
            put_integers(t, g->coeffs, g->coeff_count);
            put(t, " </lengths>\n");
        }
        put_operator(t, g->op);
        break;
    case AC_GLOBAL_LEX:
        for (size_t l = 0; l < g->list_count; l++) put_list_from(t, w, g, l, 0);
        put_operator(t, g->op);
        break;
    case AC_GLOBAL_REGULAR:
        put_list_from(t, w, g, 0, 0);
        put_transitions(t, g);
        put(t, "      <start> q");
        put_int(t, g->start);
        put(t, " </start>\n      <final>");
        for (size_t k = 0; k < g->final_count; k++) put(t, " q"), put_int(t, g->finals[k]);
        put(t, " </final>\n");
        break;
    case AC_GLOBAL_MDD:
        put_list_from(t, w, g, 0, 0);
        put_transitions(t, g);
        break;
    case AC_GLOBAL_MINIMUM:
    case AC_GLOBAL_MAXIMUM:
        put_list_from(t, w, g, 0, 0);
        put_condition(t, w, &g->condition);
        break;
    case AC_GLOBAL_NO_OVERLAP:
        put_boxes(t, "origins", w, g->lists[0], g->list_length[0], g->dims[0]);
        put_boxes(t, "lengths", w, g->lists[1], g->list_length[1], g->dims[0]);
        break;
    case AC_GLOBAL_CUMULATIVE:
        put_element(t, "origins", w, g->lists[0], g->list_length[0]);
        put_element(t, "lengths", w, g->lists[1], g->list_length[1]);
        if (g->list_count > 3) put_element(t, "ends", w, g->lists[3], g->list_length[3]);
        put_element(t, "heights", w, g->lists[2], g->list_length[2]);
        put_condition(t, w, &g->condition);
        break;
    case AC_GLOBAL_CIRCUIT:
        put_list_from(t, w, g, 0, g->start_index);
        if (g->size.var >= 0 || g->size.value != 0) put_element(t, "size", w, &g->size, 1);
        break;
    case AC_GLOBAL_BIN_PACKING:
        put_list_from(t, w, g, 0, 0);
        put(t, "      <sizes>");
        put_integers(t, g->coeffs, g->coeff_count);
        put(t, " </sizes>\n");
        put_condition(t, w, &g->condition);
        break;
    case AC_GLOBAL_KNAPSACK: /* the first condition is on the weight, the second on the profit */
        put_list_from(t, w, g, 0, 0);
        put(t, "      <weights>");
        put_integers(t, g->coeffs, g->coeff_count);
        put(t, " </weights>\n");
        put_condition(t, w, &g->condition);
        put(t, "      <profits>");
        put_integers(t, g->values, g->value_count);
        put(t, " </profits>\n");
        put_condition(t, w, &g->condition2);
        break;
    default: break;
    }
}

static void put_global(text *t, const writer *w, const parac_csp_global *g)
{
    put(t, "    <");
    put(t, ac_global_kind_name(g->kind));
    if (g->kind == AC_GLOBAL_NO_OVERLAP && !g->zero_ignored) put(t, " zeroIgnored=\"false\"");
    put(t, ">\n");
    put_global_body(t, w, g);
    put(t, "    </");
    put(t, ac_global_kind_name(g->kind));
    put(t, ">\n");
}

/* Formats constraints [start, end) (binary and table ones first, then the globals) into texts[0..],
 * in parallel. 0 ok, -1 out of memory. */
static int format_batch(const writer *w, size_t start, size_t end, text *texts, int threads)
{
    const parac_csp_network *n = w->n;
    int failed = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 8) reduction(| : failed)
    for (int64_t i = (int64_t)start; i < (int64_t)end; i++) {
        text *t = &texts[i - (int64_t)start];
        t->length = 0;
        if ((size_t)i >= n->constraint_count) put_global(t, w, &n->globals[(size_t)i - n->constraint_count]);
        else if (n->constraints[i].arity == 2) put_binary(t, w, &n->constraints[i]);
        else put_table(t, w, &n->constraints[i]);
        failed |= t->failed;
    }
    return failed ? -1 : 0;
}

static parac_status write_constraints(FILE *out, const writer *w, int threads, const char *path, parac_error *error)
{
    size_t total = w->n->constraint_count + w->n->global_count;
    text *texts = calloc(WRITE_BATCH, sizeof *texts);
    parac_status status = PARAC_OK;
    if (!texts) return parac_fail_no_memory(error, "writer buffers", WRITE_BATCH * sizeof *texts);
    for (size_t start = 0; start < total && status == PARAC_OK; start += WRITE_BATCH) {
        size_t end = start + WRITE_BATCH < total ? start + WRITE_BATCH : total;
        if (format_batch(w, start, end, texts, threads) < 0) {
            size_t failed = start;
            while (failed < end && !texts[failed - start].failed) failed++;
            /* each constraint's text is built whole in memory before it is written */
            status = parac_fail(error, PARAC_ERR_NO_MEMORY,
                                "out of host memory formatting constraint %zu as XCSP3 text (%zu bytes reached)",
                                failed, failed < end ? texts[failed - start].length : (size_t)0);
        }
        for (size_t i = start; i < end && status == PARAC_OK; i++)
            if (fwrite(texts[i - start].data, 1, texts[i - start].length, out) != texts[i - start].length)
                status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    }
    for (size_t i = 0; i < WRITE_BATCH; i++) free(texts[i].data);
    free(texts);
    return status;
}

static parac_status write_tail(FILE *out, const parac_csp *csp, const writer *w, const char *path, parac_error *error)
{
    int failed = fputs("  </constraints>\n", out) < 0;
    if (w->named && csp->objectives)
        failed |= fputs("  <objectives>\n", out) < 0 || fputs(csp->objectives, out) < 0 || fputs("  </objectives>\n", out) < 0;
    failed |= fputs("</instance>\n", out) < 0;
    return failed ? parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno)) : PARAC_OK;
}

static parac_status write_network(const parac_csp *csp, const parac_word *domains, const char *path, int threads,
                                  parac_error *error)
{
    const parac_csp_network *n = &csp->network;
    writer w = {n, domains ? domains : n->present, names_writable(n)};
    int to_stdout = !path || strcmp(path, "-") == 0;
    FILE *out;
    text head = {0};
    parac_status status = PARAC_OK;
    if (!w.named && csp->objectives)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED,
                          "the network has an objective but variable names XCSP3 cannot hold; not written");
    out = to_stdout ? stdout : fopen(path, "wb");
    if (to_stdout) path = "<stdout>";
    if (!out) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot create: %s", strerror(errno));
    put_variables(&head, &w, csp->objectives ? "COP" : "CSP");
    if (head.failed) status = parac_fail_no_memory(error, "writer", head.capacity);
    else if (fwrite(head.data, 1, head.length, out) != head.length)
        status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    if (status == PARAC_OK) status = write_constraints(out, &w, parac_threads_resolve(threads), path, error);
    if (status == PARAC_OK) status = write_tail(out, csp, &w, path, error);
    if (to_stdout ? fflush(out) != 0 : fclose(out) != 0)
        if (status == PARAC_OK) status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    free(head.data);
    return status;
}

parac_status parac_csp_write_xcsp3(const parac_csp *csp, const char *path, int threads, parac_error *error)
{
    return write_network(csp, NULL, path, threads, error);
}

parac_status xcsp3_write_reduced(const parac_csp *csp, const uint64_t *domains, const char *path, int threads,
                                 parac_error *error)
{
    const parac_csp_network *n = &csp->network;
    for (size_t v = 0; v < n->variable_count; v++) {
        size_t first = (size_t)n->value_offset[v], count = (size_t)(n->value_offset[v + 1] - n->value_offset[v]), s;
        for (s = 0; s < count && !parac_bitset_test(domains, first + s); s++) continue;
        if (s == count)
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                              "the domain of %s is empty (a wipe-out: the instance has no solution); no reduced instance written",
                              n->variable_names[v]);
    }
    return write_network(csp, domains, path, threads, error);
}
