/* cli/cli.h — what every parac subcommand shares: option parsing, the common
 * options, error reporting and the --json summary line.
 *
 * A subcommand is `int cli_<name>(int argc, char **argv)` (argv[0] is the
 * subcommand's name) returning the process exit code. It declares its own
 * options in a cli_option table, calls cli_parse, calls the library and
 * prints. It holds no algorithm: that lives in the library.
 */
#ifndef PARAC_CLI_H
#define PARAC_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <parac/devices.h>
#include <parac/exec.h>
#include <parac/status.h>

#include "core/json_writer.h"
#include "core/progress.h"

/* Exit codes (see parac_status_exit_code for the rest). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_USAGE 1
#define CLI_CONTINUE (-1) /* cli_parse: go on with the command */

typedef enum cli_option_kind {
    CLI_FLAG,   /* int, set to 1 */
    CLI_INT,    /* int */
    CLI_INT64,  /* int64_t */
    CLI_DOUBLE, /* double */
    CLI_STRING  /* const char * */
} cli_option_kind;

typedef struct cli_option {
    const char *name;       /* "--eps" */
    char short_name;        /* 'o' for -o, or 0 */
    cli_option_kind kind;
    void *target;
    const char *metavar;    /* "E" in "--eps E" */
    const char *help;
} cli_option;

typedef struct cli_common {
    parac_exec exec;              /* exec.progress draws `progress` unless --quiet */
    parac_progress_bar progress;
    int json;
    int quiet;
    uint64_t seed;
    int seed_given;
    parac_device_choice device_choice; /* exec.chosen: the library's device choice and why (--json) */
} cli_common;

typedef struct cli_command {
    const char *name;         /* "dbscan" */
    const char *usage;        /* "INPUT --eps E --min-samples M [options]" */
    const char *description;  /* a paragraph for --help */
    const cli_option *options;
    size_t option_count;
    int min_positionals;
    int max_positionals;
} cli_command;

/* Parses argv[1..]: the command's options, the common ones and positionals.
 * Returns CLI_CONTINUE, or an exit code after printing help (0) or a usage
 * error (1). positionals must hold max_positionals entries. */
int cli_parse(const cli_command *command, int argc, char **argv, cli_common *common, const char **positionals,
              int *positional_count);

/* Prints "parac: error: MESSAGE" and returns the exit code for its status. */
int cli_report(const parac_error *error);
/* Prints "parac: error: ..." for a usage problem (unknown option, missing or
 * malformed value) and returns 1. */
int cli_usage_error(const char *command, const char *format, ...);
/* Prints "parac: error: ..." for a well-formed value out of its range (an absurd
 * parameter is bad input) and returns 2. */
int cli_bad_value(const char *command, const char *format, ...);
void cli_warn(const cli_common *common, const char *format, ...);

/* The --json summary: {"command":..,"device":..,"threads":..,"seconds":.., <fields>}.
 * Call begin, add fields with parac_json_field_*, then end (prints the newline). */
void cli_summary_begin(parac_json_writer *json, const char *command, const cli_common *common, parac_device used,
                       double seconds);
void cli_summary_end(parac_json_writer *json);

/* A byte count: digits with an optional K, M or G (powers of 1024) and an optional trailing B, e.g.
 * 268435456, 256M, 1G; 0 on success, -1 when malformed, zero or too large. */
int cli_parse_byte_size(const char *text, uint64_t *bytes);

/* Output stream for "-o FILE" (NULL or "-" is stdout); NULL after reporting failure. */
FILE *cli_open_output(const char *path, parac_error *error);
int cli_close_output(FILE *file, const char *path, parac_error *error); /* 0 ok */

/* The device a run would use, for messages and summaries. */
parac_device cli_resolved_device(const cli_common *common);

/* Subcommands (one file each under src/cli/). */
int cli_devices(int argc, char **argv);
int cli_gen(int argc, char **argv);
int cli_fca(int argc, char **argv);
int cli_lattice(int argc, char **argv);
int cli_dbscan(int argc, char **argv);
int cli_metrics(int argc, char **argv);
int cli_birch(int argc, char **argv);
int cli_gemm(int argc, char **argv);
int cli_ac(int argc, char **argv);

/* `parac gen KIND`, one per module (argv[0] is the kind). */
int cli_gen_context(int argc, char **argv);
int cli_gen_points(int argc, char **argv);
int cli_gen_matrix(int argc, char **argv);
int cli_gen_csp(int argc, char **argv);

#endif
