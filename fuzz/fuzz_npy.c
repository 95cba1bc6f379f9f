/* fuzz/fuzz_npy.c — .npy headers and data: the whole-array reader, the row
 * reader in small chunks, and the n x d table reader used by dbscan/birch/metrics. */
#include "core/matrix_file.h"
#include "core/npy.h"
#include "temp_input.h"

static void read_in_chunks(const char *path)
{
    parac_npy_reader reader;
    parac_error error = {0};
    uint64_t got;
    if (parac_npy_reader_open(&reader, path, &error) != PARAC_OK) return;
    {
        /* a (0, 2^40) header is valid and holds nothing: size the chunk by rows that exist */
        size_t row_bytes = (size_t)reader.row_values * parac_dtype_size(reader.dtype);
        size_t rows = reader.row_count < 3 ? (size_t)reader.row_count : 3;
        void *chunk = malloc(row_bytes * rows + 1);
        while (chunk && parac_npy_reader_read_rows(&reader, chunk, rows, &got, &error) == PARAC_OK && got) {
        }
        free(chunk);
    }
    parac_npy_reader_close(&reader);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_SIZE];
    parac_error error = {0};
    parac_npy_array array;
    parac_matrix matrix;
    if (fuzz_write_temp(data, size, ".npy", path)) return 0;
    if (parac_npy_read(path, &array, &error) == PARAC_OK) parac_npy_array_free(&array);
    read_in_chunks(path);
    if (parac_matrix_load(path, 1, &matrix, &error) == PARAC_OK) parac_matrix_free(&matrix);
    fuzz_remove_temp(path);
    return 0;
}
