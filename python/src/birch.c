/* python/src/birch.c — parac._parac.BirchModel: a CF tree (parac_birch handle) fed in chunks.
 *
 * One computation at a time per model: the library's handle is not meant for concurrent calls,
 * and a second thread would otherwise reach it while the first runs without the GIL. The
 * `busy` flag is read and set with the GIL held, so it needs no lock of its own.
 */
#include "areas.h"

#include <parac/birch.h>

typedef struct birch_model {
    PyObject_HEAD
    parac_birch *model;
    int busy;
    parac_py_call call; /* the progress callback's state; the model's exec points at it */
} birch_model;

static PyObject *birch_model_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"dims", "threshold", "branching_factor", "n_clusters", "batch_size",
                               "variant", "device", "threads", NULL};
    Py_ssize_t dims, batch_size = (Py_ssize_t)PARAC_BIRCH_DEFAULT_BATCH;
    const char *variant = NULL, *device = "auto";
    parac_birch_options options;
    parac_error error = {0};
    parac_status status;
    parac_birch_options_init(&options);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n|$dinnssi:BirchModel", keywords, &dims, &options.threshold,
                                     &options.branching_factor, &options.n_clusters, &batch_size, &variant, &device,
                                     &options.exec.threads))
        return NULL;
    if (dims < 1 || batch_size < 0 || options.n_clusters < 0) {
        PyErr_SetString(PyExc_ValueError, "BirchModel: dims must be >= 1, batch_size and n_clusters >= 0");
        return NULL;
    }
    options.batch_size = (size_t)batch_size;
    if (parac_py_device_parse(device, &options.exec.device) < 0) return NULL;
    if (variant && parac_birch_variant_parse(variant, &options.variant, &error) != PARAC_OK)
        return parac_py_raise(&error);

    birch_model *self = (birch_model *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    options.exec.progress = parac_py_call_progress;
    options.exec.progress_user_data = &self->call;
    Py_BEGIN_ALLOW_THREADS /* a CUDA device is set up here */
    status = parac_birch_create(&options, (size_t)dims, &self->model, &error);
    Py_END_ALLOW_THREADS
    if (status != PARAC_OK) {
        Py_DECREF(self);
        return parac_py_raise(&error);
    }
    return (PyObject *)self;
}

static void birch_model_dealloc(birch_model *self)
{
    parac_birch_destroy(self->model);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Marks the model busy; -1 with RuntimeError when another thread is using it. */
static int acquire(birch_model *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Birch model is in use by another thread");
        return -1;
    }
    self->busy = 1;
    return 0;
}

static PyObject *birch_partial_fit(birch_model *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"points", "progress", NULL};
    PyObject *points_object, *progress = Py_None;
    parac_py_matrix points;
    parac_exec scratch_exec;
    parac_error error = {0};
    parac_status status;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O:partial_fit", keywords, &points_object, &progress))
        return NULL;
    if (parac_py_matrix_get(points_object, "points", 0, &points) < 0) return NULL;
    if (points.cols != parac_birch_dims(self->model)) {
        PyErr_Format(PyExc_ValueError, "points have %zu features, the model expects %zu", points.cols,
                     parac_birch_dims(self->model));
        goto fail;
    }
    if (acquire(self) < 0) goto fail;
    if (parac_py_call_begin(&self->call, &scratch_exec, progress) < 0) {
        self->busy = 0;
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    status = parac_birch_partial_fit(self->model, points.view.buf, points.rows, &error);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    parac_py_matrix_release(&points);
    if (parac_py_call_end(&self->call, status, &error) < 0) return NULL;
    Py_RETURN_NONE;
fail:
    parac_py_matrix_release(&points);
    return NULL;
}

static PyObject *birch_global_step(birch_model *self, PyObject *unused)
{
    parac_exec scratch_exec;
    parac_error error = {0};
    parac_status status;
    if (acquire(self) < 0) return NULL;
    if (parac_py_call_begin(&self->call, &scratch_exec, NULL) < 0) {
        self->busy = 0;
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    status = parac_birch_global_step(self->model, &error);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (parac_py_call_end(&self->call, status, &error) < 0) return NULL;
    Py_RETURN_NONE;
}

/* subclusters(centers, counts, cluster): float64[m, d], int64[m], int32[m] (each may be None). */
static PyObject *birch_subclusters(birch_model *self, PyObject *args)
{
    PyObject *centers_object, *counts_object, *cluster_object, *result = NULL;
    Py_buffer centers, counts, cluster;
    parac_error error = {0};
    size_t m = parac_birch_subcluster_count(self->model), dims = parac_birch_dims(self->model);
    if (!PyArg_ParseTuple(args, "OOO:subclusters", &centers_object, &counts_object, &cluster_object)) return NULL;
    if (self->busy) return PyErr_Format(PyExc_RuntimeError, "this Birch model is in use by another thread");
    if (parac_py_output_get(centers_object, "centers", PARAC_PY_FLOAT64, m * dims, 1, &centers) < 0) return NULL;
    if (parac_py_output_get(counts_object, "counts", PARAC_PY_INT64, m, 1, &counts) < 0) goto release_centers;
    if (parac_py_output_get(cluster_object, "cluster", PARAC_PY_INT32, m, 1, &cluster) < 0) goto release_counts;
    if (cluster.buf && parac_birch_cluster_count(self->model) == 0 && m > 0) {
        PyErr_SetString(PyExc_RuntimeError, "subclusters: the global step has not run since the last partial_fit");
        goto release_cluster;
    }
    if (parac_birch_subclusters(self->model, centers.buf, counts.buf, cluster.buf, &error) != PARAC_OK)
        parac_py_raise(&error);
    else
        result = Py_NewRef(Py_None);
release_cluster:
    parac_py_output_release(&cluster);
release_counts:
    parac_py_output_release(&counts);
release_centers:
    parac_py_output_release(&centers);
    return result;
}

/* predict(points, labels, subcluster): int32[n] each (either may be None). */
static PyObject *birch_predict(birch_model *self, PyObject *args)
{
    PyObject *points_object, *labels_object, *subcluster_object, *result = NULL;
    parac_py_matrix points;
    Py_buffer labels, subcluster;
    parac_exec scratch_exec;
    parac_error error = {0};
    parac_status status;
    if (!PyArg_ParseTuple(args, "OOO:predict", &points_object, &labels_object, &subcluster_object)) return NULL;
    if (parac_py_matrix_get(points_object, "points", 0, &points) < 0) return NULL;
    if (points.cols != parac_birch_dims(self->model)) {
        PyErr_Format(PyExc_ValueError, "points have %zu features, the model expects %zu", points.cols,
                     parac_birch_dims(self->model));
        goto release_points;
    }
    if (parac_py_output_get(labels_object, "labels", PARAC_PY_INT32, points.rows, 1, &labels) < 0) goto release_points;
    if (parac_py_output_get(subcluster_object, "subcluster", PARAC_PY_INT32, points.rows, 1, &subcluster) < 0)
        goto release_labels;
    if (acquire(self) < 0) goto release_subcluster;
    if (parac_py_call_begin(&self->call, &scratch_exec, NULL) < 0) {
        self->busy = 0;
        goto release_subcluster;
    }
    Py_BEGIN_ALLOW_THREADS
    status = parac_birch_predict(self->model, points.view.buf, points.rows, labels.buf, subcluster.buf, &error);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (parac_py_call_end(&self->call, status, &error) == 0) result = Py_NewRef(Py_None);
release_subcluster:
    parac_py_output_release(&subcluster);
release_labels:
    parac_py_output_release(&labels);
release_points:
    parac_py_matrix_release(&points);
    return result;
}

static PyObject *get_dims(birch_model *self, void *unused)
{
    return PyLong_FromSize_t(parac_birch_dims(self->model));
}

static PyObject *get_points_seen(birch_model *self, void *unused)
{
    return PyLong_FromSize_t(parac_birch_points_seen(self->model));
}

static PyObject *get_subcluster_count(birch_model *self, void *unused)
{
    return PyLong_FromSize_t(parac_birch_subcluster_count(self->model));
}

static PyObject *get_cluster_count(birch_model *self, void *unused)
{
    return PyLong_FromSize_t(parac_birch_cluster_count(self->model));
}

static PyObject *get_too_few_subclusters(birch_model *self, void *unused)
{
    return PyBool_FromLong(parac_birch_too_few_subclusters(self->model));
}

static PyObject *get_device(birch_model *self, void *unused)
{
    return PyUnicode_FromString(parac_device_name(parac_birch_device_used(self->model)));
}

static PyGetSetDef birch_getset[] = {
    {"dims", (getter)get_dims, NULL, "coordinates per point", NULL},
    {"points_seen", (getter)get_points_seen, NULL, "points inserted so far", NULL},
    {"subcluster_count", (getter)get_subcluster_count, NULL, "leaf entries of the CF tree", NULL},
    {"cluster_count", (getter)get_cluster_count, NULL, "clusters of the last global step (0 before)", NULL},
    {"too_few_subclusters", (getter)get_too_few_subclusters, NULL, "fewer subclusters than n_clusters", NULL},
    {"device", (getter)get_device, NULL, "'cpu' or 'cuda': where the model runs", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef birch_methods[] = {
    {"partial_fit", (PyCFunction)(void (*)(void))birch_partial_fit, METH_VARARGS | METH_KEYWORDS,
     "partial_fit(points, *, progress=None): inserts float64 points (n x dims) into the CF tree."},
    {"global_step", (PyCFunction)birch_global_step, METH_NOARGS,
     "global_step(): Ward clustering of the subclusters into n_clusters (0: each its own)."},
    {"subclusters", (PyCFunction)birch_subclusters, METH_VARARGS,
     "subclusters(centers, counts, cluster): fills float64[m*dims], int64[m], int32[m] (None skips one)."},
    {"predict", (PyCFunction)birch_predict, METH_VARARGS,
     "predict(points, labels, subcluster): nearest subcluster of each point and its cluster (int32[n])."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject birch_model_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "parac._parac.BirchModel",
    .tp_basicsize = sizeof(birch_model),
    .tp_dealloc = (destructor)birch_model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BirchModel(dims, *, threshold, branching_factor, n_clusters, batch_size, variant, device, threads):\n"
              "a BIRCH CF tree (parac/birch.h). Not picklable: the estimator parac.Birch keeps what it learned.",
    .tp_methods = birch_methods,
    .tp_getset = birch_getset,
    .tp_new = birch_model_new,
};

int parac_py_register_birch(PyObject *module)
{
    if (PyType_Ready(&birch_model_type) < 0) return -1;
    return PyModule_AddObjectRef(module, "BirchModel", (PyObject *)&birch_model_type);
}
