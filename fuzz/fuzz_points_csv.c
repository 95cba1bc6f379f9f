/* fuzz/fuzz_points_csv.c — numeric CSV/TSV point tables from memory (core/csv through
 * parac_matrix_load_input, the body of parac_matrix_load), with and without non-finite values
 * allowed, and the CSV reader itself with an explicit header in chunks of two rows. Inputs that
 * start with the gzip magic are inflated in memory by the line reader, as a .gz file would be. */
#include <stdint.h>
#include <stdlib.h>

#include "core/csv.h"
#include "core/matrix_file.h"

static void read_with_header(const parac_input *input)
{
    parac_csv_reader reader;
    parac_csv_options options = {PARAC_CSV_HEADER_PRESENT, 0};
    parac_error error = {0};
    if (parac_csv_open_input(&reader, input, &options, &error) == PARAC_OK) {
        double *rows = malloc(2 * (reader.columns ? reader.columns : 1) * sizeof *rows);
        size_t got;
        while (rows && parac_csv_read_rows(&reader, rows, 2, &got, &error) == PARAC_OK && got) {
        }
        free(rows);
    }
    parac_csv_close(&reader);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parac_error error = {0};
    parac_matrix matrix;
    parac_input input = parac_input_memory(data, size, "fuzz.csv");
    for (int allow_nonfinite = 0; allow_nonfinite < 2; allow_nonfinite++)
        if (parac_matrix_load_input(&input, allow_nonfinite, &matrix, &error) == PARAC_OK) parac_matrix_free(&matrix);
    read_with_header(&input);
    return 0;
}
