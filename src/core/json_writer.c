/* core/json_writer.c */
#include "core/json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

void parac_json_init(parac_json_writer *json, FILE *out)
{
    json->out = out;
    json->depth = 0;
    json->count[0] = 0;
    json->after_key = 0;
}

/* Writes the separator a new value needs at the current depth. */
static void before_value(parac_json_writer *json)
{
    if (json->after_key) {
        json->after_key = 0;
        return;
    }
    if (json->count[json->depth]++ > 0) fputc(',', json->out);
}

static void open_container(parac_json_writer *json, char bracket)
{
    before_value(json);
    fputc(bracket, json->out);
    if (json->depth + 1 < PARAC_JSON_MAX_DEPTH) json->depth++;
    json->count[json->depth] = 0;
}

static void close_container(parac_json_writer *json, char bracket)
{
    fputc(bracket, json->out);
    if (json->depth > 0) json->depth--;
}

void parac_json_begin_object(parac_json_writer *json) { open_container(json, '{'); }
void parac_json_end_object(parac_json_writer *json) { close_container(json, '}'); }
void parac_json_begin_array(parac_json_writer *json) { open_container(json, '['); }
void parac_json_end_array(parac_json_writer *json) { close_container(json, ']'); }

static void write_escaped(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        switch (*c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*c < 0x20) fprintf(out, "\\u%04x", *c);
            else fputc(*c, out);
        }
    }
    fputc('"', out);
}

void parac_json_key(parac_json_writer *json, const char *key)
{
    before_value(json);
    write_escaped(json->out, key);
    fputc(':', json->out);
    json->after_key = 1;
}

void parac_json_string(parac_json_writer *json, const char *value)
{
    before_value(json);
    if (value) write_escaped(json->out, value);
    else fputs("null", json->out);
}

void parac_json_int(parac_json_writer *json, int64_t value)
{
    before_value(json);
    fprintf(json->out, "%" PRId64, value);
}

void parac_json_uint(parac_json_writer *json, uint64_t value)
{
    before_value(json);
    fprintf(json->out, "%" PRIu64, value);
}

void parac_json_double(parac_json_writer *json, double value)
{
    before_value(json);
    if (!isfinite(value)) {
        fputs("null", json->out);
        return;
    }
    {
        /* Shortest of %.15g / %.17g that reads back exactly: 0.1, not 0.10000000000000001. */
        char text[40];
        snprintf(text, sizeof text, "%.15g", value);
        if (strtod(text, NULL) != value) snprintf(text, sizeof text, "%.17g", value);
        fputs(text, json->out);
    }
}

void parac_json_bool(parac_json_writer *json, int value)
{
    before_value(json);
    fputs(value ? "true" : "false", json->out);
}

void parac_json_null(parac_json_writer *json)
{
    before_value(json);
    fputs("null", json->out);
}

void parac_json_field_string(parac_json_writer *json, const char *key, const char *value)
{
    parac_json_key(json, key);
    parac_json_string(json, value);
}
void parac_json_field_int(parac_json_writer *json, const char *key, int64_t value)
{
    parac_json_key(json, key);
    parac_json_int(json, value);
}
void parac_json_field_uint(parac_json_writer *json, const char *key, uint64_t value)
{
    parac_json_key(json, key);
    parac_json_uint(json, value);
}
void parac_json_field_double(parac_json_writer *json, const char *key, double value)
{
    parac_json_key(json, key);
    parac_json_double(json, value);
}
void parac_json_field_bool(parac_json_writer *json, const char *key, int value)
{
    parac_json_key(json, key);
    parac_json_bool(json, value);
}
