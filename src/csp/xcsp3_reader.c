/* csp/xcsp3_reader.c — XCSP3 (CSP) into a parac_csp_network.
 *
 * The document is streamed with xmlTextReader; only one element of <variables>
 * or <constraints> at a time is expanded into a small tree (xmlTextReaderExpand),
 * handled and dropped, so memory stays bounded by the largest constraint.
 * Supported: var/array (sizes, ranges, value lists, as=, <domain for=...>),
 * extension (supports/conflicts, '*', any arity), intension, group (%i and %...,
 * compact lists in <list> and <args>; templates intension, extension or a global),
 * block, slide (circular, offset, collect), objectives (kept verbatim, not enforced);
 * the global constraints are read by xcsp3_globals.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_internal.h"

#define MAX_DIMS XCSP3_MAX_DIMS

typedef xcsp3_array array_info;

static parac_status fail_node(xcsp3 *x, xmlNodePtr node, parac_status status, const char *what, parac_error *error)
{
    return parac_fail_at(error, status, x->in->name, xmlGetLineNo(node), "%s", what);
}

static int push_term(term_list *list, int64_t var, int64_t constant)
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
static int parse_brackets(const char *at, const char *end, const array_info *array, index_range *ranges)
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

static uint64_t range_cells(const array_info *array, const index_range *ranges)
{
    uint64_t cells = 1;
    for (uint32_t d = 0; d < array->dim_count; d++) cells *= (uint64_t)(ranges[d].high - ranges[d].low) + 1;
    return cells; /* at most the array's cells, which fit the variable budget */
}

static int push_cells(term_list *out, const array_info *array, const index_range *ranges)
{
    uint32_t index[MAX_DIMS];
    for (uint32_t d = 0; d < array->dim_count; d++) index[d] = ranges[d].low;
    for (;;) {
        uint64_t cell = 0;
        uint32_t d;
        for (d = 0; d < array->dim_count; d++) cell = cell * array->dims[d] + index[d];
        if (push_term(out, (int64_t)(array->base + cell), 0) < 0) return -2;
        for (d = array->dim_count; d-- > 0;) {
            if (++index[d] <= ranges[d].high) break;
            index[d] = ranges[d].low;
        }
        if (d == UINT32_MAX) return 0;
    }
}

/* Appends the variables a reference names. 0 ok, -1 unknown/bad, -2 no memory, -3 over the budget. */
static int expand_reference(const xcsp3 *x, const char *token, size_t length, term_list *out)
{
    size_t name_length = 0;
    int64_t entry;
    index_range ranges[MAX_DIMS];
    while (name_length < length && token[name_length] != '[') name_length++;
    entry = xcsp_names_get(&x->names, token, name_length);
    if (entry == -1) return -1;
    if (entry >= 0) return name_length == length && push_term(out, entry, 0) < 0 ? -2 : (name_length == length ? 0 : -1);
    {
        const array_info *array = &x->arrays[-2 - entry];
        if (parse_brackets(token + name_length, token + length, array, ranges) < 0) return -1;
        if (!terms_fit(x, out, range_cells(array, ranges))) return -3;
        return push_cells(out, array, ranges);
    }
}

static int is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

/* The highest N of the parameters %N in a template text, or -1 when it has none. %... stands for
 * the arguments after that one (XCSP3: "all effective parameters after the highest numbered"). */
static int64_t highest_parameter(const char *text)
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
            if (push_term(out, args->items[i].var, args->items[i].constant) < 0) return -2;
        return 0;
    }
    if (!xcsp_read_integer(&digits, &value) || digits != end || value < 0 || (size_t)value >= args->count) {
        snprintf(x->why, sizeof x->why, "bad parameter '%.*s' (the <args> have %zu terms)", (int)(end - start), start,
                 args->count);
        return -1;
    }
    if (!terms_fit(x, out, 1)) return terms_over_budget(x);
    return push_term(out, args->items[value].var, args->items[value].constant) < 0 ? -2 : 0;
}

/* Terms of a whitespace-separated list; %i take args[i] and %... the rest when args is given;
 * integers are constants; references may be compact (x[], x[0..4], m[1][]). */
static int parse_terms(xcsp3 *x, const char *text, const term_list *args, term_list *out)
{
    const char *at = text;
    int64_t rest_start = args ? highest_parameter(text) + 1 : 0;
    for (;;) {
        const char *start;
        int64_t value;
        while (is_space(*at)) at++;
        if (!*at) return 0;
        start = at;
        while (*at && !is_space(*at)) at++;
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
                if (push_term(out, -1, value) < 0) return -2;
            continue;
        }
        int status = expand_reference(x, start, (size_t)(at - start), out);
        if (status == -2) return -2;
        if (status == -3) return terms_over_budget(x);
        if (status < 0) goto unknown;
        continue;
    unknown:
        snprintf(x->why, sizeof x->why, "unknown variable '%.*s'", (int)(at - start), start);
        return -1;
    }
}

/* ---- what xcsp3_globals.c uses (xcsp3_internal.h) ------------------------------------------- */

int xcsp3_push_term(term_list *list, int64_t var, int64_t constant) { return push_term(list, var, constant); }

int xcsp3_parse_terms(xcsp3 *x, const char *text, const term_list *args, term_list *out)
{
    return parse_terms(x, text, args, out);
}

parac_status xcsp3_fail_node(xcsp3 *x, xmlNodePtr node, parac_status status, const char *what, parac_error *error)
{
    return fail_node(x, node, status, what, error);
}

int xcsp3_matrix_shape(const xcsp3 *x, const char *token, size_t length, size_t *rows, size_t *columns)
{
    size_t name_length = 0, sizes[2], varying = 0;
    int64_t entry;
    index_range ranges[MAX_DIMS];
    while (name_length < length && token[name_length] != '[') name_length++;
    entry = xcsp_names_get(&x->names, token, name_length);
    if (entry > -2) return -1; /* unknown, or a single variable */
    const array_info *array = &x->arrays[-2 - entry];
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

/* ---- variables ------------------------------------------------------------------------------ */

static xcsp_site site_of(const xcsp3 *x, xmlNodePtr node)
{
    xcsp_site site = {x->in->name, xmlGetLineNo(node), x->options->max_table_tuples};
    return site;
}

static parac_status add_named_variable(xcsp3 *x, const char *name, const int64_t *values, uint32_t count,
                                       xmlNodePtr node, parac_error *error)
{
    uint32_t index;
    xcsp_site site = site_of(x, node);
    parac_status status = xcsp_add_variable(x->network, &x->in->limits, name, values, count, &index, &site, error);
    if (status != PARAC_OK) return status;
    if (xcsp_names_put(&x->names, name, strlen(name), index) < 0)
        return parac_fail_no_memory(error, "variable names", strlen(name));
    return PARAC_OK;
}

/* The domain of an existing variable (for as=), copied. */
static int64_t *domain_of(const xcsp3 *x, uint32_t var, uint32_t *count)
{
    const parac_csp_network *n = x->network;
    int64_t *values;
    *count = n->domain_size[var];
    values = malloc((*count + 1) * sizeof *values);
    if (values) memcpy(values, n->values + n->value_offset[var], *count * sizeof *values);
    return values;
}

static parac_status read_var(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    char *id = (char *)xmlGetProp(node, (const xmlChar *)"id"), *as = (char *)xmlGetProp(node, (const xmlChar *)"as");
    char *text = NULL;
    int64_t *values = NULL;
    uint32_t count = 0;
    parac_status status = PARAC_OK;
    if (!id) status = fail_node(x, node, PARAC_ERR_PARSE, "<var> without id", error);
    else if (as) {
        int64_t other = xcsp_names_get(&x->names, as, strlen(as));
        if (other < 0) status = parac_fail_at(error, PARAC_ERR_PARSE, x->in->name, xmlGetLineNo(node), "as=\"%s\" names no variable", as);
        else if (!(values = domain_of(x, (uint32_t)other, &count))) status = parac_fail_no_memory(error, "domain", 8);
    } else {
        text = xcsp_node_text(node);
        if (xcsp_parse_domain(text, x->in->limits.max_values, &values, &count, x->why, sizeof x->why) < 0)
            status = parac_fail_at(error, PARAC_ERR_PARSE, x->in->name, xmlGetLineNo(node), "variable '%s': %s", id, x->why);
    }
    if (status == PARAC_OK) status = add_named_variable(x, id, values, count, node, error);
    free(values);
    xmlFree(text);
    xmlFree(id);
    xmlFree(as);
    return status;
}

/* size="[n][m]...": each dimension within 32 bits (their product is checked against the budget). */
static int parse_size(const char *size, array_info *array)
{
    const char *at = size;
    array->dim_count = 0;
    while (*at == '[') {
        int64_t dim;
        at++;
        if (!xcsp_read_integer(&at, &dim) || dim <= 0 || dim > UINT32_MAX || *at != ']' || array->dim_count == MAX_DIMS)
            return -1;
        array->dims[array->dim_count++] = (uint32_t)dim;
        at++;
    }
    return array->dim_count && !*at ? 0 : -1;
}

/* The number of cells, or UINT64_MAX when the product overflows. */
static uint64_t cell_count(const array_info *array)
{
    uint64_t cells = 1;
    for (uint32_t d = 0; d < array->dim_count; d++)
        if (__builtin_mul_overflow(cells, (uint64_t)array->dims[d], &cells)) return UINT64_MAX;
    return cells;
}

/* Per cell, the index of its <domain> (or -1); domains are parsed into domain_values. */
typedef struct array_domains {
    int32_t *of_cell;
    int64_t **values;
    uint32_t *counts;
    size_t count;
} array_domains;

static void free_array_domains(array_domains *d)
{
    for (size_t i = 0; i < d->count; i++) free(d->values[i]);
    free(d->of_cell);
    free(d->values);
    free(d->counts);
}

/* Reads one <domain for="..."> (or the array's own text when for is NULL) into d. */
static parac_status read_array_domain(xcsp3 *x, xmlNodePtr node, const char *for_list, const array_info *array,
                                      uint64_t cells, array_domains *d, parac_error *error)
{
    char *text = xcsp_node_text(node);
    int32_t which = (int32_t)d->count;
    term_list targets = {0};
    parac_status status = PARAC_OK;
    if (xcsp_parse_domain(text, x->in->limits.max_values, &d->values[which], &d->counts[which], x->why, sizeof x->why) < 0) {
        status = fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
        goto done;
    }
    d->count++;
    if (!for_list || strcmp(for_list, "others") == 0) {
        for (uint64_t c = 0; c < cells; c++)
            if (d->of_cell[c] < 0) d->of_cell[c] = which;
        goto done;
    }
    if (parse_terms(x, for_list, NULL, &targets) < 0) {
        status = parac_fail_at(error, PARAC_ERR_PARSE, x->in->name, xmlGetLineNo(node), "domain for=: %s", x->why);
        goto done;
    }
    for (size_t i = 0; i < targets.count; i++) {
        int64_t cell = targets.items[i].var - (int64_t)array->base;
        if (cell < 0 || (uint64_t)cell >= cells) continue;
        d->of_cell[cell] = which;
    }
done:
    free(targets.items);
    xmlFree(text);
    return status;
}

static parac_status add_array_cells(xcsp3 *x, const char *id, const array_info *array, uint64_t cells,
                                    const array_domains *d, xmlNodePtr node, parac_error *error)
{
    char name[256];
    uint32_t index[MAX_DIMS] = {0};
    for (uint64_t c = 0; c < cells; c++) {
        size_t used = (size_t)snprintf(name, sizeof name, "%s", id);
        uint32_t var;
        int64_t rest = (int64_t)c;
        for (uint32_t k = array->dim_count; k-- > 0;) {
            index[k] = (uint32_t)(rest % array->dims[k]);
            rest /= array->dims[k];
        }
        for (uint32_t k = 0; k < array->dim_count && used < sizeof name; k++)
            used += (size_t)snprintf(name + used, sizeof name - used, "[%u]", index[k]);
        if (d->of_cell[c] < 0)
            return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(node),
                                 "array cell %s has no domain", name);
        xcsp_site site = site_of(x, node);
        parac_status status = xcsp_add_variable(x->network, &x->in->limits, name, d->values[d->of_cell[c]],
                                                d->counts[d->of_cell[c]], &var, &site, error);
        if (status != PARAC_OK) return status;
    }
    return PARAC_OK;
}

static parac_status read_array_domains(xcsp3 *x, xmlNodePtr node, const array_info *array, uint64_t cells,
                                       array_domains *d, parac_error *error)
{
    size_t children = 1;
    for (xmlNodePtr c = node->children; c; c = c->next) children += c->type == XML_ELEMENT_NODE;
    d->of_cell = malloc(cells * sizeof *d->of_cell);
    d->values = calloc(children, sizeof *d->values);
    d->counts = calloc(children, sizeof *d->counts);
    if (!d->of_cell || !d->values || !d->counts) return parac_fail_no_memory(error, "array", cells * 4);
    for (uint64_t c = 0; c < cells; c++) d->of_cell[c] = -1;
    if (!xcsp_child(node, "domain")) return read_array_domain(x, node, NULL, array, cells, d, error);
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "domain") != 0) continue;
        char *for_list = (char *)xmlGetProp(c, (const xmlChar *)"for");
        parac_status status = read_array_domain(x, c, for_list, array, cells, d, error);
        xmlFree(for_list);
        if (status != PARAC_OK) return status;
    }
    return PARAC_OK;
}

/* as= on an array: the same domains as the named array (cell by cell). */
static parac_status copy_array_domains(xcsp3 *x, xmlNodePtr node, const char *as, uint64_t cells, array_domains *d,
                                       parac_error *error)
{
    term_list source = {0};
    parac_status status = PARAC_OK;
    int parsed = parse_terms(x, as, NULL, &source);
    for (size_t i = 0; parsed == 0 && i < source.count; i++)
        if (source.items[i].var < 0) parsed = -1; /* a constant, not a variable */
    if (parsed < 0 || source.count != cells) {
        free(source.items);
        return parac_fail_at(error, PARAC_ERR_PARSE, x->in->name, xmlGetLineNo(node), "as=\"%s\": not an array of the same size", as);
    }
    d->of_cell = malloc(cells * sizeof *d->of_cell);
    d->values = calloc(cells, sizeof *d->values);
    d->counts = calloc(cells, sizeof *d->counts);
    if (!d->of_cell || !d->values || !d->counts) status = parac_fail_no_memory(error, "array", cells * 8);
    for (uint64_t c = 0; status == PARAC_OK && c < cells; c++) {
        if (!(d->values[c] = domain_of(x, (uint32_t)source.items[c].var, &d->counts[c])))
            status = parac_fail_no_memory(error, "array", cells * 8);
        d->of_cell[c] = (int32_t)c;
        d->count = c + 1;
    }
    free(source.items);
    return status;
}

static parac_status read_array(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    char *id = (char *)xmlGetProp(node, (const xmlChar *)"id"), *size = (char *)xmlGetProp(node, (const xmlChar *)"size");
    char *as = (char *)xmlGetProp(node, (const xmlChar *)"as");
    array_info array = {0};
    array_domains domains = {0};
    array_info *grown;
    uint64_t cells = 0;
    parac_status status = PARAC_OK;
    if (!id || !size || parse_size(size, &array) < 0) {
        status = fail_node(x, node, PARAC_ERR_PARSE, "<array> needs id and size=\"[n][m]...\" (at most 8 dimensions)", error);
        goto done;
    }
    cells = cell_count(&array);
    if (cells > x->in->limits.max_variables || x->network->variable_count > x->in->limits.max_variables - cells) {
        status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(node),
                               "array '%s' of size %s: more than %llu variables (the variable budget)", id, size,
                               (unsigned long long)x->in->limits.max_variables);
        goto done;
    }
    array.base = (uint32_t)x->network->variable_count;
    status = as ? copy_array_domains(x, node, as, cells, &domains, error)
                : (grown = realloc(x->arrays, (x->array_count + 1) * sizeof *grown)) == NULL
                      ? parac_fail_no_memory(error, "arrays", 64)
                      : (x->arrays = grown, x->arrays[x->array_count++] = array,
                         xcsp_names_put(&x->names, id, strlen(id), -2 - (int64_t)(x->array_count - 1)) < 0
                             ? parac_fail_no_memory(error, "names", 64)
                             : read_array_domains(x, node, &array, cells, &domains, error));
    if (status == PARAC_OK && as) { /* register after copying, so as= cannot name itself */
        if (!(grown = realloc(x->arrays, (x->array_count + 1) * sizeof *grown))) status = parac_fail_no_memory(error, "arrays", 64);
        else {
            x->arrays = grown;
            x->arrays[x->array_count++] = array;
            if (xcsp_names_put(&x->names, id, strlen(id), -2 - (int64_t)(x->array_count - 1)) < 0)
                status = parac_fail_no_memory(error, "names", 64);
        }
    }
    if (status == PARAC_OK) status = add_array_cells(x, id, &array, cells, &domains, node, error);
done:
    free_array_domains(&domains);
    xmlFree(id);
    xmlFree(size);
    xmlFree(as);
    return status;
}

/* ---- constraints ---------------------------------------------------------------------------- */

parac_status xcsp3_unsupported(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    char description[160];
    snprintf(description, sizeof description, "element <%s> at line %ld", (const char *)node->name,
             xmlGetLineNo(node));
    if (x->options->ignore_unsupported) return parac_csp_note_dropped(x->network, description, error);
    return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(node),
                         "unsupported constraint <%s> (use --ignore-unsupported to drop it)", (const char *)node->name);
}

/* An extension over `scope_terms` with its tuples already parsed. */
static parac_status add_extension_terms(xcsp3 *x, xmlNodePtr node, const term_list *scope_terms,
                                        const xcsp_tuples *tuples, int supports, parac_error *error)
{
    uint32_t *scope = malloc((scope_terms->count + 1) * sizeof *scope);
    xcsp_site site = site_of(x, node);
    parac_status status;
    if (!scope) return parac_fail_no_memory(error, "scope", scope_terms->count * 4);
    for (size_t i = 0; i < scope_terms->count; i++) {
        if (scope_terms->items[i].var < 0) {
            free(scope);
            return fail_node(x, node, PARAC_ERR_PARSE, "a constant in an extension's <list>", error);
        }
        scope[i] = (uint32_t)scope_terms->items[i].var;
    }
    status = xcsp_add_extension(x->network, scope, (uint32_t)scope_terms->count, tuples, supports, &site, error);
    free(scope);
    return status;
}

/* The parts of an <extension>: its list text and its tuples. */
typedef struct extension_parts {
    char *list;
    xcsp_tuples tuples;
    int supports;
} extension_parts;

static void free_extension_parts(extension_parts *p)
{
    xmlFree(p->list);
    xcsp_tuples_free(&p->tuples);
}

static parac_status read_extension_parts(xcsp3 *x, xmlNodePtr node, const term_list *args, extension_parts *p,
                                         term_list *scope, parac_error *error)
{
    xmlNodePtr list = xcsp_child(node, "list"), supports = xcsp_child(node, "supports");
    xmlNodePtr conflicts = xcsp_child(node, "conflicts"), body = supports ? supports : conflicts;
    char *text;
    int parsed;
    memset(p, 0, sizeof *p);
    if (!list || !body) return fail_node(x, node, PARAC_ERR_PARSE, "<extension> needs <list> and <supports> or <conflicts>", error);
    p->list = xcsp_node_text(list);
    p->supports = supports != NULL;
    parsed = parse_terms(x, p->list, args, scope);
    if (parsed == -2) return parac_fail_no_memory(error, "list", 64);
    if (parsed < 0) return fail_node(x, list, PARAC_ERR_PARSE, x->why, error);
    text = xcsp_node_text(body);
    parsed = xcsp_parse_tuples3(text, (uint32_t)scope->count, x->in->limits.max_values, &p->tuples, x->why, sizeof x->why);
    xmlFree(text);
    if (parsed == -2) return parac_fail_no_memory(error, "tuples", 64);
    if (parsed < 0) return fail_node(x, body, PARAC_ERR_PARSE, x->why, error);
    return PARAC_OK;
}

static parac_status read_extension(xcsp3 *x, xmlNodePtr node, const term_list *args, parac_error *error)
{
    extension_parts parts;
    term_list scope = {0};
    parac_status status = read_extension_parts(x, node, args, &parts, &scope, error);
    if (status == PARAC_OK) status = add_extension_terms(x, node, &scope, &parts.tuples, parts.supports, error);
    free_extension_parts(&parts);
    free(scope.items);
    return status;
}

/* Operands of an intension: each distinct leaf is a parameter (%i) or a variable. Finding a
 * leaf again is O(1) for a parameter (an expanded %... may name a million) and a scan of at
 * most 64 for a variable (an intension has at most 64). */
#define MAX_INTENSION_VARIABLES 64

typedef struct leaf_context {
    xcsp3 *x;
    term_list leaves;            /* var >= 0: a variable; var = -1 - i: parameter %i */
    size_t *parameter_leaf;      /* parameter i -> its leaf + 1, or 0 */
    size_t parameter_capacity;
    size_t variable_leaf[MAX_INTENSION_VARIABLES]; /* the leaves that are variables */
    size_t variable_count;
    int too_many_variables;
} leaf_context;

static void leaves_reset(leaf_context *c)
{
    c->leaves.count = 0;
    c->variable_count = 0;
    c->too_many_variables = 0;
    if (c->parameter_leaf) memset(c->parameter_leaf, 0, c->parameter_capacity * sizeof *c->parameter_leaf);
}

static void leaves_free(leaf_context *c)
{
    free(c->leaves.items);
    free(c->parameter_leaf);
}

/* The leaf of parameter %i, added when new; -1 when i is past the list budget or out of memory. */
static int64_t parameter_leaf(leaf_context *c, int64_t i)
{
    if ((uint64_t)i >= c->x->in->limits.max_variables) return -1;
    if ((size_t)i >= c->parameter_capacity) {
        size_t capacity = c->parameter_capacity ? c->parameter_capacity : 16;
        size_t *grown;
        while (capacity <= (size_t)i) capacity *= 2;
        if (!(grown = realloc(c->parameter_leaf, capacity * sizeof *grown))) return -1;
        memset(grown + c->parameter_capacity, 0, (capacity - c->parameter_capacity) * sizeof *grown);
        c->parameter_leaf = grown;
        c->parameter_capacity = capacity;
    }
    if (c->parameter_leaf[i]) return (int64_t)c->parameter_leaf[i] - 1;
    if (push_term(&c->leaves, -1 - i, 0) < 0) return -1;
    c->parameter_leaf[i] = c->leaves.count;
    return (int64_t)c->leaves.count - 1;
}

static int64_t variable_leaf(leaf_context *c, int64_t var)
{
    for (size_t k = 0; k < c->variable_count; k++)
        if (c->leaves.items[c->variable_leaf[k]].var == var) return (int64_t)c->variable_leaf[k];
    if (c->variable_count == MAX_INTENSION_VARIABLES) {
        c->too_many_variables = 1;
        return -1;
    }
    if (push_term(&c->leaves, var, 0) < 0) return -1;
    c->variable_leaf[c->variable_count++] = c->leaves.count - 1;
    return (int64_t)c->leaves.count - 1;
}

static int64_t resolve_leaf(void *context, const char *name, size_t length)
{
    leaf_context *c = context;
    term_list found = {0};
    int64_t var;
    if (name[0] == '%') {
        const char *digits = name + 1;
        int64_t i;
        if (!xcsp_read_integer(&digits, &i) || digits != name + length || i < 0) return -1;
        return parameter_leaf(c, i);
    }
    if (expand_reference(c->x, name, length, &found) < 0 || found.count != 1) {
        free(found.items);
        return -1;
    }
    var = found.items[0].var;
    free(found.items);
    return variable_leaf(c, var);
}

/* Adds the intension once its leaves are bound to args (when a group template). */
static parac_status bind_intension(xcsp3 *x, xmlNodePtr node, const xcsp_expr *expr, const term_list *leaves,
                                   const term_list *args, parac_error *error)
{
    int64_t *vars = malloc((leaves->count + 1) * sizeof *vars), *constants = malloc((leaves->count + 1) * sizeof *constants);
    xcsp_site site = site_of(x, node);
    parac_status status = PARAC_OK;
    if (!vars || !constants) status = parac_fail_no_memory(error, "intension", leaves->count * 16);
    for (size_t k = 0; status == PARAC_OK && k < leaves->count; k++) {
        int64_t key = leaves->items[k].var;
        vars[k] = key;
        constants[k] = 0;
        if (key >= 0) continue;
        if (!args || (size_t)(-1 - key) >= args->count) {
            status = fail_node(x, node, PARAC_ERR_PARSE, "parameter %i outside a group or past its <args>", error);
            break;
        }
        vars[k] = args->items[-1 - key].var;
        constants[k] = args->items[-1 - key].constant;
    }
    if (status == PARAC_OK) status = xcsp_add_intension(x->network, expr, vars, constants, leaves->count, &site, error);
    free(vars);
    free(constants);
    return status;
}

static parac_status parse_intension_text(xcsp3 *x, xmlNodePtr node, const char *text, xcsp_expr *expr,
                                         leaf_context *leaves, parac_error *error)
{
    int parsed;
    leaves->x = x;
    parsed = xcsp_expr_parse(text, resolve_leaf, leaves, expr, x->why, sizeof x->why);
    if (parsed == -2) return parac_fail_no_memory(error, "expression", 64);
    if (leaves->too_many_variables)
        return fail_node(x, node, PARAC_ERR_UNSUPPORTED, "intension over more than 64 variables", error);
    if (parsed < 0) return fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
    return PARAC_OK;
}

/* The text of an <intension> (or of its <function> child), malloc'd by libxml2. */
static char *intension_text(xmlNodePtr node)
{
    xmlNodePtr function = xcsp_child(node, "function");
    return xcsp_node_text(function ? function : node);
}

static parac_status parse_intension(xcsp3 *x, xmlNodePtr node, xcsp_expr *expr, leaf_context *leaves,
                                    parac_error *error)
{
    char *text = intension_text(node);
    parac_status status = parse_intension_text(x, node, text, expr, leaves, error);
    xmlFree(text);
    return status;
}

static parac_status read_intension(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    xcsp_expr expr;
    leaf_context leaves = {0};
    parac_status status = parse_intension(x, node, &expr, &leaves, error);
    if (status == PARAC_OK) status = bind_intension(x, node, &expr, &leaves.leaves, NULL, error);
    xcsp_expr_free(&expr);
    leaves_free(&leaves);
    return status;
}

/* ---- expressions as list terms (xcsp3_internal.h) ------------------------------------------- */

/* Binds each leaf of an expression to a variable or a constant (its group parameter bound by
 * args); fills vars/constants (leaves->count entries each). */
static parac_status bind_leaves(xcsp3 *x, xmlNodePtr node, const term_list *leaves, const term_list *args,
                                int64_t *vars, int64_t *constants, parac_error *error)
{
    for (size_t k = 0; k < leaves->count; k++) {
        int64_t key = leaves->items[k].var;
        vars[k] = key;
        constants[k] = 0;
        if (key >= 0) continue;
        if (!args || (size_t)(-1 - key) >= args->count)
            return fail_node(x, node, PARAC_ERR_PARSE, "parameter %i outside a group or past its <args>", error);
        vars[k] = args->items[-1 - key].var;
        constants[k] = args->items[-1 - key].constant;
    }
    return PARAC_OK;
}

/* A name for the next auxiliary variable that no declared variable or array has. */
static void auxiliary_name(xcsp3 *x, char *name, size_t size)
{
    do snprintf(name, size, "parac_aux_%llu", (unsigned long long)x->expression_terms++);
    while (xcsp_names_get(&x->names, name, strlen(name)) != -1);
}

parac_status xcsp3_expression_term(xcsp3 *x, xmlNodePtr node, const char *text, size_t length, const term_list *args,
                                   term *out, term_list *variables, parac_error *error)
{
    char *copy = malloc(length + 1), name[48];
    xcsp_expr expr = {0};
    leaf_context leaves = {0};
    int64_t *vars = NULL, *constants = NULL;
    xcsp_site site = site_of(x, node);
    parac_status status;
    if (!copy) return parac_fail_no_memory(error, "expression term", length + 1);
    memcpy(copy, text, length);
    copy[length] = '\0';
    status = parse_intension_text(x, node, copy, &expr, &leaves, error);
    if (status == PARAC_OK) {
        vars = malloc((leaves.leaves.count + 1) * sizeof *vars);
        constants = malloc((leaves.leaves.count + 1) * sizeof *constants);
        if (!vars || !constants) status = parac_fail_no_memory(error, "expression term", leaves.leaves.count * 16);
    }
    if (status == PARAC_OK) status = bind_leaves(x, node, &leaves.leaves, args, vars, constants, error);
    for (size_t k = 0; status == PARAC_OK && k < leaves.leaves.count; k++) {
        int seen = 0;
        if (vars[k] < 0) continue;
        for (size_t j = 0; j < k; j++) seen |= vars[j] == vars[k];
        if (!seen && push_term(variables, vars[k], 0) < 0) status = parac_fail_no_memory(error, "expression term", 16);
    }
    if (status == PARAC_OK) {
        auxiliary_name(x, name, sizeof name);
        status = xcsp_add_expression_variable(x->network, &expr, vars, constants, leaves.leaves.count, name,
                                              x->in->limits.max_values, &site, &out->var, &out->constant, error);
    }
    free(copy);
    free(vars);
    free(constants);
    xcsp_expr_free(&expr);
    leaves_free(&leaves);
    return status;
}

static xmlNodePtr first_element(xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

static int is_named(xmlNodePtr node, const char *name)
{
    return node && node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

/* The first element child that is not a <list> (a slide's template). */
static xmlNodePtr first_element_not_list(xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !is_named(c, "list")) return c;
    return NULL;
}

/* The terms of one <args>. */
static parac_status read_args(xcsp3 *x, xmlNodePtr node, term_list *args, parac_error *error)
{
    char *text = xcsp_node_text(node);
    int parsed;
    args->count = 0;
    parsed = parse_terms(x, text, NULL, args);
    xmlFree(text);
    if (parsed == -2) return parac_fail_no_memory(error, "args", 64);
    if (parsed < 0) return fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
    return PARAC_OK;
}

/* A group of extensions: the tuples are parsed once, the list re-bound per <args>. */
static parac_status read_extension_group(xcsp3 *x, xmlNodePtr group, xmlNodePtr template, parac_error *error)
{
    extension_parts parts = {0};
    term_list scope = {0}, args = {0};
    int have_tuples = 0;
    parac_status status = PARAC_OK;
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!is_named(c, "args")) continue;
        status = read_args(x, c, &args, error);
        scope.count = 0;
        if (status == PARAC_OK && !have_tuples) {
            status = read_extension_parts(x, template, &args, &parts, &scope, error);
            have_tuples = 1;
        } else if (status == PARAC_OK) {
            int parsed = parse_terms(x, parts.list, &args, &scope);
            if (parsed == -2) status = parac_fail_no_memory(error, "list", 64);
            else if (parsed < 0) status = fail_node(x, c, PARAC_ERR_PARSE, x->why, error);
            else if (scope.count != parts.tuples.arity)
                status = fail_node(x, c, PARAC_ERR_PARSE, "<args> give a list of another arity", error);
        }
        if (status == PARAC_OK) status = add_extension_terms(x, c, &scope, &parts.tuples, parts.supports, error);
    }
    free_extension_parts(&parts);
    free(scope.items);
    free(args.items);
    return status;
}

/* The longest function text that %... may expand to: libxml2's limit on a text node, so an
 * expanded function is never longer than one that could have been written out. */
#define MAX_EXPANDED_FUNCTION 10000000

/* The template text with each %... replaced by "%k,%k+1,...,%(arg_count-1)" (k = highest numbered + 1),
 * malloc'd; NULL when out of memory or longer than MAX_EXPANDED_FUNCTION (*too_long set).
 * *empty is set when %... would stand for no argument. */
static char *expand_rest_in_function(const char *text, size_t arg_count, int *empty, int *too_long)
{
    int64_t highest = highest_parameter(text);
    size_t start = highest < 0 ? 0 : (size_t)highest + 1, length = strlen(text), used = 0;
    uint64_t per_use = arg_count > start ? (uint64_t)(arg_count - start) * 22 : 0, need;
    size_t uses = 0;
    char *out;
    for (const char *at = strstr(text, "%..."); at; at = strstr(at + 4, "%...")) uses++;
    *empty = uses > 0 && start >= arg_count; /* a slide's template may have no %... */
    *too_long = __builtin_mul_overflow((uint64_t)uses, per_use, &need) || need > MAX_EXPANDED_FUNCTION;
    if (*too_long || !(out = malloc(length + (size_t)need + 1))) return NULL;
    for (const char *at = text; *at;) {
        if (strncmp(at, "%...", 4) != 0) {
            out[used++] = *at++;
            continue;
        }
        for (size_t i = start; i < arg_count; i++) used += (size_t)sprintf(out + used, i > start ? ",%%%zu" : "%%%zu", i);
        at += 4;
    }
    out[used] = '\0';
    return out;
}

/* A group whose intension uses %...: the expression depends on the number of arguments, so it is
 * parsed again whenever that number changes (usually once per group). */
typedef struct rest_template {
    char *text;
    xcsp_expr expr;
    leaf_context leaves;
    size_t arg_count; /* the one expr was parsed for; SIZE_MAX before the first */
} rest_template;

static parac_status bind_rest_template(xcsp3 *x, xmlNodePtr args_node, rest_template *t, const term_list *args,
                                       parac_error *error)
{
    if (args->count != t->arg_count) {
        int empty, too_long;
        char *expanded = expand_rest_in_function(t->text, args->count, &empty, &too_long);
        parac_status status;
        if (too_long)
            return fail_node(x, args_node, PARAC_ERR_UNSUPPORTED,
                             "%... would expand the function to more than 10^7 characters", error);
        if (!expanded) return parac_fail_no_memory(error, "expression", strlen(t->text));
        if (empty) {
            free(expanded);
            return fail_node(x, args_node, PARAC_ERR_PARSE, "%... stands for no argument: <args> too short", error);
        }
        xcsp_expr_free(&t->expr);
        leaves_reset(&t->leaves);
        t->arg_count = SIZE_MAX;
        status = parse_intension_text(x, args_node, expanded, &t->expr, &t->leaves, error);
        free(expanded);
        if (status != PARAC_OK) return status;
        t->arg_count = args->count;
    }
    return bind_intension(x, args_node, &t->expr, &t->leaves.leaves, args, error);
}

static parac_status read_rest_intension_group(xcsp3 *x, xmlNodePtr group, char *text, parac_error *error)
{
    rest_template t = {text, {0}, {0}, SIZE_MAX};
    term_list args = {0};
    parac_status status = PARAC_OK;
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!is_named(c, "args")) continue;
        status = read_args(x, c, &args, error);
        if (status == PARAC_OK) status = bind_rest_template(x, c, &t, &args, error);
    }
    xcsp_expr_free(&t.expr);
    leaves_free(&t.leaves);
    free(args.items);
    return status;
}

static parac_status read_intension_group(xcsp3 *x, xmlNodePtr group, xmlNodePtr template, parac_error *error)
{
    xcsp_expr expr;
    leaf_context leaves = {0};
    term_list args = {0};
    char *text = intension_text(template);
    parac_status status;
    if (strstr(text, "%...")) {
        status = read_rest_intension_group(x, group, text, error);
        xmlFree(text);
        return status;
    }
    status = parse_intension_text(x, template, text, &expr, &leaves, error);
    xmlFree(text);
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!is_named(c, "args")) continue;
        status = read_args(x, c, &args, error);
        if (status == PARAC_OK) status = bind_intension(x, c, &expr, &leaves.leaves, &args, error);
    }
    xcsp_expr_free(&expr);
    leaves_free(&leaves);
    free(args.items);
    return status;
}

static parac_status read_constraint(xcsp3 *x, xmlNodePtr node, parac_error *error);

const char *xcsp3_term_end(const char *at)
{
    int depth = 0;
    for (; *at && (depth > 0 || !is_space(*at)); at++) {
        depth += *at == '(';
        depth -= *at == ')';
        if (depth < 0) return NULL;
    }
    return depth ? NULL : at;
}

/* The terms of one <args> of a group over a global, where pycsp3 puts expressions
 * ("mul(x[0][0],y[0])"): each becomes an auxiliary variable (xcsp3_expression_term), its
 * variables kept in x->args_expression_variables for the global's strength. */
static parac_status read_global_args(xcsp3 *x, xmlNodePtr node, term_list *args, parac_error *error)
{
    char *text = xcsp_node_text(node);
    const char *cursor = text;
    parac_status status = PARAC_OK;
    args->count = 0;
    x->args_expression_variables.count = 0;
    if (!strchr(text, '(')) {
        xmlFree(text);
        return read_args(x, node, args, error);
    }
    while (is_space(*cursor)) cursor++;
    while (status == PARAC_OK && *cursor) {
        const char *end = xcsp3_term_end(cursor);
        if (!end) {
            status = fail_node(x, node, PARAC_ERR_PARSE, "an expression in <args> with unbalanced parentheses", error);
            break;
        }
        if (memchr(cursor, '(', (size_t)(end - cursor))) {
            term value = {0};
            status = xcsp3_expression_term(x, node, cursor, (size_t)(end - cursor), NULL, &value,
                                           &x->args_expression_variables, error);
            if (status == PARAC_OK && push_term(args, value.var, value.constant) < 0)
                status = parac_fail_no_memory(error, "args", 64);
        } else {
            char *token = malloc((size_t)(end - cursor) + 1);
            int parsed;
            if (!token) {
                status = parac_fail_no_memory(error, "args", 64);
                break;
            }
            memcpy(token, cursor, (size_t)(end - cursor));
            token[end - cursor] = '\0';
            parsed = parse_terms(x, token, NULL, args);
            free(token);
            if (parsed == -2) status = parac_fail_no_memory(error, "args", 64);
            else if (parsed < 0) status = fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
        }
        cursor = end;
        while (is_space(*cursor)) cursor++;
    }
    xmlFree(text);
    return status;
}

/* A group over a global constraint: the template element is read again for each <args>. */
static parac_status read_global_group(xcsp3 *x, xmlNodePtr group, xmlNodePtr template, parac_error *error)
{
    term_list args = {0};
    char *text = xcsp_node_text(template);
    size_t length = strlen(text);
    parac_status status = PARAC_OK;
    xmlFree(text);
    for (xmlNodePtr c = group->children; c && status == PARAC_OK; c = c->next) {
        if (!is_named(c, "args")) continue;
        status = read_global_args(x, c, &args, error);
        if (status == PARAC_OK) status = xcsp3_count_template(x, template, length, error);
        if (status == PARAC_OK) status = xcsp3_read_global(x, template, &args, error);
    }
    x->args_expression_variables.count = 0;
    free(args.items);
    return status;
}

/* ---- slide ---------------------------------------------------------------------------------- */

/* One <list> of a slide: its terms, offset (default 1) and collect (default 1; with a single list
 * and no collect, the template's arity). */
typedef struct slide_list {
    term_list terms;
    int64_t offset, collect;
} slide_list;

#define MAX_SLIDE_LISTS 8

/* The integer attribute `name` of node (fallback when absent). 0 ok, -1 not an integer >= 1. */
static int positive_attribute(xmlNodePtr node, const char *name, int64_t fallback, int64_t *value)
{
    char *text = (char *)xmlGetProp(node, (const xmlChar *)name);
    const char *at = text;
    int ok = 1;
    *value = fallback;
    if (text) {
        ok = xcsp_read_integer(&at, value) && *at == '\0' && *value >= 1;
        xmlFree(text);
    }
    return ok ? 0 : -1;
}

static parac_status read_slide_lists(xcsp3 *x, xmlNodePtr slide, slide_list *lists, size_t *list_count,
                                     parac_error *error)
{
    int collect_given = 0;
    *list_count = 0;
    for (xmlNodePtr c = slide->children; c; c = c->next) {
        if (!is_named(c, "list")) continue;
        if (*list_count == MAX_SLIDE_LISTS) return fail_node(x, c, PARAC_ERR_UNSUPPORTED, "<slide> with more than 8 lists", error);
        slide_list *l = &lists[(*list_count)++];
        char *text = xcsp_node_text(c), *collect = (char *)xmlGetProp(c, (const xmlChar *)"collect");
        int parsed = parse_terms(x, text, NULL, &l->terms);
        collect_given |= collect != NULL;
        xmlFree(text);
        xmlFree(collect);
        if (parsed == -2) return parac_fail_no_memory(error, "slide list", 64);
        if (parsed < 0) return fail_node(x, c, PARAC_ERR_PARSE, x->why, error);
        if (positive_attribute(c, "offset", 1, &l->offset) < 0 || positive_attribute(c, "collect", 1, &l->collect) < 0)
            return fail_node(x, c, PARAC_ERR_PARSE, "<slide>: offset and collect must be integers >= 1", error);
    }
    if (*list_count == 0) return fail_node(x, slide, PARAC_ERR_PARSE, "<slide> without <list>", error);
    if (*list_count == 1 && !collect_given) {
        char *text = xcsp_node_text(first_element_not_list(slide));
        lists[0].collect = highest_parameter(text) + 1;
        xmlFree(text);
        if (lists[0].collect < 1) return fail_node(x, slide, PARAC_ERR_PARSE, "<slide>: the template has no %i parameter", error);
    }
    return PARAC_OK;
}

/* The number of windows: each list gives (n - collect) / offset + 1 of them (n / offset when
 * circular, indices taken modulo n); the slide has the fewest. */
static uint64_t slide_steps(const slide_list *lists, size_t list_count, int circular)
{
    uint64_t steps = UINT64_MAX;
    for (size_t j = 0; j < list_count; j++) {
        uint64_t n = lists[j].terms.count, c = (uint64_t)lists[j].collect, o = (uint64_t)lists[j].offset;
        uint64_t here = circular ? n / o : n >= c ? (n - c) / o + 1 : 0;
        if (here < steps) steps = here;
    }
    return steps;
}

static parac_status bind_slide_step(xcsp3 *x, xmlNodePtr slide, xmlNodePtr template, rest_template *intension,
                                    const term_list *args, size_t template_length, parac_error *error)
{
    parac_status status;
    if (is_named(template, "intension")) return bind_rest_template(x, slide, intension, args, error);
    if ((status = xcsp3_count_template(x, template, template_length, error)) != PARAC_OK) return status;
    if (is_named(template, "extension")) return read_extension(x, template, args, error);
    return xcsp3_read_global(x, template, args, error);
}

static parac_status run_slide(xcsp3 *x, xmlNodePtr slide, xmlNodePtr template, const slide_list *lists,
                              size_t list_count, int circular, parac_error *error)
{
    uint64_t steps = slide_steps(lists, list_count, circular), per_step = 0, work;
    term_list args = {0};
    char *text = is_named(template, "intension") ? intension_text(template) : NULL, *content = xcsp_node_text(template);
    size_t template_length = strlen(content);
    rest_template intension = {text, {0}, {0}, SIZE_MAX};
    parac_status status = PARAC_OK;
    int overflow = 0;
    xmlFree(content);
    for (size_t j = 0; j < list_count; j++) overflow |= __builtin_add_overflow(per_step, (uint64_t)lists[j].collect, &per_step);
    if (overflow || __builtin_mul_overflow(steps, per_step, &work) || work > x->in->limits.max_values)
        status = fail_node(x, slide, PARAC_ERR_UNSUPPORTED, "<slide> past the value budget (windows x collected terms)", error);
    for (uint64_t i = 0; i < steps && status == PARAC_OK; i++) {
        args.count = 0;
        for (size_t j = 0; j < list_count && status == PARAC_OK; j++) {
            for (int64_t k = 0; k < lists[j].collect; k++) {
                uint64_t at = i * (uint64_t)lists[j].offset + (uint64_t)k;
                const term *t;
                if (circular) at %= lists[j].terms.count;
                t = &lists[j].terms.items[at];
                if (push_term(&args, t->var, t->constant) < 0) {
                    status = parac_fail_no_memory(error, "slide", 64);
                    break;
                }
            }
        }
        if (status == PARAC_OK) status = bind_slide_step(x, slide, template, &intension, &args, template_length, error);
    }
    xcsp_expr_free(&intension.expr);
    leaves_free(&intension.leaves);
    xmlFree(text);
    free(args.items);
    return status;
}

static parac_status read_slide(xcsp3 *x, xmlNodePtr slide, parac_error *error)
{
    slide_list lists[MAX_SLIDE_LISTS];
    size_t list_count = 0;
    xmlNodePtr template = first_element_not_list(slide);
    char *circular = (char *)xmlGetProp(slide, (const xmlChar *)"circular");
    int is_circular = circular && strcmp(circular, "true") == 0;
    parac_status status;
    xmlFree(circular);
    memset(lists, 0, sizeof lists);
    if (!template) return fail_node(x, slide, PARAC_ERR_PARSE, "<slide> without a template constraint", error);
    if (!is_named(template, "intension") && !is_named(template, "extension") &&
        !xcsp3_is_global((const char *)template->name))
        return xcsp3_unsupported(x, template, error);
    status = read_slide_lists(x, slide, lists, &list_count, error);
    if (status == PARAC_OK) status = run_slide(x, slide, template, lists, list_count, is_circular, error);
    for (size_t j = 0; j < MAX_SLIDE_LISTS; j++) free(lists[j].terms.items);
    return status;
}

static parac_status read_group(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    xmlNodePtr template = first_element(node);
    if (is_named(template, "extension")) return read_extension_group(x, node, template, error);
    if (is_named(template, "intension")) return read_intension_group(x, node, template, error);
    if (!template) return fail_node(x, node, PARAC_ERR_PARSE, "empty <group>", error);
    if (xcsp3_is_global((const char *)template->name)) return read_global_group(x, node, template, error);
    return xcsp3_unsupported(x, template, error);
}

/* The constraints of a block and of the blocks nested in it, in document order. The tree is
 * walked through its parent links, not by recursion: the nesting depth comes from the input. */
static parac_status read_block(xcsp3 *x, xmlNodePtr block, parac_error *error)
{
    xmlNodePtr node = block->children;
    while (node) {
        if (is_named(node, "block") && node->children) {
            node = node->children;
            continue;
        }
        if (node->type == XML_ELEMENT_NODE && !is_named(node, "block")) {
            parac_status status = read_constraint(x, node, error);
            if (status != PARAC_OK) return status;
        }
        while (node != block && !node->next) node = node->parent;
        node = node == block ? NULL : node->next;
    }
    return PARAC_OK;
}

static parac_status read_constraint(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    const char *name = (const char *)node->name;
    if (strcmp(name, "extension") == 0) return read_extension(x, node, NULL, error);
    if (strcmp(name, "intension") == 0) return read_intension(x, node, error);
    if (strcmp(name, "group") == 0) return read_group(x, node, error);
    if (strcmp(name, "block") == 0) return read_block(x, node, error);
    if (strcmp(name, "slide") == 0) return read_slide(x, node, error);
    if (xcsp3_is_global(name)) return xcsp3_read_global(x, node, NULL, error);
    if (strcmp(name, "comment") == 0) return PARAC_OK;
    return xcsp3_unsupported(x, node, error);
}

/* ---- the document --------------------------------------------------------------------------- */

static parac_status on_section(void *context, const char *section, long line, parac_error *error)
{
    xcsp3 *x = context;
    if (strcmp(section, "constraints") == 0 || strcmp(section, "objectives") == 0)
        return parac_csp_finish_variables(x->network, error);
    (void)line;
    return PARAC_OK;
}

/* The longest objectives text kept for the writer (the limit of one XML text node). */
#define MAX_OBJECTIVES_TEXT 10000000

/* The objectives text being kept: grows within MAX_OBJECTIVES_TEXT; `failed` 1 past it, 2 out of memory. */
typedef struct objective_text {
    xcsp3 *x;
    int failed;
} objective_text;

static void objective_put(objective_text *o, const char *s, size_t length)
{
    xcsp3 *x = o->x;
    char *grown;
    if (o->failed) return;
    if (length > MAX_OBJECTIVES_TEXT - 1 - x->objectives_length) {
        o->failed = 1;
        return;
    }
    if (!(grown = realloc(x->objectives, x->objectives_length + length + 1))) {
        o->failed = 2;
        return;
    }
    memcpy(grown + x->objectives_length, s, length);
    x->objectives = grown;
    x->objectives_length += length;
    grown[x->objectives_length] = '\0';
}

static void objective_put_escaped(objective_text *o, const char *s)
{
    for (const char *at = s; *at; at++) {
        const char *escape = *at == '&' ? "&amp;" : *at == '<' ? "&lt;" : *at == '>' ? "&gt;" : *at == '"' ? "&quot;" : NULL;
        if (escape) objective_put(o, escape, strlen(escape));
        else objective_put(o, at, 1);
    }
}

/* The element as XML text: its name, attributes, text and child elements (comments dropped).
 * Written here rather than by libxml2's serializer, which reports its own errors by printing.
 * Recursion is bounded by libxml2's nesting limit (256). */
static void objective_put_node(objective_text *o, xmlNodePtr node)
{
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
        if (node->content) objective_put_escaped(o, (const char *)node->content);
        return;
    }
    if (node->type != XML_ELEMENT_NODE) return;
    objective_put(o, "<", 1);
    objective_put(o, (const char *)node->name, strlen((const char *)node->name));
    for (xmlAttrPtr a = node->properties; a; a = a->next) {
        char *value = (char *)xmlNodeListGetString(node->doc, a->children, 1);
        objective_put(o, " ", 1);
        objective_put(o, (const char *)a->name, strlen((const char *)a->name));
        objective_put(o, "=\"", 2);
        if (value) objective_put_escaped(o, value);
        objective_put(o, "\"", 1);
        xmlFree(value);
    }
    objective_put(o, ">", 1);
    for (xmlNodePtr c = node->children; c; c = c->next) objective_put_node(o, c);
    objective_put(o, "</", 2);
    objective_put(o, (const char *)node->name, strlen((const char *)node->name));
    objective_put(o, ">", 1);
}

/* <minimize> / <maximize>: not enforced by consistency; noted, and kept as text so the reduced
 * instance can carry it (docs/xcsp.md). */
static parac_status read_objective(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    objective_text o = {x, 0};
    if (!is_named(node, "minimize") && !is_named(node, "maximize")) return xcsp3_unsupported(x, node, error);
    x->network->has_objective = 1;
    objective_put(&o, "    ", 4);
    objective_put_node(&o, node);
    objective_put(&o, "\n", 1);
    if (o.failed == 1) return fail_node(x, node, PARAC_ERR_UNSUPPORTED, "objectives longer than 10^7 bytes in all", error);
    if (o.failed) return parac_fail_no_memory(error, "objective", x->objectives_length);
    return PARAC_OK;
}

static parac_status on_element(void *context, const char *section, xmlNodePtr node, parac_error *error)
{
    xcsp3 *x = context;
    const char *name = (const char *)node->name;
    if (strcmp(section, "variables") == 0) {
        if (x->network->present)
            return fail_node(x, node, PARAC_ERR_PARSE, "variables declared after constraints", error);
        if (strcmp(name, "var") == 0) return read_var(x, node, error);
        if (strcmp(name, "array") == 0) return read_array(x, node, error);
        return fail_node(x, node, PARAC_ERR_PARSE, "unexpected element in <variables>", error);
    }
    if (strcmp(section, "constraints") == 0) return read_constraint(x, node, error);
    if (strcmp(section, "objectives") == 0) return read_objective(x, node, error);
    return PARAC_OK; /* annotations and the like do not change the network */
}

parac_status xcsp3_read(xcsp_input *in, parac_csp_network *network, const parac_csp_load_options *options,
                        char **objectives, parac_error *error)
{
    xcsp3 x;
    parac_status status;
    char *type = (char *)xmlTextReaderGetAttribute(in->reader, (const xmlChar *)"type");
    memset(&x, 0, sizeof x);
    x.in = in;
    x.network = network;
    x.options = options;
    if (type && strcmp(type, "CSP") != 0 && strcmp(type, "COP") != 0 && !options->ignore_unsupported) {
        status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, in->name, xmlTextReaderGetParserLineNumber(in->reader),
                               "unsupported instance type=\"%s\" (only CSP and COP)", type);
    } else {
        status = xcsp_walk(in, on_section, on_element, &x, error);
        if (status == PARAC_OK) status = parac_csp_finish_variables(network, error);
    }
    xmlFree(type);
    if (status == PARAC_OK && objectives) {
        *objectives = x.objectives;
        x.objectives = NULL;
    }
    free(x.objectives);
    xcsp_names_free(&x.names);
    free(x.arrays);
    free(x.args_expression_variables.items);
    return status;
}
