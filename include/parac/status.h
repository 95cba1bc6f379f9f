/* parac/status.h — status codes and error reports shared by every parac module.
 *
 * Every library function that can fail returns a parac_status and, when the
 * caller passes a non-NULL parac_error, fills it with a one-line message that
 * names the file, line and problem where there is one. The library never
 * prints and never exits: front ends decide what to do with the report.
 */
#ifndef PARAC_STATUS_H
#define PARAC_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac_status {
    PARAC_OK = 0,
    PARAC_ERR_INVALID_ARGUMENT, /* a parameter is out of range or inconsistent */
    PARAC_ERR_IO,               /* a file could not be opened, read or written */
    PARAC_ERR_PARSE,            /* a file's contents are malformed or truncated */
    PARAC_ERR_UNSUPPORTED,      /* valid input that parac does not handle */
    PARAC_ERR_NO_MEMORY,        /* host or device memory ran out */
    PARAC_ERR_NO_DEVICE,        /* a GPU was asked for and none is usable */
    PARAC_ERR_DEVICE,           /* a CUDA call failed */
    PARAC_ERR_INTERNAL,         /* a broken invariant: a bug in parac */
    PARAC_ERR_CANCELLED         /* the progress callback asked the run to stop */
} parac_status;

#define PARAC_ERROR_MESSAGE_SIZE 512

typedef struct parac_error {
    parac_status status;
    char message[PARAC_ERROR_MESSAGE_SIZE];
} parac_error;

/* A short fixed name for a status ("parse error", "out of memory", ...). */
const char *parac_status_name(parac_status status);

/* The process exit code the parac CLI uses for a status:
 * 0 ok, 2 bad input, 3 out of memory or device failure, 4 internal, 130 cancelled. */
int parac_status_exit_code(parac_status status);

/* Clears an error report (NULL is accepted). */
void parac_error_clear(parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
