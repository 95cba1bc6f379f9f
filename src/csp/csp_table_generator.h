/* csp/csp_table_generator.h — random table networks for parac_csp_generate (arity >= 3). */
#ifndef PARAC_CSP_TABLE_GENERATOR_H
#define PARAC_CSP_TABLE_GENERATOR_H

#include <parac/csp.h>

#include "csp/csp_handle.h"

/* Range checks of the table options (arity, tuples); PARAC_ERR_INVALID_ARGUMENT when off. */
parac_status csp_check_table_options(const parac_csp_generate_options *options, parac_error *error);
/* Adds options->constraints random tables to csp, whose variables are laid out. */
parac_status csp_add_random_tables(parac_csp *csp, const parac_csp_generate_options *options, parac_error *error);

#endif
