/* fuzz/fuzz_fimi.c — formal contexts in the FIMI format through parac_fca_context_read_memory
 * (the shared body: fca_context_fuzz.h). */
#include "fca_context_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_fca_context(data, size, "fuzz.dat", PARAC_FCA_FORMAT_FIMI);
}
