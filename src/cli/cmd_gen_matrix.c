/* cli/cmd_gen_matrix.c — `parac gen matrix`: dense, banded or block-sparse matrices for gemm. */
#include <stdlib.h>

#include "cli/cli.h"

#include <parac/gemm.h>

#include "core/error.h"

static const char GEN_MATRIX_DESCRIPTION[] =
    "Writes a rows x cols fp32 matrix with values uniform in [-1, 1): dense, banded (--band W: zero when\n"
    "|i-j| > W) or block-sparse (--block-density P --block B, optionally --power-law rows). The file type\n"
    "follows -o: .npy (row-major float32) or .mtx (Matrix Market array).";

int cli_gen_matrix(int argc, char **argv)
{
    int64_t rows = 0, cols = 0, band = -1, block = 64;
    double density = 0.0;
    int power_law = 0;
    const char *output = NULL;
    const cli_option options[] = {
        {"--rows", 0, CLI_INT64, &rows, "R", "rows"},
        {"--cols", 0, CLI_INT64, &cols, "C", "columns"},
        {"--band", 0, CLI_INT64, &band, "W", "banded: (i, j) = 0 when |i-j| > W"},
        {"--block-density", 0, CLI_DOUBLE, &density, "P", "block-sparse: fraction of non-zero blocks"},
        {"--block", 0, CLI_INT64, &block, "B", "block edge (default 64)"},
        {"--power-law", 0, CLI_FLAG, &power_law, NULL, "block rows' densities follow a power law"},
        {"--output", 'o', CLI_STRING, &output, "FILE", "output .npy or .mtx"},
    };
    const cli_command command = {"gen matrix", "--rows R --cols C [--band W | --block-density P] -o FILE",
                                 GEN_MATRIX_DESCRIPTION, options, sizeof options / sizeof options[0], 0, 0};
    cli_common common;
    const char *positionals[1];
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    parac_gemm_matrix_spec spec;
    parac_gemm_matrix matrix;
    parac_error error;
    parac_status status;
    cli_output written = {0};
    if (code != CLI_CONTINUE) return code;
    if (!output) return cli_usage_error("gen matrix", "-o FILE is required");
    if (rows < 1 || cols < 1) return cli_bad_value("gen matrix", "--rows and --cols must be >= 1");
    if (band >= 0 && density > 0.0) return cli_usage_error("gen matrix", "--band and --block-density exclude each other");
    if (band < -1) return cli_bad_value("gen matrix", "--band must be >= 0");
    if (density < 0.0) return cli_bad_value("gen matrix", "--block-density must be in (0, 1]");
    if (cli_too_large((uint64_t)rows, (uint64_t)cols, sizeof(float)))
        return cli_bad_value("gen matrix", "a %lld x %lld matrix is too large", (long long)rows, (long long)cols);
    spec = (parac_gemm_matrix_spec){rows, cols, PARAC_GEMM_MATRIX_DENSE, 0, 0.0, 0, power_law, common.seed_given ? common.seed : 42};
    if (band >= 0) {
        spec.kind = PARAC_GEMM_MATRIX_BANDED;
        spec.band = band;
    } else if (density > 0.0) {
        spec.kind = PARAC_GEMM_MATRIX_BLOCK_SPARSE;
        spec.density = density;
        spec.block = block;
    }
    matrix = (parac_gemm_matrix){rows, cols, PARAC_GEMM_ROW_MAJOR, malloc((size_t)(rows * cols) * sizeof(float))};
    if (!matrix.values) {
        parac_fail_no_memory(&error, "matrix", (unsigned long long)(rows * cols) * 4);
        return cli_report(&error);
    }
    status = parac_gemm_matrix_generate(&spec, matrix.values, &error);
    if (status == PARAC_OK) status = cli_output_begin(&written, output, &error);
    if (status == PARAC_OK) status = parac_gemm_matrix_write(written.path, &matrix, &error);
    if (status == PARAC_OK) status = cli_output_commit(&written, &error);
    cli_output_abort(&written, &error); /* after a failure: no partial file */
    parac_gemm_matrix_free(&matrix);
    return status == PARAC_OK ? CLI_EXIT_OK : cli_report(&error);
}
