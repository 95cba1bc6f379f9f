/* cli/cli_common.c — error lines, warnings, the JSON summary, output files. */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "core/threads.h"

int cli_report(const parac_error *error)
{
    fprintf(stderr, "parac: error: %s\n", error->message[0] ? error->message : parac_status_name(error->status));
    return parac_status_exit_code(error->status);
}

void cli_warn(const cli_common *common, const char *format, ...)
{
    va_list args;
    if (common && common->quiet) return;
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

FILE *cli_open_output(const char *path, parac_error *error)
{
    FILE *file;
    if (!path || strcmp(path, "-") == 0) return stdout;
    file = fopen(path, "w");
    if (!file) {
        error->status = PARAC_ERR_IO;
        snprintf(error->message, sizeof error->message, "%s: cannot create: %s", path, strerror(errno));
    }
    return file;
}

int cli_close_output(FILE *file, const char *path, parac_error *error)
{
    int failed = ferror(file);
    if (file == stdout) failed |= fflush(file) != 0;
    else failed |= fclose(file) != 0;
    if (failed) {
        error->status = PARAC_ERR_IO;
        snprintf(error->message, sizeof error->message, "%s: write failed", path ? path : "<stdout>");
        return -1;
    }
    return 0;
}
