/* fuzz/fuzz_mtx.c — Matrix Market files through parac_gemm_matrix_read. */
#include <parac/gemm.h>

#include "temp_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_SIZE];
    parac_error error = {0};
    parac_gemm_matrix matrix;
    if (fuzz_write_temp(data, size, ".mtx", path)) return 0;
    if (parac_gemm_matrix_read(path, &matrix, &error) == PARAC_OK) parac_gemm_matrix_free(&matrix);
    fuzz_remove_temp(path);
    return 0;
}
