/* tests/core/test_reader_memory.c — the memory entries of the table readers (parac_matrix_load_input,
 * parac_labels_load_input, parac_npy_read_input, gemm_matrix_read_input) give what their path entries
 * give for a file of the same bytes: the same values, or the same error message (the buffer named as
 * the file), for CSV, .npy, labels and Matrix Market, whole and cut short. */
#include <stdlib.h>
#include <string.h>

#include "core/matrix_file.h"
#include "core/npy.h"
#include "gemm/io_mtx.h"
#include "test_util.h"

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    unsigned char *bytes = malloc(1 << 16);
    *size = file && bytes ? fread(bytes, 1, 1 << 16, file) : 0;
    if (file) fclose(file);
    return bytes;
}

static void write_file(const char *path, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL, "cannot write %s", path);
    if (file) {
        CHECK(fwrite(bytes, 1, size, file) == size);
        fclose(file);
    }
}

static void expect_same_status(const char *label, parac_status a, const parac_error *ea, parac_status b,
                               const parac_error *eb)
{
    CHECK(a == b, "%s: file %d (%s), memory %d (%s)", label, (int)a, ea->message, (int)b, eb->message);
    if (a != PARAC_OK && a == b) CHECK(strcmp(ea->message, eb->message) == 0, "%s: '%s' != '%s'", label, ea->message, eb->message);
}

/* The bytes as a file named `name` and from memory under that path: matrix, labels, npy, gemm. */
static void compare(const char *name, const void *bytes, size_t size)
{
    char path[256];
    parac_input file_input, memory_input;
    parac_error ea = {0}, eb = {0};
    parac_status a, b;
    test_temp_path(path, sizeof path, name);
    write_file(path, bytes, size);
    file_input = parac_input_file(path);
    memory_input = parac_input_memory(bytes, size, path);
    {
        parac_matrix ma, mb;
        a = parac_matrix_load(path, 0, &ma, &ea);
        b = parac_matrix_load_input(&memory_input, 0, &mb, &eb);
        expect_same_status(name, a, &ea, b, &eb);
        if (a == PARAC_OK && b == PARAC_OK) {
            CHECK(ma.rows == mb.rows && ma.cols == mb.cols, "%s: %zux%zu vs %zux%zu", name, ma.rows, ma.cols, mb.rows, mb.cols);
            CHECK(ma.rows == mb.rows && ma.cols == mb.cols &&
                  memcmp(ma.data, mb.data, ma.rows * ma.cols * sizeof(double)) == 0, "%s: values differ", name);
        }
        if (a == PARAC_OK) parac_matrix_free(&ma);
        if (b == PARAC_OK) parac_matrix_free(&mb);
    }
    {
        int32_t *la = NULL, *lb = NULL;
        size_t ca = 0, cb = 0;
        a = parac_labels_load_input(&file_input, &la, &ca, &ea);
        b = parac_labels_load_input(&memory_input, &lb, &cb, &eb);
        expect_same_status(name, a, &ea, b, &eb);
        if (a == PARAC_OK && b == PARAC_OK) CHECK(ca == cb && memcmp(la, lb, ca * sizeof *la) == 0, "%s: labels", name);
        free(la);
        free(lb);
    }
    if (parac_path_has_extension(name, ".npy")) {
        parac_npy_array xa, xb;
        a = parac_npy_read(path, &xa, &ea);
        b = parac_npy_read_input(&memory_input, &xb, &eb);
        expect_same_status(name, a, &ea, b, &eb);
        if (a == PARAC_OK && b == PARAC_OK)
            CHECK(xa.count == xb.count && xa.dtype == xb.dtype &&
                  memcmp(xa.data, xb.data, (size_t)xa.count * parac_dtype_size(xa.dtype)) == 0, "%s: npy", name);
        if (a == PARAC_OK) parac_npy_array_free(&xa);
        if (b == PARAC_OK) parac_npy_array_free(&xb);
    }
    {
        parac_gemm_matrix ga, gb;
        a = parac_gemm_matrix_read(path, &ga, &ea);
        b = gemm_matrix_read_input(&memory_input, PARAC_GEMM_MAX_FILE_VALUES, &gb, &eb);
        expect_same_status(name, a, &ea, b, &eb);
        if (a == PARAC_OK && b == PARAC_OK)
            CHECK(ga.rows == gb.rows && ga.cols == gb.cols && ga.layout == gb.layout &&
                  memcmp(ga.values, gb.values, (size_t)(ga.rows * ga.cols) * sizeof(float)) == 0, "%s: gemm", name);
        if (a == PARAC_OK) parac_gemm_matrix_free(&ga);
        if (b == PARAC_OK) parac_gemm_matrix_free(&gb);
    }
    remove(path);
}

int main(void)
{
    static const char csv[] = "x,y\n1,2\n3.5,-4\n# c\n5,6\n";
    static const char labels[] = "1\n-1\n\n2\n";
    static const char mtx[] = "%%MatrixMarket matrix coordinate real general\n% c\n2 3 2\n1 1 1.5\n2 3 -2\n";
    static const double values[6] = {1, 2, 3, 4, 5, 6};
    static const uint64_t shape[2] = {3, 2}, column[1] = {6};
    char path[256];
    size_t size;
    unsigned char *bytes;
    parac_error error = {0};
    compare("m.csv", csv, strlen(csv));
    compare("m.txt", labels, strlen(labels));
    compare("m.mtx", mtx, strlen(mtx));
    compare("cut.mtx", mtx, strlen(mtx) - 8);
    compare("bad.csv", "1,2\n3,x\n", 8);
    test_temp_path(path, sizeof path, "source.npy");
    CHECK_OK(parac_npy_write(path, PARAC_DTYPE_F64, 2, shape, values, &error), &error);
    bytes = slurp(path, &size);
    compare("m.npy", bytes, size);
    for (size_t cut = 0; cut < size; cut += 7) compare("cut.npy", bytes, cut);
    free(bytes);
    CHECK_OK(parac_npy_write(path, PARAC_DTYPE_F64, 1, column, values, &error), &error);
    bytes = slurp(path, &size);
    compare("labels.npy", bytes, size);
    free(bytes);
    remove(path);
    return test_finish("core.reader_memory");
}
