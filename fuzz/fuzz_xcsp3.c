/* fuzz/fuzz_xcsp3.c — XCSP3 documents from memory (xcsp_load_memory) with small budgets; every
 * network that loads is checked by xcsp_fuzz_check_ac. The first byte, when odd, turns on
 * ignore_unsupported (global constraints skipped rather than refused). */
#include <stdint.h>

#include "xcsp_fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return xcsp_fuzz_input(data, size, "fuzz.xml");
}
