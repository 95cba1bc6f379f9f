/* csp/csp_api.c — the public parac_csp handle (parac/csp.h): loading, counts, destroy. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/csp_handle.h"
#include "csp/xcsp_load.h"
#include "csp/xcsp_readers.h"

#define DEFAULT_MAX_TABLE_TUPLES 10000000ULL

void parac_csp_load_options_default(parac_csp_load_options *options)
{
    memset(options, 0, sizeof *options);
    options->max_table_tuples = DEFAULT_MAX_TABLE_TUPLES;
}

parac_csp *parac_csp_handle_create(parac_error *error)
{
    parac_csp *csp = malloc(sizeof *csp);
    if (!csp) {
        parac_fail_no_memory(error, "constraint network", sizeof *csp);
        return NULL;
    }
    csp->objectives = NULL;
    if (parac_csp_network_init(&csp->network, error) != PARAC_OK) {
        free(csp);
        return NULL;
    }
    return csp;
}

void parac_csp_destroy(parac_csp *csp)
{
    if (!csp) return;
    parac_csp_network_free(&csp->network);
    free(csp->objectives);
    free(csp);
}

/* Moves to the root element and reads it with the reader its format calls for. */
static parac_status read_document(xcsp_input *in, parac_csp *csp, const parac_csp_load_options *options,
                                  parac_error *error)
{
    char *format;
    parac_status status = xcsp_input_find_root(in, error);
    if (status != PARAC_OK) return status;
    if (strcmp((const char *)xmlTextReaderConstName(in->reader), "instance") != 0)
        return parac_fail_at(error, PARAC_ERR_PARSE, in->name, xmlTextReaderGetParserLineNumber(in->reader),
                             "the root element is <%s>, not <instance>", (const char *)xmlTextReaderConstName(in->reader));
    format = (char *)xmlTextReaderGetAttribute(in->reader, (const xmlChar *)"format");
    status = format && strcmp(format, "XCSP3") == 0 ? xcsp3_read(in, &csp->network, options, &csp->objectives, error)
                                                    : xcsp2_read(in, &csp->network, options, error);
    xmlFree(format);
    return status;
}

static parac_status load_from(xcsp_input *in, const parac_csp_load_options *options, parac_csp **out,
                              parac_error *error)
{
    parac_csp_load_options defaults;
    parac_csp *csp = parac_csp_handle_create(error);
    parac_status status;
    if (!options) {
        parac_csp_load_options_default(&defaults);
        options = &defaults;
    } else if (!options->max_table_tuples) {
        defaults = *options;
        defaults.max_table_tuples = DEFAULT_MAX_TABLE_TUPLES;
        options = &defaults;
    }
    if (!csp) return PARAC_ERR_NO_MEMORY;
    status = read_document(in, csp, options, error);
    if (status != PARAC_OK) {
        parac_csp_destroy(csp);
        return status;
    }
    *out = csp;
    return PARAC_OK;
}

parac_status xcsp_load_file(const char *path, const parac_csp_load_options *options, const xcsp_limits *limits,
                            parac_csp **out, parac_error *error)
{
    xcsp_input *in = malloc(sizeof *in);
    parac_status status;
    *out = NULL;
    if (!in) return parac_fail_no_memory(error, "XML input", sizeof *in);
    status = xcsp_input_open(in, path, limits, error);
    if (status == PARAC_OK) {
        status = load_from(in, options, out, error);
        xcsp_input_close(in);
    }
    free(in);
    return status;
}

parac_status xcsp_load_memory(const char *xml, size_t size, const char *name, const parac_csp_load_options *options,
                              const xcsp_limits *limits, parac_csp **out, parac_error *error)
{
    xcsp_input *in = malloc(sizeof *in);
    parac_status status;
    *out = NULL;
    if (!in) return parac_fail_no_memory(error, "XML input", sizeof *in);
    status = xcsp_input_open_memory(in, xml, size, name ? name : "<memory>", limits, error);
    if (status == PARAC_OK) {
        status = load_from(in, options, out, error);
        xcsp_input_close(in);
    }
    free(in);
    return status;
}

parac_status parac_csp_load(const char *path, const parac_csp_load_options *options, parac_csp **out,
                            parac_error *error)
{
    return xcsp_load_file(path, options, NULL, out, error);
}

parac_status parac_csp_load_memory(const char *xml, size_t size, const char *name,
                                   const parac_csp_load_options *options, parac_csp **out, parac_error *error)
{
    return xcsp_load_memory(xml, size, name, options, NULL, out, error);
}

size_t parac_csp_variable_count(const parac_csp *csp) { return parac_csp_declared_variables(&csp->network); }
size_t parac_csp_constraint_count(const parac_csp *csp) { return csp->network.constraint_count; }
size_t parac_csp_binary_constraint_count(const parac_csp *csp) { return parac_csp_binary_count(&csp->network); }
uint64_t parac_csp_value_count(const parac_csp *csp) { return csp->network.value_count; }
uint64_t parac_csp_ne_edge_count(const parac_csp *csp) { return parac_csp_edge_count(&csp->network); }

uint64_t parac_csp_present_value_count(const parac_csp *csp)
{
    return parac_csp_declared_values_in(&csp->network, csp->network.present);
}

const char *parac_csp_variable_name(const parac_csp *csp, size_t variable)
{
    return variable < parac_csp_declared_variables(&csp->network) ? csp->network.variable_names[variable] : NULL;
}

size_t parac_csp_dropped_count(const parac_csp *csp) { return csp->network.dropped_count; }

const char *parac_csp_dropped(const parac_csp *csp, size_t index)
{
    return index < csp->network.dropped_count ? csp->network.dropped[index] : NULL;
}

int parac_csp_has_objective(const parac_csp *csp) { return csp->network.has_objective; }
size_t parac_csp_global_count(const parac_csp *csp) { return csp->network.global_count; }
