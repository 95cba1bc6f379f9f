/* tests/core/test_matrix_file.c — n×d tables and labels through .npy and text, whole and streamed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/matrix_file.h"
#include "core/rng.h"
#include "test_util.h"

static const char *fixture(const char *name)
{
    static char path[1024];
    const char *source = getenv("PARAC_SOURCE");
    snprintf(path, sizeof path, "%s/tests/core/fixtures/%s", source && *source ? source : "..", name);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (!file) return;
    fputs(text, file);
    fclose(file);
}

/* Saves random data in a format and loads it back, whole and streamed in chunks. */
static void check_save_load(const char *extension, size_t rows, size_t cols, uint64_t seed)
{
    char name[64], path[256];
    double *data = malloc((rows * cols + 1) * sizeof *data), *chunk = malloc((rows * cols + 1) * sizeof *chunk);
    parac_matrix matrix;
    parac_matrix_stream stream;
    parac_error error = {0};
    parac_rng rng;
    size_t got, total = 0;
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < rows * cols; i++) data[i] = parac_rng_normal(&rng) * pow(10.0, (double)(i % 40) - 20.0);
    snprintf(name, sizeof name, "matrix%s", extension);
    test_temp_path(path, sizeof path, name);
    CHECK_OK(parac_matrix_save(path, data, rows, cols, &error), &error);
    CHECK_OK(parac_matrix_load(path, 0, &matrix, &error), &error);
    CHECK(matrix.rows == rows, "%s %zux%zu: loaded %zu rows", extension, rows, cols, matrix.rows);
    /* An empty text file has no way to say how many columns it had. */
    CHECK(matrix.cols == cols || (rows == 0 && matrix.cols == 0), "%s %zux%zu: loaded %zu cols", extension, rows, cols,
          matrix.cols);
    CHECK(rows == 0 || (matrix.data && memcmp(matrix.data, data, rows * cols * sizeof *data) == 0),
          "%s %zux%zu: values changed", extension, rows, cols);
    parac_matrix_free(&matrix);
    CHECK(matrix.data == NULL && matrix.rows == 0);

    CHECK_OK(parac_matrix_stream_open(&stream, path, 0, 0, &error), &error);
    for (;;) {
        CHECK_OK(parac_matrix_stream_read(&stream, chunk + total * cols, 3, &got, &error), &error);
        if (!got || error.status) break;
        total += got;
        if (total > rows) break;
    }
    CHECK_EQ_INT(total, rows);
    CHECK(rows == 0 || memcmp(chunk, data, rows * cols * sizeof *data) == 0, "%s streamed values changed", extension);
    parac_matrix_stream_close(&stream);
    remove(path);
    free(data);
    free(chunk);
}

static void check_npy_dtypes(void)
{
    parac_matrix matrix;
    parac_error error = {0};
    CHECK_OK(parac_matrix_load(fixture("f32_2x3.npy"), 0, &matrix, &error), &error);
    CHECK(matrix.rows == 2 && matrix.cols == 3 && matrix.data && matrix.data[1] == -2.25 && matrix.data[5] == -6e10f);
    parac_matrix_free(&matrix);
    CHECK_OK(parac_matrix_load(fixture("i32_3x2.npy"), 0, &matrix, &error), &error);
    CHECK(matrix.rows == 3 && matrix.cols == 2 && matrix.data && matrix.data[3] == -2147483648.0);
    parac_matrix_free(&matrix);
    CHECK_OK(parac_matrix_load(fixture("f64_1d.npy"), 0, &matrix, &error), &error); /* 1-D is n×1 */
    CHECK(matrix.rows == 4 && matrix.cols == 1 && matrix.data && matrix.data[1] == -1e300);
    parac_matrix_free(&matrix);
    CHECK_OK(parac_matrix_load(fixture("f64_0x3.npy"), 0, &matrix, &error), &error);
    CHECK(matrix.rows == 0 && matrix.cols == 3, "0x3 npy loaded as %zux%zu", matrix.rows, matrix.cols);
    parac_matrix_free(&matrix);
    CHECK(parac_matrix_load(fixture("f64_3d.npy"), 0, &matrix, &error) == PARAC_ERR_UNSUPPORTED);
    CHECK(strstr(error.message, "3 dimensions") != NULL, "%s", error.message);
    CHECK(parac_matrix_load(fixture("fortran_2x3.npy"), 0, &matrix, &error) == PARAC_ERR_UNSUPPORTED);
}

static void check_nonfinite_npy(void)
{
    char path[256];
    double data[6] = {1, 2, 3, NAN, 5, 6};
    parac_matrix matrix;
    parac_error error = {0};
    test_temp_path(path, sizeof path, "nan.npy");
    CHECK_OK(parac_matrix_save(path, data, 3, 2, &error), &error);
    CHECK(parac_matrix_load(path, 0, &matrix, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, "row 2, column 2: non-finite") != NULL, "%s", error.message);
    CHECK_OK(parac_matrix_load(path, 1, &matrix, &error), &error);
    CHECK(matrix.rows == 3 && matrix.data && isnan(matrix.data[3]));
    parac_matrix_free(&matrix);
    remove(path);
}

static void check_text_errors(void)
{
    char path[256];
    parac_matrix matrix;
    parac_error error = {0};
    char expect[300];
    test_temp_path(path, sizeof path, "ragged.csv");
    write_text(path, "x,y\n1,2\n3,4\n5,6,7\n");
    CHECK(parac_matrix_load(path, 0, &matrix, &error) == PARAC_ERR_PARSE);
    snprintf(expect, sizeof expect, "%s:4: row has 3 values, expected 2", path);
    CHECK(strcmp(error.message, expect) == 0, "%s", error.message);
    CHECK(matrix.data == NULL);
    remove(path);
    CHECK(parac_matrix_load("/nonexistent/m.csv", 0, &matrix, &error) == PARAC_ERR_IO);
    CHECK(parac_matrix_load("/nonexistent/m.npy", 0, &matrix, &error) == PARAC_ERR_IO);
}

static void check_labels(const char *extension)
{
    char name[64], path[256];
    int32_t labels[257], *loaded = NULL;
    size_t count = 0;
    parac_error error = {0};
    for (int i = 0; i < 257; i++) labels[i] = i % 5 == 0 ? -1 : (i * 7919) % 1000003 - 500000;
    labels[3] = INT32_MAX;
    labels[4] = INT32_MIN;
    snprintf(name, sizeof name, "labels%s", extension);
    test_temp_path(path, sizeof path, name);
    CHECK_OK(parac_labels_save(path, labels, 257, &error), &error);
    CHECK_OK(parac_labels_load(path, &loaded, &count, &error), &error);
    CHECK(count == 257 && loaded && memcmp(loaded, labels, sizeof labels) == 0, "%s labels round trip", extension);
    free(loaded);
    CHECK_OK(parac_labels_save(path, labels, 0, &error), &error);
    CHECK_OK(parac_labels_load(path, &loaded, &count, &error), &error);
    CHECK_EQ_INT(count, 0);
    free(loaded);
    remove(path);
}

static void check_label_errors(void)
{
    char path[256];
    int32_t *loaded = (int32_t *)1;
    size_t count = 99;
    parac_error error = {0};
    test_temp_path(path, sizeof path, "labels_bad.txt");
    write_text(path, "1\n2\n2.5\n");
    CHECK(parac_labels_load(path, &loaded, &count, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, ":3: label 2.5 is not a 32-bit integer") != NULL, "%s", error.message);
    CHECK(loaded == NULL && count == 0);
    write_text(path, "1 2\n3 4\n");
    CHECK(parac_labels_load(path, &loaded, &count, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, "2 columns") != NULL, "%s", error.message);
    write_text(path, "1\n3000000000\n");
    CHECK(parac_labels_load(path, &loaded, &count, &error) == PARAC_ERR_PARSE);
    /* Errors name the line, not the row: comments and blank lines are counted. */
    {
        static const struct {
            const char *text;
            const char *message;
        } cases[] = {
            {"# labels\n1\n\n2147483648\n", ":4: label 2147483648 is not a 32-bit integer"},
            {"0\n-2147483649\n", ":2: label -2147483649 is not a 32-bit integer"},
            {"0\n99999999999999999999999\n", ":2: label 9.9999999999999992e+22 is not a 32-bit integer"},
            {"0\n1e400\n", ":2: column 1: non-finite value '1e400'"},
            {"0\n1\nnan\n", ":3: column 1: non-finite value 'nan'"},
            {"0\n1\n2x\n", ":3: column 1: '2x' is not a number"},
            {"0\n1\n2,3\n", ":3: column 1: '2,3' is not a number"},
            {"0\n1\n2 3\n", ":3: row has 2 values, expected 1"},
            {"7,8\n", ":1: expected one label per row, found 2 columns"},
            {"\n\n1 x\n", ":3: column 2: 'x' is not a number"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            char expect[400];
            write_text(path, cases[i].text);
            CHECK(parac_labels_load(path, &loaded, &count, &error) == PARAC_ERR_PARSE, "case %zu", i);
            snprintf(expect, sizeof expect, "%s%s", path, cases[i].message);
            CHECK(strcmp(error.message, expect) == 0, "case %zu: '%s', expected '%s'", i, error.message, expect);
            CHECK(loaded == NULL && count == 0);
        }
        write_text(path, "\xEF\xBB\xBF" "3\n# c\n-1\n2147483647\n-2147483648\n4.0\n");
        CHECK_OK(parac_labels_load(path, &loaded, &count, &error), &error);
        CHECK(count == 5 && loaded && loaded[0] == 3 && loaded[1] == -1 && loaded[2] == INT32_MAX &&
                  loaded[3] == INT32_MIN && loaded[4] == 4,
              "labels with a byte-order mark, comments and extremes");
        free(loaded);
    }
    remove(path);
    /* A 2-D .npy is not a label file. */
    CHECK(parac_labels_load(fixture("i32_3x2.npy"), &loaded, &count, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, "2 columns") != NULL, "%s", error.message);
}

/* n x 0 arrays have no points: refused rather than looped over (a header claiming
 * 2^40 such rows hung birch). Huge claimed shapes are refused when the file opens. */
static void check_hostile_npy(void)
{
    char path[256];
    parac_matrix matrix;
    parac_matrix_stream stream;
    parac_error error = {0};
    uint64_t shape[2] = {5, 0};
    double none = 0;
    test_temp_path(path, sizeof path, "nocols.npy");
    CHECK_OK(parac_npy_write(path, PARAC_DTYPE_F64, 2, shape, &none, &error), &error);
    CHECK(parac_matrix_load(path, 0, &matrix, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, "5 rows but no columns") != NULL, "%s", error.message);
    CHECK(matrix.data == NULL);
    shape[0] = 0;
    shape[1] = 3;
    CHECK_OK(parac_npy_write(path, PARAC_DTYPE_F32, 2, shape, &none, &error), &error);
    CHECK_OK(parac_matrix_load(path, 0, &matrix, &error), &error);
    CHECK(matrix.rows == 0 && matrix.cols == 3);
    parac_matrix_free(&matrix);
    /* No rows of 2^40 values: nothing to hold, nothing allocated for the width (this
     * asked for 8 TiB before). */
    shape[0] = 0;
    shape[1] = (uint64_t)1 << 40;
    CHECK_OK(parac_npy_write(path, PARAC_DTYPE_F64, 2, shape, &none, &error), &error);
    CHECK_OK(parac_matrix_load(path, 0, &matrix, &error), &error);
    CHECK(matrix.rows == 0 && matrix.cols == ((size_t)1 << 40));
    parac_matrix_free(&matrix);
    /* A chunk far larger than the file (birch --chunk 2^62) reads what is there. */
    {
        float values[6] = {1, 2, 3, 4, 5, 6};
        double out[6];
        size_t got = 0;
        shape[0] = 3;
        shape[1] = 2;
        CHECK_OK(parac_npy_write(path, PARAC_DTYPE_F32, 2, shape, values, &error), &error);
        CHECK_OK(parac_matrix_stream_open(&stream, path, 0, 0, &error), &error);
        CHECK_OK(parac_matrix_stream_read(&stream, out, (size_t)1 << 62, &got, &error), &error);
        CHECK(got == 3 && out[5] == 6.0, "got %zu rows", got);
        parac_matrix_stream_close(&stream);
    }
    remove(path);
}

int main(void)
{
    static const size_t shapes[][2] = {{0, 3}, {1, 1}, {1, 5}, {7, 1}, {100, 3}, {1025, 2}};
    uint64_t seed = 1;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        check_save_load(".npy", shapes[s][0], shapes[s][1], seed++);
        check_save_load(".csv", shapes[s][0], shapes[s][1], seed++);
        check_save_load(".txt.gz", 0, 1, seed++); /* plain text written, read back through zlib */
    }
    check_npy_dtypes();
    check_nonfinite_npy();
    check_text_errors();
    check_labels(".npy");
    check_labels(".txt");
    check_label_errors();
    check_hostile_npy();
    return test_finish("core.matrix_file");
}
