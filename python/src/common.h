/* python/src/common.h — what every area of the extension shares: parac errors as Python
 * exceptions, numpy arrays through the buffer protocol, device names, and the "call" that
 * releases the GIL around a computation while Ctrl-C and a progress callback can stop it.
 *
 * Areas: each python/src/<area>.c defines `int parac_py_register_<area>(PyObject *module)`
 * (declared in areas.h, listed in module.c) that adds its functions and types to the module.
 */
#ifndef PARAC_PY_COMMON_H
#define PARAC_PY_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <signal.h>
#include <stddef.h>

#include <parac/exec.h>
#include <parac/status.h>

/* --- errors ----------------------------------------------------------------------------- */

/* Creates parac.ParacError and its subclasses (InvalidArgumentError is also a ValueError,
 * ParseError a ValueError, ParacIOError an OSError, ...) and adds them to the module. */
int parac_py_add_exceptions(PyObject *module);

/* Raises the exception matching error->status with error->message; returns NULL. */
PyObject *parac_py_raise(const parac_error *error);

/* Fills *error for host memory that ran out (callable without the GIL); returns PARAC_ERR_NO_MEMORY. */
parac_status parac_py_fail_no_memory(parac_error *error, const char *what);

/* Wall-clock seconds (monotonic), callable without the GIL. */
double parac_py_now_seconds(void);

/* --- arrays ----------------------------------------------------------------------------- */

/* A read-only 2-D C-contiguous float64 (or float32) matrix borrowed from a buffer exporter. */
typedef struct parac_py_matrix {
    Py_buffer view;
    size_t rows, cols;
    int is_float32;
} parac_py_matrix;

/* Borrows `object` as a matrix; what names it in errors ("X"). float32 is accepted only when
 * allow_float32. Returns 0, or -1 with a ValueError/TypeError set. */
int parac_py_matrix_get(PyObject *object, const char *what, int allow_float32, parac_py_matrix *matrix);
void parac_py_matrix_release(parac_py_matrix *matrix);

/* Element kinds of caller-allocated output arrays. */
typedef enum parac_py_kind {
    PARAC_PY_INT32,
    PARAC_PY_INT64,
    PARAC_PY_UINT8,
    PARAC_PY_UINT32,
    PARAC_PY_FLOAT32,
    PARAC_PY_FLOAT64
} parac_py_kind;

/* Borrows `object` as a writable C-contiguous array of exactly `count` elements of `kind`.
 * None is accepted when optional: view->buf is then NULL (nothing to release). */
int parac_py_output_get(PyObject *object, const char *what, parac_py_kind kind, size_t count, int optional,
                        Py_buffer *view);
void parac_py_output_release(Py_buffer *view);

/* Borrows `object` as a read-only C-contiguous array of exactly `count` elements of `kind`
 * (any count when count is PARAC_PY_ANY_COUNT). Release with parac_py_output_release. */
#define PARAC_PY_ANY_COUNT ((size_t)-1)
int parac_py_input_get(PyObject *object, const char *what, parac_py_kind kind, size_t count, Py_buffer *view);

/* "auto" / "cpu" / "cuda" -> parac_device; -1 with a ValueError otherwise. */
int parac_py_device_parse(const char *name, parac_device *device);

/* --- calls: GIL released, cancellable ----------------------------------------------------
 *
 *   parac_py_call call;
 *   if (parac_py_call_begin(&call, &options.exec, progress) < 0) goto fail;
 *   Py_BEGIN_ALLOW_THREADS
 *   status = parac_..._run(&options, ...);
 *   Py_END_ALLOW_THREADS
 *   if (parac_py_call_end(&call, status, &error) < 0) goto fail;   (exception set)
 *
 * The library calls exec->progress from one thread at a time, not always this one, while this
 * thread waits without the GIL. The callback stops the run when SIGINT arrived (Ctrl-C) or when
 * the Python progress callable returns a true value or raises. */
typedef struct parac_py_call {
    PyObject *progress;          /* the Python callable (done, total) -> bool, or NULL */
    int watching_sigint;         /* 1: our SIGINT handler is installed (main thread only) */
    sig_atomic_t sigint_generation_at_start; /* SIGINTs seen before the call began */
    volatile int stop_requested; /* the progress callable asked to stop */
    PyObject *error_type, *error_value, *error_traceback; /* what the callable raised */
} parac_py_call;

/* With the GIL held, before releasing it. progress may be NULL or None. */
int parac_py_call_begin(parac_py_call *call, parac_exec *exec, PyObject *progress);

/* The parac_progress_fn that parac_py_call_begin installs (user_data: the call). A handle that keeps
 * the exec it was created with (a birch model) installs it once, pointing at a call it owns, and
 * runs begin/end around each computation with a scratch exec. A zeroed call never stops a run. */
int parac_py_call_progress(void *user_data, uint64_t done, uint64_t total);

/* With the GIL held again, after the run: restores the SIGINT handler, lets Python handle a
 * Ctrl-C (KeyboardInterrupt), re-raises what the progress callable raised, or raises the
 * exception for a failed status. Returns 0 when status is PARAC_OK and nothing is pending. */
int parac_py_call_end(parac_py_call *call, parac_status status, const parac_error *error);

/* Threads argument of the bindings: <= 0 means all cores (parac's own convention). */
#define PARAC_PY_ALL_THREADS 0

#endif
