/* fuzz/fuzz_points_csv.c — numeric CSV/TSV point tables (core/csv through
 * parac_matrix_load), with and without non-finite values allowed, and the
 * CSV reader itself with an explicit header in chunks of two rows. */
#include "core/csv.h"
#include "core/matrix_file.h"
#include "temp_input.h"

static void read_with_header(const char *path)
{
    parac_csv_reader reader;
    parac_csv_options options = {PARAC_CSV_HEADER_PRESENT, 0};
    parac_error error = {0};
    if (parac_csv_open(&reader, path, &options, &error) == PARAC_OK) {
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
    char path[FUZZ_PATH_SIZE];
    parac_error error = {0};
    parac_matrix matrix;
    if (fuzz_write_temp(data, size, ".csv", path)) return 0;
    for (int allow_nonfinite = 0; allow_nonfinite < 2; allow_nonfinite++)
        if (parac_matrix_load(path, allow_nonfinite, &matrix, &error) == PARAC_OK) parac_matrix_free(&matrix);
    read_with_header(path);
    fuzz_remove_temp(path);
    return 0;
}
