/* fuzz/fuzz_mtx.c — Matrix Market files from memory through gemm_matrix_read_input (the body of
 * parac_gemm_matrix_read; the name "fuzz.mtx" picks the format as the extension of a path would).
 *
 * A valid file may declare up to PARAC_GEMM_MAX_FILE_VALUES (2^32) values, which the reader holds
 * densely (16 GiB, zeroed lazily by calloc). Under AddressSanitizer such a mapping alone costs gigabytes
 * of shadow memory, past the fuzzer's 1 GiB, so inputs whose first size line declares more than
 * FUZZ_MAX_VALUES values are skipped here; the limit itself and the sizes between are tested in
 * gemm.io and core.hostile_cli (plain builds, where the mapping costs nothing until touched). */
#include <stdio.h>

#include <parac/gemm.h>

#include "gemm/io_mtx.h"

#define FUZZ_MAX_VALUES ((unsigned long long)1 << 24)

/* rows x cols of the first line after the banner and comments, 0 when there is none to read. */
static unsigned long long declared_values(const uint8_t *data, size_t size)
{
    char line[256];
    size_t at = 0;
    int first = 1;
    while (at < size) {
        size_t length = 0;
        unsigned long long rows = 0, cols = 0;
        while (at < size && data[at] != '\n' && length + 1 < sizeof line) line[length++] = (char)data[at++];
        while (at < size && data[at] != '\n') at++;
        at++;
        line[length] = '\0';
        if (first || line[0] == '%' || length == 0) {
            first = 0;
            continue;
        }
        if (sscanf(line, "%llu %llu", &rows, &cols) != 2) return 0;
        return cols && rows > FUZZ_MAX_VALUES / cols ? FUZZ_MAX_VALUES + 1 : rows * cols;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parac_error error = {0};
    parac_gemm_matrix matrix;
    parac_input input = parac_input_memory(data, size, "fuzz.mtx");
    if (declared_values(data, size) > FUZZ_MAX_VALUES) return 0;
    if (gemm_matrix_read_input(&input, &matrix, &error) == PARAC_OK) parac_gemm_matrix_free(&matrix);
    return 0;
}
