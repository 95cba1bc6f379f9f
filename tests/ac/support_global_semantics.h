/* tests/ac/support_global_semantics.h — an independent reading of the XCSP3 semantics of the
 * global constraints (support_global_semantics.c), for the tests that check the library's. */
#ifndef PARAC_TEST_AC_GLOBAL_SEMANTICS_H
#define PARAC_TEST_AC_GLOBAL_SEMANTICS_H

#include <stdint.h>

#include "ac/global.h"

/* 1 when the full assignment x (a value per variable) satisfies g, by this file's own reading
 * of the kind's semantics. */
int test_satisfied(const parac_csp_global *g, const int64_t *x);

#endif
