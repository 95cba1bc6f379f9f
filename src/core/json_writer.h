/* core/json_writer.h — streaming JSON output with commas handled for you.
 *
 * Used for --json summaries, lattice and domain files, and benchmark lines.
 * Numbers are written with round-trip precision; non-finite doubles as null.
 */
#ifndef PARAC_CORE_JSON_WRITER_H
#define PARAC_CORE_JSON_WRITER_H

#include <stdint.h>
#include <stdio.h>

#define PARAC_JSON_MAX_DEPTH 32

typedef struct parac_json_writer {
    FILE *out;
    int depth;
    int count[PARAC_JSON_MAX_DEPTH]; /* items written at each depth */
    int after_key;
} parac_json_writer;

void parac_json_init(parac_json_writer *json, FILE *out);
void parac_json_begin_object(parac_json_writer *json);
void parac_json_end_object(parac_json_writer *json);
void parac_json_begin_array(parac_json_writer *json);
void parac_json_end_array(parac_json_writer *json);
void parac_json_key(parac_json_writer *json, const char *key);
void parac_json_string(parac_json_writer *json, const char *value);
void parac_json_int(parac_json_writer *json, int64_t value);
void parac_json_uint(parac_json_writer *json, uint64_t value);
void parac_json_double(parac_json_writer *json, double value);
void parac_json_bool(parac_json_writer *json, int value);
void parac_json_null(parac_json_writer *json);

/* Shorthands for "key": value inside an object. */
void parac_json_field_string(parac_json_writer *json, const char *key, const char *value);
void parac_json_field_int(parac_json_writer *json, const char *key, int64_t value);
void parac_json_field_uint(parac_json_writer *json, const char *key, uint64_t value);
void parac_json_field_double(parac_json_writer *json, const char *key, double value);
void parac_json_field_bool(parac_json_writer *json, const char *key, int value);

#endif
