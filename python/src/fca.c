/* python/src/fca.c — parac._parac.fca over parac/fca.h: the formal concepts of a context (a 0/1
 * uint8 matrix or a file read by the library's readers), their count, and optionally the covering
 * edges of the lattice. Intents and extents come back CSR-style (int64 offsets + uint32 ids, as
 * bytes the Python layer views with numpy), in the library's canonical order: no Python object per
 * concept. The whole computation runs without the GIL, the output lists included. */
#include "areas.h"

#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>


/* A CSR list built without the GIL: offsets[count + 1] and ids, grown by doubling. */
typedef struct id_lists {
    int64_t *offsets;
    uint32_t *ids;
    size_t used, capacity;
} id_lists;

static int id_lists_reserve(id_lists *lists, size_t needed)
{
    if (needed <= lists->capacity) return 0;
    size_t capacity = lists->capacity ? lists->capacity : 1024;
    while (capacity < needed) {
        if (capacity > SIZE_MAX / 2 / sizeof(uint32_t)) return -1;
        capacity *= 2;
    }
    uint32_t *ids = realloc(lists->ids, capacity * sizeof *ids);
    if (!ids) return -1;
    lists->ids = ids;
    lists->capacity = capacity;
    return 0;
}

static void id_lists_free(id_lists *lists)
{
    free(lists->offsets);
    free(lists->ids);
    memset(lists, 0, sizeof *lists);
}

/* Intents (extents when `extents`) of every concept into lists; scratch holds one list at most. */
static parac_status collect(const parac_fca_context *context, const parac_fca_concepts *concepts, int extents,
                            id_lists *lists, parac_error *error)
{
    size_t count = parac_fca_concepts_size(concepts);
    size_t longest = extents ? parac_fca_context_objects(context) : parac_fca_context_attributes(context);
    lists->offsets = malloc((count + 1) * sizeof *lists->offsets);
    if (!lists->offsets || id_lists_reserve(lists, longest + 1) < 0)
        return parac_py_fail_no_memory(error, extents ? "extents" : "intents");
    lists->offsets[0] = 0;
    for (size_t i = 0; i < count; i++) {
        if (id_lists_reserve(lists, lists->used + longest + 1) < 0)
            return parac_py_fail_no_memory(error, extents ? "extents" : "intents");
        uint32_t *into = lists->ids + lists->used;
        lists->used += extents ? parac_fca_concept_extent(context, concepts, i, into, longest)
                               : parac_fca_concept_intent(concepts, i, into, longest);
        lists->offsets[i + 1] = (int64_t)lists->used;
    }
    return PARAC_OK;
}

/* The lattice's covering edges as (upper, lower) int64 pairs. */
static parac_status collect_edges(const parac_fca_context *context, const parac_fca_concepts *concepts,
                                  uint64_t min_support, int64_t **edges, size_t *edge_count, parac_error *error)
{
    parac_fca_lattice *lattice = NULL;
    parac_status status = parac_fca_lattice_create(context, concepts, min_support, &lattice, error);
    if (status != PARAC_OK) return status;
    *edge_count = parac_fca_lattice_edge_count(lattice);
    *edges = malloc((*edge_count ? *edge_count : 1) * 2 * sizeof **edges);
    if (!*edges) status = parac_py_fail_no_memory(error, "lattice edges");
    for (size_t e = 0; status == PARAC_OK && e < *edge_count; e++) {
        size_t upper, lower;
        parac_fca_lattice_edge(lattice, e, &upper, &lower);
        (*edges)[2 * e] = (int64_t)upper;
        (*edges)[2 * e + 1] = (int64_t)lower;
    }
    parac_fca_lattice_destroy(lattice);
    return status;
}

static PyObject *bytes_of(const void *data, size_t size)
{
    return PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
}

/* What a run produced, kept until the GIL is back. */
typedef struct fca_result {
    uint64_t count;
    size_t objects, attributes;
    id_lists intents, extents;
    int64_t *edges;
    size_t edge_count;
} fca_result;

static PyObject *result_as_tuple(const fca_result *result, int with_lattice)
{
    size_t concepts = (size_t)result->count;
    PyObject *edges = with_lattice ? bytes_of(result->edges, result->edge_count * 2 * sizeof(int64_t))
                                   : (Py_INCREF(Py_None), Py_None);
    if (!edges) return NULL;
    return Py_BuildValue("(KnnNNNNN)", (unsigned long long)result->count, (Py_ssize_t)result->objects,
                         (Py_ssize_t)result->attributes,
                         bytes_of(result->intents.offsets, (concepts + 1) * sizeof(int64_t)),
                         bytes_of(result->intents.ids, result->intents.used * sizeof(uint32_t)),
                         bytes_of(result->extents.offsets, (concepts + 1) * sizeof(int64_t)),
                         bytes_of(result->extents.ids, result->extents.used * sizeof(uint32_t)), edges);
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

/* Reads or builds the context, then counts or computes (and collects) the concepts. */
static parac_status run(const char *path, parac_fca_format format, const Py_buffer *cells,
                        const parac_fca_options *options, int count_only, int with_lattice, fca_result *result,
                        parac_error *error)
{
    parac_fca_context *context = NULL;
    parac_fca_concepts *concepts = NULL;
    parac_status status = path ? parac_fca_context_read(path, format, &context, error)
                               : parac_fca_context_create((size_t)cells->shape[0], (size_t)cells->shape[1], cells->buf,
                                                          &context, error);
    if (status == PARAC_OK) {
        result->objects = parac_fca_context_objects(context);
        result->attributes = parac_fca_context_attributes(context);
        if (count_only) status = parac_fca_count(context, options, &result->count, error);
        else status = parac_fca_compute(context, options, &concepts, error);
    }
    if (status == PARAC_OK && !count_only) {
        result->count = parac_fca_concepts_size(concepts);
        status = collect(context, concepts, 0, &result->intents, error);
        if (status == PARAC_OK) status = collect(context, concepts, 1, &result->extents, error);
        if (status == PARAC_OK && with_lattice)
            status = collect_edges(context, concepts, options->min_support, &result->edges, &result->edge_count,
                                   error);
    }
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    return status;
}

PyDoc_STRVAR(fca_doc,
             "fca(source, *, path=False, format='auto', min_support=0, device='auto', threads=0,\n"
             "    count_only=False, lattice=False, progress=None)\n\n"
             "The formal concepts of a context: source is a C-contiguous 2-D uint8 array (objects x attributes,\n"
             "nonzero = has), or a file path (bytes or str) when path=True. count_only: returns the count.\n"
             "Else (count, objects, attributes, intent_offsets, intent_ids, extent_offsets, extent_ids, edges):\n"
             "offsets are bytes of int64 (count + 1), ids bytes of uint32, edges bytes of int64 (upper, lower)\n"
             "pairs when lattice=True, else None. Canonical order. Ctrl-C stops the run.");

static PyObject *py_fca(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"source", "path",    "format",  "min_support", "device",
                               "threads", "count_only", "lattice", "progress", NULL};
    PyObject *source, *progress = Py_None, *path_bytes = NULL, *answer = NULL;
    int is_path = 0, count_only = 0, with_lattice = 0;
    const char *format_name = "auto", *device = "auto";
    unsigned long long min_support = 0;
    parac_fca_options options;
    parac_fca_format format;
    Py_buffer cells = {0};
    fca_result result = {0};
    parac_error error = {0};
    parac_status status;
    parac_py_call call;

    parac_fca_options_init(&options);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$psKsippO:fca", keywords, &source, &is_path, &format_name,
                                     &min_support, &device, &options.exec.threads, &count_only, &with_lattice,
                                     &progress))
        return NULL;
    options.min_support = min_support;
    if (parse_format(format_name, &format) < 0 || parac_py_device_parse(device, &options.exec.device) < 0)
        return NULL;
    if (is_path) {
        if (!PyUnicode_FSConverter(source, &path_bytes)) return NULL;
    } else {
        if (parac_py_input_get(source, "context", PARAC_PY_UINT8, PARAC_PY_ANY_COUNT, &cells) < 0) return NULL;
        if (cells.ndim != 2) {
            PyErr_Format(PyExc_ValueError, "context must be 2-D (objects x attributes), got %d dimension(s)",
                         cells.ndim);
            goto release;
        }
    }
    if (parac_py_call_begin(&call, &options.exec, progress) < 0) goto release;
    Py_BEGIN_ALLOW_THREADS
    status = run(path_bytes ? PyBytes_AS_STRING(path_bytes) : NULL, format, &cells, &options, count_only,
                 with_lattice, &result, &error);
    Py_END_ALLOW_THREADS
    if (parac_py_call_end(&call, status, &error) == 0)
        answer = count_only ? PyLong_FromUnsignedLongLong(result.count) : result_as_tuple(&result, with_lattice);
    id_lists_free(&result.intents);
    id_lists_free(&result.extents);
    free(result.edges);
release:
    Py_XDECREF(path_bytes);
    parac_py_output_release(&cells);
    return answer;
}

static PyMethodDef fca_methods[] = {
    {"fca", (PyCFunction)(void (*)(void))py_fca, METH_VARARGS | METH_KEYWORDS, fca_doc},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_fca(PyObject *module)
{
    return PyModule_AddFunctions(module, fca_methods);
}
