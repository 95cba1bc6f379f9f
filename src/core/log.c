/* core/log.c — "parac: warning: ..." style lines. */
#include "core/log.h"

#include <stdarg.h>

static const char *level_word(parac_log_level level)
{
    switch (level) {
    case PARAC_LOG_ERROR: return "error";
    case PARAC_LOG_WARNING: return "warning";
    case PARAC_LOG_INFO: return "info";
    case PARAC_LOG_DEBUG: return "debug";
    }
    return "log";
}

void parac_log(const parac_logger *logger, parac_log_level level, const char *format, ...)
{
    va_list args;
    if (!logger || !logger->sink || level > logger->level) return;
    fprintf(logger->sink, "%s: %s: ", logger->program ? logger->program : "parac", level_word(level));
    va_start(args, format);
    vfprintf(logger->sink, format, args);
    va_end(args);
    fputc('\n', logger->sink);
    fflush(logger->sink);
}
