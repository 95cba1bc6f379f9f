/* ac/table_model.c — the compact-table index and support rows (see table_model.h). */
#include "ac/table_model.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

size_t ac_table_count(const ac_model *model)
{
    size_t count = 0;
    for (size_t k = 0; k < model->nary_count; k++) count += model->nary[k].global == NULL;
    return count;
}

/* Words of one table's support rows: (sum of its scope's domain sizes) x words of its tuple set. */
static uint64_t table_support_words(const parac_csp_network *network, const parac_csp_constraint *table)
{
    uint64_t slots = 0;
    for (uint32_t i = 0; i < table->arity; i++) slots += network->domain_size[table->scope[i]];
    return slots * parac_bitset_words(table->tuple_count);
}

uint64_t ac_network_table_count(const parac_csp_network *network)
{
    uint64_t count = 0;
    for (size_t c = 0; c < network->constraint_count; c++) count += network->constraints[c].arity >= 3;
    return count;
}

uint64_t ac_network_tuple_entries(const parac_csp_network *network)
{
    uint64_t entries = 0;
    for (size_t c = 0; c < network->constraint_count; c++)
        if (network->constraints[c].arity >= 3)
            entries += (uint64_t)network->constraints[c].arity * network->constraints[c].tuple_count;
    return entries;
}

uint64_t ac_network_table_support_bytes(const parac_csp_network *network)
{
    uint64_t words = 0;
    for (size_t c = 0; c < network->constraint_count; c++)
        if (network->constraints[c].arity >= 3) words += table_support_words(network, &network->constraints[c]);
    return words * sizeof(parac_word);
}

/* Sizes and offsets of every table, position and table slot. */
static parac_status lay_out(const ac_model *model, ac_table_model *tables, parac_error *error)
{
    const parac_csp_network *net = model->network;
    size_t t = 0, p = 0;
    tables->table_count = ac_table_count(model);
    for (size_t k = 0; k < model->nary_count; k++)
        if (!model->nary[k].global) tables->position_count += model->nary[k].arity;
    tables->constraint = malloc((tables->table_count + 1) * sizeof *tables->constraint);
    tables->words = malloc((tables->table_count + 1) * sizeof *tables->words);
    tables->valid_offset = calloc(tables->table_count + 1, sizeof *tables->valid_offset);
    tables->support_offset = calloc(tables->table_count + 1, sizeof *tables->support_offset);
    tables->position_offset = calloc(tables->table_count + 1, sizeof *tables->position_offset);
    tables->position_table = malloc((tables->position_count + 1) * sizeof *tables->position_table);
    tables->position_var = malloc((tables->position_count + 1) * sizeof *tables->position_var);
    tables->slot_offset = calloc(tables->position_count + 1, sizeof *tables->slot_offset);
    if (!tables->constraint || !tables->words || !tables->valid_offset || !tables->support_offset ||
        !tables->position_offset || !tables->position_table || !tables->position_var || !tables->slot_offset)
        return parac_fail_no_memory(error, "table index", (unsigned long long)tables->position_count * 24);
    for (size_t k = 0; k < model->nary_count; k++) {
        const parac_csp_constraint *con;
        if (model->nary[k].global) continue;
        con = &net->constraints[model->nary[k].table];
        tables->constraint[t] = model->nary[k].table;
        tables->words[t] = parac_bitset_words(con->tuple_count);
        tables->valid_offset[t + 1] = tables->valid_offset[t] + tables->words[t];
        tables->support_offset[t + 1] = tables->support_offset[t] + table_support_words(net, con);
        tables->position_offset[t + 1] = tables->position_offset[t] + con->arity;
        for (uint32_t i = 0; i < con->arity; i++, p++) {
            tables->position_table[p] = (uint32_t)t;
            tables->position_var[p] = con->scope[i];
            tables->slot_offset[p + 1] = tables->slot_offset[p] + net->domain_size[con->scope[i]];
        }
        t++;
    }
    tables->slot_count = tables->slot_offset[tables->position_count];
    tables->valid_words = tables->valid_offset[tables->table_count];
    tables->support_words = tables->support_offset[tables->table_count];
    return PARAC_OK;
}

/* Row (i, a) of table t gets bit j for every tuple j with value a at position i. */
static void fill_supports(const ac_model *model, ac_table_model *tables)
{
    for (size_t t = 0; t < tables->table_count; t++) {
        const parac_csp_constraint *con = &model->network->constraints[tables->constraint[t]];
        uint64_t first_position = tables->position_offset[t], first_slot = tables->slot_offset[first_position];
        for (uint32_t i = 0; i < con->arity; i++) {
            uint64_t row_slot = tables->slot_offset[first_position + i] - first_slot;
            for (size_t j = 0; j < con->tuple_count; j++) {
                uint64_t row = tables->support_offset[t] + (row_slot + con->tuples[j * con->arity + i]) * tables->words[t];
                parac_bitset_set(tables->supports + row, j);
            }
        }
    }
}

parac_status ac_table_model_build(const ac_model *model, ac_table_model *tables, parac_error *error)
{
    parac_status status;
    memset(tables, 0, sizeof *tables);
    if ((status = lay_out(model, tables, error)) != PARAC_OK) goto fail;
    tables->supports = calloc(tables->support_words + 1, sizeof *tables->supports);
    if (!tables->supports) {
        status = parac_fail_no_memory(error, "table support rows", (unsigned long long)tables->support_words * 8);
        goto fail;
    }
    fill_supports(model, tables);
    return PARAC_OK;
fail:
    ac_table_model_free(tables);
    return status;
}

void ac_table_model_free(ac_table_model *tables)
{
    free(tables->constraint);
    free(tables->words);
    free(tables->valid_offset);
    free(tables->support_offset);
    free(tables->position_offset);
    free(tables->position_table);
    free(tables->position_var);
    free(tables->slot_offset);
    free(tables->supports);
    memset(tables, 0, sizeof *tables);
}

void ac_table_valid_init(const ac_model *model, const ac_table_model *tables, const ac_domains *domains,
                         parac_word *valid)
{
    parac_bitset_zero(valid, tables->valid_words);
    for (size_t t = 0; t < tables->table_count; t++) {
        const parac_csp_constraint *con = &model->network->constraints[tables->constraint[t]];
        parac_word *set = valid + tables->valid_offset[t];
        for (size_t j = 0; j < con->tuple_count; j++) {
            const uint32_t *tuple = con->tuples + j * con->arity;
            uint32_t i = 0;
            while (i < con->arity && parac_bitset_test(ac_domain_of(model, domains, con->scope[i]), tuple[i])) i++;
            if (i == con->arity) parac_bitset_set(set, j);
        }
    }
}
