/* fuzz/xcsp_fuzz_common.h — what the XCSP fuzz targets share: small budgets (so that one input
 * stays fast and small), and a check of each network that loads: AC by three CPU algorithms
 * must agree value for value (a differential test of the readers' output through src/ac). */
#ifndef PARAC_FUZZ_XCSP_COMMON_H
#define PARAC_FUZZ_XCSP_COMMON_H

#include <stdlib.h>
#include <string.h>

#include <parac/ac.h>
#include <parac/csp.h>

#include "csp/xcsp_load.h"

static inline void xcsp_fuzz_limits(xcsp_limits *limits, parac_csp_load_options *options, int ignore_unsupported)
{
    limits->max_bytes = 1 << 20;
    limits->max_elements = 20000;
    limits->max_subtree_elements = 5000;
    limits->max_variables = 2000;
    limits->max_values = 20000;
    parac_csp_load_options_default(options);
    options->max_table_tuples = 20000;
    options->ignore_unsupported = ignore_unsupported;
}

/* Runs AC with ac3bit, ac2001 and ac4 (serial CPU, one thread) and aborts when their domains differ. */
static inline void xcsp_fuzz_check_ac(const parac_csp *csp)
{
    static const parac_ac_algorithm algorithms[3] = {PARAC_AC_AC3BIT, PARAC_AC_AC2001, PARAC_AC_AC4};
    size_t words = parac_ac_domain_words(parac_csp_value_count(csp)) + 1;
    uint64_t *first = calloc(words, sizeof *first), *other = calloc(words, sizeof *other);
    for (int a = 0; first && other && a < 3; a++) {
        parac_ac_options options;
        parac_error error = {0};
        memset(&options, 0, sizeof options);
        options.exec.device = PARAC_DEVICE_CPU;
        options.exec.threads = 1;
        options.algorithm = algorithms[a];
        if (parac_ac_enforce(csp, &options, a ? other : first, NULL, &error) != PARAC_OK) break;
        if (a && memcmp(first, other, words * sizeof *first) != 0) abort();
    }
    free(first);
    free(other);
}

/* One input of the XCSP targets: loaded from memory under the small budgets (the first byte, when
 * odd, turns on ignore_unsupported), and a network that loads is checked by xcsp_fuzz_check_ac. */
static inline int xcsp_fuzz_input(const uint8_t *data, size_t size, const char *name)
{
    xcsp_limits limits;
    parac_csp_load_options options;
    parac_csp *csp = NULL;
    parac_error error = {0};
    xcsp_fuzz_limits(&limits, &options, size > 0 && (data[0] & 1));
    if (xcsp_load_memory((const char *)data, size, name, &options, &limits, &csp, &error) == PARAC_OK) {
        xcsp_fuzz_check_ac(csp);
        parac_csp_destroy(csp);
    }
    return 0;
}

#endif
