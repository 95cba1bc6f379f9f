/* python/src/core.c — version and device discovery (parac/version.h, parac/devices.h). */
#include "areas.h"

#include <parac/devices.h>
#include <parac/version.h>

static PyObject *py_version(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(parac_version());
}

static PyObject *py_built_with_cuda(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(parac_built_with_cuda());
}

/* (count, why): usable CUDA devices and, when there are none, a short reason ("" if none given). */
static PyObject *py_cuda_device_count(PyObject *self, PyObject *unused)
{
    char why[256] = "";
    int count;
    Py_BEGIN_ALLOW_THREADS /* the first call initialises the CUDA driver */
    count = parac_cuda_device_count(why, sizeof why);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(is)", count, why);
}

static PyObject *py_cuda_device_info(PyObject *self, PyObject *args)
{
    int ordinal;
    parac_device_info info;
    parac_error error = {0};
    parac_status status;
    if (!PyArg_ParseTuple(args, "i", &ordinal)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    status = parac_cuda_device_info(ordinal, &info, &error);
    Py_END_ALLOW_THREADS
    if (status != PARAC_OK) return parac_py_raise(&error);
    return Py_BuildValue("{s:i,s:s,s:(ii),s:i,s:K,s:K}", "ordinal", info.ordinal, "name", info.name,
                         "compute_capability", info.compute_major, info.compute_minor, "multiprocessors",
                         info.multiprocessors, "total_memory_bytes", (unsigned long long)info.total_memory_bytes,
                         "free_memory_bytes", (unsigned long long)info.free_memory_bytes);
}

static PyMethodDef core_methods[] = {
    {"version", py_version, METH_NOARGS, "version() -> str: the version of the loaded libparac."},
    {"built_with_cuda", py_built_with_cuda, METH_NOARGS, "built_with_cuda() -> bool: the CUDA paths are compiled in."},
    {"cuda_device_count", py_cuda_device_count, METH_NOARGS,
     "cuda_device_count() -> (int, str): usable CUDA devices and, without any, why."},
    {"cuda_device_info", py_cuda_device_info, METH_VARARGS, "cuda_device_info(ordinal) -> dict."},
    {NULL, NULL, 0, NULL},
};

int parac_py_register_core(PyObject *module)
{
    if (PyModule_AddFunctions(module, core_methods) < 0) return -1;
    if (PyModule_AddStringConstant(module, "HEADER_VERSION", PARAC_VERSION_STRING) < 0) return -1;
    return PyModule_AddIntConstant(module, "VERSION_NUMBER", parac_version_number());
}
