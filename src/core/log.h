/* core/log.h — levelled messages to a stream, owned by the front end.
 *
 * The library itself reports through return values; this logger is for the
 * CLI and benchmarks (warnings, verbose phase notes). No global state: each
 * front end keeps its own parac_logger.
 */
#ifndef PARAC_CORE_LOG_H
#define PARAC_CORE_LOG_H

#include <stdio.h>

#include "core/error.h"

typedef enum parac_log_level {
    PARAC_LOG_ERROR = 0,
    PARAC_LOG_WARNING,
    PARAC_LOG_INFO,
    PARAC_LOG_DEBUG
} parac_log_level;

typedef struct parac_logger {
    parac_log_level level; /* messages above this level are dropped */
    FILE *sink;            /* usually stderr */
    const char *program;   /* prefix, e.g. "parac" */
} parac_logger;

void parac_log(const parac_logger *logger, parac_log_level level, const char *format, ...) PARAC_PRINTF(3, 4);

#endif
