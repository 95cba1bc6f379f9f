/* csp/xcsp3_globals.c — XCSP3 global constraints into parac_csp_global (ac/global.h).
 *
 * One reader per kind, each reading the element's children into one plain
 * struct that the network copies (parac_csp_add_global). Every list goes
 * through the reader's list parser (xcsp3_parse_terms), so compact references
 * (x[], m[][2]), integer constants and group/slide parameters (%i, %...) work
 * everywhere. A child element a kind does not know is refused (unsupported,
 * with its line) rather than ignored: dropping part of a constraint would
 * change what it means. instantiation is applied to the domains, not stored.
 *
 * This file holds the dispatch by element name; the readers of the kinds are in
 * xcsp3_global_{comparison,counting,connection,language,packing}.c, the parts they
 * share in xcsp3_global_reader.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp3_global_reader.h"

/* ---- dispatch ------------------------------------------------------------------------------- */

typedef struct global_entry {
    const char *name;
    ac_global_kind kind;
    parac_status (*read)(global_reader *r);
} global_entry;

static const global_entry entries[] = {
    {"allDifferent", AC_GLOBAL_ALL_DIFFERENT, xcsp3_read_all_different},
    {"allEqual", AC_GLOBAL_ALL_EQUAL, xcsp3_read_all_equal},
    {"sum", AC_GLOBAL_SUM, xcsp3_read_sum},
    {"count", AC_GLOBAL_COUNT, xcsp3_read_count},
    {"atLeast", AC_GLOBAL_COUNT, xcsp3_read_at_least},
    {"atMost", AC_GLOBAL_COUNT, xcsp3_read_at_most},
    {"exactly", AC_GLOBAL_COUNT, xcsp3_read_exactly},
    {"nValues", AC_GLOBAL_NVALUES, xcsp3_read_n_values},
    {"cardinality", AC_GLOBAL_CARDINALITY, xcsp3_read_cardinality},
    {"element", AC_GLOBAL_ELEMENT, xcsp3_read_element},
    {"channel", AC_GLOBAL_CHANNEL, xcsp3_read_channel},
    {"ordered", AC_GLOBAL_ORDERED, xcsp3_read_ordered},
    {"lex", AC_GLOBAL_LEX, xcsp3_read_lex},
    {"instantiation", AC_GLOBAL_KIND_COUNT, xcsp3_read_instantiation},
    {"regular", AC_GLOBAL_REGULAR, xcsp3_read_regular},
    {"mdd", AC_GLOBAL_MDD, xcsp3_read_mdd},
    {"minimum", AC_GLOBAL_MINIMUM, xcsp3_read_extremum},
    {"maximum", AC_GLOBAL_MAXIMUM, xcsp3_read_extremum},
    {"noOverlap", AC_GLOBAL_NO_OVERLAP, xcsp3_read_no_overlap},
    {"cumulative", AC_GLOBAL_CUMULATIVE, xcsp3_read_cumulative},
    {"circuit", AC_GLOBAL_CIRCUIT, xcsp3_read_circuit},
    {"binPacking", AC_GLOBAL_BIN_PACKING, xcsp3_read_bin_packing},
    {"knapsack", AC_GLOBAL_KNAPSACK, xcsp3_read_knapsack},
};

static const global_entry *entry_named(const char *name)
{
    for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++)
        if (strcmp(entries[k].name, name) == 0) return &entries[k];
    return NULL;
}

int xcsp3_is_global(const char *name) { return entry_named(name) != NULL; }

parac_status xcsp3_read_global(xcsp3 *x, xmlNodePtr node, const term_list *args, parac_error *error)
{
    const global_entry *entry = entry_named((const char *)node->name);
    global_reader r;
    parac_status status;
    if (!entry) return xcsp3_unsupported(x, node, error);
    memset(&r, 0, sizeof r);
    r.x = x;
    r.args = args;
    /* the variables of expressions among the group's <args> (read_global_group) */
    for (size_t i = 0; args && i < x->args_expression_variables.count; i++)
        if (xcsp3_push_term(&r.expression_variables, x->args_expression_variables.items[i].var, 0) < 0)
            return parac_fail_no_memory(error, "global constraint", 64);
    r.node = node;
    r.error = error;
    ac_global_init(&r.g, entry->kind == AC_GLOBAL_KIND_COUNT ? AC_GLOBAL_ALL_DIFFERENT : entry->kind);
    status = entry->read(&r);
    ac_global_free(&r.g);
    free(r.expression_variables.items);
    if (status == PARAC_ERR_UNSUPPORTED && r.droppable && x->options->ignore_unsupported) {
        char description[PARAC_ERROR_MESSAGE_SIZE + 64];
        snprintf(description, sizeof description, "element <%s> at line %ld (%s)", (const char *)node->name,
                 xmlGetLineNo(node), error->message);
        memset(error, 0, sizeof *error);
        return parac_csp_note_dropped(x->network, description, error);
    }
    return status;
}

parac_status xcsp3_count_template(xcsp3 *x, xmlNodePtr template, size_t template_length, parac_error *error)
{
    uint64_t budget = x->in->limits.max_bytes, length = (uint64_t)template_length + 1;
    if (length > budget || x->template_bytes > budget - length)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, x->in->name, xmlGetLineNo(template),
                             "<%s>: templates re-read for more than %llu bytes in all (the byte budget)",
                             (const char *)template->name, (unsigned long long)budget);
    x->template_bytes += length;
    return PARAC_OK;
}
