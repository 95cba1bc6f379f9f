/* tests/core/test_line_reader.c — line splitting, numbering, long lines, gzip, errors. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/line_reader.h"
#include "test_util.h"

static void write_text(const char *path, const char *text, size_t length)
{
    FILE *file = fopen(path, "wb");
    if (!file) return;
    fwrite(text, 1, length, file);
    fclose(file);
}

static void write_gzip(const char *path, const char *text, size_t length)
{
    gzFile gz = gzopen(path, "wb");
    if (!gz) return;
    gzwrite(gz, text, (unsigned)length);
    gzclose(gz);
}

/* Reads every line and checks them against expected[], plus the no-final-newline flag. */
static void expect_lines(const char *path, const char *const *expected, int count, int ends_without_newline)
{
    parac_line_reader reader;
    parac_error error = {0};
    int n = 0, got;
    CHECK_OK(parac_line_reader_open(&reader, path, &error), &error);
    while ((got = parac_line_reader_next(&reader, &error)) == 1) {
        CHECK(n < count, "%s: extra line %d '%s'", path, n + 1, reader.buffer);
        if (n < count) {
            CHECK(strcmp(reader.buffer, expected[n]) == 0, "%s line %d: '%s' != '%s'", path, n + 1, reader.buffer,
                  expected[n]);
            CHECK_EQ_INT(reader.length, strlen(expected[n]));
        }
        n++;
        CHECK_EQ_INT(reader.line_number, n);
    }
    CHECK_EQ_INT(got, 0);
    CHECK_EQ_INT(n, count);
    CHECK_EQ_INT(reader.ended_without_newline, ends_without_newline);
    CHECK_EQ_INT(parac_line_reader_next(&reader, &error), 0); /* stays at the end */
    parac_line_reader_close(&reader);
}

static void check_plain_and_gzip(void)
{
    static const char *const lines[] = {"first", "", "  third  ", "fourth\tcol", "", "last"};
    static const char text_lf[] = "first\n\n  third  \nfourth\tcol\n\nlast\n";
    static const char text_crlf[] = "first\r\n\r\n  third  \r\nfourth\tcol\r\n\r\nlast";
    char path[256], gz_path[256];
    test_temp_path(path, sizeof path, "lines.txt");
    test_temp_path(gz_path, sizeof gz_path, "lines.txt.gz");
    write_text(path, text_lf, strlen(text_lf));
    expect_lines(path, lines, 6, 0);
    write_text(path, text_crlf, strlen(text_crlf));
    expect_lines(path, lines, 6, 1);
    write_gzip(gz_path, text_lf, strlen(text_lf));
    expect_lines(gz_path, lines, 6, 0);
    write_gzip(gz_path, text_crlf, strlen(text_crlf));
    expect_lines(gz_path, lines, 6, 1);
    write_text(path, "", 0);
    expect_lines(path, lines, 0, 0);
    write_text(path, "\n", 1);
    expect_lines(path, (const char *const[]){""}, 1, 0);
    write_text(path, "x", 1);
    expect_lines(path, (const char *const[]){"x"}, 1, 1);
    remove(path);
    remove(gz_path);
}

static void check_long_lines(void)
{
    char path[256];
    size_t sizes[] = {4094, 4095, 4096, 4097, 1 << 20};
    size_t total = 0;
    char *text, *cursor;
    const char *expected[5];
    for (int i = 0; i < 5; i++) total += sizes[i] + 1;
    text = malloc(total);
    cursor = text;
    for (int i = 0; i < 5; i++) {
        char *copy = malloc(sizes[i] + 1);
        for (size_t k = 0; k < sizes[i]; k++) copy[k] = (char)('a' + (k * 7 + (size_t)i) % 26);
        copy[sizes[i]] = '\0';
        expected[i] = copy;
        memcpy(cursor, copy, sizes[i]);
        cursor[sizes[i]] = '\n';
        cursor += sizes[i] + 1;
    }
    test_temp_path(path, sizeof path, "long.txt");
    write_text(path, text, total);
    expect_lines(path, expected, 5, 0);
    for (int i = 0; i < 5; i++) free((void *)expected[i]);
    free(text);
    remove(path);
}

static void check_errors(void)
{
    parac_line_reader reader;
    parac_error error = {0};
    char path[256];
    CHECK(parac_line_reader_open(&reader, "/nonexistent/parac/file.txt", &error) == PARAC_ERR_IO);
    CHECK(strstr(error.message, "/nonexistent/parac/file.txt: cannot open") == error.message, "%s", error.message);
    /* A gzip stream cut in the middle is an error, not a silently shorter file. */
    {
        char text[20000];
        long size;
        FILE *file;
        unsigned char *bytes = malloc(1 << 16);
        int got, lines = 0;
        for (int i = 0; i < (int)sizeof text - 1; i++) text[i] = (i % 50 == 49) ? '\n' : (char)('0' + (i * 13) % 10);
        text[sizeof text - 1] = '\n';
        test_temp_path(path, sizeof path, "cut.gz");
        write_gzip(path, text, sizeof text);
        file = fopen(path, "rb");
        size = file ? (long)fread(bytes, 1, 1 << 16, file) : 0;
        if (file) fclose(file);
        write_text(path, (const char *)bytes, (size_t)size / 2);
        CHECK_OK(parac_line_reader_open(&reader, path, &error), &error);
        while ((got = parac_line_reader_next(&reader, &error)) == 1) lines++;
        CHECK(got == -1, "truncated gzip read as %d complete lines without error", lines);
        CHECK(error.status == PARAC_ERR_IO || error.status == PARAC_ERR_PARSE);
        CHECK(strncmp(error.message, path, strlen(path)) == 0, "%s", error.message);
        parac_line_reader_close(&reader);
        free(bytes);
        remove(path);
    }
}

/* Reads to the end; expects an error on `line` containing `part`. */
static void expect_line_error(const char *path, long line, const char *part)
{
    parac_line_reader reader;
    parac_error error = {0};
    char prefix[300];
    int got;
    CHECK_OK(parac_line_reader_open(&reader, path, &error), &error);
    while ((got = parac_line_reader_next(&reader, &error)) == 1) {
    }
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, line);
    CHECK(got == -1 && error.status == PARAC_ERR_PARSE, "%s: got %d, status %d", path, got, (int)error.status);
    CHECK(strncmp(error.message, prefix, strlen(prefix)) == 0 && strstr(error.message, part), "'%s' should start '%s' and say '%s'",
          error.message, prefix, part);
    parac_line_reader_close(&reader);
}

/* A small .gz that expands to one endless line must stop at PARAC_LINE_MAX, not
 * take memory until it runs out; a line of exactly the limit is still read. */
static void check_line_limit(void)
{
    char path[256];
    size_t size = PARAC_LINE_MAX + 1;
    char *text = malloc(size + 16);
    parac_line_reader reader;
    parac_error error = {0};
    test_temp_path(path, sizeof path, "bomb.txt.gz");
    memcpy(text, "ok\n", 3);
    memset(text + 3, 'a', size);
    text[3 + size] = '\n';
    write_gzip(path, text, size + 4);
    expect_line_error(path, 2, "longer than the limit of 67108864 bytes");
    /* Exactly the limit (and CRLF) is fine. */
    text[3 + PARAC_LINE_MAX] = '\r';
    write_gzip(path, text, size + 4);
    CHECK_OK(parac_line_reader_open(&reader, path, &error), &error);
    CHECK(parac_line_reader_next(&reader, &error) == 1 && parac_line_reader_next(&reader, &error) == 1,
          "a line of the limit: %s", error.message);
    CHECK(reader.length == PARAC_LINE_MAX);
    parac_line_reader_close(&reader);
    /* A lowered limit applies to plain files too. */
    write_text(path, "12345\n123456\n", 13);
    CHECK_OK(parac_line_reader_open(&reader, path, &error), &error);
    reader.max_line_length = 5;
    CHECK(parac_line_reader_next(&reader, &error) == 1);
    CHECK(parac_line_reader_next(&reader, &error) == -1 && strstr(error.message, ":2: line is longer") != NULL, "%s",
          error.message);
    parac_line_reader_close(&reader);
    free(text);
    remove(path);
}

/* A byte-order mark is dropped from the first line only; a NUL byte is an error with its line. */
static void check_bom_and_nul(void)
{
    char path[256];
    test_temp_path(path, sizeof path, "bom.txt");
    write_text(path, "\xEF\xBB\xBFx,y\n\xEF\xBB\xBFz\n", 12);
    expect_lines(path, (const char *const[]){"x,y", "\xEF\xBB\xBFz"}, 2, 0);
    write_text(path, "\xEF\xBB\xBF", 3);
    expect_lines(path, (const char *const[]){""}, 1, 1);
    write_text(path, "1,2\n3\0004\n", 8);
    expect_line_error(path, 2, "NUL byte");
    remove(path);
}

static void check_extensions(void)
{
    CHECK(parac_path_has_extension("a/b/mushroom.dat", ".dat"));
    CHECK(parac_path_has_extension("a/b/mushroom.DAT.gz", ".dat"));
    CHECK(parac_path_has_extension("x.npy", ".npy"));
    CHECK(!parac_path_has_extension("x.npy.bak", ".npy"));
    CHECK(!parac_path_has_extension("npy", ".npy"));
    CHECK(!parac_path_has_extension(".gz", ".dat"));
    CHECK(!parac_path_has_extension("", ".dat"));
}

int main(void)
{
    check_plain_and_gzip();
    check_long_lines();
    check_errors();
    check_extensions();
    check_line_limit();
    check_bom_and_nul();
    return test_finish("core.line_reader");
}
