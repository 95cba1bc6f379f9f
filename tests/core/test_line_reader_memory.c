/* tests/core/test_line_reader_memory.c — parac_line_reader_open_memory reads exactly what
 * parac_line_reader_open reads from a file of the same bytes: lines, lengths, line numbers, the
 * no-final-newline flag, limits and errors (with the buffer named as the file). Gzip bytes in memory
 * are inflated (one member or several, trailing garbage ignored as gzread does); cut or corrupt gzip
 * data is an error naming the line, never a shorter input. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/line_reader.h"
#include "test_util.h"

/* read_transcript writes "error <status>: ..." */
_Static_assert(PARAC_ERR_PARSE == 3, "the expected transcripts below spell PARAC_ERR_PARSE as 3");

typedef struct transcript {
    char *text;
    size_t size, capacity;
} transcript;

static void append(transcript *t, const char *bytes, size_t length)
{
    if (t->size + length + 1 > t->capacity) {
        size_t capacity = (t->size + length + 1) * 2;
        char *bigger = realloc(t->text, capacity);
        if (!bigger) abort();
        t->text = bigger;
        t->capacity = capacity;
    }
    memcpy(t->text + t->size, bytes, length);
    t->size += length;
    t->text[t->size] = '\0';
}

/* Every result of next() until the end or an error, as text. max_line 0 keeps the default limit. */
static void read_transcript(parac_line_reader *reader, size_t max_line, transcript *t)
{
    parac_error error = {0};
    char head[sizeof ((parac_error *)0)->message + 64];
    int got;
    if (max_line) reader->max_line_length = max_line;
    while ((got = parac_line_reader_next(reader, &error)) == 1) {
        snprintf(head, sizeof head, "line %ld (%zu bytes): ", reader->line_number, reader->length);
        append(t, head, strlen(head));
        append(t, reader->buffer, reader->length);
        append(t, "\n", 1);
    }
    if (got < 0) snprintf(head, sizeof head, "error %d: %s\n", (int)error.status, error.message);
    else snprintf(head, sizeof head, "end, without final newline %d, next %d\n", reader->ended_without_newline,
                  parac_line_reader_next(reader, &error));
    append(t, head, strlen(head));
    parac_line_reader_close(reader);
}

static void write_file(const char *path, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL, "cannot write %s", path);
    if (!file) return;
    CHECK(fwrite(bytes, 1, size, file) == size);
    fclose(file);
}

/* The transcript of the bytes read from memory (named `path`) equals the one of the file `path`
 * holding them; returns the memory transcript (caller frees) for further checks. */
static char *expect_same_as_file(const char *label, const void *bytes, size_t size, size_t max_line)
{
    char path[256];
    parac_line_reader reader;
    parac_error error = {0};
    transcript from_file = {0}, from_memory = {0};
    test_temp_path(path, sizeof path, "memory-vs-file.txt");
    write_file(path, bytes, size);
    CHECK_OK(parac_line_reader_open(&reader, path, &error), &error);
    read_transcript(&reader, max_line, &from_file);
    CHECK_OK(parac_line_reader_open_memory(&reader, bytes, size, path, &error), &error);
    read_transcript(&reader, max_line, &from_memory);
    CHECK(from_file.size == from_memory.size && memcmp(from_file.text, from_memory.text, from_file.size) == 0,
          "%s: memory read differs from file read\n--- file:\n%.2000s--- memory:\n%.2000s", label, from_file.text,
          from_memory.text);
    remove(path);
    free(from_file.text);
    return from_memory.text;
}

/* gzip bytes of text (level 6), malloc'ed; *size receives their length. */
static unsigned char *gzip_bytes(const char *text, size_t length, size_t *size)
{
    z_stream stream;
    size_t capacity = length + length / 100 + 64;
    unsigned char *out = malloc(capacity);
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

static void check_plain_cases(void)
{
    static const struct {
        const char *label, *bytes;
        size_t size, max_line;
    } cases[] = {
        {"LF", "first\n\n  third  \nfourth\tcol\n\nlast\n", 35, 0},
        {"CRLF, no final newline", "first\r\n\r\n  third  \r\nfourth\tcol\r\n\r\nlast", 39, 0},
        {"empty", "", 0, 0},
        {"one newline", "\n", 1, 0},
        {"one byte", "x", 1, 0},
        {"lone CR lines", "\r\n\r\r\n", 5, 0},
        {"BOM on the first line only", "\xEF\xBB\xBFx,y\n\xEF\xBB\xBFz\n", 12, 0},
        {"a BOM alone", "\xEF\xBB\xBF", 3, 0},
        {"NUL on line 2", "1,2\n3\0004\n", 8, 0},
        {"NUL first", "\0", 1, 0},
        {"lowered limit", "12345\n123456\n", 13, 5},
        {"limit and CR", "12345\r\n123456\r\n", 15, 5},
        {"limit then NUL", "123456\0\n", 8, 5},
        {"NUL within the limit", "12\0" "3456789\n", 11, 5},
        {"limit, no newline", "1234567", 7, 5},
        {"gzip magic then garbage", "\x1f\x8b garbage\n", 11, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        free(expect_same_as_file(cases[i].label, cases[i].bytes, cases[i].size, cases[i].max_line));
}

/* Lines around the 4 KiB first buffer, 64 KiB inflate chunks and 256 KiB file chunks. */
static void check_long_lines(void)
{
    size_t sizes[] = {4094, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20, 3};
    size_t total = 0, packed_size;
    char *text, *cursor;
    unsigned char *packed;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) total += sizes[i] + 1;
    text = malloc(total);
    cursor = text;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t k = 0; k < sizes[i]; k++) cursor[k] = (char)('a' + (k * 7 + i) % 26);
        cursor[sizes[i]] = '\n';
        cursor += sizes[i] + 1;
    }
    free(expect_same_as_file("long lines", text, total, 0));
    packed = gzip_bytes(text, total, &packed_size);
    free(expect_same_as_file("long lines, gzip", packed, packed_size, 0));
    free(expect_same_as_file("long lines, gzip, limit 65536", packed, packed_size, 65536));
    free(packed);
    free(text);
}

static void check_gzip_cases(void)
{
    static const char text[] = "\xEF\xBB\xBF" "1 2 3\r\n4 5\n\n6\n7 8 9";
    size_t one_size, two_size;
    unsigned char *one = gzip_bytes(text, sizeof text - 1, &one_size);
    unsigned char *two = gzip_bytes("10 11\n12", 8, &two_size);
    unsigned char *joined = malloc(one_size + two_size + 16);
    char *memory;
    /* one member; two members (gzread reads on); a member and trailing bytes (ignored) */
    memory = expect_same_as_file("gzip", one, one_size, 0);
    CHECK(strstr(memory, "line 1 (5 bytes): 1 2 3\n") && strstr(memory, "line 5 (5 bytes): 7 8 9\nend, without final newline 1"),
          "%s", memory);
    free(memory);
    memcpy(joined, one, one_size);
    memcpy(joined + one_size, two, two_size);
    memory = expect_same_as_file("two gzip members", joined, one_size + two_size, 0);
    CHECK(strstr(memory, "line 5 (10 bytes): 7 8 910 11\nline 6 (2 bytes): 12\nend"), "%s", memory);
    free(memory);
    memcpy(joined + one_size, "trailing garbage", 16);
    free(expect_same_as_file("gzip and trailing garbage", joined, one_size + 16, 0));
    free(one);
    one = gzip_bytes("", 0, &one_size);
    free(expect_same_as_file("gzip of no text", one, one_size, 0));
    free(one);
    free(two);
    free(joined);
}

/* Cut or corrupt gzip data in memory is a parse error at the line where it shows, never a clean end. */
static void check_damaged_gzip(void)
{
    char text[20000];
    size_t size;
    unsigned char *packed;
    parac_line_reader reader;
    parac_error error = {0};
    transcript t = {0};
    for (int i = 0; i < (int)sizeof text - 1; i++) text[i] = (i % 50 == 49) ? '\n' : (char)('0' + (i * 13) % 10);
    text[sizeof text - 1] = '\n';
    packed = gzip_bytes(text, sizeof text, &size);
    for (size_t cut = 2; cut < size; cut += cut < 20 ? 1 : 97) {
        t.size = 0;
        CHECK_OK(parac_line_reader_open_memory(&reader, packed, cut, "cut.gz", &error), &error);
        read_transcript(&reader, 0, &t);
        CHECK(strstr(t.text, "error 3: cut.gz:") && strstr(t.text, ": gzip data is truncated (unexpected end of file)"),
              "cut at %zu of %zu: %s", cut, size, t.size > 300 ? t.text + t.size - 300 : t.text);
    }
    packed[size / 2] ^= 0x55;
    packed[size / 2 + 1] ^= 0xAA;
    t.size = 0;
    CHECK_OK(parac_line_reader_open_memory(&reader, packed, size, "bad.gz", &error), &error);
    read_transcript(&reader, 0, &t);
    CHECK(strstr(t.text, "error 3: bad.gz:") && strstr(t.text, ": gzip data is corrupt ("), "%s",
          t.size > 300 ? t.text + t.size - 300 : t.text);
    /* the same bytes from a file: the same error */
    free(expect_same_as_file("corrupt gzip", packed, size, 0));
    free(t.text);
    free(packed);
}

/* A small gzip buffer that expands to one endless line stops at PARAC_LINE_MAX, as a .gz file does. */
static void check_gzip_bomb(void)
{
    size_t size = PARAC_LINE_MAX + 1, packed_size;
    char *text = malloc(size + 8);
    unsigned char *packed;
    char *memory;
    memcpy(text, "ok\n", 3);
    memset(text + 3, 'a', size);
    text[3 + size] = '\n';
    packed = gzip_bytes(text, size + 4, &packed_size);
    CHECK(packed_size < 200000, "%zu", packed_size);
    memory = expect_same_as_file("gzip bomb", packed, packed_size, 0);
    CHECK(strstr(memory, "error 3: ") && strstr(memory, ":2: line is longer than the limit of 67108864 bytes"), "%.300s",
          memory);
    free(memory);
    free(packed);
    free(text);
}

int main(void)
{
    check_plain_cases();
    check_long_lines();
    check_gzip_cases();
    check_damaged_gzip();
    check_gzip_bomb();
    return test_finish("core.line_reader_memory");
}
