/* fuzz/fuzz_xcsp2.c — XCSP 2.1 documents from memory (xcsp_load_memory) with small budgets.
 * The entry point is the one XCSP3 uses (the reader is chosen by the root's format attribute);
 * this target's corpus (fuzz/corpus/xcsp2/) is XCSP 2.1: domains, relations, predicates. Every
 * network that loads is checked by xcsp_fuzz_check_ac. The first byte, when odd, turns on
 * ignore_unsupported. */
#include <stdint.h>

#include "xcsp_fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return xcsp_fuzz_input(data, size, "fuzz2.xml");
}
