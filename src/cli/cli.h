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
#include <parac/fca.h>
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

/* Prints "parac: error: MESSAGE" ("interrupted" for PARAC_ERR_CANCELLED) and returns the exit code
 * for its status. */
int cli_report(const parac_error *error);
/* The progress callback every command passes as exec.progress (user data: the bar): draws the bar,
 * and returns non-zero once Ctrl-C was pressed so the run stops. */
int cli_progress(void *user_data, uint64_t done, uint64_t total);
void cli_erase_progress(void);
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
 * 268435456, 256M, 1G; 0 on success, -1 when malformed, -2 when zero or too large. */
int cli_parse_byte_size(const char *text, uint64_t *bytes);
/* The same for an option: CLI_CONTINUE, or the exit code after the error line (1 malformed, 2 out of range). */
int cli_byte_size_option(const char *command, const char *option, const char *text, uint64_t *bytes);
/* 1 when count x per_item items of item_bytes bytes would not fit in memory's address space (sizes
 * from the command line are checked before any multiplication: "too large" is bad input, not
 * "out of memory"). */
int cli_too_large(uint64_t count, uint64_t per_item, uint64_t item_bytes);

/* An fca input's --format: NULL or "auto", "fimi" (or "dat"), "cxt", "csv" (or "tsv"); 0 on
 * success, -1 when unknown (parac fca, its implications and rules, parac-mpi fca). */
int cli_parse_fca_format(const char *text, parac_fca_format *format);

/* --- output files, whole or not at all (cli_output.c) ---------------------------------------
 * Every output of every command goes through a cli_output:
 *     cli_output out;
 *     if (cli_output_begin(&out, path, &error) != PARAC_OK) fail;   // reserves a temporary file
 *     status = some_saver(out.path, ..., &error);                     // writes the temporary file
 *     if (status != PARAC_OK) cli_output_abort(&out, &error);          // removes it
 *     else status = cli_output_commit(&out, &error);                   // renames it over path
 * or, for text the command prints itself, FILE *f = cli_output_open(&out, path, &error) and the
 * same commit / abort (commit checks ferror, the flush and the close). NULL or "-" is stdout.
 * Commit fails with PARAC_ERR_CANCELLED (and removes the file) after Ctrl-C. */
typedef struct cli_output {
    const char *given;    /* the path as the user wrote it, for messages ("<stdout>") */
    const char *path;     /* where to write: the temporary file, the target itself (stdout, devices) */
    FILE *file;           /* cli_output_open's stream */
    int renames;          /* path is a temporary file to rename over target */
    int signal_ticket;    /* 1 + the slot the signal handler knows the temporary file by; 0 none */
    char target[4096];    /* the file replaced (a symlink's target) */
    char temporary[4096];
} cli_output;

/* Writes value in decimal: what fprintf(out, "%u") writes, without parsing a format per number (ids
 * are most of the bytes of fca's, the lattice's and the implications' output). */
void cli_write_uint(FILE *out, uint32_t value);
/* Writes ids as "a b c" (no newline): formatted into a buffer, a few kilobytes a call to fwrite. */
void cli_write_ids(FILE *out, const uint32_t *ids, size_t count);
/* The same for a context's attribute ids (objects 0) or object ids (1): with names, each one's name
 * where the context has one (.cxt/CSV headers), else its id. */
void cli_write_fca_ids(FILE *out, const uint32_t *ids, size_t count, const parac_fca_context *context, int names,
                       int objects);

/* A writer of text pieces (parac_fca_text_fn) onto the FILE `file`: writes the piece; non-zero, which
 * stops the run, once the stream has failed (a full disk) or Ctrl-C came (the commit then says why). */
int cli_write_text(void *file, const char *text, size_t size);

/* PARAC_ERR_INVALID_ARGUMENT when an output is the same file as an input (device and inode). */
parac_status cli_check_outputs(const char *const *outputs, size_t output_count, const char *const *inputs,
                               size_t input_count, parac_error *error);
parac_status cli_output_begin(cli_output *out, const char *path, parac_error *error);
FILE *cli_output_open(cli_output *out, const char *path, parac_error *error); /* NULL after filling error */
parac_status cli_output_commit(cli_output *out, parac_error *error);
/* Closes and removes the temporary file; names the target instead of it in error's message. Safe
 * on a cli_output that was zeroed, never begun, already committed or already aborted. */
void cli_output_abort(cli_output *out, parac_error *error);

/* --- signals (cli_signals.c) ------------------------------------------------------------------ */
/* SIGINT / SIGTERM: the first sets the flag cli_interrupted() reads (the progress callback then
 * cancels the run); a second removes the tracked temporary files and kills the process. */
void cli_signals_install(void);
int cli_interrupted(void);
int cli_signals_track(const char *path); /* slot, or -1 when full */
void cli_signals_untrack(int slot);
/* Called at the end of main: the exit code after checking that stdout took everything written
 * to it (a full disk, a closed stdout) and that no Ctrl-C came after the last checkpoint. */
int cli_finish(int code);

/* The device a run would use, for messages and summaries. */
parac_device cli_resolved_device(const cli_common *common);

/* Subcommands (one file each under src/cli/). */
int cli_devices(int argc, char **argv);
int cli_gen(int argc, char **argv);
int cli_fca(int argc, char **argv);
/* `parac fca INPUT --implications|--rules` (fca_implications_output.c): cli_fca hands over when
 * cli_fca_wants_rules finds either flag. */
int cli_fca_wants_rules(int argc, char **argv);
int cli_fca_implications(int argc, char **argv);
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
