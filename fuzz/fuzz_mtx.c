/* fuzz/fuzz_mtx.c — Matrix Market files from memory through gemm_matrix_read_input (the body of
 * parac_gemm_matrix_read; the name "fuzz.mtx" picks the format as the extension of a path would).
 *
 * A valid file may declare up to PARAC_GEMM_MAX_FILE_VALUES (2^32) values, which the reader holds
 * densely (16 GiB, zeroed lazily by calloc). Under AddressSanitizer such a mapping alone costs gigabytes
 * of shadow memory, past the fuzzer's memory limit, so the target passes the reader a limit of
 * FUZZ_MAX_VALUES instead: the reader's own size-line parser applies it, so every spelling of the size
 * line it accepts (indented, after indented comments or blank lines) is held to the same cap, and a
 * larger declaration takes the "above the limit" error path like any other. The public limit itself and
 * the sizes between are tested in gemm.io and core.hostile_cli (plain builds, where the mapping costs
 * nothing until touched). */
#include <parac/gemm.h>

#include "gemm/io_mtx.h"

#define FUZZ_MAX_VALUES ((uint64_t)1 << 24)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parac_error error = {0};
    parac_gemm_matrix matrix;
    parac_input input = parac_input_memory(data, size, "fuzz.mtx");
    if (gemm_matrix_read_input(&input, FUZZ_MAX_VALUES, &matrix, &error) == PARAC_OK) parac_gemm_matrix_free(&matrix);
    return 0;
}
