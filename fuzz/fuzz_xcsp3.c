/* fuzz/fuzz_xcsp3.c — XCSP3 documents from memory (xcsp_load_memory) with small budgets; every
 * network that loads is checked by xcsp_fuzz_check_ac. The first byte, when odd, turns on
 * ignore_unsupported (global constraints skipped rather than refused). */
#include <stdint.h>

#include "xcsp_fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xcsp_limits limits;
    parac_csp_load_options options;
    parac_csp *csp = NULL;
    parac_error error = {0};
    xcsp_fuzz_limits(&limits, &options, size > 0 && (data[0] & 1));
    if (xcsp_load_memory((const char *)data, size, "fuzz.xml", &options, &limits, &csp, &error) == PARAC_OK) {
        xcsp_fuzz_check_ac(csp);
        parac_csp_destroy(csp);
    }
    return 0;
}
