/* csp/xcsp_load.h — parac_csp_load and parac_csp_load_memory with explicit budgets
 * (xcsp_limits, see xcsp_input.h): for tests and fuzz targets that need small ones.
 * limits NULL means the defaults, which is what the public functions use. */
#ifndef PARAC_CSP_XCSP_LOAD_H
#define PARAC_CSP_XCSP_LOAD_H

#include <parac/csp.h>

#include "csp/xcsp_input.h"

parac_status xcsp_load_file(const char *path, const parac_csp_load_options *options, const xcsp_limits *limits,
                            parac_csp **out, parac_error *error);
parac_status xcsp_load_memory(const char *xml, size_t size, const char *name, const parac_csp_load_options *options,
                              const xcsp_limits *limits, parac_csp **out, parac_error *error);

#endif
