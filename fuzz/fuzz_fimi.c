/* fuzz/fuzz_fimi.c — formal contexts in the FIMI format, from memory through the FIMI parsing body
 * (fca_read_fimi_limited: what parac_fca_context_read_memory reaches, gzip inflated in memory), an
 * accepted context walked through every accessor (fca_context_fuzz.h).
 *
 * The reader accepts ids up to PARAC_FCA_MAX_ATTRIBUTE_ID (10^6): a 7-byte input naming that id builds
 * a 10^6-column context (8 MB zeroed, 10^6 names walked), which held this target to ~900 inputs a
 * second. Here ids above FUZZ_MAX_ATTRIBUTE_ID take the reader's "too large" path instead (the same
 * check, a lower bound); the 10^6 edge itself is tested in fca.io and core.hostile_cli. */
#include "core/input.h"
#include "fca/fca_internal.h"
#include "fca_context_fuzz.h"

#define FUZZ_MAX_ATTRIBUTE_ID 16383

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parac_input input = parac_input_memory(data, size, "fuzz.dat");
    parac_fca_context *context = NULL;
    parac_error error = {0};
    if (fca_read_fimi_limited(&input, FUZZ_MAX_ATTRIBUTE_ID, &context, &error) == PARAC_OK)
        fuzz_fca_walk_and_destroy(context);
    return 0;
}
