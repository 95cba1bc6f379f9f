/* tests/gemm/test_io.c — Matrix Market and .npy reading/writing, generators, and their errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/gemm.h>

#include "test_util.h"

static const char *write_text(const char *name, const char *text)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    FILE *file;
    test_temp_path(p, 256, name);
    file = fopen(p, "w");
    fputs(text, file);
    fclose(file);
    return p;
}

static void check_coordinate_symmetric(void)
{
    parac_gemm_matrix m;
    parac_error error;
    const char *path = write_text("sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% comment\n\n3 3 3\n"
                                             "1 1 2.5\n3 1 -1\n2 2 4\n");
    CHECK_OK(parac_gemm_matrix_read(path, &m, &error), &error);
    CHECK(m.rows == 3 && m.cols == 3 && m.layout == PARAC_GEMM_ROW_MAJOR, "shape");
    if (m.values) {
        CHECK(m.values[0] == 2.5f && m.values[2] == -1.0f && m.values[6] == -1.0f && m.values[4] == 4.0f,
              "symmetric entries mirrored");
        CHECK(m.values[1] == 0.0f && m.values[8] == 0.0f, "absent entries are zero");
    }
    parac_gemm_matrix_free(&m);
    remove(path);
}

static void check_array_roundtrip(void)
{
    parac_gemm_matrix m, back;
    parac_error error;
    char npy[256], mtx[256];
    const char *path = write_text("arr.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n");
    CHECK_OK(parac_gemm_matrix_read(path, &m, &error), &error);
    CHECK(m.layout == PARAC_GEMM_COL_MAJOR && m.rows == 2 && m.cols == 3, "array files stay column-major");
    if (!m.values) return;
    CHECK(m.values[2] == 3.0f, "column-major order");
    test_temp_path(npy, sizeof npy, "back.npy");
    CHECK_OK(parac_gemm_matrix_write(npy, &m, &error), &error);
    CHECK_OK(parac_gemm_matrix_read(npy, &back, &error), &error);
    /* element (0, 1) is 3 in both layouts */
    CHECK(back.layout == PARAC_GEMM_ROW_MAJOR && back.values && back.values[1] == 3.0f && back.values[3] == 2.0f,
          "npy round trip");
    parac_gemm_matrix_free(&back);
    test_temp_path(mtx, sizeof mtx, "back.mtx");
    CHECK_OK(parac_gemm_matrix_write(mtx, &m, &error), &error);
    CHECK_OK(parac_gemm_matrix_read(mtx, &back, &error), &error);
    CHECK(back.values && memcmp(back.values, m.values, 6 * sizeof(float)) == 0, "mtx round trip");
    parac_gemm_matrix_free(&back);
    parac_gemm_matrix_free(&m);
    remove(path), remove(npy), remove(mtx);
}

static void check_bad(const char *name, const char *text, parac_status expected, const char *needle)
{
    parac_gemm_matrix m;
    parac_error error;
    const char *path = write_text(name, text);
    parac_status status = parac_gemm_matrix_read(path, &m, &error);
    CHECK_EQ_INT(status, expected);
    CHECK(strstr(error.message, needle) != NULL, "%s: message '%s' lacks '%s'", name, error.message, needle);
    CHECK(m.values == NULL, "failed read leaves no matrix");
    remove(path);
}

/* Symmetric array files hold each column's lower triangle (skew: strictly lower):
 * n(n+1)/2 values, not n*n (before, they were read as n*n and ran out). */
static void check_symmetric_arrays(void)
{
    parac_gemm_matrix m;
    parac_error error;
    const char *path = write_text("sym_array.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n"
                                                   "1\n2\n3\n4\n5\n6\n");
    static const float symmetric[9] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    static const float skew[9] = {0, 7, 8, -7, 0, 9, -8, -9, 0}; /* column-major */
    CHECK_OK(parac_gemm_matrix_read(path, &m, &error), &error);
    CHECK(m.rows == 3 && m.cols == 3 && m.layout == PARAC_GEMM_COL_MAJOR && m.values &&
              memcmp(m.values, symmetric, sizeof symmetric) == 0,
          "symmetric array mirrored");
    parac_gemm_matrix_free(&m);
    path = write_text("skew_array.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n7\n8\n9\n");
    CHECK_OK(parac_gemm_matrix_read(path, &m, &error), &error);
    CHECK(m.values && memcmp(m.values, skew, sizeof skew) == 0, "skew-symmetric array mirrored, zero diagonal");
    parac_gemm_matrix_free(&m);
    remove(path);
}

static void check_generators(void)
{
    parac_gemm_matrix_spec spec = {200, 300, PARAC_GEMM_MATRIX_BLOCK_SPARSE, 0, 0.25, 32, 1, 9};
    float *x = malloc(200 * 300 * sizeof *x), *y = malloc(200 * 300 * sizeof *y);
    parac_error error;
    int64_t zero_blocks = 0;
    CHECK_OK(parac_gemm_matrix_generate(&spec, x, &error), &error);
    CHECK_OK(parac_gemm_matrix_generate(&spec, y, &error), &error);
    CHECK(memcmp(x, y, 200 * 300 * sizeof *x) == 0, "same seed, same matrix");
    for (int br = 0; br < 7; br++)
        for (int bc = 0; bc < 10; bc++) zero_blocks += x[(br * 32) * 300 + bc * 32] == 0.0f;
    CHECK(zero_blocks > 20 && zero_blocks < 70, "block-sparse pattern: %lld zero blocks of 70", (long long)zero_blocks);
    spec.kind = PARAC_GEMM_MATRIX_BANDED, spec.band = 3;
    CHECK_OK(parac_gemm_matrix_generate(&spec, x, &error), &error);
    CHECK(x[10 * 300 + 14] == 0.0f && x[10 * 300 + 13] != 0.0f && x[10 * 300 + 7] != 0.0f && x[10 * 300 + 6] == 0.0f,
          "band edges");
    spec.kind = PARAC_GEMM_MATRIX_BLOCK_SPARSE, spec.density = 0.0;
    CHECK_EQ_INT(parac_gemm_matrix_generate(&spec, x, &error), PARAC_ERR_INVALID_ARGUMENT);
    free(x), free(y);
}

int main(void)
{
    check_coordinate_symmetric();
    check_array_roundtrip();
    check_bad("nan.mtx", "%%MatrixMarket matrix array real general\n1 2\n1\ninf\n", PARAC_ERR_PARSE, "nan.mtx:4");
    check_bad("short.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n", PARAC_ERR_PARSE, "ends after 1");
    check_bad("range.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", PARAC_ERR_PARSE, "range.mtx:3");
    check_bad("banner.mtx", "hello\n", PARAC_ERR_PARSE, "banner.mtx:1");
    check_bad("complex.mtx", "%%MatrixMarket matrix array complex general\n1 1\n1 2\n", PARAC_ERR_UNSUPPORTED, "complex");
    check_bad("bad.txt", "1 2 3\n", PARAC_ERR_UNSUPPORTED, "bad.txt");
    /* Symmetric but not square: the mirror wrote outside the matrix (heap corruption). */
    check_bad("sym_rect.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n3 1 1\n", PARAC_ERR_PARSE,
              "sym_rect.mtx:2: a symmetric matrix must be square, the size line says 3 x 2");
    check_bad("skew_rect.mtx", "%%MatrixMarket matrix array real skew-symmetric\n2 3\n1\n", PARAC_ERR_PARSE,
              "skew-symmetric matrix must be square");
    /* rows * cols overflowing 64 bits (a tiny calloc, then writes far outside it), or past the limit. */
    check_bad("wrap.mtx", "%%MatrixMarket matrix coordinate real general\n4294967296 4294967297 1\n1 1 1\n",
              PARAC_ERR_PARSE, "wrap.mtx:2: a 4294967296 x 4294967297 matrix is above the limit of 4294967296 values");
    check_bad("wrap2.mtx", "%%MatrixMarket matrix coordinate real general\n9223372036854775807 3 1\n1 1 1\n",
              PARAC_ERR_PARSE, "above the limit");
    check_bad("index_overflow.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n99999999999999999999 1 1\n",
              PARAC_ERR_PARSE, "index_overflow.mtx:3: expected 'ROW COL VALUE'");
    check_bad("size_overflow.mtx", "%%MatrixMarket matrix coordinate real general\n99999999999999999999 2 1\n",
              PARAC_ERR_PARSE, "size_overflow.mtx:2: bad size line");
    check_bad("size_junk.mtx", "%%MatrixMarket matrix array real general\n2 2 x\n", PARAC_ERR_PARSE, "bad size line");
    check_bad("too_many_entries.mtx", "%%MatrixMarket matrix coordinate real general\n1 2 3\n1 1 1\n", PARAC_ERR_PARSE,
              "too_many_entries.mtx:2: 3 entries do not fit in a 1 x 2 matrix");
    check_bad("extra_entries.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n",
              PARAC_ERR_PARSE, "extra_entries.mtx:4: more entries than the size line announced");
    check_bad("extra_values.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n2\n", PARAC_ERR_PARSE,
              "extra_values.mtx:4: more entries");
    check_bad("upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 5\n", PARAC_ERR_PARSE,
              "upper.mtx:3: entry (1, 2) is above the diagonal");
    check_bad("skew_diag.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 5\n", PARAC_ERR_PARSE,
              "on the diagonal");
    check_bad("pattern_value.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 5\n", PARAC_ERR_PARSE,
              "expected 'ROW COL'");
    check_bad("hermitian.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 1 1 0\n",
              PARAC_ERR_UNSUPPORTED, "complex");
    check_bad("no_size.mtx", "%%MatrixMarket matrix coordinate real general\n% only a comment\n", PARAC_ERR_PARSE,
              "no size line");
    check_bad("short_sym_array.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n",
              PARAC_ERR_PARSE, "ends after 5 of 6 values");
    check_symmetric_arrays();
    check_generators();
    return test_finish("gemm.io");
}
