/* ac/ac_model.c — the arc view of a network, the n-ary constraint index, domain bitsets, and GAC on
 * tables. */
#include "ac/ac_algorithms.h"

#include <stdlib.h>
#include <string.h>

#include "ac/global_propagate.h"
#include "core/error.h"

static void transpose_matrix(const parac_word *matrix, size_t rows, size_t columns, parac_word *out)
{
    size_t row_words = parac_bitset_words(columns), out_words = parac_bitset_words(rows);
    memset(out, 0, columns * out_words * sizeof *out);
    for (size_t a = 0; a < rows; a++) {
        const parac_word *row = matrix + a * row_words;
        for (size_t b = parac_bitset_next(row, columns, 0); b < columns; b = parac_bitset_next(row, columns, b + 1))
            parac_bitset_set(out + b * out_words, a);
    }
}

/* CSR of arcs keyed by one endpoint (by_y: the support variable, else the revised one). */
static parac_status index_arcs(ac_model *model, int by_y, size_t **offset_out, uint32_t **list_out,
                               parac_error *error)
{
    size_t n = model->network->variable_count;
    size_t *offset = calloc(n + 1, sizeof *offset), *fill = calloc(n + 1, sizeof *fill);
    uint32_t *list = malloc((model->arc_count + 1) * sizeof *list);
    if (!offset || !fill || !list) {
        free(offset), free(fill), free(list);
        return parac_fail_no_memory(error, "arc index", (unsigned long long)(n + model->arc_count) * 8);
    }
    for (size_t a = 0; a < model->arc_count; a++) offset[(by_y ? model->arcs[a].y : model->arcs[a].x) + 1]++;
    for (size_t v = 0; v < n; v++) offset[v + 1] += offset[v];
    for (size_t a = 0; a < model->arc_count; a++) {
        uint32_t v = by_y ? model->arcs[a].y : model->arcs[a].x;
        list[offset[v] + fill[v]++] = (uint32_t)a;
    }
    free(fill);
    *offset_out = offset;
    *list_out = list;
    return PARAC_OK;
}

/* The n-ary constraints (tables, then globals) with their scopes. */
static parac_status list_nary(ac_model *model, parac_error *error)
{
    const parac_csp_network *net = model->network;
    size_t tables = 0, global_entries = 0, k = 0, used = 0;
    for (size_t c = 0; c < net->constraint_count; c++) tables += net->constraints[c].arity >= 3;
    for (size_t g = 0; g < net->global_count; g++) global_entries += ac_global_scope(&net->globals[g], NULL, 0);
    model->nary_count = tables + net->global_count;
    model->nary = calloc(model->nary_count + 1, sizeof *model->nary);
    model->nary_scope_storage = malloc((global_entries + 1) * sizeof *model->nary_scope_storage);
    if (!model->nary || !model->nary_scope_storage)
        return parac_fail_no_memory(error, "n-ary constraint list", (unsigned long long)global_entries * 4);
    for (size_t c = 0; c < net->constraint_count; c++)
        if (net->constraints[c].arity >= 3)
            model->nary[k++] = (ac_nary){net->constraints[c].scope, net->constraints[c].arity, (uint32_t)c, NULL, 1};
    for (size_t g = 0; g < net->global_count; g++) {
        uint32_t *scope = model->nary_scope_storage + used;
        size_t arity = ac_global_scope(&net->globals[g], scope, global_entries - used);
        used += arity;
        model->nary[k++] = (ac_nary){scope, (uint32_t)arity, 0, &net->globals[g],
                                     ac_global_dedicated_strength(net, &net->globals[g]) == AC_STRENGTH_GAC};
    }
    return PARAC_OK;
}

static parac_status index_nary(ac_model *model, parac_error *error)
{
    const parac_csp_network *net = model->network;
    size_t n = net->variable_count, entries = 0, scratch_words = 0, largest_arity = 0;
    size_t *fill;
    parac_status status = list_nary(model, error);
    if (status != PARAC_OK) return status;
    for (size_t k = 0; k < model->nary_count; k++) entries += model->nary[k].arity;
    fill = calloc(n + 1, sizeof *fill);
    model->nary_on_offset = calloc(n + 1, sizeof *model->nary_on_offset);
    model->nary_on = malloc((entries + 1) * sizeof *model->nary_on);
    if (!fill || !model->nary_on_offset || !model->nary_on) {
        free(fill);
        return parac_fail_no_memory(error, "n-ary constraint index", (unsigned long long)entries * 4);
    }
    for (size_t k = 0; k < model->nary_count; k++) {
        size_t words = 0;
        if (model->nary[k].global) continue;
        for (uint32_t i = 0; i < model->nary[k].arity; i++) words += parac_bitset_words(net->domain_size[model->nary[k].scope[i]]);
        if (words > scratch_words) scratch_words = words;
        if (model->nary[k].arity > largest_arity) largest_arity = model->nary[k].arity;
    }
    model->table_scratch = malloc((scratch_words + 1) * sizeof *model->table_scratch);
    model->table_base = malloc((largest_arity + 1) * sizeof *model->table_base);
    if (!model->table_scratch || !model->table_base) {
        free(fill);
        return parac_fail_no_memory(error, "table revision scratch", (unsigned long long)scratch_words * 8);
    }
    for (size_t k = 0; k < model->nary_count; k++)
        for (uint32_t i = 0; i < model->nary[k].arity; i++) model->nary_on_offset[model->nary[k].scope[i] + 1]++;
    for (size_t v = 0; v < n; v++) model->nary_on_offset[v + 1] += model->nary_on_offset[v];
    for (size_t k = 0; k < model->nary_count; k++)
        for (uint32_t i = 0; i < model->nary[k].arity; i++) {
            uint32_t v = model->nary[k].scope[i];
            model->nary_on[model->nary_on_offset[v] + fill[v]++] = (uint32_t)k;
        }
    free(fill);
    return PARAC_OK;
}

/* Arcs 2k, 2k+1 for the k-th binary constraint, transposed matrices for the odd ones. */
static parac_status build_arcs(ac_model *model, int transposed, parac_error *error)
{
    const parac_csp_network *net = model->network;
    size_t binary = 0, transposed_words = 0, k = 0, used = 0;
    for (size_t c = 0; c < net->constraint_count; c++) {
        const parac_csp_constraint *con = &net->constraints[c];
        if (con->arity != 2) continue;
        binary++;
        if (transposed)
            transposed_words += (size_t)net->domain_size[con->scope[1]] * parac_bitset_words(net->domain_size[con->scope[0]]);
    }
    model->arc_count = 2 * binary;
    model->arcs = calloc(model->arc_count + 1, sizeof *model->arcs);
    model->transposed = malloc((transposed_words + 1) * sizeof *model->transposed);
    model->arc_value_offset = calloc(model->arc_count + 1, sizeof *model->arc_value_offset);
    if (!model->arcs || !model->transposed || !model->arc_value_offset)
        return parac_fail_no_memory(error, "arcs", (unsigned long long)transposed_words * 8);
    for (size_t c = 0; c < net->constraint_count; c++) {
        const parac_csp_constraint *con = &net->constraints[c];
        uint32_t x = con->scope[0], y = con->scope[1];
        if (con->arity != 2) continue;
        model->arcs[2 * k] = (ac_arc){x, y, (uint32_t)c, con->matrix, parac_bitset_words(net->domain_size[y])};
        model->arcs[2 * k + 1] = (ac_arc){y, x, (uint32_t)c, NULL, parac_bitset_words(net->domain_size[x])};
        if (transposed) {
            transpose_matrix(con->matrix, net->domain_size[x], net->domain_size[y], model->transposed + used);
            model->arcs[2 * k + 1].matrix = model->transposed + used;
            used += (size_t)net->domain_size[y] * parac_bitset_words(net->domain_size[x]);
        }
        k++;
    }
    for (size_t a = 0; a < model->arc_count; a++)
        model->arc_value_offset[a + 1] = model->arc_value_offset[a] + net->domain_size[model->arcs[a].x];
    return PARAC_OK;
}

parac_status ac_model_build(const parac_csp_network *network, int transposed, ac_model *model, parac_error *error)
{
    parac_status status;
    size_t n = network->variable_count;
    memset(model, 0, sizeof *model);
    model->network = network;
    if ((status = build_arcs(model, transposed, error)) != PARAC_OK) goto fail;
    if ((status = index_arcs(model, 1, &model->arcs_on_offset, &model->arcs_on, error)) != PARAC_OK) goto fail;
    if ((status = index_arcs(model, 0, &model->arcs_of_offset, &model->arcs_of, error)) != PARAC_OK) goto fail;
    if ((status = index_nary(model, error)) != PARAC_OK) goto fail;
    model->domain_word_offset = calloc(n + 1, sizeof *model->domain_word_offset);
    if (!model->domain_word_offset) {
        status = parac_fail_no_memory(error, "domain layout", (unsigned long long)n * 8);
        goto fail;
    }
    for (size_t v = 0; v < n; v++)
        model->domain_word_offset[v + 1] = model->domain_word_offset[v] + parac_bitset_words(network->domain_size[v]);
    return PARAC_OK;
fail:
    ac_model_free(model);
    return status;
}

void ac_model_free(ac_model *model)
{
    free(model->arcs);
    free(model->transposed);
    free(model->arc_value_offset);
    free(model->arcs_on_offset);
    free(model->arcs_on);
    free(model->arcs_of_offset);
    free(model->arcs_of);
    free(model->nary);
    free(model->nary_scope_storage);
    free(model->nary_on_offset);
    free(model->nary_on);
    free(model->table_scratch);
    free(model->table_base);
    free(model->domain_word_offset);
    memset(model, 0, sizeof *model);
}

static parac_status domains_alloc(const ac_model *model, ac_domains *domains, parac_error *error)
{
    size_t n = model->network->variable_count, words = model->domain_word_offset[n];
    domains->words = calloc(words + 1, sizeof *domains->words);
    domains->size = calloc(n + 1, sizeof *domains->size);
    if (!domains->words || !domains->size) {
        ac_domains_free(domains);
        return parac_fail_no_memory(error, "domains", (unsigned long long)(words + n) * 8);
    }
    return PARAC_OK;
}

parac_status ac_domains_init(const ac_model *model, ac_domains *domains, parac_error *error)
{
    parac_status status = domains_alloc(model, domains, error);
    if (status == PARAC_OK) ac_domains_import(model, model->network->present, domains);
    return status;
}

parac_status ac_domains_create(const ac_model *model, ac_domains *domains, parac_error *error)
{
    return domains_alloc(model, domains, error);
}

parac_status ac_domains_clone(const ac_model *model, const ac_domains *from, ac_domains *to, parac_error *error)
{
    parac_status status = domains_alloc(model, to, error);
    if (status == PARAC_OK) ac_domains_copy(model, to, from);
    return status;
}

void ac_domains_copy(const ac_model *model, ac_domains *to, const ac_domains *from)
{
    size_t n = model->network->variable_count;
    memcpy(to->words, from->words, model->domain_word_offset[n] * sizeof *to->words);
    memcpy(to->size, from->size, n * sizeof *to->size);
}

void ac_domains_free(ac_domains *domains)
{
    free(domains->words);
    free(domains->size);
    domains->words = NULL;
    domains->size = NULL;
}

void ac_domains_import(const ac_model *model, const uint64_t *value_bits, ac_domains *domains)
{
    const parac_csp_network *net = model->network;
    for (size_t v = 0; v < net->variable_count; v++) {
        parac_word *dom = ac_domain_of(model, domains, (uint32_t)v);
        size_t words = parac_bitset_words(net->domain_size[v]);
        parac_bitset_zero(dom, words);
        for (uint32_t s = 0; s < net->domain_size[v]; s++)
            if (parac_bitset_test(value_bits, net->value_offset[v] + s)) parac_bitset_set(dom, s);
        domains->size[v] = (uint32_t)parac_bitset_popcount(dom, words);
    }
}

void ac_domains_export(const ac_model *model, const ac_domains *domains, int wipeout, uint64_t *value_bits)
{
    const parac_csp_network *net = model->network;
    memset(value_bits, 0, parac_bitset_words(net->value_count) * sizeof *value_bits);
    if (wipeout) return;
    for (size_t v = 0; v < net->variable_count; v++) {
        const parac_word *dom = ac_domain_of(model, domains, (uint32_t)v);
        for (size_t s = parac_bitset_next(dom, net->domain_size[v], 0); s < net->domain_size[v];
             s = parac_bitset_next(dom, net->domain_size[v], s + 1))
            parac_bitset_set(value_bits, net->value_offset[v] + s);
    }
}

uint64_t ac_domains_total(const ac_model *model, const ac_domains *domains)
{
    uint64_t total = 0;
    for (size_t v = 0; v < parac_csp_declared_variables(model->network); v++) total += domains->size[v];
    return total;
}

/* One pass over the tuples: a tuple whose values are all present supports each
 * of its values. Then every unsupported value goes. Simple and exact (GAC). */
int ac_revise_table(const ac_model *model, ac_domains *domains, size_t table, uint8_t *changed, parac_ac_stats *stats)
{
    const parac_csp_network *net = model->network;
    const parac_csp_constraint *con = &net->constraints[table];
    size_t words = 0, arity = con->arity;
    size_t *base = model->table_base;
    parac_word *supported = model->table_scratch;
    int wipeout = 0;
    for (size_t i = 0; i < arity; i++) {
        base[i] = words;
        words += parac_bitset_words(net->domain_size[con->scope[i]]);
    }
    parac_bitset_zero(supported, words);
    if (stats) stats->revisions++;
    for (size_t t = 0; t < con->tuple_count; t++) {
        const uint32_t *tuple = con->tuples + t * arity;
        size_t i = 0;
        while (i < arity && parac_bitset_test(ac_domain_of(model, domains, con->scope[i]), tuple[i])) i++;
        if (i < arity) continue;
        for (i = 0; i < arity; i++) parac_bitset_set(supported + base[i], tuple[i]);
    }
    for (size_t i = 0; i < arity && !wipeout; i++) {
        uint32_t var = con->scope[i];
        size_t var_words = parac_bitset_words(net->domain_size[var]);
        parac_word *dom = ac_domain_of(model, domains, var);
        parac_bitset_and(dom, dom, supported + base[i], var_words);
        uint32_t size = (uint32_t)parac_bitset_popcount(dom, var_words);
        if (size != domains->size[var]) {
            domains->size[var] = size;
            if (changed) changed[var] = 1;
            if (size == 0) wipeout = 1;
        }
    }
    return wipeout;
}

int ac_revise_nary(const ac_model *model, ac_domains *domains, size_t nary, uint8_t *changed, parac_ac_stats *stats)
{
    const ac_nary *constraint = &model->nary[nary];
    if (constraint->global)
        return ac_revise_global_as(model, domains, constraint->global, constraint->exact, changed, stats);
    return ac_revise_table(model, domains, constraint->table, changed, stats);
}
