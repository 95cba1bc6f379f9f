/* python/src/metrics.c — parac._parac's clustering metrics over parac/metrics.h: adjusted Rand index,
 * normalized mutual information, silhouette and Davies-Bouldin. The Python layer (parac.metrics)
 * turns any labels into int32 cluster ids and points into C-contiguous float64 first. */
#include "areas.h"

#include <parac/metrics.h>

/* The two labellings of a pair metric, borrowed as int32 arrays of one length. */
static int get_label_pair(PyObject *first_object, PyObject *second_object, Py_buffer *first, Py_buffer *second)
{
    if (parac_py_input_get(first_object, "labels_true", PARAC_PY_INT32, PARAC_PY_ANY_COUNT, first) < 0) return -1;
    size_t count = (size_t)(first->len / first->itemsize);
    if (parac_py_input_get(second_object, "labels_pred", PARAC_PY_INT32, count, second) < 0) {
        parac_py_output_release(first);
        return -1;
    }
    return 0;
}

typedef parac_status (*pair_metric_fn)(const int32_t *labels, const int32_t *truth, size_t count, double *score,
                                       parac_error *error);

/* A pair metric, without the GIL (it is O(n) plus a contingency table: not worth a progress hook). */
static PyObject *pair_metric(PyObject *args, const char *format, pair_metric_fn metric)
{
    PyObject *truth_object, *labels_object;
    Py_buffer truth, labels;
    parac_error error = {0};
    parac_status status;
    double score = 0;
    if (!PyArg_ParseTuple(args, format, &truth_object, &labels_object)) return NULL;
    if (get_label_pair(truth_object, labels_object, &truth, &labels) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    status = metric(labels.buf, truth.buf, (size_t)(truth.len / truth.itemsize), &score, &error);
    Py_END_ALLOW_THREADS
    parac_py_output_release(&labels);
    parac_py_output_release(&truth);
    if (status != PARAC_OK) return parac_py_raise(&error);
    return PyFloat_FromDouble(score);
}

PyDoc_STRVAR(adjusted_rand_doc, "adjusted_rand(labels_true, labels_pred) -> float\n\n"
                                "Adjusted Rand index of two int32 labellings of one length.");

static PyObject *py_adjusted_rand(PyObject *self, PyObject *args)
{
    return pair_metric(args, "OO:adjusted_rand", parac_metrics_adjusted_rand);
}

PyDoc_STRVAR(normalized_mutual_info_doc, "normalized_mutual_info(labels_true, labels_pred) -> float\n\n"
                                         "Normalized mutual information (arithmetic mean) of two int32 labellings.");

static PyObject *py_normalized_mutual_info(PyObject *self, PyObject *args)
{
    return pair_metric(args, "OO:normalized_mutual_info", parac_metrics_normalized_mutual_info);
}

/* Points (float64, n x d) and their int32 labels (n). */
static int get_points_and_labels(PyObject *points_object, PyObject *labels_object, parac_py_matrix *points,
                                 Py_buffer *labels)
{
    if (parac_py_matrix_get(points_object, "X", 0, points) < 0) return -1;
    if (parac_py_input_get(labels_object, "labels", PARAC_PY_INT32, points->rows, labels) < 0) {
        parac_py_matrix_release(points);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(silhouette_doc,
             "silhouette(X, labels, *, sample=0, seed=0, device='auto', threads=0) -> float\n\n"
             "Mean silhouette coefficient (Euclidean) of float64 points X (n x d) with int32 labels;\n"
             "sample > 0 scores a random subset of that size drawn from seed. Ctrl-C stops it.");

static PyObject *py_silhouette(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"X", "labels", "sample", "seed", "device", "threads", NULL};
    PyObject *points_object, *labels_object, *result = NULL;
    Py_ssize_t sample = 0;
    unsigned long long seed = 0;
    const char *device = "auto";
    parac_silhouette_options options;
    parac_py_matrix points;
    Py_buffer labels;
    parac_error error = {0};
    parac_status status;
    parac_py_call call;
    double score = 0;

    parac_silhouette_options_init(&options);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$nKsi:silhouette", keywords, &points_object, &labels_object,
                                     &sample, &seed, &device, &options.exec.threads))
        return NULL;
    if (sample < 0) {
        PyErr_Format(PyExc_ValueError, "sample must be >= 0, got %zd", sample);
        return NULL;
    }
    options.sample = (size_t)sample;
    options.seed = seed;
    if (parac_py_device_parse(device, &options.exec.device) < 0) return NULL;
    if (get_points_and_labels(points_object, labels_object, &points, &labels) < 0) return NULL;
    if (parac_py_call_begin(&call, &options.exec, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
        status = parac_metrics_silhouette(&options, points.view.buf, points.rows, points.cols, labels.buf, &score,
                                          &error);
        Py_END_ALLOW_THREADS
        if (parac_py_call_end(&call, status, &error) == 0) result = PyFloat_FromDouble(score);
    }
    parac_py_output_release(&labels);
    parac_py_matrix_release(&points);
    return result;
}

PyDoc_STRVAR(davies_bouldin_doc, "davies_bouldin(X, labels, *, threads=0) -> float\n\n"
                                 "Davies-Bouldin index of float64 points X (n x d) with int32 labels.");

static PyObject *py_davies_bouldin(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"X", "labels", "threads", NULL};
    PyObject *points_object, *labels_object;
    int threads = PARAC_PY_ALL_THREADS;
    parac_py_matrix points;
    Py_buffer labels;
    parac_error error = {0};
    parac_status status;
    double score = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$i:davies_bouldin", keywords, &points_object, &labels_object,
                                     &threads))
        return NULL;
    if (get_points_and_labels(points_object, labels_object, &points, &labels) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    status = parac_metrics_davies_bouldin(points.view.buf, points.rows, points.cols, labels.buf, threads, &score,
                                          &error);
    Py_END_ALLOW_THREADS
    parac_py_output_release(&labels);
    parac_py_matrix_release(&points);
    if (status != PARAC_OK) return parac_py_raise(&error);
    return PyFloat_FromDouble(score);
}

static PyMethodDef metrics_methods[] = {
    {"adjusted_rand", py_adjusted_rand, METH_VARARGS, adjusted_rand_doc},
    {"normalized_mutual_info", py_normalized_mutual_info, METH_VARARGS, normalized_mutual_info_doc},
    {"silhouette", (PyCFunction)(void (*)(void))py_silhouette, METH_VARARGS | METH_KEYWORDS, silhouette_doc},
    {"davies_bouldin", (PyCFunction)(void (*)(void))py_davies_bouldin, METH_VARARGS | METH_KEYWORDS,
     davies_bouldin_doc},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_metrics(PyObject *module)
{
    return PyModule_AddFunctions(module, metrics_methods);
}
