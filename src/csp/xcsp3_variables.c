/* csp/xcsp3_variables.c — the XCSP3 reader's <variables>: <var> and <array> (sizes, ranges,
 * value lists, as=, <domain for=...>), each cell a network variable named in x->names.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_internal.h"

/* ---- variables ------------------------------------------------------------------------------ */

static parac_status add_named_variable(xcsp3 *x, const char *name, const int64_t *values, uint32_t count,
                                       xmlNodePtr node, parac_error *error)
{
    uint32_t index;
    xcsp_site site = xcsp3_site_of(x, node);
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

parac_status xcsp3_read_var(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    char *id = (char *)xmlGetProp(node, (const xmlChar *)"id"), *as = (char *)xmlGetProp(node, (const xmlChar *)"as");
    char *text = NULL;
    int64_t *values = NULL;
    uint32_t count = 0;
    parac_status status = PARAC_OK;
    if (!id) status = xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "<var> without id", error);
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
static int parse_size(const char *size, xcsp3_array *array)
{
    const char *at = size;
    array->dim_count = 0;
    while (*at == '[') {
        int64_t dim;
        at++;
        if (!xcsp_read_integer(&at, &dim) || dim <= 0 || dim > UINT32_MAX || *at != ']' || array->dim_count == XCSP3_MAX_DIMS)
            return -1;
        array->dims[array->dim_count++] = (uint32_t)dim;
        at++;
    }
    return array->dim_count && !*at ? 0 : -1;
}

/* The number of cells, or UINT64_MAX when the product overflows. */
static uint64_t cell_count(const xcsp3_array *array)
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
static parac_status read_array_domain(xcsp3 *x, xmlNodePtr node, const char *for_list, const xcsp3_array *array,
                                      uint64_t cells, array_domains *d, parac_error *error)
{
    char *text = xcsp_node_text(node);
    int32_t which = (int32_t)d->count;
    term_list targets = {0};
    parac_status status = PARAC_OK;
    if (xcsp_parse_domain(text, x->in->limits.max_values, &d->values[which], &d->counts[which], x->why, sizeof x->why) < 0) {
        status = xcsp3_fail_node(x, node, PARAC_ERR_PARSE, x->why, error);
        goto done;
    }
    d->count++;
    if (!for_list || strcmp(for_list, "others") == 0) {
        for (uint64_t c = 0; c < cells; c++)
            if (d->of_cell[c] < 0) d->of_cell[c] = which;
        goto done;
    }
    if (xcsp3_parse_terms(x, for_list, NULL, &targets) < 0) {
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

/* The array's values in all, before any cell is added: an array of 2,000 cells over 0..10^6 is
 * refused at once instead of after 800 MB of domains have been copied into the network. */
static int array_within_value_budget(const xcsp3 *x, const array_domains *d, uint64_t cells)
{
    uint64_t used = x->network->value_count, budget = x->in->limits.max_values, total = 0;
    if (used > budget) return 0;
    for (uint64_t c = 0; c < cells; c++)
        if (d->of_cell[c] >= 0 && (total += d->counts[d->of_cell[c]]) > budget - used) return 0;
    return 1;
}

static parac_status add_array_cells(xcsp3 *x, const char *id, const xcsp3_array *array, uint64_t cells,
                                    const array_domains *d, xmlNodePtr node, parac_error *error)
{
    char name[256];
    uint32_t index[XCSP3_MAX_DIMS] = {0};
    if (!array_within_value_budget(x, d, cells))
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(node),
                             "array '%s': more than %llu values in all domains (the value budget)", id,
                             (unsigned long long)x->in->limits.max_values);
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
        xcsp_site site = xcsp3_site_of(x, node);
        parac_status status = xcsp_add_variable(x->network, &x->in->limits, name, d->values[d->of_cell[c]],
                                                d->counts[d->of_cell[c]], &var, &site, error);
        if (status != PARAC_OK) return status;
    }
    return PARAC_OK;
}

static parac_status read_array_domains(xcsp3 *x, xmlNodePtr node, const xcsp3_array *array, uint64_t cells,
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
    int parsed = xcsp3_parse_terms(x, as, NULL, &source);
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

parac_status xcsp3_read_array(xcsp3 *x, xmlNodePtr node, parac_error *error)
{
    char *id = (char *)xmlGetProp(node, (const xmlChar *)"id"), *size = (char *)xmlGetProp(node, (const xmlChar *)"size");
    char *as = (char *)xmlGetProp(node, (const xmlChar *)"as");
    xcsp3_array array = {0};
    array_domains domains = {0};
    xcsp3_array *grown;
    uint64_t cells = 0;
    parac_status status = PARAC_OK;
    if (!id || !size || parse_size(size, &array) < 0) {
        status = xcsp3_fail_node(x, node, PARAC_ERR_PARSE, "<array> needs id and size=\"[n][m]...\" (at most 8 dimensions)", error);
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
