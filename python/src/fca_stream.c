/* python/src/fca_stream.c — parac._parac.fca_stream over parac_fca_enumerate and
 * parac_fca_lattice_enumerate: the concepts (or the lattice's covering edges) of a context handed to a
 * Python callable in batches, in canonical order, while the library keeps its host memory within
 * max_memory (sorted runs in temporary files beyond it). The run holds no GIL; each full batch takes
 * it once to call the sink, so the memory in flight is one batch here plus what the sink keeps.
 * parac.iter_concepts and parac.iter_edges (python/parac/_fca_stream.py) run this on a thread and
 * hand the batches to the caller's loop through a bounded queue. */
#include "areas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

/* One batch: concept ids CSR-style (intents, and extents when asked), or edge pairs. */
typedef struct id_batch {
    int64_t *offsets; /* count + 1 */
    uint32_t *ids;
    size_t count, used, capacity;
} id_batch;

typedef struct stream_run {
    const parac_fca_context *context;
    size_t batch_size;
    int with_extents;
    id_batch intents, extents;
    int64_t *edges; /* 2 x batch_size */
    size_t edge_count;
    PyObject *sink;       /* sink(kind, *bytes) -> true to stop; kind "concepts" or "edges" */
    int sink_failed;      /* the sink raised: its exception waits in the thread state */
    uint32_t *extent_scratch;
} stream_run;

static int batch_init(id_batch *batch, size_t concepts, size_t longest)
{
    batch->offsets = malloc((concepts + 1) * sizeof *batch->offsets);
    batch->capacity = concepts * 4 + longest + 1;
    batch->ids = malloc(batch->capacity * sizeof *batch->ids);
    batch->count = batch->used = 0;
    if (batch->offsets) batch->offsets[0] = 0;
    return batch->offsets && batch->ids ? 0 : -1;
}

static void batch_free(id_batch *batch)
{
    free(batch->offsets);
    free(batch->ids);
    memset(batch, 0, sizeof *batch);
}

static int batch_append(id_batch *batch, const uint32_t *ids, size_t size)
{
    if (batch->used + size > batch->capacity) {
        size_t capacity = batch->capacity * 2 > batch->used + size ? batch->capacity * 2 : batch->used + size;
        uint32_t *grown = realloc(batch->ids, capacity * sizeof *grown);
        if (!grown) return -1;
        batch->ids = grown;
        batch->capacity = capacity;
    }
    memcpy(batch->ids + batch->used, ids, size * sizeof *ids);
    batch->used += size;
    batch->offsets[++batch->count] = (int64_t)batch->used;
    return 0;
}

static PyObject *bytes_of(const void *data, size_t size)
{
    return PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
}

/* Hands the batch to the sink (taking the GIL) and empties it; non-zero to stop the run. */
static int flush_concepts(stream_run *run)
{
    PyGILState_STATE gil;
    PyObject *answer;
    int stop = 1;
    if (!run->intents.count) return 0;
    gil = PyGILState_Ensure();
    answer = run->with_extents
                 ? PyObject_CallFunction(run->sink, "sNNNN", "concepts",
                                         bytes_of(run->intents.offsets, (run->intents.count + 1) * sizeof(int64_t)),
                                         bytes_of(run->intents.ids, run->intents.used * sizeof(uint32_t)),
                                         bytes_of(run->extents.offsets, (run->extents.count + 1) * sizeof(int64_t)),
                                         bytes_of(run->extents.ids, run->extents.used * sizeof(uint32_t)))
                 : PyObject_CallFunction(run->sink, "sNN", "concepts",
                                         bytes_of(run->intents.offsets, (run->intents.count + 1) * sizeof(int64_t)),
                                         bytes_of(run->intents.ids, run->intents.used * sizeof(uint32_t)));
    if (answer) {
        stop = PyObject_IsTrue(answer);
        Py_DECREF(answer);
    }
    if (!answer || stop < 0) run->sink_failed = 1, stop = 1; /* the exception stays set for the caller */
    PyGILState_Release(gil);
    run->intents.count = run->intents.used = 0;
    run->extents.count = run->extents.used = 0;
    return stop;
}

static int flush_edges(stream_run *run)
{
    PyGILState_STATE gil;
    PyObject *answer;
    int stop = 1;
    if (!run->edge_count) return 0;
    gil = PyGILState_Ensure();
    answer = PyObject_CallFunction(run->sink, "sN", "edges", bytes_of(run->edges, run->edge_count * 2 * sizeof(int64_t)));
    if (answer) {
        stop = PyObject_IsTrue(answer);
        Py_DECREF(answer);
    }
    if (!answer || stop < 0) run->sink_failed = 1, stop = 1;
    PyGILState_Release(gil);
    run->edge_count = 0;
    return stop;
}

static int on_concept(void *user, const uint32_t *intent, size_t size)
{
    stream_run *run = user;
    if (batch_append(&run->intents, intent, size) < 0) return 1;
    if (run->with_extents) {
        size_t objects = parac_fca_context_objects(run->context);
        size_t extent = parac_fca_context_extent(run->context, intent, size, run->extent_scratch, objects);
        if (batch_append(&run->extents, run->extent_scratch, extent) < 0) return 1;
    }
    return run->intents.count == run->batch_size ? flush_concepts(run) : 0;
}

static int on_edge(void *user, uint64_t upper, uint64_t lower)
{
    stream_run *run = user;
    run->edges[2 * run->edge_count] = (int64_t)upper;
    run->edges[2 * run->edge_count + 1] = (int64_t)lower;
    return ++run->edge_count == run->batch_size ? flush_edges(run) : 0;
}

/* Reads or builds the context, then streams; the last partial batch is flushed at the end. */
static parac_status stream(const char *path, parac_fca_format format, const Py_buffer *cells,
                           const parac_fca_options *options, int edges, stream_run *run, parac_error *error)
{
    parac_fca_context *context = NULL;
    parac_status status = path ? parac_fca_context_read(path, format, &context, error)
                               : parac_fca_context_create((size_t)cells->shape[0], (size_t)cells->shape[1], cells->buf,
                                                          &context, error);
    size_t objects = context ? parac_fca_context_objects(context) : 0;
    if (status == PARAC_OK) {
        run->context = context;
        run->extent_scratch = malloc((objects + 1) * sizeof *run->extent_scratch);
        run->edges = edges ? malloc(run->batch_size * 2 * sizeof *run->edges) : NULL;
        if (!run->extent_scratch || (edges && !run->edges) ||
            batch_init(&run->intents, run->batch_size, parac_fca_context_attributes(context)) < 0 ||
            (run->with_extents && batch_init(&run->extents, run->batch_size, objects) < 0))
            status = parac_py_fail_no_memory(error, "concept batch");
    }
    if (status == PARAC_OK)
        status = edges ? parac_fca_lattice_enumerate(context, options, NULL, on_edge, run, error)
                       : parac_fca_enumerate(context, options, on_concept, run, error);
    if (status == PARAC_OK && (edges ? flush_edges(run) : flush_concepts(run))) {
        error->status = status = PARAC_ERR_CANCELLED;
        snprintf(error->message, sizeof error->message, "fca: stopped by the concept sink");
    }
    batch_free(&run->intents);
    batch_free(&run->extents);
    free(run->edges);
    free(run->extent_scratch);
    parac_fca_context_destroy(context);
    return status;
}

static int parse_format(const char *name, parac_fca_format *format)
{
    const char *names[] = {"auto", "fimi", "cxt", "csv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) {
            *format = (parac_fca_format)i;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "format must be 'auto', 'fimi', 'cxt' or 'csv', got '%s'", name);
    return -1;
}

PyDoc_STRVAR(fca_stream_doc,
             "fca_stream(source, sink, *, path=False, format='auto', min_support=0, device='auto', threads=0,\n"
             "           max_memory=0, temp_directory=None, extents=True, edges=False, batch=4096, progress=None)\n\n"
             "Streams the concepts of a context in canonical order to sink('concepts', intent_offsets, intent_ids\n"
             "[, extent_offsets, extent_ids]) in batches of up to `batch` concepts (offsets bytes of int64, ids bytes\n"
             "of uint32), or with edges=True the lattice's covering edges to sink('edges', pairs) (bytes of int64\n"
             "(upper, lower) pairs, sorted). A true answer from sink stops the run (CancelledError). Host memory\n"
             "for concepts and edges stays within max_memory bytes (0: a quarter of what the process may use:\n"
             "physical memory or a lower rlimit/cgroup limit). The run holds no GIL except while sink runs;\n"
             "Ctrl-C and progress stop it.");

static PyObject *py_fca_stream(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"source",     "sink",           "path",    "format", "min_support", "device",
                               "threads",    "max_memory",     "temp_directory", "extents", "edges", "batch",
                               "progress",   NULL};
    PyObject *source, *sink, *progress = Py_None, *path_bytes = NULL, *directory = Py_None, *directory_bytes = NULL;
    PyObject *answer = NULL;
    int is_path = 0, with_extents = 1, edges = 0;
    const char *format_name = "auto", *device = "auto";
    unsigned long long min_support = 0, max_memory = 0;
    Py_ssize_t batch = 4096;
    parac_fca_options options;
    parac_fca_format format;
    Py_buffer cells = {0};
    parac_error error = {0};
    parac_status status;
    parac_py_call call;
    stream_run run;
    (void)self;

    parac_fca_options_init(&options);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$psKsiKOppnO:fca_stream", keywords, &source, &sink, &is_path,
                                     &format_name, &min_support, &device, &options.exec.threads, &max_memory,
                                     &directory, &with_extents, &edges, &batch, &progress))
        return NULL;
    if (!PyCallable_Check(sink)) {
        PyErr_SetString(PyExc_TypeError, "sink must be callable");
        return NULL;
    }
    if (batch < 1) {
        PyErr_Format(PyExc_ValueError, "batch must be >= 1, got %zd", batch);
        return NULL;
    }
    options.min_support = min_support;
    options.max_host_bytes = max_memory;
    if (parse_format(format_name, &format) < 0 || parac_py_device_parse(device, &options.exec.device) < 0) return NULL;
    if (directory != Py_None) {
        if (!PyUnicode_FSConverter(directory, &directory_bytes)) return NULL;
        options.temp_directory = PyBytes_AS_STRING(directory_bytes);
    }
    if (is_path) {
        if (!PyUnicode_FSConverter(source, &path_bytes)) goto release;
    } else {
        if (parac_py_input_get(source, "context", PARAC_PY_UINT8, PARAC_PY_ANY_COUNT, &cells) < 0) goto release;
        if (cells.ndim != 2) {
            PyErr_Format(PyExc_ValueError, "context must be 2-D (objects x attributes), got %d dimension(s)",
                         cells.ndim);
            goto release;
        }
    }
    memset(&run, 0, sizeof run);
    run.batch_size = (size_t)batch;
    run.with_extents = with_extents && !edges;
    run.sink = sink;
    if (parac_py_call_begin(&call, &options.exec, progress) < 0) goto release;
    Py_BEGIN_ALLOW_THREADS
    status = stream(path_bytes ? PyBytes_AS_STRING(path_bytes) : NULL, format, &cells, &options, edges, &run, &error);
    Py_END_ALLOW_THREADS
    if (run.sink_failed) { /* the sink's own exception is the caller's */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        parac_py_call_end(&call, PARAC_OK, &error);
        PyErr_Clear();
        PyErr_Restore(type, value, traceback);
        goto release;
    }
    if (parac_py_call_end(&call, status, &error) == 0) answer = (Py_INCREF(Py_None), Py_None);
release:
    Py_XDECREF(path_bytes);
    Py_XDECREF(directory_bytes);
    parac_py_output_release(&cells);
    return answer;
}

static PyMethodDef fca_stream_methods[] = {
    {"fca_stream", (PyCFunction)(void (*)(void))py_fca_stream, METH_VARARGS | METH_KEYWORDS, fca_stream_doc},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_fca_stream(PyObject *module)
{
    return PyModule_AddFunctions(module, fca_stream_methods);
}
