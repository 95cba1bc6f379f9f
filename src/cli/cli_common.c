/* cli/cli_common.c — error lines, warnings, the JSON summary, output files. */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "core/threads.h"

/* The bar of the running command (in its cli_common), erased before any message so the message starts
 * its own line; valid only while the command runs. */
static parac_progress_bar *active_bar = NULL;

int cli_progress(void *user_data, uint64_t done, uint64_t total)
{
    parac_progress_bar *bar = user_data;
    active_bar = bar;
    if (cli_interrupted()) {
        parac_progress_finish(bar);
        return 1; /* the library stops at its next checkpoint: PARAC_ERR_CANCELLED */
    }
    return parac_progress_update(bar, done, total);
}

void cli_erase_progress(void)
{
    if (active_bar) parac_progress_finish(active_bar);
}

int cli_report(const parac_error *error)
{
    cli_erase_progress();
    /* Whatever stage saw it (a checkpoint, an output commit), a cancel here is the user's Ctrl-C. */
    if (error->status == PARAC_ERR_CANCELLED) fprintf(stderr, "parac: error: interrupted\n");
    else fprintf(stderr, "parac: error: %s\n", error->message[0] ? error->message : parac_status_name(error->status));
    return parac_status_exit_code(error->status);
}

int cli_finish(int code)
{
    int failed;
    errno = 0;
    failed = fflush(stdout) != 0 || ferror(stdout);
    active_bar = NULL; /* it lived in the finished command's frame; errors and the last report erased it */
    if (failed) { /* the I/O rule: output that did not arrive is an error, never exit 0 */
        if (code) return code; /* the command said what failed first: one error line */
        fprintf(stderr, "parac: error: <stdout>: write failed%s%s\n", errno ? ": " : "", errno ? strerror(errno) : "");
        return parac_status_exit_code(PARAC_ERR_IO);
    }
    if (code == CLI_EXIT_OK && cli_interrupted()) { /* Ctrl-C after the last checkpoint */
        fprintf(stderr, "parac: error: interrupted\n");
        return parac_status_exit_code(PARAC_ERR_CANCELLED);
    }
    return code;
}

void cli_warn(const cli_common *common, const char *format, ...)
{
    va_list args;
    if (common && common->quiet) return;
    cli_erase_progress();
    fprintf(stderr, "parac: warning: ");
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

parac_device cli_resolved_device(const cli_common *common)
{
    parac_device resolved = PARAC_DEVICE_CPU;
    if (common->device_choice.reason[0]) return common->device_choice.device; /* what the run chose */
    if (parac_exec_resolve_device(&common->exec, &resolved, NULL) != PARAC_OK) return common->exec.device;
    return resolved;
}

void cli_summary_begin(parac_json_writer *json, const char *command, const cli_common *common, parac_device used,
                       double seconds)
{
    parac_json_init(json, stdout);
    parac_json_begin_object(json);
    parac_json_field_string(json, "command", command);
    parac_json_field_string(json, "device", parac_device_name(used));
    if (common->device_choice.reason[0]) parac_json_field_string(json, "device_reason", common->device_choice.reason);
    parac_json_field_int(json, "threads", used == PARAC_DEVICE_CPU ? parac_threads_resolve(common->exec.threads) : 0);
    parac_json_field_double(json, "seconds", seconds);
}

void cli_summary_end(parac_json_writer *json)
{
    parac_json_end_object(json);
    fputc('\n', json->out);
    fflush(json->out);
}

int cli_parse_fca_format(const char *text, parac_fca_format *format)
{
    if (!text || strcmp(text, "auto") == 0) *format = PARAC_FCA_FORMAT_AUTO;
    else if (strcmp(text, "fimi") == 0 || strcmp(text, "dat") == 0) *format = PARAC_FCA_FORMAT_FIMI;
    else if (strcmp(text, "cxt") == 0) *format = PARAC_FCA_FORMAT_CXT;
    else if (strcmp(text, "csv") == 0 || strcmp(text, "tsv") == 0) *format = PARAC_FCA_FORMAT_CSV;
    else return -1;
    return 0;
}
