/* python/src/ac.c — parac._parac.arc_consistency over parac/csp.h and parac/ac.h: loads an XCSP
 * network (a file, or an XML document in memory), enforces AC or SAC, and hands back the remaining
 * values of every variable as one int64 array with per-variable offsets (the Python layer splits it
 * into a dict by variable name) and the statistics the CLI's JSON summary prints. */
#include "areas.h"

#include <stdlib.h>

#include <parac/ac.h>
#include <parac/csp.h>


/* The statistics of `parac ac --json` (src/cli/cmd_ac.c), same keys. */
static PyObject *stats_as_dict(const parac_csp *csp, const parac_ac_stats *stats, int singleton, double parse_seconds,
                               double seconds)
{
    PyObject *dropped = PyList_New(0);
    if (!dropped) return NULL;
    for (size_t i = 0; i < parac_csp_dropped_count(csp); i++) {
        PyObject *text = PyUnicode_FromString(parac_csp_dropped(csp, i));
        if (!text || PyList_Append(dropped, text) < 0) {
            Py_XDECREF(text);
            Py_DECREF(dropped);
            return NULL;
        }
        Py_DECREF(text);
    }
    return Py_BuildValue("{s:s,s:s,s:O,s:n,s:n,s:K,s:K,s:K,s:O,s:K,s:K,s:K,s:K,s:K,s:K,s:N,s:d,s:d,s:d,s:d}", "algorithm",
                         parac_ac_algorithm_name(stats->algorithm), "device", parac_device_name(stats->device), "sac",
                         singleton ? Py_True : Py_False, "variables", (Py_ssize_t)parac_csp_variable_count(csp),
                         "constraints", (Py_ssize_t)parac_csp_constraint_count(csp), "values_before",
                         (unsigned long long)stats->values_before, "values_after",
                         (unsigned long long)stats->values_after, "removed", (unsigned long long)stats->removed,
                         "wipeout", stats->wipeout ? Py_True : Py_False, "iterations",
                         (unsigned long long)stats->iterations, "revisions", (unsigned long long)stats->revisions,
                         "ne_nodes", (unsigned long long)stats->ne_nodes, "ne_edges",
                         (unsigned long long)stats->ne_edges, "table_count", (unsigned long long)stats->table_count,
                         "tuple_entries", (unsigned long long)stats->tuple_entries, "dropped", dropped, "parse_seconds", parse_seconds,
                         "build_seconds", stats->build_seconds, "propagate_seconds", stats->propagate_seconds,
                         "seconds", seconds);
}

/* Variable names (a list), offsets (bytes of int64, variables + 1) and values (bytes of int64). */
static PyObject *domains_as_tuple(const parac_csp *csp, const uint64_t *domains)
{
    size_t variables = parac_csp_variable_count(csp);
    uint64_t capacity = parac_csp_value_count(csp);
    PyObject *names = PyList_New((Py_ssize_t)variables), *result = NULL;
    PyObject *offsets = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((variables + 1) * sizeof(int64_t)));
    PyObject *values = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(capacity * sizeof(int64_t)));
    if (!names || !offsets || !values) goto done;
    int64_t *offset = (int64_t *)PyBytes_AS_STRING(offsets), *value = (int64_t *)PyBytes_AS_STRING(values);
    offset[0] = 0;
    for (size_t v = 0; v < variables; v++) {
        PyObject *name = PyUnicode_FromString(parac_csp_variable_name(csp, v));
        if (!name) goto done;
        PyList_SET_ITEM(names, (Py_ssize_t)v, name);
        /* each variable's remaining values are at most its initial domain: they fit in `capacity` */
        offset[v + 1] = offset[v] + (int64_t)parac_ac_remaining_values(csp, domains, v, value + offset[v]);
    }
    if (_PyBytes_Resize(&values, (Py_ssize_t)(offset[variables] * (int64_t)sizeof(int64_t))) < 0) goto done;
    result = Py_BuildValue("(OOO)", names, offsets, values);
done:
    Py_XDECREF(names);
    Py_XDECREF(offsets);
    Py_XDECREF(values);
    return result;
}

static int parse_options(parac_ac_options *options, const char *algorithm, const char *variant, int singleton,
                         const char *device, int threads)
{
    parac_error error = {0};
    parac_ac_options_init(options);
    options->singleton = singleton;
    options->exec.threads = threads;
    if (parac_py_device_parse(device, &options->exec.device) < 0) return -1;
    if (parac_ac_algorithm_parse(algorithm, &options->algorithm, &error) != PARAC_OK ||
        parac_ac_variant_parse(variant, &options->variant, &error) != PARAC_OK) {
        parac_py_raise(&error);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(arc_consistency_doc,
             "arc_consistency(source, is_path, *, algorithm='auto', sac=False, device='auto', threads=0,\n"
             "                variant='auto', ignore_unsupported=False) -> (stats, names, offsets, values)\n\n"
             "Loads an XCSP3 / XCSP 2.1 network (source: a path when is_path, else the XML document as\n"
             "str or bytes) and enforces AC (SAC with sac=True). names: the variables; offsets: bytes of\n"
             "int64 (variables + 1); values: bytes of int64, variable i's remaining values at\n"
             "offsets[i]..offsets[i+1]. stats: the CLI's JSON summary fields. Ctrl-C stops the run.");

static PyObject *py_arc_consistency(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"source",  "is_path", "algorithm",          "sac", "device", "threads",
                               "variant", "ignore_unsupported", NULL};
    const char *source, *algorithm = "auto", *device = "auto", *variant = "auto";
    Py_ssize_t source_size;
    int is_path, singleton = 0, threads = PARAC_PY_ALL_THREADS, ignore_unsupported = 0;
    parac_ac_options options;
    parac_csp_load_options load_options;
    parac_ac_stats stats = {0};
    parac_csp *csp = NULL;
    uint64_t *domains = NULL;
    parac_error error = {0};
    parac_status status;
    parac_py_call call;
    PyObject *stats_dict = NULL, *domain_tuple = NULL, *result = NULL;
    double start = parac_py_now_seconds(), parse_seconds = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#p|$spsisp:arc_consistency", keywords, &source, &source_size,
                                     &is_path, &algorithm, &singleton, &device, &threads, &variant,
                                     &ignore_unsupported))
        return NULL;
    if (parse_options(&options, algorithm, variant, singleton, device, threads) < 0) return NULL;
    parac_csp_load_options_default(&load_options);
    load_options.ignore_unsupported = ignore_unsupported;
    if (parac_py_call_begin(&call, &options.exec, NULL) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (is_path) status = parac_csp_load(source, &load_options, &csp, &error);
    else status = parac_csp_load_memory(source, (size_t)source_size, "<xml>", &load_options, &csp, &error);
    parse_seconds = parac_py_now_seconds() - start;
    if (status == PARAC_OK) {
        domains = calloc(parac_ac_domain_words(parac_csp_value_count(csp)) + 1, sizeof *domains);
        if (!domains) status = parac_py_fail_no_memory(&error, "domains");
    }
    if (status == PARAC_OK) status = parac_ac_enforce(csp, &options, domains, &stats, &error);
    Py_END_ALLOW_THREADS
    if (parac_py_call_end(&call, status, &error) == 0) {
        stats_dict = stats_as_dict(csp, &stats, singleton, parse_seconds, parac_py_now_seconds() - start);
        domain_tuple = stats_dict ? domains_as_tuple(csp, domains) : NULL;
        if (domain_tuple) result = Py_BuildValue("(OOOO)", stats_dict, PyTuple_GET_ITEM(domain_tuple, 0),
                                                 PyTuple_GET_ITEM(domain_tuple, 1), PyTuple_GET_ITEM(domain_tuple, 2));
    }
    Py_XDECREF(stats_dict);
    Py_XDECREF(domain_tuple);
    free(domains);
    parac_csp_destroy(csp);
    return result;
}

static PyMethodDef ac_methods[] = {
    {"arc_consistency", (PyCFunction)(void (*)(void))py_arc_consistency, METH_VARARGS | METH_KEYWORDS,
     arc_consistency_doc},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_ac(PyObject *module)
{
    return PyModule_AddFunctions(module, ac_methods);
}
