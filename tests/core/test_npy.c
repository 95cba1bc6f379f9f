/* tests/core/test_npy.c — .npy round trips, files written by numpy, and malformed files.
 *
 * The .npy files under tests/core/fixtures were written by numpy 2.x (np.save / write_array);
 * parac must read them exactly, and what parac writes must be byte-identical
 * to what numpy wrote for the same array.
 */
#include <stdlib.h>
#include <string.h>

#include "core/npy.h"
#include "core/rng.h"
#include "test_util.h"

static const char *fixture(const char *name)
{
    static char path[1024];
    const char *source = getenv("PARAC_SOURCE");
    snprintf(path, sizeof path, "%s/tests/core/fixtures/%s", source && *source ? source : "..", name);
    return path;
}

static long read_whole(const char *path, unsigned char *buffer, size_t size)
{
    FILE *file = fopen(path, "rb");
    long got;
    if (!file) return -1;
    got = (long)fread(buffer, 1, size, file);
    fclose(file);
    return got;
}

static void write_bytes(const char *path, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    if (!file) return;
    fwrite(bytes, 1, size, file);
    fclose(file);
}

/* Writes random data of a dtype and shape, reads it back whole and row by row. */
static void check_round_trip(parac_dtype dtype, int ndim, uint64_t rows, uint64_t cols, uint64_t seed)
{
    char path[256];
    uint64_t shape[2] = {rows, cols}, count = ndim == 2 ? rows * cols : rows;
    size_t bytes = (size_t)count * parac_dtype_size(dtype);
    unsigned char *data = malloc(bytes + 1), *chunk = malloc(bytes + 1);
    parac_rng rng;
    parac_error error = {0};
    parac_npy_array array;
    parac_npy_reader reader;
    uint64_t got, total = 0;
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < bytes; i++) data[i] = (unsigned char)parac_rng_next(&rng);
    if (dtype == PARAC_DTYPE_F64) /* real values, including negative zero and tiny ones */
        for (uint64_t i = 0; i < count; i++) ((double *)data)[i] = parac_rng_normal(&rng) * (i % 3 ? 1e-300 : 1e6);
    test_temp_path(path, sizeof path, "round.npy");
    CHECK_OK(parac_npy_write(path, dtype, ndim, shape, data, &error), &error);
    CHECK_OK(parac_npy_read(path, &array, &error), &error);
    CHECK(array.dtype == dtype && array.ndim == ndim && array.count == count, "%s %dD %llux%llu: header mismatch",
          parac_dtype_name(dtype), ndim, (unsigned long long)rows, (unsigned long long)cols);
    CHECK(array.shape[0] == rows && (ndim == 1 || array.shape[1] == cols));
    CHECK(bytes == 0 || (array.data && memcmp(array.data, data, bytes) == 0), "%s round trip changed the data",
          parac_dtype_name(dtype));
    parac_npy_array_free(&array);
    /* Row by row in chunks of 3. */
    CHECK_OK(parac_npy_reader_open(&reader, path, &error), &error);
    CHECK_EQ_INT(reader.row_count, rows);
    for (;;) {
        size_t row_bytes = (size_t)reader.row_values * parac_dtype_size(dtype);
        CHECK_OK(parac_npy_reader_read_rows(&reader, chunk, 3, &got, &error), &error);
        if (!got) break;
        CHECK(memcmp(chunk, data + total * row_bytes, got * row_bytes) == 0, "chunk at row %llu differs",
              (unsigned long long)total);
        total += got;
    }
    CHECK_EQ_INT(total, rows);
    parac_npy_reader_close(&reader);
    remove(path);
    free(data);
    free(chunk);
}

static void check_numpy_fixtures(void)
{
    parac_error error = {0};
    parac_npy_array array;
    static const float f32[] = {1.5f, -2.25f, 3.0f, 4.0f, 5e-3f, -6e10f};
    static const double f64[] = {0.1, -1e300, 2.5, 7.0};
    static const int32_t i32[] = {1, -2, 2147483647, (int32_t)-2147483648LL, 0, 5};
    static const int64_t i64[] = {9007199254740993LL, -3, 0};

    CHECK_OK(parac_npy_read(fixture("f32_2x3.npy"), &array, &error), &error);
    CHECK(array.dtype == PARAC_DTYPE_F32 && array.ndim == 2 && array.shape[0] == 2 && array.shape[1] == 3);
    CHECK(array.data && memcmp(array.data, f32, sizeof f32) == 0, "float32 fixture values");
    parac_npy_array_free(&array);

    CHECK_OK(parac_npy_read(fixture("f64_1d.npy"), &array, &error), &error);
    CHECK(array.dtype == PARAC_DTYPE_F64 && array.ndim == 1 && array.shape[0] == 4);
    CHECK(array.data && memcmp(array.data, f64, sizeof f64) == 0, "float64 fixture values");
    parac_npy_array_free(&array);

    CHECK_OK(parac_npy_read(fixture("i32_3x2.npy"), &array, &error), &error);
    CHECK(array.dtype == PARAC_DTYPE_I32 && array.ndim == 2 && array.shape[0] == 3 && array.shape[1] == 2);
    CHECK(array.data && memcmp(array.data, i32, sizeof i32) == 0, "int32 fixture values");
    parac_npy_array_free(&array);

    CHECK_OK(parac_npy_read(fixture("i64_1d.npy"), &array, &error), &error);
    CHECK(array.dtype == PARAC_DTYPE_I64 && array.count == 3);
    CHECK(array.data && memcmp(array.data, i64, sizeof i64) == 0, "int64 fixture values");
    parac_npy_array_free(&array);

    CHECK_OK(parac_npy_read(fixture("f64_0x3.npy"), &array, &error), &error);
    CHECK(array.ndim == 2 && array.shape[0] == 0 && array.shape[1] == 3 && array.count == 0);
    parac_npy_array_free(&array);

    CHECK_OK(parac_npy_read(fixture("f64_v2_2x2.npy"), &array, &error), &error);
    CHECK(array.count == 4 && array.data && ((double *)array.data)[3] == 4.0, "version 2.0 header");
    parac_npy_array_free(&array);

    CHECK_OK(parac_npy_read(fixture("f64_3d.npy"), &array, &error), &error);
    CHECK(array.ndim == 3 && array.count == 8);
    parac_npy_array_free(&array);
}

/* What parac writes equals, byte for byte, what numpy wrote for the same array. */
static void check_identical_to_numpy(const char *name, parac_dtype dtype, int ndim, uint64_t rows, uint64_t cols,
                                     const void *data)
{
    unsigned char expect[512], got[512];
    char path[256];
    uint64_t shape[2] = {rows, cols};
    long expect_size, got_size;
    parac_error error = {0};
    test_temp_path(path, sizeof path, "same.npy");
    CHECK_OK(parac_npy_write(path, dtype, ndim, shape, data, &error), &error);
    expect_size = read_whole(fixture(name), expect, sizeof expect);
    got_size = read_whole(path, got, sizeof got);
    CHECK(expect_size > 0 && expect_size == got_size && memcmp(expect, got, (size_t)got_size) == 0,
          "%s: parac's bytes (%ld) differ from numpy's (%ld)", name, got_size, expect_size);
    remove(path);
}

static void expect_failure(const char *path, parac_status status, const char *message_part)
{
    parac_error error = {0};
    parac_npy_array array;
    parac_status got = parac_npy_read(path, &array, &error);
    CHECK(got == status, "%s: status %d, expected %d (%s)", path, (int)got, (int)status, error.message);
    CHECK(strstr(error.message, message_part) != NULL, "%s: message '%s' lacks '%s'", path, error.message,
          message_part);
    CHECK(strncmp(error.message, path, strlen(path)) == 0, "message does not start with the path: %s", error.message);
    CHECK(array.data == NULL);
}

static void check_malformed(void)
{
    char path[256];
    unsigned char good[512];
    long size = read_whole(fixture("f64_1d.npy"), good, sizeof good);
    CHECK(size == 160);
    if (size != 160) return;
    test_temp_path(path, sizeof path, "bad.npy");

    write_bytes(path, "\x93NUMPX\x01\x00", 8);
    expect_failure(path, PARAC_ERR_PARSE, "bad magic");
    write_bytes(path, "hello", 5);
    expect_failure(path, PARAC_ERR_PARSE, "bad magic");
    write_bytes(path, "", 0);
    expect_failure(path, PARAC_ERR_PARSE, "bad magic");
    write_bytes(path, good, 9); /* header length cut */
    expect_failure(path, PARAC_ERR_PARSE, "truncated inside its header");
    write_bytes(path, good, 40); /* header text cut */
    expect_failure(path, PARAC_ERR_PARSE, "truncated inside its header");
    write_bytes(path, good, 128 + 8 * 3 + 5); /* data cut inside row 4 */
    expect_failure(path, PARAC_ERR_PARSE, "truncated");
    write_bytes(path, good, 128); /* no data at all */
    expect_failure(path, PARAC_ERR_PARSE, "truncated");
    {
        unsigned char bad_version[512];
        memcpy(bad_version, good, 160);
        bad_version[6] = 9;
        write_bytes(path, bad_version, 160);
        expect_failure(path, PARAC_ERR_UNSUPPORTED, "version 9");
    }
    {
        unsigned char no_shape[512];
        memcpy(no_shape, good, 160);
        memcpy(strstr((char *)no_shape + 10, "'shape'"), "'shapX'", 7);
        write_bytes(path, no_shape, 160);
        expect_failure(path, PARAC_ERR_PARSE, "shape");
    }
    remove(path);
    expect_failure(fixture("fortran_2x3.npy"), PARAC_ERR_UNSUPPORTED, "Fortran order");
    expect_failure(fixture("bigendian.npy"), PARAC_ERR_UNSUPPORTED, "'>f8'");
    expect_failure(fixture("uint8.npy"), PARAC_ERR_UNSUPPORTED, "'|u1'");
    expect_failure("/nonexistent/dir/x.npy", PARAC_ERR_IO, "cannot open");
}

/* A version 1.0 file with the given header dict text and `data_bytes` zero bytes of data. */
static void write_npy_header(const char *path, const char *dict, size_t data_bytes)
{
    unsigned char bytes[1024] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    size_t length = strlen(dict), total;
    memcpy(bytes + 10, dict, length);
    while ((10 + length + 1) % 64) bytes[10 + length++] = ' ';
    bytes[10 + length++] = '\n';
    bytes[8] = (unsigned char)(length & 0xff);
    bytes[9] = (unsigned char)(length >> 8);
    total = 10 + length + data_bytes;
    memset(bytes + 10 + length, 0, data_bytes);
    write_bytes(path, bytes, total);
}

/* Headers whose shape claims far more than the file holds, or whose products
 * overflow 64 bits, are refused when the file is opened: before this check a
 * 136-byte file sized buffers by its (1, 2^61) shape and ran off their end. */
static void check_hostile_shapes(void)
{
    static const struct {
        const char *dict;
        size_t data_bytes;
        const char *message;
    } cases[] = {
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2305843009213693952), }", 8, "limit"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2305843009213693952, 1), }", 8, "limit"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 8, "overflows"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (65536, 65536, 65536, 65536), }", 8, "overflows"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1099511627776, 1099511627776), }", 0, "overflows"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (549755813888, 3), }", 8, "truncated"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", 40, "needs 48 bytes of data, the file has 40"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999, 1), }", 8, "limit"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", 8, "more than 8"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 2), }", 8, "malformed"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2), }", 16, "malformed"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2,, 1), }", 16, "malformed"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1 }", 16, "malformed"},
        {"{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", 16, "True or False"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 16, "unexpected"},
        {"{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 16, "repeated"},
        {"{'descr': '<f8' 'fortran_order': False, 'shape': (2,), }", 16, "malformed"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), } junk", 16, "text after"},
        {"['descr', '<f8']", 16, "malformed"},
        {"{'descr': '<f8', 'fortran_order: False, 'shape': (2,), }", 16, "malformed: expected ':'"},
        {"{'fortran_order': False, 'shape': (2,), }", 16, "no 'descr'"},
        {"{'descr': '<f8', 'shape': (2,), }", 16, "no 'fortran_order'"},
    };
    char path[256];
    test_temp_path(path, sizeof path, "hostile.npy");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        parac_npy_reader reader;
        parac_error error = {0};
        write_npy_header(path, cases[i].dict, cases[i].data_bytes);
        expect_failure(path, PARAC_ERR_PARSE, cases[i].message);
        CHECK(parac_npy_reader_open(&reader, path, &error) == PARAC_ERR_PARSE, "case %zu: the row reader refuses it too", i);
    }
    /* Accepted forms: trailing commas or none, Python 2's 'L', double quotes, a 0-d array. */
    {
        static const char *good[] = {
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1)}",
            "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (2L, 1L), }",
            "{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}",
        };
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
            parac_error error = {0};
            parac_npy_array array;
            write_npy_header(path, good[i], 16);
            CHECK_OK(parac_npy_read(path, &array, &error), &error);
            CHECK(array.count == 2, "good header %zu", i);
            parac_npy_array_free(&array);
        }
        {
            parac_error error = {0};
            parac_npy_array array;
            write_npy_header(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8);
            CHECK_OK(parac_npy_read(path, &array, &error), &error);
            CHECK(array.ndim == 0 && array.count == 1, "0-d array");
            parac_npy_array_free(&array);
        }
    }
    remove(path);
}

/* Through a pipe the size cannot be checked up front: reading must fail as truncated
 * without allocating what the header claims (2^40 x 8 rows of float64 = 64 TiB). */
static void check_pipe_claiming_terabytes(void)
{
    char path[256], command[600];
    parac_error error = {0};
    parac_npy_array array;
    FILE *saved;
    test_temp_path(path, sizeof path, "pipe.npy");
    write_npy_header(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 8), }", 64);
    snprintf(command, sizeof command, "cat %s", path);
    saved = stdin;
    stdin = popen(command, "r");
    if (!stdin) {
        stdin = saved;
        CHECK(0, "popen");
        return;
    }
    CHECK(parac_npy_read("-", &array, &error) == PARAC_ERR_PARSE, "a short pipe is truncated: %s", error.message);
    CHECK(strstr(error.message, "truncated") != NULL, "%s", error.message);
    CHECK(array.data == NULL);
    pclose(stdin);
    stdin = saved;
    remove(path);
}

/* Issue 16: a regular file is mapped, not copied; the copy path gives the same
 * bytes; writing to mapped data does not reach the file; a header whose length
 * leaves the data unaligned, or a pipe, is read instead. */
static void check_mapped_and_copied(void)
{
    char path[256];
    parac_error error = {0};
    parac_npy_array mapped, copied, again;
    uint64_t shape[2] = {1000, 3};
    float *values = malloc(3000 * sizeof *values);
    for (int i = 0; i < 3000; i++) values[i] = (float)i * 0.5f - 7.0f;
    test_temp_path(path, sizeof path, "mapped.npy");
    CHECK_OK(parac_npy_write(path, PARAC_DTYPE_F32, 2, shape, values, &error), &error);
    CHECK_OK(parac_npy_read(path, &mapped, &error), &error);
    CHECK_OK(parac_npy_read_copy(path, &copied, &error), &error);
    CHECK(mapped.mapping != NULL && copied.mapping == NULL, "a regular aligned file is mapped, the copy path is not");
    CHECK(mapped.count == 3000 && copied.count == 3000 && mapped.data && copied.data &&
              memcmp(mapped.data, values, 3000 * sizeof *values) == 0 &&
              memcmp(copied.data, values, 3000 * sizeof *values) == 0,
          "mapped and copied data equal what was written");
    if (mapped.data) ((float *)mapped.data)[0] = 1234.0f; /* private: the file keeps its value */
    parac_npy_array_free(&mapped);
    CHECK(mapped.data == NULL && mapped.mapping == NULL);
    CHECK_OK(parac_npy_read(path, &again, &error), &error);
    CHECK(again.data && ((float *)again.data)[0] == -7.0f, "writes to a mapping stay private");
    parac_npy_array_free(&again);
    parac_npy_array_free(&copied);
    /* A header of odd length puts float64 data at an offset that is not a multiple of 8. */
    {
        static const char dict[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }  ";
        unsigned char bytes[256] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(sizeof dict - 1), 0};
        double two[2] = {1.5, -2.5};
        size_t header = 10 + sizeof dict - 1;
        memcpy(bytes + 10, dict, sizeof dict - 1);
        memcpy(bytes + header, two, sizeof two);
        CHECK(header % 8 != 0);
        write_bytes(path, bytes, header + sizeof two);
        CHECK_OK(parac_npy_read(path, &again, &error), &error);
        CHECK(again.mapping == NULL && again.data && memcmp(again.data, two, sizeof two) == 0, "unaligned data is copied");
        parac_npy_array_free(&again);
    }
    free(values);
    remove(path);
}

int main(void)
{
    static const parac_dtype dtypes[] = {PARAC_DTYPE_F32, PARAC_DTYPE_F64, PARAC_DTYPE_I32, PARAC_DTYPE_I64};
    static const uint64_t shapes[][2] = {{0, 3}, {1, 1}, {7, 1}, {5, 4}, {100, 17}, {3, 0}};
    uint64_t seed = 1;
    CHECK_EQ_INT(parac_dtype_size(PARAC_DTYPE_F32), 4);
    CHECK_EQ_INT(parac_dtype_size(PARAC_DTYPE_I64), 8);
    CHECK(strcmp(parac_dtype_name(PARAC_DTYPE_I32), "int32") == 0);
    for (int d = 0; d < 4; d++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            check_round_trip(dtypes[d], 2, shapes[s][0], shapes[s][1], seed++);
            check_round_trip(dtypes[d], 1, shapes[s][0], 1, seed++);
        }
    check_numpy_fixtures();
    {
        static const double f64[] = {0.1, -1e300, 2.5, 7.0};
        static const int32_t i32[] = {1, -2, 2147483647, (int32_t)-2147483648LL, 0, 5};
        static const float f32[] = {1.5f, -2.25f, 3.0f, 4.0f, 5e-3f, -6e10f};
        check_identical_to_numpy("f64_1d.npy", PARAC_DTYPE_F64, 1, 4, 1, f64);
        check_identical_to_numpy("i32_3x2.npy", PARAC_DTYPE_I32, 2, 3, 2, i32);
        check_identical_to_numpy("f32_2x3.npy", PARAC_DTYPE_F32, 2, 2, 3, f32);
        check_identical_to_numpy("f64_0x3.npy", PARAC_DTYPE_F64, 2, 0, 3, NULL);
    }
    check_malformed();
    check_hostile_shapes();
    check_pipe_claiming_terabytes();
    check_mapped_and_copied();
    return test_finish("core.npy");
}
