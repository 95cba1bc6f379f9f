/* fuzz/fuzz_cxt.c — formal contexts in the CXT format through parac_fca_context_read_memory
 * (the shared body: fca_context_fuzz.h). */
#include "fca_context_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_fca_context(data, size, "fuzz.cxt", PARAC_FCA_FORMAT_CXT);
}
