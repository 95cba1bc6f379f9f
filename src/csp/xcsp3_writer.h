/* csp/xcsp3_writer.h — the reduced-instance writer behind `parac ac --write-reduced`
 * (parac_csp_write_xcsp3, in parac/csp.h, writes the initial domains). */
#ifndef PARAC_CSP_XCSP3_WRITER_H
#define PARAC_CSP_XCSP3_WRITER_H

#include <stdint.h>

#include <parac/csp.h>

/* Writes csp as XCSP3 with the domains of `domains` (a value-id bitset as parac_ac_enforce leaves
 * it) instead of the initial ones: the same variables (names kept, arrays rebuilt), constraints,
 * globals and objective. A domain left empty (a wipe-out) is refused with
 * PARAC_ERR_INVALID_ARGUMENT before anything is written. path "-" or NULL is stdout. */
parac_status xcsp3_write_reduced(const parac_csp *csp, const uint64_t *domains, const char *path, int threads,
                                 parac_error *error);

#endif
