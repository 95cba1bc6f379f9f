/* core/error.h — filling parac_error reports inside the library. */
#ifndef PARAC_CORE_ERROR_H
#define PARAC_CORE_ERROR_H

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PARAC_PRINTF(fmt_index, args_index) __attribute__((format(printf, fmt_index, args_index)))
#else
#define PARAC_PRINTF(fmt_index, args_index)
#endif

/* Sets status and a printf-style message; returns status so callers can
 * `return parac_fail(error, PARAC_ERR_PARSE, "...")`. error may be NULL. */
parac_status parac_fail(parac_error *error, parac_status status, const char *format, ...) PARAC_PRINTF(3, 4);

/* As parac_fail, prefixing the message with "file:line: " (line 0: "file: "). */
parac_status parac_fail_at(parac_error *error, parac_status status, const char *file, long line,
                           const char *format, ...) PARAC_PRINTF(5, 6);

/* Out of host memory while allocating `bytes` for `what`. */
parac_status parac_fail_no_memory(parac_error *error, const char *what, unsigned long long bytes);

#ifdef __cplusplus
}
#endif
#endif
