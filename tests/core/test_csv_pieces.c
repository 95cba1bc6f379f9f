/* tests/core/test_csv_pieces.c — a table read in pieces (parac_csv_open_piece / _piece_shape /
 * _piece_begin, as parac-mpi's ranks read their byte ranges) gives what the whole-file reader gives:
 * the same rows, columns and header decision, or the same first error with the same line and
 * column, for every way of cutting the text into three pieces at line starts (empty pieces too). */
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/input.h"
#include "test_util.h"

#define MAX_VALUES 256
#define PIECES 3

typedef struct table_result {
    parac_status status;
    char message[PARAC_ERROR_MESSAGE_SIZE];
    size_t rows, columns;
    double values[MAX_VALUES];
} table_result;

/* The rest of an opened reader's rows into result (from row result->rows on); its status. */
static parac_status read_rest(parac_csv_reader *reader, table_result *result, parac_error *error)
{
    for (;;) {
        size_t got, room = reader->columns ? MAX_VALUES / reader->columns - result->rows : 0;
        parac_status status;
        if (room == 0) return PARAC_OK;
        status = parac_csv_read_rows(reader, result->values + result->rows * reader->columns, room, &got, error);
        result->rows += got;
        if (status != PARAC_OK || got == 0) return status;
    }
}

static void read_whole(const char *text, table_result *result)
{
    parac_input input = parac_input_memory(text, strlen(text), "t.csv");
    parac_csv_reader reader;
    parac_error error = {0};
    memset(result, 0, sizeof *result);
    result->status = parac_csv_open_input(&reader, &input, NULL, &error);
    result->columns = reader.columns;
    if (result->status == PARAC_OK) result->status = read_rest(&reader, result, &error);
    snprintf(result->message, sizeof result->message, "%s", error.message);
    parac_csv_close(&reader);
}

static long newlines_before(const char *text, size_t end)
{
    long count = 0;
    for (size_t i = 0; i < end; i++) count += text[i] == '\n';
    return count;
}

/* The ranks' sequence (mpi/text_block.c) run here one piece after another: open every piece; the
 * first piece with content or a failure decides the shape; the first failure in piece order is the
 * table's. */
static void read_in_pieces(const char *text, const size_t cuts[PIECES + 1], table_result *result)
{
    parac_csv_reader readers[PIECES];
    parac_status status[PIECES];
    parac_error errors[PIECES];
    parac_csv_shape shape = {0, 0, 0};
    int decider = PIECES;
    memset(result, 0, sizeof *result);
    memset(errors, 0, sizeof errors);
    for (int p = 0; p < PIECES; p++) {
        status[p] = parac_csv_open_piece(&readers[p], text + cuts[p], cuts[p + 1] - cuts[p], "t.csv",
                                         newlines_before(text, cuts[p]) + 1, NULL, &errors[p]);
        if (decider == PIECES && (status[p] != PARAC_OK || !readers[p].at_end)) decider = p;
    }
    if (decider < PIECES && status[decider] == PARAC_OK)
        status[decider] = parac_csv_piece_shape(&readers[decider], &shape, &errors[decider]);
    result->columns = decider < PIECES && status[decider] == PARAC_OK ? shape.columns : 0;
    for (int p = 0; p < PIECES; p++) {
        if (status[p] == PARAC_OK && !readers[p].at_end && result->status == PARAC_OK) {
            status[p] = parac_csv_piece_begin(&readers[p], &shape, p == decider, &errors[p]);
            if (status[p] == PARAC_OK) status[p] = read_rest(&readers[p], result, &errors[p]);
        }
        if (status[p] != PARAC_OK && result->status == PARAC_OK) {
            result->status = status[p];
            snprintf(result->message, sizeof result->message, "%s", errors[p].message);
        }
        parac_csv_close(&readers[p]);
    }
}

static int same_result(const table_result *a, const table_result *b)
{
    if (a->status != b->status) return 0;
    if (a->status != PARAC_OK) return strcmp(a->message, b->message) == 0;
    return a->columns == b->columns && a->rows == b->rows &&
           memcmp(a->values, b->values, a->rows * a->columns * sizeof(double)) == 0;
}

static void check_every_cut(const char *label, const char *text)
{
    size_t length = strlen(text), starts[64], count = 0, cuts[PIECES + 1];
    table_result whole, pieces;
    read_whole(text, &whole);
    starts[count++] = 0;
    for (size_t i = 0; i < length && count < 63; i++)
        if (text[i] == '\n') starts[count++] = i + 1; /* the end of the text, too, when it ends a line */
    if (starts[count - 1] != length) starts[count++] = length;
    for (size_t i = 0; i < count; i++)
        for (size_t j = i; j < count; j++) {
            cuts[0] = 0, cuts[1] = starts[i], cuts[2] = starts[j], cuts[3] = length;
            read_in_pieces(text, cuts, &pieces);
            CHECK(same_result(&whole, &pieces),
                  "%s cut at %zu and %zu: whole status %d '%s' %zu x %zu; pieces status %d '%s' %zu x %zu", label,
                  cuts[1], cuts[2], (int)whole.status, whole.message, whole.rows, whole.columns, (int)pieces.status,
                  pieces.message, pieces.rows, pieces.columns);
        }
}

int main(void)
{
    check_every_cut("plain", "1,2\n3,4\n5,6\n7,8\n");
    check_every_cut("header", "x,y\n1,2\n3,4\n5,6\n");
    check_every_cut("header alone", "x,y\n");
    check_every_cut("bom crlf comments", "\xEF\xBB\xBFx;y\r\n# c\r\n\r\n1;2\r\n 3 ; 4 # end\r\n\r\n5;6\r\n");
    check_every_cut("bom data", "\xEF\xBB\xBF" "1\t2\n3\t4\n");
    check_every_cut("leading comments then header", "# a\n\n# b\n   \na b\n1 2\n3   4\n");
    check_every_cut("no final newline", "1,2\n3,4\n5,6");
    check_every_cut("comments only", "# a\n\n# b\n");
    check_every_cut("empty", "");
    check_every_cut("mixed first row is data", "1,x\n3,4\n");
    check_every_cut("bad number late", "1,2\n3,4\n5,6\n7,8e\n9,10\n11,x\n");
    check_every_cut("ragged then bad", "1,2\n3,4\n5,6,7\n8,y\n");
    check_every_cut("non-finite", "1,2\n3,4\nnan,5\n6,7\n");
    check_every_cut("header, bad later", "a,b\n\n1,2\n# c\n3,?\n");
    return test_finish("core.csv_pieces");
}
