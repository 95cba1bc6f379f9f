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
    CHECK(strstr(error.message, "row 3: label 2.5 is not a 32-bit integer") != NULL, "%s", error.message);
    CHECK(loaded == NULL && count == 0);
    write_text(path, "1 2\n3 4\n");
    CHECK(parac_labels_load(path, &loaded, &count, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, "2 columns") != NULL, "%s", error.message);
    write_text(path, "1\n3000000000\n");
    CHECK(parac_labels_load(path, &loaded, &count, &error) == PARAC_ERR_PARSE);
    remove(path);
    /* A 2-D .npy is not a label file. */
    CHECK(parac_labels_load(fixture("i32_3x2.npy"), &loaded, &count, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, "2 columns") != NULL, "%s", error.message);
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
    return test_finish("core.matrix_file");
}
