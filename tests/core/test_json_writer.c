/* tests/core/test_json_writer.c — exact output: separators, nesting, escaping, numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_writer.h"
#include "test_util.h"

typedef struct capture {
    FILE *file;
    char text[4096];
} capture;

static void capture_begin(capture *c, parac_json_writer *json)
{
    c->file = tmpfile();
    parac_json_init(json, c->file);
}

static const char *capture_end(capture *c)
{
    size_t got;
    fflush(c->file);
    rewind(c->file);
    got = fread(c->text, 1, sizeof c->text - 1, c->file);
    c->text[got] = '\0';
    fclose(c->file);
    return c->text;
}

#define EXPECT_JSON(c, expected) \
    do { const char *got_ = capture_end(c); CHECK(strcmp(got_, expected) == 0, "got   %s\n      want  %s", got_, expected); } while (0)

static void check_structure(void)
{
    capture c;
    parac_json_writer json;
    capture_begin(&c, &json);
    parac_json_begin_object(&json);
    parac_json_field_string(&json, "command", "dbscan");
    parac_json_field_int(&json, "n", -42);
    parac_json_field_uint(&json, "big", UINT64_MAX);
    parac_json_field_bool(&json, "ok", 1);
    parac_json_field_bool(&json, "bad", 0);
    parac_json_key(&json, "nothing");
    parac_json_null(&json);
    parac_json_key(&json, "list");
    parac_json_begin_array(&json);
    parac_json_int(&json, 1);
    parac_json_begin_object(&json);
    parac_json_end_object(&json);
    parac_json_begin_array(&json);
    parac_json_end_array(&json);
    parac_json_begin_array(&json);
    parac_json_string(&json, "a");
    parac_json_string(&json, NULL);
    parac_json_end_array(&json);
    parac_json_end_array(&json);
    parac_json_key(&json, "inner");
    parac_json_begin_object(&json);
    parac_json_field_int(&json, "x", INT64_MIN);
    parac_json_end_object(&json);
    parac_json_end_object(&json);
    EXPECT_JSON(&c, "{\"command\":\"dbscan\",\"n\":-42,\"big\":18446744073709551615,\"ok\":true,\"bad\":false,"
                    "\"nothing\":null,\"list\":[1,{},[],[\"a\",null]],\"inner\":{\"x\":-9223372036854775808}}");

    /* Two top-level values in a row (JSON lines are written one writer per line). */
    capture_begin(&c, &json);
    parac_json_begin_array(&json);
    parac_json_end_array(&json);
    EXPECT_JSON(&c, "[]");
}

static void check_escaping(void)
{
    capture c;
    parac_json_writer json;
    capture_begin(&c, &json);
    parac_json_begin_object(&json);
    parac_json_field_string(&json, "quote\"key", "back\\slash \"q\" \n\r\t \x01\x1f end");
    parac_json_field_string(&json, "utf8", "caf\xc3\xa9 \xe2\x86\x92");
    parac_json_field_string(&json, "", "");
    parac_json_end_object(&json);
    EXPECT_JSON(&c, "{\"quote\\\"key\":\"back\\\\slash \\\"q\\\" \\n\\r\\t \\u0001\\u001f end\","
                    "\"utf8\":\"caf\xc3\xa9 \xe2\x86\x92\",\"\":\"\"}");
}

static void check_numbers(void)
{
    capture c;
    parac_json_writer json;
    static const double values[] = {0.1, 1.0 / 3.0, 1e300, -2.5e-310, 123456789012345678.0, 0.0, -0.0, 5e-324, 1e21};
    capture_begin(&c, &json);
    parac_json_begin_array(&json);
    parac_json_double(&json, 0.1);
    parac_json_double(&json, 3.0);
    parac_json_double(&json, -1.5);
    parac_json_double(&json, NAN);
    parac_json_double(&json, INFINITY);
    parac_json_double(&json, -INFINITY);
    parac_json_double(&json, 1e-7);
    parac_json_end_array(&json);
    EXPECT_JSON(&c, "[0.1,3,-1.5,null,null,null,1e-07]");
    /* Every double is written so that it reads back exactly. */
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        const char *text;
        capture_begin(&c, &json);
        parac_json_double(&json, values[i]);
        text = capture_end(&c);
        CHECK(strtod(text, NULL) == values[i], "%s does not read back as %.17g", text, values[i]);
        CHECK(strlen(text) <= 24 && !strchr(text, ' '), "odd number text '%s'", text);
    }
}

int main(void)
{
    check_structure();
    check_escaping();
    check_numbers();
    return test_finish("core.json_writer");
}
