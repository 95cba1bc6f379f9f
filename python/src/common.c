/* python/src/common.c — errors, buffers, devices and cancellable GIL-free calls (common.h). */
#include "common.h"

#include <string.h>
#include <time.h>

/* --- errors ----------------------------------------------------------------------------- */

/* Indexed by parac_status; [PARAC_OK] is the base class. Module-level: one per process, as
 * the exception classes themselves are. */
static PyObject *exception_for_status[PARAC_ERR_CANCELLED + 1];

typedef struct exception_spec {
    parac_status status;
    const char *name;      /* "parac.<name>" */
    PyObject *builtin;     /* second base besides ParacError, or NULL */
    const char *doc;
} exception_spec;

int parac_py_add_exceptions(PyObject *module)
{
    const exception_spec specs[] = {
        {PARAC_ERR_INVALID_ARGUMENT, "InvalidArgumentError", PyExc_ValueError, "A parameter is out of range."},
        {PARAC_ERR_IO, "ParacIOError", PyExc_OSError, "A file could not be opened, read or written."},
        {PARAC_ERR_PARSE, "ParseError", PyExc_ValueError, "A file's contents are malformed or truncated."},
        {PARAC_ERR_UNSUPPORTED, "UnsupportedError", PyExc_NotImplementedError, "Valid input parac does not handle."},
        {PARAC_ERR_NO_MEMORY, "OutOfMemoryError", PyExc_MemoryError, "Host or device memory ran out."},
        {PARAC_ERR_NO_DEVICE, "NoDeviceError", PyExc_RuntimeError, "A GPU was asked for and none is usable."},
        {PARAC_ERR_DEVICE, "DeviceError", PyExc_RuntimeError, "A CUDA call failed."},
        {PARAC_ERR_INTERNAL, "InternalError", PyExc_RuntimeError, "A broken invariant: a bug in parac."},
        {PARAC_ERR_CANCELLED, "CancelledError", NULL, "The progress callback asked the run to stop."},
    };
    PyObject *base = PyErr_NewExceptionWithDoc("parac.ParacError", "Base class of the errors parac reports.",
                                               PyExc_Exception, NULL);
    if (!base || PyModule_AddObjectRef(module, "ParacError", base) < 0) return -1;
    exception_for_status[PARAC_OK] = base;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        char qualified[96];
        PyObject *bases = specs[i].builtin ? PyTuple_Pack(2, base, specs[i].builtin) : PyTuple_Pack(1, base);
        if (!bases) return -1;
        snprintf(qualified, sizeof qualified, "parac.%s", specs[i].name);
        PyObject *type = PyErr_NewExceptionWithDoc(qualified, specs[i].doc, bases, NULL);
        Py_DECREF(bases);
        if (!type || PyModule_AddObjectRef(module, specs[i].name, type) < 0) return -1;
        exception_for_status[specs[i].status] = type;
    }
    return 0;
}

PyObject *parac_py_raise(const parac_error *error)
{
    parac_status status = error ? error->status : PARAC_ERR_INTERNAL;
    PyObject *type = status > PARAC_OK && status <= PARAC_ERR_CANCELLED ? exception_for_status[status] : NULL;
    const char *message = error && error->message[0] ? error->message : parac_status_name(status);
    PyErr_SetString(type ? type : exception_for_status[PARAC_OK], message);
    return NULL;
}

parac_status parac_py_fail_no_memory(parac_error *error, const char *what)
{
    error->status = PARAC_ERR_NO_MEMORY;
    snprintf(error->message, sizeof error->message, "out of memory for %s", what);
    return PARAC_ERR_NO_MEMORY;
}

double parac_py_now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* --- arrays ----------------------------------------------------------------------------- */

/* The element type of a PEP 3118 format string, native little-endian sizes only:
 * '@', '=' and '<' prefixes are accepted on this (little-endian) platform, '>' and '!' are not. */
static char format_code(const char *format)
{
    if (!format) return 'B';
    if (format[0] == '@' || format[0] == '=' || format[0] == '<') format++;
    if (!format[0] || format[1]) return 0;
    return format[0];
}

static int kind_matches(parac_py_kind kind, const Py_buffer *view)
{
    char code = format_code(view->format);
    int integer = code == 'i' || code == 'l' || code == 'q';
    switch (kind) {
    case PARAC_PY_INT32: return integer && view->itemsize == 4;
    case PARAC_PY_INT64: return integer && view->itemsize == 8;
    case PARAC_PY_UINT8: return code == 'B' && view->itemsize == 1;
    case PARAC_PY_UINT32: return (code == 'I' || code == 'L') && view->itemsize == 4;
    case PARAC_PY_FLOAT32: return code == 'f' && view->itemsize == 4;
    case PARAC_PY_FLOAT64: return code == 'd' && view->itemsize == 8;
    }
    return 0;
}

static const char *kind_name(parac_py_kind kind)
{
    switch (kind) {
    case PARAC_PY_INT32: return "int32";
    case PARAC_PY_INT64: return "int64";
    case PARAC_PY_UINT8: return "uint8";
    case PARAC_PY_UINT32: return "uint32";
    case PARAC_PY_FLOAT32: return "float32";
    case PARAC_PY_FLOAT64: return "float64";
    }
    return "?";
}

int parac_py_matrix_get(PyObject *object, const char *what, int allow_float32, parac_py_matrix *matrix)
{
    memset(matrix, 0, sizeof *matrix);
    if (PyObject_GetBuffer(object, &matrix->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous array (got %.100s)", what, Py_TYPE(object)->tp_name);
        return -1;
    }
    char code = format_code(matrix->view.format);
    int is_float64 = code == 'd' && matrix->view.itemsize == 8;
    int is_float32 = code == 'f' && matrix->view.itemsize == 4;
    if (!is_float64 && !(allow_float32 && is_float32)) {
        PyErr_Format(PyExc_TypeError, "%s must hold float64%s values (buffer format '%s')", what,
                     allow_float32 ? " or float32" : "", matrix->view.format ? matrix->view.format : "B");
        goto fail;
    }
    if (matrix->view.ndim != 2) {
        PyErr_Format(PyExc_ValueError, "%s must be 2-D (n_samples, n_features), got %d dimension(s)", what,
                     matrix->view.ndim);
        goto fail;
    }
    matrix->rows = (size_t)matrix->view.shape[0];
    matrix->cols = (size_t)matrix->view.shape[1];
    matrix->is_float32 = is_float32;
    return 0;
fail:
    PyBuffer_Release(&matrix->view);
    return -1;
}

void parac_py_matrix_release(parac_py_matrix *matrix)
{
    if (matrix->view.obj) PyBuffer_Release(&matrix->view);
}

/* Borrows a C-contiguous buffer of `kind` and `count` elements (any count for PARAC_PY_ANY_COUNT). */
static int array_get(PyObject *object, const char *what, parac_py_kind kind, size_t count, int writable,
                     Py_buffer *view)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a%s C-contiguous %s array", what, writable ? " writable" : "",
                     kind_name(kind));
        return -1;
    }
    if (!kind_matches(kind, view)) {
        PyErr_Format(PyExc_TypeError, "%s must be a %s array (buffer format '%s')", what, kind_name(kind),
                     view->format ? view->format : "B");
        goto fail;
    }
    if (count != PARAC_PY_ANY_COUNT && (size_t)(view->len / view->itemsize) != count) {
        PyErr_Format(PyExc_ValueError, "%s must have %zu elements, got %zd", what, count, view->len / view->itemsize);
        goto fail;
    }
    return 0;
fail:
    PyBuffer_Release(view);
    memset(view, 0, sizeof *view);
    return -1;
}

int parac_py_output_get(PyObject *object, const char *what, parac_py_kind kind, size_t count, int optional,
                        Py_buffer *view)
{
    memset(view, 0, sizeof *view);
    if (optional && object == Py_None) return 0;
    return array_get(object, what, kind, count, 1, view);
}

int parac_py_input_get(PyObject *object, const char *what, parac_py_kind kind, size_t count, Py_buffer *view)
{
    memset(view, 0, sizeof *view);
    return array_get(object, what, kind, count, 0, view);
}

void parac_py_output_release(Py_buffer *view)
{
    if (view->obj) PyBuffer_Release(view);
}

int parac_py_device_parse(const char *name, parac_device *device)
{
    const parac_device choices[] = {PARAC_DEVICE_AUTO, PARAC_DEVICE_CPU, PARAC_DEVICE_CUDA};
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++)
        if (strcmp(name, parac_device_name(choices[i])) == 0) {
            *device = choices[i];
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "device must be 'auto', 'cpu' or 'cuda', got '%s'", name);
    return -1;
}

/* --- calls -----------------------------------------------------------------------------------
 *
 * Ctrl-C. While a run holds no GIL, Python's own SIGINT handler only sets a flag that the
 * interpreter looks at between bytecodes: the run would go on to its end. So for the duration of
 * the calls in flight (a count, under the GIL) a C handler is installed that bumps
 * sigint_generation and then calls the handler it replaced (Python's, so the interpreter still
 * sees the signal and raises KeyboardInterrupt, or runs the user's handler, once the call
 * returns). The progress callback compares the generation with the one its call began with: a
 * plain read, safe from any thread, no GIL. A process that ignores SIGINT or left it at the
 * default action is left alone. The handler and the count are process-wide, as signals are. */
static volatile sig_atomic_t sigint_generation;
static int calls_watching_sigint;
static struct sigaction chained_action;

static void on_sigint(int signum, siginfo_t *info, void *context)
{
    sigint_generation++;
    if (chained_action.sa_flags & SA_SIGINFO) {
        if (chained_action.sa_sigaction) chained_action.sa_sigaction(signum, info, context);
    } else if (chained_action.sa_handler != SIG_DFL && chained_action.sa_handler != SIG_IGN) {
        chained_action.sa_handler(signum);
    }
}

static int python_handles_sigint(const struct sigaction *action)
{
    if (action->sa_flags & SA_SIGINFO) return action->sa_sigaction != NULL;
    return action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN;
}

static void watch_sigint(parac_py_call *call)
{
    if (calls_watching_sigint == 0) {
        struct sigaction current, ours;
        if (sigaction(SIGINT, NULL, &current) != 0 || !python_handles_sigint(&current)) return;
        memset(&ours, 0, sizeof ours);
        ours.sa_sigaction = on_sigint;
        ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&ours.sa_mask);
        chained_action = current;
        if (sigaction(SIGINT, &ours, NULL) != 0) return;
    }
    calls_watching_sigint++;
    call->watching_sigint = 1;
}

static void unwatch_sigint(parac_py_call *call)
{
    if (!call->watching_sigint) return;
    call->watching_sigint = 0;
    if (--calls_watching_sigint == 0) sigaction(SIGINT, &chained_action, NULL);
}

static int call_python_progress(parac_py_call *call, uint64_t done, uint64_t total)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int stop = 1;
    PyObject *result = PyObject_CallFunction(call->progress, "KK", (unsigned long long)done,
                                             (unsigned long long)total);
    if (result) {
        stop = PyObject_IsTrue(result);
        Py_DECREF(result);
    }
    if (stop < 0 || !result) { /* raised: keep the exception for the caller's thread */
        PyErr_Fetch(&call->error_type, &call->error_value, &call->error_traceback);
        stop = 1;
    }
    PyGILState_Release(gil);
    return stop;
}

int parac_py_call_progress(void *user_data, uint64_t done, uint64_t total)
{
    parac_py_call *call = user_data;
    if (call->watching_sigint && sigint_generation != call->sigint_generation_at_start) return 1;
    if (call->stop_requested) return 1;
    if (call->progress && call_python_progress(call, done, total)) call->stop_requested = 1;
    return call->stop_requested;
}

int parac_py_call_begin(parac_py_call *call, parac_exec *exec, PyObject *progress)
{
    memset(call, 0, sizeof *call);
    if (progress && progress != Py_None) {
        if (!PyCallable_Check(progress)) {
            PyErr_SetString(PyExc_TypeError, "progress must be a callable (done, total) -> bool, or None");
            return -1;
        }
        Py_INCREF(progress);
        call->progress = progress;
    }
    call->sigint_generation_at_start = sigint_generation;
    watch_sigint(call);
    exec->progress = parac_py_call_progress;
    exec->progress_user_data = call;
    return 0;
}

int parac_py_call_end(parac_py_call *call, parac_status status, const parac_error *error)
{
    unwatch_sigint(call);
    Py_CLEAR(call->progress);
    call->stop_requested = 0; /* a handle's call is used again by its next computation */
    if (call->error_type) { /* the progress callable raised: that is the caller's exception */
        PyErr_Restore(call->error_type, call->error_value, call->error_traceback);
        call->error_type = call->error_value = call->error_traceback = NULL;
        return -1;
    }
    if (PyErr_CheckSignals() < 0) return -1; /* Ctrl-C: KeyboardInterrupt (main thread) */
    if (status != PARAC_OK) {
        parac_py_raise(error);
        return -1;
    }
    return 0;
}
