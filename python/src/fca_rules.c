/* python/src/fca_rules.c — parac._parac.fca_rules over parac/fca.h's "implications and rules": the
 * Duquenne-Guigues basis or the association rules of a context (a 0/1 uint8 matrix or a file), as
 * CSR lists of premises and conclusions (int64 offsets + uint32 ids, as bytes) with uint64 supports
 * and premise supports, in the library's order. The run and the lists are built without the GIL. */
#include "areas.h"

#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

/* What a run produced, kept until the GIL is back. */
typedef struct rules_result {
    size_t count, used_premise, used_conclusion;
    int64_t *premise_offsets, *conclusion_offsets;
    uint32_t *premise_ids, *conclusion_ids;
    uint64_t *supports, *premise_supports;
} rules_result;

static void rules_result_free(rules_result *result)
{
    free(result->premise_offsets);
    free(result->conclusion_offsets);
    free(result->premise_ids);
    free(result->conclusion_ids);
    free(result->supports);
    free(result->premise_supports);
}

/* The ids of both sides of every pair: each side has at most `attributes` ids, so a total bound
 * is count * attributes, but the lists are sized from the real lengths (two passes). */
static parac_status collect(const parac_fca_implications *implications, const parac_fca_rules *rules,
                            size_t attributes, rules_result *result, parac_error *error)
{
    size_t count = implications ? parac_fca_implications_size(implications) : parac_fca_rules_size(rules);
    size_t premise_total = 0, conclusion_total = 0;
    for (size_t i = 0; i < count; i++) {
        premise_total += implications ? parac_fca_implication_premise(implications, i, NULL, 0)
                                      : parac_fca_rule_premise(rules, i, NULL, 0);
        conclusion_total += implications ? parac_fca_implication_conclusion(implications, i, NULL, 0)
                                         : parac_fca_rule_conclusion(rules, i, NULL, 0);
    }
    result->count = count;
    result->premise_offsets = malloc((count + 1) * sizeof *result->premise_offsets);
    result->conclusion_offsets = malloc((count + 1) * sizeof *result->conclusion_offsets);
    result->premise_ids = malloc((premise_total + 1) * sizeof *result->premise_ids);
    result->conclusion_ids = malloc((conclusion_total + 1) * sizeof *result->conclusion_ids);
    result->supports = malloc((count + 1) * sizeof *result->supports);
    result->premise_supports = malloc((count + 1) * sizeof *result->premise_supports);
    if (!result->premise_offsets || !result->conclusion_offsets || !result->premise_ids || !result->conclusion_ids ||
        !result->supports || !result->premise_supports)
        return parac_py_fail_no_memory(error, implications ? "implications" : "rules");
    result->premise_offsets[0] = result->conclusion_offsets[0] = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t *premise = result->premise_ids + result->used_premise;
        uint32_t *conclusion = result->conclusion_ids + result->used_conclusion;
        if (implications) {
            result->used_premise += parac_fca_implication_premise(implications, i, premise, attributes);
            result->used_conclusion += parac_fca_implication_conclusion(implications, i, conclusion, attributes);
            result->supports[i] = result->premise_supports[i] = parac_fca_implication_support(implications, i);
        } else {
            result->used_premise += parac_fca_rule_premise(rules, i, premise, attributes);
            result->used_conclusion += parac_fca_rule_conclusion(rules, i, conclusion, attributes);
            result->supports[i] = parac_fca_rule_support(rules, i);
            result->premise_supports[i] = parac_fca_rule_premise_support(rules, i);
        }
        result->premise_offsets[i + 1] = (int64_t)result->used_premise;
        result->conclusion_offsets[i + 1] = (int64_t)result->used_conclusion;
    }
    return PARAC_OK;
}

static parac_status run(const char *path, parac_fca_format format, const Py_buffer *cells,
                        const parac_fca_rule_options *options, int implications_wanted, rules_result *result,
                        parac_error *error)
{
    parac_fca_context *context = NULL;
    parac_fca_implications *implications = NULL;
    parac_fca_rules *rules = NULL;
    parac_status status = path ? parac_fca_context_read(path, format, &context, error)
                               : parac_fca_context_create((size_t)cells->shape[0], (size_t)cells->shape[1], cells->buf,
                                                          &context, error);
    if (status == PARAC_OK)
        status = implications_wanted ? parac_fca_implications_compute(context, options, &implications, error)
                                     : parac_fca_rules_compute(context, options, &rules, error);
    if (status == PARAC_OK)
        status = collect(implications, rules, parac_fca_context_attributes(context), result, error);
    parac_fca_implications_destroy(implications);
    parac_fca_rules_destroy(rules);
    parac_fca_context_destroy(context);
    return status;
}

static PyObject *bytes_of(const void *data, size_t size)
{
    return PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
}

PyDoc_STRVAR(fca_rules_doc,
             "fca_rules(source, *, path=False, format=0, implications=True, min_support=0, min_confidence=0.0,\n"
             "          all_rules=False, max_rules=0, device='auto', threads=0, progress=None, max_memory=0)\n\n"
             "The Duquenne-Guigues basis (implications=True) or the association rules of a context (source: a\n"
             "C-contiguous 2-D uint8 array, or a file path when path=True; format: 0 auto, 1 fimi, 2 cxt, 3 csv).\n"
             "Returns (premise_offsets, premise_ids, conclusion_offsets, conclusion_ids, supports,\n"
             "premise_supports): offsets bytes of int64 (count + 1), ids bytes of uint32, supports bytes of uint64.");

static PyObject *py_fca_rules(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"source",  "path",     "format", "implications", "min_support", "min_confidence",
                               "all_rules", "max_rules", "device", "threads",      "progress",    "max_memory",
                               NULL};
    PyObject *source, *progress = Py_None, *path_bytes = NULL, *answer = NULL;
    int is_path = 0, format = 0, implications = 1, all_rules = 0;
    const char *device = "auto";
    unsigned long long min_support = 0, max_rules = 0, max_memory = 0;
    parac_fca_rule_options options;
    Py_buffer cells = {0};
    rules_result result = {0};
    parac_error error = {0};
    parac_status status;
    parac_py_call call;
    (void)self;
    parac_fca_rule_options_init(&options);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$pipKdpKsiOK:fca_rules", keywords, &source, &is_path, &format,
                                     &implications, &min_support, &options.min_confidence, &all_rules, &max_rules,
                                     &device, &options.exec.threads, &progress, &max_memory))
        return NULL;
    if (format < 0 || format > 3) {
        PyErr_Format(PyExc_ValueError, "format must be 0..3, got %d", format);
        return NULL;
    }
    options.min_support = min_support;
    options.all_rules = all_rules;
    options.max_rules = max_rules;
    options.max_host_bytes = max_memory;
    if (parac_py_device_parse(device, &options.exec.device) < 0) return NULL;
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
    status = run(path_bytes ? PyBytes_AS_STRING(path_bytes) : NULL, (parac_fca_format)format, &cells, &options,
                 implications, &result, &error);
    Py_END_ALLOW_THREADS
    if (parac_py_call_end(&call, status, &error) == 0)
        answer = Py_BuildValue("(NNNNNN)", bytes_of(result.premise_offsets, (result.count + 1) * sizeof(int64_t)),
                               bytes_of(result.premise_ids, result.used_premise * sizeof(uint32_t)),
                               bytes_of(result.conclusion_offsets, (result.count + 1) * sizeof(int64_t)),
                               bytes_of(result.conclusion_ids, result.used_conclusion * sizeof(uint32_t)),
                               bytes_of(result.supports, result.count * sizeof(uint64_t)),
                               bytes_of(result.premise_supports, result.count * sizeof(uint64_t)));
    rules_result_free(&result);
release:
    Py_XDECREF(path_bytes);
    parac_py_output_release(&cells);
    return answer;
}

static PyMethodDef fca_rules_methods[] = {
    {"fca_rules", (PyCFunction)(void (*)(void))py_fca_rules, METH_VARARGS | METH_KEYWORDS, fca_rules_doc},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_fca_rules(PyObject *module)
{
    return PyModule_AddFunctions(module, fca_rules_methods);
}
