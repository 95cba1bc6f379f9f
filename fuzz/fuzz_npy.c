/* fuzz/fuzz_npy.c — .npy headers and data from memory: the whole-array reader, the row reader
 * in small chunks, and the n x d table reader used by dbscan/birch/metrics (the bodies of
 * parac_npy_read, parac_npy_reader_open and parac_matrix_load; a buffer is checked to hold the
 * data its shape needs exactly as a regular file is). */
#include <stdint.h>
#include <stdlib.h>

#include "core/matrix_file.h"
#include "core/npy.h"

static void read_in_chunks(const parac_input *input)
{
    parac_npy_reader reader;
    parac_error error = {0};
    uint64_t got;
    if (parac_npy_reader_open_input(&reader, input, &error) != PARAC_OK) return;
    {
        /* a (0, 2^40) header is valid and holds nothing: size the chunk by rows that exist; rows of
         * no values ((2^32, 0) is valid too) hold no data and are taken in one call, as a caller
         * sizing its chunks by bytes would (3 at a time they made 1.4e9 calls: a timeout) */
        size_t row_bytes = (size_t)reader.row_values * parac_dtype_size(reader.dtype);
        size_t rows = row_bytes == 0 ? (size_t)reader.row_count : reader.row_count < 3 ? (size_t)reader.row_count : 3;
        void *chunk = malloc(row_bytes * rows + 1);
        while (chunk && parac_npy_reader_read_rows(&reader, chunk, rows, &got, &error) == PARAC_OK && got) {
        }
        free(chunk);
    }
    parac_npy_reader_close(&reader);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parac_error error = {0};
    parac_npy_array array;
    parac_matrix matrix;
    parac_input input = parac_input_memory(data, size, "fuzz.npy");
    if (parac_npy_read_input(&input, &array, &error) == PARAC_OK) parac_npy_array_free(&array);
    read_in_chunks(&input);
    if (parac_matrix_load_input(&input, 1, &matrix, &error) == PARAC_OK) parac_matrix_free(&matrix);
    return 0;
}
