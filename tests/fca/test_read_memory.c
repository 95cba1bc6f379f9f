/* tests/fca/test_read_memory.c — parac_fca_context_read_memory reads what parac_fca_context_read
 * reads from a file of the same bytes, in every format (AUTO chosen by the name), plain or gzip,
 * and fails with the same message (the buffer named as the file) on the same bad inputs. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <parac/fca.h>

#include "test_util.h"

static void write_file(const char *path, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL, "cannot write %s", path);
    if (!file) return;
    CHECK(fwrite(bytes, 1, size, file) == size);
    fclose(file);
}

static int same_names(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static void expect_same_context(const char *label, const parac_fca_context *a, const parac_fca_context *b)
{
    size_t objects = parac_fca_context_objects(a), attributes = parac_fca_context_attributes(a);
    CHECK(objects == parac_fca_context_objects(b) && attributes == parac_fca_context_attributes(b), "%s: shape", label);
    if (objects != parac_fca_context_objects(b) || attributes != parac_fca_context_attributes(b)) return;
    for (size_t o = 0; o < objects; o++) {
        CHECK(same_names(parac_fca_context_object_name(a, o), parac_fca_context_object_name(b, o)), "%s: object %zu", label, o);
        for (size_t a_ = 0; a_ < attributes; a_++)
            CHECK(parac_fca_context_has(a, o, a_) == parac_fca_context_has(b, o, a_), "%s: cell %zu,%zu", label, o, a_);
    }
    for (size_t a_ = 0; a_ < attributes; a_++)
        CHECK(same_names(parac_fca_context_attribute_name(a, a_), parac_fca_context_attribute_name(b, a_)),
              "%s: attribute %zu", label, a_);
}

/* Reads bytes from a file named like `name` and from memory under that name; both must agree. */
static void expect_same(const char *name, const void *bytes, size_t size, int should_load, size_t objects)
{
    char path[256];
    parac_error file_error = {0}, memory_error = {0};
    parac_fca_context *from_file = NULL, *from_memory = NULL;
    parac_status file_status, memory_status;
    test_temp_path(path, sizeof path, name);
    write_file(path, bytes, size);
    file_status = parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &from_file, &file_error);
    memory_status = parac_fca_context_read_memory(bytes, size, path, PARAC_FCA_FORMAT_AUTO, &from_memory, &memory_error);
    CHECK(file_status == memory_status, "%s: file %d (%s), memory %d (%s)", name, (int)file_status, file_error.message,
          (int)memory_status, memory_error.message);
    CHECK((file_status == PARAC_OK) == should_load, "%s: %s", name, file_error.message);
    if (file_status != PARAC_OK)
        CHECK(strcmp(file_error.message, memory_error.message) == 0, "%s: '%s' != '%s'", name, file_error.message,
              memory_error.message);
    if (from_file && from_memory) {
        expect_same_context(name, from_file, from_memory);
        CHECK_EQ_INT(parac_fca_context_objects(from_memory), objects);
    }
    parac_fca_context_destroy(from_file);
    parac_fca_context_destroy(from_memory);
    remove(path);
}

static unsigned char *gzip_bytes(const char *text, size_t *size)
{
    size_t length = strlen(text), capacity = length + 128;
    unsigned char *out = malloc(capacity);
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    CHECK(out && deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    stream.next_in = (Bytef *)(uintptr_t)text;
    stream.avail_in = (uInt)length;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    CHECK(deflate(&stream, Z_FINISH) == Z_STREAM_END);
    *size = capacity - stream.avail_out;
    deflateEnd(&stream);
    return out;
}

int main(void)
{
    static const char fimi[] = "# comment\n1 2 3\n\n2 5\r\n7\n";
    static const char cxt[] = "B\n\n2\n3\n\nalice\nbob\nred\ngreen\nblue\nX.X\n.XX\n";
    static const char csv[] = ",a,b,c\ng1,1,0,1\ng2,0,1,1\n";
    size_t packed_size;
    unsigned char *packed = gzip_bytes(cxt, &packed_size);
    parac_fca_context *context = NULL;
    parac_error error = {0};
    expect_same("memory.dat", fimi, strlen(fimi), 1, 4);
    expect_same("memory.cxt", cxt, strlen(cxt), 1, 2);
    expect_same("memory.csv", csv, strlen(csv), 1, 2);
    expect_same("memory.cxt.gz", packed, packed_size, 1, 2);
    expect_same("bad.dat", "1 2\n3 x\n", 8, 0, 0);
    expect_same("bad.cxt", "B\n\n2\n3\n\na\n", 10, 0, 0);
    expect_same("bad.csv", "1,0\n1,2\n", 8, 0, 0);
    expect_same("empty.dat", "", 0, 0, 0);
    expect_same("cut.cxt.gz", packed, packed_size - 6, 0, 0);
    /* an explicit format wins over the name; NULL data is refused unless size is 0; NULL name is "<memory>" */
    CHECK_OK(parac_fca_context_read_memory(cxt, strlen(cxt), "x.dat", PARAC_FCA_FORMAT_CXT, &context, &error), &error);
    CHECK(context && parac_fca_context_objects(context) == 2 && parac_fca_context_attributes(context) == 3);
    parac_fca_context_destroy(context);
    CHECK(parac_fca_context_read_memory(NULL, 3, "x", PARAC_FCA_FORMAT_AUTO, &context, &error) == PARAC_ERR_INVALID_ARGUMENT);
    CHECK(parac_fca_context_read_memory(NULL, 0, NULL, PARAC_FCA_FORMAT_AUTO, &context, &error) == PARAC_ERR_PARSE);
    CHECK(strstr(error.message, "<memory>:1: empty file") == error.message, "%s", error.message);
    free(packed);
    return test_finish("fca.read_memory");
}
