/* python/src/gemm.c — parac._parac.matmul over parac/gemm.h: C = A B in fp32 (or tf32), one plan
 * created, executed once and destroyed per call; the plan's description comes back as a dict. */
#include "areas.h"

#include <string.h>

#include <parac/gemm.h>

static int parse_dtype(const char *name, parac_gemm_dtype *dtype)
{
    if (strcmp(name, "fp32") == 0) *dtype = PARAC_GEMM_FP32;
    else if (strcmp(name, "tf32") == 0) *dtype = PARAC_GEMM_TF32;
    else {
        PyErr_Format(PyExc_ValueError, "dtype must be 'fp32' or 'tf32', got '%s'", name);
        return -1;
    }
    return 0;
}

static int parse_schedule(const char *name, parac_gemm_schedule *schedule)
{
    if (strcmp(name, "auto") == 0) *schedule = PARAC_GEMM_SCHEDULE_AUTO;
    else if (strcmp(name, "static") == 0) *schedule = PARAC_GEMM_SCHEDULE_STATIC;
    else if (strcmp(name, "dynamic") == 0) *schedule = PARAC_GEMM_SCHEDULE_DYNAMIC;
    else {
        PyErr_Format(PyExc_ValueError, "schedule must be 'auto', 'static' or 'dynamic', got '%s'", name);
        return -1;
    }
    return 0;
}

/* The plan's decisions (parac_gemm_plan_info) and its text description, as a dict. */
static PyObject *plan_as_dict(const parac_gemm_plan *plan, double seconds)
{
    parac_gemm_plan_info info;
    parac_gemm_plan_info_get(plan, &info);
    size_t length = parac_gemm_plan_explain(plan, NULL, 0);
    char *text = PyMem_Malloc(length + 1);
    if (!text) return PyErr_NoMemory();
    parac_gemm_plan_explain(plan, text, length + 1);
    PyObject *dict = Py_BuildValue(
        "{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:d,s:L,s:L,s:d,s:d,"
        "s:d,s:d,s:d,s:i,s:s}",
        "device", parac_device_name(info.device), "dtype", info.dtype == PARAC_GEMM_TF32 ? "tf32" : "fp32",
        "schedule", info.schedule == PARAC_GEMM_SCHEDULE_DYNAMIC ? "dynamic" : "static", "variant",
        parac_gemm_variant_name(info.variant), "tile_m", info.tile_m, "tile_n", info.tile_n, "tile_k", info.tile_k,
        "split_k", info.split_k, "tiles_m", (long long)info.tiles_m, "tiles_n", (long long)info.tiles_n, "tiles_k",
        (long long)info.tiles_k, "a_tiles_nonzero", (long long)info.a_tiles_nonzero, "b_tiles_nonzero",
        (long long)info.b_tiles_nonzero, "c_tiles", (long long)info.c_tiles, "c_tiles_empty",
        (long long)info.c_tiles_empty, "tile_kernels", (long long)info.tile_kernels, "work_items",
        (long long)info.work_items, "dag_nodes", (long long)info.dag_nodes, "dag_edges", (long long)info.dag_edges,
        "critical_path", (long long)info.critical_path, "work_imbalance", info.work_imbalance, "tiles_l2_resident",
        (long long)info.tiles_l2_resident, "tiles_streamed", (long long)info.tiles_streamed, "bytes_packed",
        info.bytes_packed, "bytes_moved", info.bytes_moved, "flops", info.flops, "arithmetic_intensity",
        info.arithmetic_intensity, "seconds", seconds, "pipeline_stages", info.pipeline_stages, "text", text);
    PyMem_Free(text);
    return dict;
}

PyDoc_STRVAR(matmul_doc,
             "matmul(a, b, c, *, dtype='fp32', schedule='auto', device='auto', threads=0) -> dict\n\n"
             "C = A B: a (m x k) and b (k x n) C-contiguous float32, c a writable float32 array of m * n\n"
             "elements (row-major). Returns the plan's description (tiles, DAG, schedule, bytes...) and\n"
             "its text under 'text'. Ctrl-C stops the run (KeyboardInterrupt).");

static PyObject *py_matmul(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"a", "b", "c", "dtype", "schedule", "device", "threads", NULL};
    PyObject *a_object, *b_object, *c_object, *result = NULL;
    const char *dtype = "fp32", *schedule = "auto", *device = "auto";
    parac_gemm_options options;
    Py_buffer a, b, c;
    parac_gemm_plan *plan = NULL;
    parac_error error = {0};
    parac_status status;
    parac_py_call call;

    parac_gemm_options_init(&options);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$sssi:matmul", keywords, &a_object, &b_object, &c_object,
                                     &dtype, &schedule, &device, &options.exec.threads))
        return NULL;
    if (parse_dtype(dtype, &options.dtype) < 0 || parse_schedule(schedule, &options.schedule) < 0 ||
        parac_py_device_parse(device, &options.exec.device) < 0)
        return NULL;
    if (parac_py_input_get(a_object, "A", PARAC_PY_FLOAT32, PARAC_PY_ANY_COUNT, &a) < 0) return NULL;
    if (parac_py_input_get(b_object, "B", PARAC_PY_FLOAT32, PARAC_PY_ANY_COUNT, &b) < 0) goto release_a;
    if (a.ndim != 2 || b.ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "A and B must be 2-D");
        goto release_b;
    }
    options.m = a.shape[0];
    options.k = a.shape[1];
    options.n = b.shape[1];
    if (b.shape[0] != options.k) {
        PyErr_Format(PyExc_ValueError, "A is %zd x %zd and B %zd x %zd: inner dimensions differ", a.shape[0],
                     a.shape[1], b.shape[0], b.shape[1]);
        goto release_b;
    }
    if (parac_py_output_get(c_object, "C", PARAC_PY_FLOAT32, (size_t)options.m * (size_t)options.n, 0, &c) < 0)
        goto release_b;
    if (parac_py_call_begin(&call, &options.exec, NULL) < 0) goto release_c;
    Py_BEGIN_ALLOW_THREADS
    status = parac_gemm_plan_create(&options, &plan, &error);
    if (status == PARAC_OK) status = parac_gemm_execute(plan, 1.0f, a.buf, b.buf, 0.0f, c.buf, &error);
    Py_END_ALLOW_THREADS
    if (parac_py_call_end(&call, status, &error) == 0)
        result = plan_as_dict(plan, parac_gemm_last_compute_seconds(plan));
    parac_gemm_plan_destroy(plan);
release_c:
    parac_py_output_release(&c);
release_b:
    parac_py_output_release(&b);
release_a:
    parac_py_output_release(&a);
    return result;
}

static PyMethodDef gemm_methods[] = {
    {"matmul", (PyCFunction)(void (*)(void))py_matmul, METH_VARARGS | METH_KEYWORDS, matmul_doc},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_gemm(PyObject *module)
{
    return PyModule_AddFunctions(module, gemm_methods);
}
