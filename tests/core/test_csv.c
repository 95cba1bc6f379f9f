/* tests/core/test_csv.c — the numeric CSV/TSV reader on the shapes real files take. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/csv.h"
#include "core/rng.h"
#include "test_util.h"

static char scratch_path[256];

static const char *write_file(const char *name, const char *text)
{
    FILE *file;
    test_temp_path(scratch_path, sizeof scratch_path, name);
    file = fopen(scratch_path, "wb");
    if (file) {
        fputs(text, file);
        fclose(file);
    }
    return scratch_path;
}

/* Reads a whole table in chunks of chunk_rows; returns rows read (values into out). */
static size_t read_all(parac_csv_reader *reader, double *out, size_t capacity_rows, size_t chunk_rows,
                       parac_status *status, parac_error *error)
{
    size_t total = 0, got;
    *status = PARAC_OK;
    while (total < capacity_rows) {
        size_t want = capacity_rows - total < chunk_rows ? capacity_rows - total : chunk_rows;
        *status = parac_csv_read_rows(reader, out + total * reader->columns, want, &got, error);
        total += got;
        if (*status != PARAC_OK || got == 0) break;
    }
    return total;
}

/* Parses text and expects a table of rows x columns equal to values (row-major). */
static void expect_table(const char *label, const char *text, parac_csv_header header, int allow_nonfinite,
                         size_t rows, size_t columns, int has_header, const double *values)
{
    parac_csv_reader reader;
    parac_csv_options options = {header, allow_nonfinite};
    parac_error error = {0};
    parac_status status;
    double out[64];
    size_t got;
    const char *path = write_file("table.csv", text);
    status = parac_csv_open(&reader, path, &options, &error);
    CHECK(status == PARAC_OK, "%s: open failed: %s", label, error.message);
    if (status != PARAC_OK) {
        parac_csv_close(&reader);
        return;
    }
    CHECK(reader.columns == columns, "%s: %zu columns, expected %zu", label, reader.columns, columns);
    CHECK(reader.has_header == has_header, "%s: header detection gave %d", label, reader.has_header);
    got = read_all(&reader, out, 64 / (columns ? columns : 1), 1, &status, &error);
    CHECK(status == PARAC_OK, "%s: read failed: %s", label, error.message);
    CHECK(got == rows, "%s: %zu rows, expected %zu", label, got, rows);
    for (size_t i = 0; got == rows && i < rows * columns; i++)
        CHECK(out[i] == values[i] || (isnan(out[i]) && isnan(values[i])), "%s: value %zu is %g, expected %g", label, i,
              out[i], values[i]);
    parac_csv_close(&reader);
}

/* Expects open or reading to fail with status and a message starting "path:line: " and containing part. */
static void expect_error(const char *label, const char *text, int allow_nonfinite, parac_csv_header header,
                         parac_status expected, long line, const char *part)
{
    parac_csv_reader reader;
    parac_csv_options options = {header, allow_nonfinite};
    parac_error error = {0};
    parac_status status;
    double out[256];
    char prefix[300];
    const char *path = write_file("bad.csv", text);
    status = parac_csv_open(&reader, path, &options, &error);
    if (status == PARAC_OK) read_all(&reader, out, 256 / (reader.columns ? reader.columns : 1), 2, &status, &error);
    parac_csv_close(&reader);
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, line);
    CHECK(status == expected, "%s: status %d, expected %d (%s)", label, (int)status, (int)expected, error.message);
    CHECK(strncmp(error.message, prefix, strlen(prefix)) == 0, "%s: message '%s' should start '%s'", label,
          error.message, prefix);
    CHECK(strstr(error.message, part) != NULL, "%s: message '%s' lacks '%s'", label, error.message, part);
}

static void check_shapes(void)
{
    static const double two_by_two[] = {1, 2, 3, 4};
    static const double three[] = {1.5, -2e-3, 7, 4, 5, 6};
    expect_table("header", "x,y\n1,2\n3,4\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 1, two_by_two);
    expect_table("quoted header", "\"x\", \"y\"\n1,2\n3,4\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 1, two_by_two);
    expect_table("no header", "1,2\n3,4\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 0, two_by_two);
    expect_table("no trailing newline", "1,2\n3,4", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 0, two_by_two);
    expect_table("comments and blanks", "# made by hand\n\n1,2 # first\n   \n# middle\n3,4\n\n", PARAC_CSV_HEADER_AUTO, 0,
                 2, 2, 0, two_by_two);
    expect_table("comment before header", "# c\nx,y\n1,2\n3,4\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 1, two_by_two);
    expect_table("crlf", "x,y\r\n1,2\r\n3,4\r\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 1, two_by_two);
    expect_table("tabs", "1.5\t-2e-3\t7\n4\t5\t6\n", PARAC_CSV_HEADER_AUTO, 0, 2, 3, 0, three);
    expect_table("tsv header", "a\tb\tc\n1.5\t-2e-3\t7\n4\t5\t6\n", PARAC_CSV_HEADER_AUTO, 0, 2, 3, 1, three);
    expect_table("spaces", "  1.5   -2e-3 7\n4 5     6   \n", PARAC_CSV_HEADER_AUTO, 0, 2, 3, 0, three);
    expect_table("semicolons", "1.5;-2e-3;7\n4;5;6\n", PARAC_CSV_HEADER_AUTO, 0, 2, 3, 0, three);
    expect_table("blanks around commas", " 1.5 , -2e-3,7\n4,  5 ,6\n", PARAC_CSV_HEADER_AUTO, 0, 2, 3, 0, three);
    expect_table("forced header", "1,2\n1,2\n3,4\n", PARAC_CSV_HEADER_PRESENT, 0, 2, 2, 1, two_by_two);
    expect_table("one column", "1\n2\n3\n4\n", PARAC_CSV_HEADER_AUTO, 0, 4, 1, 0, two_by_two);
    /* A UTF-8 byte-order mark (spreadsheet exports) is skipped: before, it made the first
     * field non-numeric and the first point was lost as a "header". */
    expect_table("byte-order mark", "\xEF\xBB\xBF" "1,2\n3,4\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 0, two_by_two);
    expect_table("byte-order mark and header", "\xEF\xBB\xBF" "x,y\r\n1,2\r\n3,4\r\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 1,
                 two_by_two);
    expect_table("header of nan-like names", "nanometers,infinity_count\n1,2\n3,4\n", PARAC_CSV_HEADER_AUTO, 0, 2, 2, 1,
                 two_by_two);
    expect_table("explicit no header", "1,2\n3,4\n", PARAC_CSV_HEADER_NONE, 0, 2, 2, 0, two_by_two);
    expect_table("empty file", "", PARAC_CSV_HEADER_AUTO, 0, 0, 0, 0, NULL);
    expect_table("only comments", "# nothing\n\n#\n", PARAC_CSV_HEADER_AUTO, 0, 0, 0, 0, NULL);
    expect_table("header only", "x,y,z\n", PARAC_CSV_HEADER_AUTO, 0, 0, 3, 1, NULL);
    {
        const double special[] = {NAN, INFINITY, -INFINITY, 1};
        expect_table("nonfinite allowed", "nan,inf\n-inf,1\n", PARAC_CSV_HEADER_NONE, 1, 2, 2, 0, special);
    }
}

static void check_errors(void)
{
    expect_error("ragged short", "1,2\n3,4\n5\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 3,
                 "row has 1 values, expected 2");
    expect_error("ragged long after comments", "# c\nx,y\n1,2\n\n# c\n3,4,5\n", 0, PARAC_CSV_HEADER_AUTO,
                 PARAC_ERR_PARSE, 6, "row has 3 values, expected 2");
    expect_error("ragged against header", "a,b\n1,2,3\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 2,
                 "expected 2");
    expect_error("not a number", "1,2\n3,abc\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 2,
                 "column 2: 'abc' is not a number");
    expect_error("empty field", "1,2,3\n4,,6\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 2, "column 2");
    expect_error("half a number", "1 2\n3 4x\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 2, "column 2: '4x'");
    expect_error("nan refused", "1,2\n3,nan\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 2,
                 "column 2: non-finite value 'nan'");
    expect_error("inf refused in first row", "-inf,2\n", 0, PARAC_CSV_HEADER_NONE, PARAC_ERR_PARSE, 1,
                 "column 1: non-finite");
    expect_error("text without header allowed", "x,y\n1,2\n", 0, PARAC_CSV_HEADER_NONE, PARAC_ERR_PARSE, 1,
                 "column 1: 'x' is not a number");
    /* A first row with one non-numeric field is data with a typo, not a header: before, the
     * row was silently dropped as a header. The error names the line and the column. */
    expect_error("mixed first row", "1,x2,3\n4,5,6\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 1,
                 "column 2: 'x2' is not a number");
    expect_error("mixed first row after comments", "# c\n\n1.5\t2\tz\n4\t5\t6\n", 0, PARAC_CSV_HEADER_AUTO,
                 PARAC_ERR_PARSE, 3, "column 3: 'z' is not a number");
    expect_error("named first column", "id,x,y\na,1,2\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 2,
                 "column 1: 'a' is not a number");
    expect_error("empty field in first row", "1,,3\n4,5,6\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 1,
                 "column 2: '' is not a number");
    expect_error("byte-order mark then a typo", "\xEF\xBB\xBF" "1,2\n3,4O\n", 0, PARAC_CSV_HEADER_AUTO,
                 PARAC_ERR_PARSE, 2, "column 2: '4O' is not a number");
    expect_error("crlf ragged", "1,2\r\n3\r\n", 0, PARAC_CSV_HEADER_AUTO, PARAC_ERR_PARSE, 2, "row has 1 values");
    {
        parac_csv_reader reader;
        parac_error error = {0};
        CHECK(parac_csv_open(&reader, "/nonexistent/t.csv", NULL, &error) == PARAC_ERR_IO);
        CHECK(strstr(error.message, "/nonexistent/t.csv") == error.message, "%s", error.message);
        parac_csv_close(&reader);
    }
}

/* A large random table written as text (plain and gzip), read back in chunks of several sizes. */
static void check_chunks_and_gzip(void)
{
    enum { ROWS = 1000, COLS = 5 };
    static double values[ROWS * COLS], out[ROWS * COLS];
    char path[256], gz_path[256];
    FILE *file;
    gzFile gz;
    parac_rng rng;
    static const size_t chunks[] = {1, 7, 999, 1000, 5000};
    parac_rng_seed(&rng, 5);
    test_temp_path(path, sizeof path, "big.tsv");
    test_temp_path(gz_path, sizeof gz_path, "big.tsv.gz");
    file = fopen(path, "w");
    gz = gzopen(gz_path, "wb");
    if (!file || !gz) {
        CHECK(0, "cannot create test files");
        return;
    }
    fprintf(file, "c0\tc1\tc2\tc3\tc4\n");
    gzprintf(gz, "c0\tc1\tc2\tc3\tc4\n");
    for (int r = 0; r < ROWS; r++) {
        for (int c = 0; c < COLS; c++) {
            values[r * COLS + c] = parac_rng_normal(&rng) * 1e3;
            fprintf(file, "%.17g%c", values[r * COLS + c], c + 1 < COLS ? '\t' : '\n');
            gzprintf(gz, "%.17g%c", values[r * COLS + c], c + 1 < COLS ? '\t' : '\n');
        }
    }
    fclose(file);
    gzclose(gz);
    for (int which = 0; which < 2; which++)
        for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
            parac_csv_reader reader;
            parac_error error = {0};
            parac_status status;
            size_t got;
            CHECK_OK(parac_csv_open(&reader, which ? gz_path : path, NULL, &error), &error);
            CHECK_EQ_INT(reader.columns, COLS);
            memset(out, 0, sizeof out);
            got = read_all(&reader, out, ROWS, chunks[k], &status, &error);
            CHECK_OK(status, &error);
            CHECK(got == ROWS, "%s chunk %zu: %zu rows", which ? "gzip" : "plain", chunks[k], got);
            CHECK(memcmp(out, values, sizeof values) == 0, "%s chunk %zu: values differ (%%.17g must round-trip)",
                  which ? "gzip" : "plain", chunks[k]);
            /* At the end, further reads return nothing. */
            CHECK_OK(parac_csv_read_rows(&reader, out, 10, &got, &error), &error);
            CHECK_EQ_INT(got, 0);
            parac_csv_close(&reader);
        }
    remove(path);
    remove(gz_path);
}

int main(void)
{
    check_shapes();
    check_errors();
    check_chunks_and_gzip();
    remove(write_file("table.csv", ""));
    remove(write_file("bad.csv", ""));
    return test_finish("core.csv");
}
