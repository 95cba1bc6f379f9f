/* python/src/dbscan.c — parac.dbscan over parac_dbscan_run / parac_dbscan_run_f32. */
#include "areas.h"

#include <string.h>

#include <parac/dbscan.h>

static PyObject *info_as_dict(const parac_dbscan_info *info)
{
    /* The phases let a caller see where a fit's time goes (upload and download are 0 on the CPU). */
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:s,s:s,s:O,s:n,s:d,s:{s:d,s:d,s:d,s:d,s:d,s:d,s:d}}", "clusters",
                         (Py_ssize_t)info->clusters, "core", (Py_ssize_t)info->core, "noise",
                         (Py_ssize_t)info->noise, "border", (Py_ssize_t)info->border, "device",
                         parac_device_name(info->device), "method", parac_dbscan_method_name(info->method),
                         "gpu_fallback", info->gpu_fallback ? Py_True : Py_False, "gpu_slabs",
                         (Py_ssize_t)info->gpu_slabs, "seconds", info->seconds_total, "phases", "upload",
                         info->seconds_upload, "index", info->seconds_index, "core", info->seconds_core, "union",
                         info->seconds_union, "border", info->seconds_border, "relabel", info->seconds_relabel,
                         "download", info->seconds_download);
}

static int parse_options(parac_dbscan_options *options, double eps, Py_ssize_t min_samples, const char *device,
                         int threads, const char *method)
{
    parac_error error = {0};
    parac_dbscan_options_init(options);
    if (min_samples < 1) {
        PyErr_Format(PyExc_ValueError, "min_samples must be >= 1, got %zd", min_samples);
        return -1;
    }
    options->eps = eps;
    options->min_samples = (size_t)min_samples;
    options->exec.threads = threads;
    if (parac_py_device_parse(device, &options->exec.device) < 0) return -1;
    if (parac_dbscan_method_parse(method, &options->method, &error) != PARAC_OK) {
        parac_py_raise(&error);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(dbscan_doc,
             "dbscan(points, eps, min_samples, labels, core_mask, *, device='auto', threads=0, method='auto',\n"
             "       progress=None) -> dict\n\n"
             "Clusters points (C-contiguous float64 or float32, n x d) into labels (int32[n], -1 = noise)\n"
             "and core_mask (uint8[n] or None). progress(done, total) may return True to stop the run\n"
             "(CancelledError). Returns what the run found (clusters, core, noise, border, device, ...).");

static PyObject *py_dbscan(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"points", "eps", "min_samples", "labels", "core_mask",
                               "device", "threads", "method", "progress", NULL};
    PyObject *points_object, *labels_object, *core_object, *progress = Py_None, *result = NULL;
    double eps;
    Py_ssize_t min_samples;
    const char *device = "auto", *method = "auto";
    int threads = PARAC_PY_ALL_THREADS;
    parac_dbscan_options options;
    parac_py_matrix points;
    Py_buffer labels, core_mask;
    parac_dbscan_info info = {0};
    parac_error error = {0};
    parac_status status;
    parac_py_call call;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OdnOO|$sisO:dbscan", keywords, &points_object, &eps,
                                     &min_samples, &labels_object, &core_object, &device, &threads, &method,
                                     &progress))
        return NULL;
    if (parse_options(&options, eps, min_samples, device, threads, method) < 0) return NULL;
    if (parac_py_matrix_get(points_object, "points", 1, &points) < 0) return NULL;
    if (parac_py_output_get(labels_object, "labels", PARAC_PY_INT32, points.rows, 0, &labels) < 0) goto release_points;
    if (parac_py_output_get(core_object, "core_mask", PARAC_PY_UINT8, points.rows, 1, &core_mask) < 0)
        goto release_labels;
    if (parac_py_call_begin(&call, &options.exec, progress) < 0) goto release_core;
    Py_BEGIN_ALLOW_THREADS
    if (points.is_float32)
        status = parac_dbscan_run_f32(&options, points.view.buf, points.rows, points.cols, labels.buf, core_mask.buf,
                                      &info, &error);
    else
        status = parac_dbscan_run(&options, points.view.buf, points.rows, points.cols, labels.buf, core_mask.buf,
                                  &info, &error);
    Py_END_ALLOW_THREADS
    if (parac_py_call_end(&call, status, &error) == 0) result = info_as_dict(&info);
release_core:
    parac_py_output_release(&core_mask);
release_labels:
    parac_py_output_release(&labels);
release_points:
    parac_py_matrix_release(&points);
    return result;
}

PyDoc_STRVAR(core_samples_doc,
             "core_samples(points, core_mask, indices, components) -> None\n\n"
             "Fills indices (int64[k]) with the positions of the k set bytes of core_mask (uint8[n]) and\n"
             "components (k x d, the points' dtype) with those rows of points (n x d): scikit-learn's\n"
             "core_sample_indices_ and components_ in one pass (numpy's flatnonzero + take made up most of a\n"
             "GPU fit's time on 10^6 points).");

/* Copies the rows whose mask byte is set; 0, or -1 when the outputs do not hold exactly k rows. */
static int gather_core_rows(const parac_py_matrix *points, const uint8_t *mask, int64_t *indices, char *components,
                            size_t k)
{
    size_t row_bytes = points->cols * (points->is_float32 ? sizeof(float) : sizeof(double)), found = 0;
    const char *rows = points->view.buf;
    for (size_t i = 0; i < points->rows; i++) {
        if (!mask[i]) continue;
        if (found == k) return -1;
        indices[found] = (int64_t)i;
        memcpy(components + found * row_bytes, rows + i * row_bytes, row_bytes);
        found++;
    }
    return found == k ? 0 : -1;
}

static PyObject *py_core_samples(PyObject *self, PyObject *args)
{
    PyObject *points_object, *mask_object, *indices_object, *components_object, *result = NULL;
    parac_py_matrix points;
    Py_buffer mask, indices, components;
    size_t k;
    int failed;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO:core_samples", &points_object, &mask_object, &indices_object,
                          &components_object))
        return NULL;
    if (parac_py_matrix_get(points_object, "points", 1, &points) < 0) return NULL;
    if (parac_py_input_get(mask_object, "core_mask", PARAC_PY_UINT8, points.rows, &mask) < 0) goto release_points;
    if (parac_py_output_get(indices_object, "indices", PARAC_PY_INT64, PARAC_PY_ANY_COUNT, 0, &indices) < 0)
        goto release_mask;
    k = (size_t)indices.len / sizeof(int64_t);
    if (parac_py_output_get(components_object, "components", points.is_float32 ? PARAC_PY_FLOAT32 : PARAC_PY_FLOAT64,
                            k * points.cols, 0, &components) < 0)
        goto release_indices;
    Py_BEGIN_ALLOW_THREADS
    failed = gather_core_rows(&points, mask.buf, indices.buf, components.buf, k);
    Py_END_ALLOW_THREADS
    if (failed) PyErr_SetString(PyExc_ValueError, "core_samples: indices does not hold one entry per set core_mask byte");
    else {
        Py_INCREF(Py_None);
        result = Py_None;
    }
    parac_py_output_release(&components);
release_indices:
    parac_py_output_release(&indices);
release_mask:
    parac_py_output_release(&mask);
release_points:
    parac_py_matrix_release(&points);
    return result;
}

static PyMethodDef dbscan_methods[] = {
    {"dbscan", (PyCFunction)(void (*)(void))py_dbscan, METH_VARARGS | METH_KEYWORDS, dbscan_doc},
    {"core_samples", py_core_samples, METH_VARARGS, core_samples_doc},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_dbscan(PyObject *module)
{
    return PyModule_AddFunctions(module, dbscan_methods);
}
