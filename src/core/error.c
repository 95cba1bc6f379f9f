/* core/error.c — status names, exit codes and error reports. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *parac_status_name(parac_status status)
{
    switch (status) {
    case PARAC_OK: return "ok";
    case PARAC_ERR_INVALID_ARGUMENT: return "invalid argument";
    case PARAC_ERR_IO: return "i/o error";
    case PARAC_ERR_PARSE: return "parse error";
    case PARAC_ERR_UNSUPPORTED: return "unsupported";
    case PARAC_ERR_NO_MEMORY: return "out of memory";
    case PARAC_ERR_NO_DEVICE: return "no usable GPU";
    case PARAC_ERR_DEVICE: return "device failure";
    case PARAC_ERR_INTERNAL: return "internal error";
    case PARAC_ERR_CANCELLED: return "cancelled";
    }
    return "unknown status";
}

int parac_status_exit_code(parac_status status)
{
    switch (status) {
    case PARAC_OK: return 0;
    case PARAC_ERR_INVALID_ARGUMENT:
    case PARAC_ERR_IO:
    case PARAC_ERR_PARSE:
    case PARAC_ERR_UNSUPPORTED: return 2;
    case PARAC_ERR_NO_MEMORY:
    case PARAC_ERR_NO_DEVICE:
    case PARAC_ERR_DEVICE: return 3;
    case PARAC_ERR_INTERNAL: return 4;
    case PARAC_ERR_CANCELLED: return 130; /* as a shell reports a command stopped by Ctrl-C */
    }
    return 4;
}

void parac_error_clear(parac_error *error)
{
    if (!error) return;
    error->status = PARAC_OK;
    error->message[0] = '\0';
}

static void set_message(parac_error *error, parac_status status, const char *prefix,
                        const char *format, va_list args)
{
    size_t used;
    error->status = status;
    snprintf(error->message, sizeof error->message, "%s", prefix);
    used = strlen(error->message);
    vsnprintf(error->message + used, sizeof error->message - used, format, args);
}

parac_status parac_fail(parac_error *error, parac_status status, const char *format, ...)
{
    va_list args;
    if (!error) return status;
    va_start(args, format);
    set_message(error, status, "", format, args);
    va_end(args);
    return status;
}

parac_status parac_fail_at(parac_error *error, parac_status status, const char *file, long line,
                           const char *format, ...)
{
    char prefix[300];
    va_list args;
    if (!error) return status;
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%ld: ", file ? file : "<input>", line);
    else
        snprintf(prefix, sizeof prefix, "%s: ", file ? file : "<input>");
    va_start(args, format);
    set_message(error, status, prefix, format, args);
    va_end(args);
    return status;
}

parac_status parac_fail_no_memory(parac_error *error, const char *what, unsigned long long bytes)
{
    return parac_fail(error, PARAC_ERR_NO_MEMORY, "out of host memory allocating %llu bytes for %s", bytes, what);
}
