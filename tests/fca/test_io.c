/* tests/fca/test_io.c — the context readers (FIMI, Burmeister .cxt, 0/1 CSV) on
 * hostile and edge-case files: huge ids, contexts above the size limit, .cxt
 * counts that disagree with the body, bad cells, truncation, CRLF, BOM, empty. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "core/input.h"
#include "fca/fca_internal.h"
#include "test_util.h"

static const char *write_file(const char *name, const char *text, size_t length)
{
    static char path[256];
    FILE *file;
    test_temp_path(path, sizeof path, name);
    file = fopen(path, "wb");
    if (file) {
        fwrite(text, 1, length, file);
        fclose(file);
    }
    return path;
}

/* Reads text as `name` (the extension picks the format); returns the context or NULL. */
static parac_fca_context *read_text(const char *name, const char *text, parac_error *error)
{
    parac_fca_context *context = NULL;
    const char *path = write_file(name, text, strlen(text));
    if (parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, error) != PARAC_OK) context = NULL;
    remove(path);
    return context;
}

/* Expects a parse error whose message is "<path>:<line>: ..." containing part. */
static void expect_error(const char *name, const char *text, long line, const char *part)
{
    parac_error error = {0};
    char prefix[300], path[256];
    parac_fca_context *context = read_text(name, text, &error);
    test_temp_path(path, sizeof path, name);
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, line);
    CHECK(context == NULL && error.status == PARAC_ERR_PARSE, "%s: status %d (%s)", name, (int)error.status,
          error.message);
    CHECK(strncmp(error.message, prefix, strlen(prefix)) == 0 && strstr(error.message, part),
          "%s: '%s' should start '%s' and say '%s'", name, error.message, prefix, part);
    parac_fca_context_destroy(context);
}

/* Expects a context of objects x attributes whose cells, row by row, are `cells` ('1'/'0'). */
static void expect_context(const char *name, const char *text, size_t objects, size_t attributes, const char *cells)
{
    parac_error error = {0};
    parac_fca_context *context = read_text(name, text, &error);
    CHECK(context != NULL, "%s: %s", name, error.message);
    if (!context) return;
    CHECK(parac_fca_context_objects(context) == objects && parac_fca_context_attributes(context) == attributes,
          "%s: %zu x %zu, expected %zu x %zu", name, parac_fca_context_objects(context),
          parac_fca_context_attributes(context), objects, attributes);
    for (size_t o = 0; o < objects && cells; o++)
        for (size_t a = 0; a < attributes; a++)
            CHECK(parac_fca_context_has(context, o, a) == (cells[o * attributes + a] == '1'), "%s: cell %zu,%zu", name,
                  o, a);
    parac_fca_context_destroy(context);
}

static void check_fimi(void)
{
    expect_context("crlf.dat", "1 2\r\n\r\n0\r\n", 3, 3, "011000100");
    expect_context("bom.dat", "\xEF\xBB\xBF" "2\n1\n", 2, 3, "001010");
    expect_error("id_2_32.dat", "1 2\n1 4294967295\n", 2, "too large");
    expect_error("id_10_18.dat", "1000000000000000000\n", 1, "too large");
    expect_error("id_overflow.dat", "3\n99999999999999999999999\n", 2, "too large");
    expect_error("negative.dat", "1 -2\n", 1, "negative");
    expect_error("junk.dat", "1 2\n3 4x\n", 2, "'4x' is not an attribute id");
    expect_error("empty.dat", "", 1, "empty file");
    /* Many lines naming the largest id: 17180 objects x 1000001 attributes passes 2^34
     * cells. Before the limit this 120 KB file asked for two 2 GiB bit matrices. */
    {
        size_t lines = 20000, length = lines * 8;
        char *text = malloc(length + 1);
        for (size_t i = 0; i < lines; i++) memcpy(text + i * 8, "1000000\n", 8);
        text[length] = '\0';
        expect_error("too_big.dat", text, 17180, "above the limit of 17179869184 cells");
        free(text);
    }
}

/* The id limit at its edge: PARAC_FCA_MAX_ATTRIBUTE_ID is read, one more is refused; the limited
 * entry (the fuzz target's) refuses above its own bound with the same message. */
static void check_fimi_id_limit(void)
{
    parac_fca_context *context = NULL;
    parac_error error = {0};
    parac_input input;
    const char *accepted = "3 16383\n", *refused = "1\n16384\n";
    context = read_text("max_id.dat", "1000000\n", &error);
    CHECK(context && parac_fca_context_attributes(context) == (size_t)PARAC_FCA_MAX_ATTRIBUTE_ID + 1 &&
              parac_fca_context_has(context, 0, PARAC_FCA_MAX_ATTRIBUTE_ID) &&
              !parac_fca_context_has(context, 0, PARAC_FCA_MAX_ATTRIBUTE_ID - 1),
          "id 10^6 must give 10^6 + 1 attributes: %s", error.message);
    parac_fca_context_destroy(context);
    expect_error("max_id_plus_1.dat", "0\n1000001\n", 2, "too large (at most 1000000)");
    input = parac_input_memory(accepted, strlen(accepted), "limited.dat");
    context = NULL;
    CHECK_OK(fca_read_fimi_limited(&input, 16383, &context, &error), &error);
    CHECK(context && parac_fca_context_attributes(context) == 16384 && parac_fca_context_has(context, 0, 16383),
          "limited reader: id 16383 at a limit of 16383 must give 16384 attributes");
    parac_fca_context_destroy(context);
    input = parac_input_memory(refused, strlen(refused), "limited.dat");
    context = NULL;
    CHECK(fca_read_fimi_limited(&input, 16383, &context, &error) == PARAC_ERR_PARSE && context == NULL &&
              strstr(error.message, "limited.dat:2: attribute id 16384 is too large (at most 16383)"),
          "limited reader: id 16384 at a limit of 16383: %s", error.message);
}

/* ---- the FIMI reader on threads: pieces of a text of >= 1 MiB ------------------------------- */

/* A FIMI text of about `lines` lines with what the reader must get right at any piece boundary:
 * unsorted and repeated ids, blank lines (objects without attributes), comment lines, CRLF and
 * tab separators, a byte-order mark, no final newline. bad_line (0: none): that line says `bad`. */
static char *big_fimi(size_t lines, size_t bad_line, const char *bad, size_t *length)
{
    size_t capacity = lines * 64 + 64, used = 0;
    char *text = malloc(capacity);
    uint64_t state = 12345;
    if (!text) return NULL;
    used += (size_t)snprintf(text, capacity, "\xEF\xBB\xBF");
    for (size_t line = 1; line <= lines; line++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        if (line == bad_line) used += (size_t)snprintf(text + used, capacity - used, "%s\n", bad);
        else if (state >> 60 == 0) used += (size_t)snprintf(text + used, capacity - used, "\n");
        else if (state >> 60 == 1) used += (size_t)snprintf(text + used, capacity - used, "# comment %zu\n", line);
        else {
            unsigned count = 1 + (unsigned)(state >> 57) % 9;
            for (unsigned i = 0; i < count; i++) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                used += (size_t)snprintf(text + used, capacity - used, "%s%u", i ? (i % 3 ? " " : "\t") : "",
                                         (unsigned)(state >> 33) % (i % 4 ? 3000u : 40u));
            }
            used += (size_t)snprintf(text + used, capacity - used, line % 7 ? "\n" : "\r\n");
        }
    }
    if (used && text[used - 1] == '\n') used--; /* no final newline */
    *length = used;
    return text;
}

static int same_cells(const parac_fca_context *a, const parac_fca_context *b)
{
    if (a->objects != b->objects || a->attributes != b->attributes) return 0;
    if (memcmp(a->cell_offsets, b->cell_offsets, (a->objects + 1) * sizeof *a->cell_offsets) != 0) return 0;
    return memcmp(a->cell_attributes, b->cell_attributes, fca_context_cells(a) * sizeof *a->cell_attributes) == 0;
}

/* Reads text (a buffer, and a file of the same bytes) on 1 and 4 threads: the same context, or
 * the same error, word for word. Returns the serial result's status. */
static parac_status compare_readers(const char *label, const char *text, size_t length)
{
    char path[256];
    const char *file = write_file("pieces.dat", text, length);
    parac_input inputs[2];
    parac_status serial_status = PARAC_OK;
    snprintf(path, sizeof path, "%s", file);
    inputs[0] = parac_input_memory(text, length, path);
    inputs[1] = parac_input_file(path);
    for (int i = 0; i < 2; i++) {
        parac_fca_context *serial = NULL, *pieces = NULL;
        parac_error serial_error = {0}, pieces_error = {0};
        serial_status = fca_read_fimi_threads(&inputs[i], PARAC_FCA_MAX_ATTRIBUTE_ID, 1, &serial, &serial_error);
        parac_status status = fca_read_fimi_threads(&inputs[i], PARAC_FCA_MAX_ATTRIBUTE_ID, 4, &pieces, &pieces_error);
        CHECK(status == serial_status, "%s (%s): status %d on 4 threads, %d on 1", label, i ? "file" : "buffer",
              (int)status, (int)serial_status);
        if (serial_status == PARAC_OK && status == PARAC_OK)
            CHECK(same_cells(serial, pieces), "%s (%s): the contexts read on 1 and 4 threads differ", label,
                  i ? "file" : "buffer");
        else
            CHECK(strcmp(serial_error.message, pieces_error.message) == 0, "%s (%s): '%s' on 4 threads, '%s' on 1",
                  label, i ? "file" : "buffer", pieces_error.message, serial_error.message);
        parac_fca_context_destroy(serial);
        parac_fca_context_destroy(pieces);
    }
    remove(path);
    return serial_status;
}

static void check_fimi_pieces(void)
{
    size_t length, lines = 120000;
    char *text = big_fimi(lines, 0, NULL, &length);
    parac_fca_context *context = NULL;
    parac_error error = {0};
    parac_input input;
    CHECK(text && length >= ((size_t)1 << 20), "the test text must reach the parallel reader's 1 MiB (%zu bytes)",
          length);
    if (!text) return;
    CHECK(compare_readers("valid", text, length) == PARAC_OK);
    /* what the serial reader makes of it, checked against the text itself on a few lines */
    input = parac_input_memory(text, length, "pieces.dat");
    CHECK_OK(fca_read_fimi_threads(&input, PARAC_FCA_MAX_ATTRIBUTE_ID, 4, &context, &error), &error);
    if (context) {
        size_t objects = 0;
        for (size_t i = 3; i < length; i++) /* an object for every line that is not a comment (after the BOM) */
            if (i == 3 || text[i - 1] == '\n') objects += text[i] != '#';
        CHECK(context->objects == objects, "objects: %zu read, %zu lines without '#'", context->objects, objects);
        for (size_t o = 0; o < context->objects; o++)
            for (size_t i = context->cell_offsets[o] + 1; i < context->cell_offsets[o + 1]; i++)
                CHECK(context->cell_attributes[i - 1] < context->cell_attributes[i], "object %zu: not ascending", o);
        CHECK(!fca_context_has_bits(context), "reading must not build the bit matrices");
    }
    parac_fca_context_destroy(context);
    free(text);
    /* a bad line early, in the middle and last: the same first error, at the same line */
    for (size_t k = 0; k < 3; k++) {
        size_t bad_line = k == 0 ? 3 : k == 1 ? lines / 2 + 17 : lines;
        const char *bad = k == 1 ? "5 x7 9" : k == 2 ? "1 2 1000001" : "-4";
        char label[64];
        text = big_fimi(lines, bad_line, bad, &length);
        snprintf(label, sizeof label, "bad line %zu", bad_line);
        if (text) CHECK(compare_readers(label, text, length) == PARAC_ERR_PARSE, "%s must fail", label);
        free(text);
    }
}

static void check_cxt(void)
{
    expect_context("small.cxt", "B\n\n2\n3\n\no1\no2\na\nb\nc\nX.X\n.XX\n", 2, 3, "101011");
    expect_context("crlf.cxt", "B\r\n\r\n2\r\n2\r\n\r\no1\r\no2\r\na\r\nb\r\nX.\r\n.x\r\n", 2, 2, "1001");
    expect_context("bom.cxt", "\xEF\xBB\xBF" "B\n1\n1\no\na\nX\n", 1, 1, "1");
    expect_context("empty.cxt", "B\n\n0\n0\n\n", 0, 0, NULL);
    expect_context("no_objects.cxt", "B\n\n0\n2\n\na\nb\n", 0, 2, NULL);
    expect_context("trailing_blank.cxt", "B\n1\n1\no\na\nX\n\n\n", 1, 1, "1");
    /* Counts that disagree with the body. */
    expect_error("extra_rows.cxt", "B\n\n1\n1\n\no\na\nX\nX\n", 9, "more rows than the header's 1 objects");
    expect_error("few_rows.cxt", "B\n\n2\n2\n\no1\no2\na\nb\nX.\n", 11, "truncated file: expected one row per object");
    expect_error("few_names.cxt", "B\n\n2\n2\n\no1\no2\na\n", 9, "truncated file: expected more attribute names");
    expect_error("short_row.cxt", "B\n2\n2\no1\no2\na\nb\nX\n..\n", 8, "row has 1 entries, expected 2");
    expect_error("bad_cell.cxt", "B\n\n1\n2\n\no\na\nb\nX1\n", 9, "unexpected '1'");
    expect_error("huge_counts.cxt", "B\n\n100000000\n100000000\n\no\n", 4, "above the limit");
    expect_error("count_10_9.cxt", "B\n\n1000000000\n1\n", 3, "an integer from 0 to 10^8");
    expect_error("count_junk.cxt", "B\n\n2x\n1\n", 3, "number of objects");
    expect_error("no_b.cxt", "C\n1\n1\n", 1, "expected 'B'");
    /* 10^5 x 10^5 is within the limit, but the names are missing: truncated, found before
     * anything of that size is allocated. */
    expect_error("big_counts.cxt", "B\n\n100000\n100000\n\no\n", 7, "truncated file: expected more object names");
}

static void check_csv01(void)
{
    expect_context("plain.csv", "1,0,1\n0,1,1\n", 2, 3, "101011");
    expect_context("header.csv", "a,b,c\n1,0,1\n", 1, 3, "101");
    expect_context("names.csv", ",a,b\nx,1,0\ny,0,1\n", 2, 2, "1001");
    expect_context("crlf_bom.csv", "\xEF\xBB\xBF" "a,b\r\n1,0\r\n0,1\r\n", 2, 2, "1001");
    expect_context("tabs.tsv", "a\tb\n1\t1\n", 1, 2, "11");
    /* A first row mixing bits and a typo is data, not a header: before, it became the
     * attribute names and the object was lost without a word. */
    expect_error("mixed_first.csv", "1,0,x\n0,1,1\n", 1, "cell 3 is 'x', expected 0 or 1");
    expect_error("bad_cell.csv", "1,0\n0,2\n", 2, "cell 2 is '2'");
    expect_error("ragged.csv", "1,0\n1\n", 2, "row has 1 cells, expected 2");
    expect_error("empty.csv", "", 1, "empty file");
    expect_error("header_only.csv", "a,b\n", 2, "empty file");
    expect_error("corner_without_names.csv", ",a,b\n1,0\n", 1, "header has 3 names, rows have 2 cells");
    expect_error("header_count.csv", "a,b,c,d,e\n1,0\n", 1, "header has 5 names, rows have 2 cells");
}

int main(void)
{
    check_fimi();
    check_fimi_id_limit();
    check_fimi_pieces();
    check_cxt();
    check_csv01();
    return test_finish("fca.io");
}
