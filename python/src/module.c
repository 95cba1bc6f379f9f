/* python/src/module.c — the extension module parac._parac: thin functions over the public C API
 * (the headers in include/parac/). The Python package (python/parac/) builds the user-facing API on it:
 * it validates input, allocates the output arrays and passes them in as writable buffers. */
#include "areas.h"

typedef int (*register_fn)(PyObject *module);

static const register_fn area_registrars[] = {
    parac_py_register_core,
    parac_py_register_dbscan,
    parac_py_register_birch,
    parac_py_register_fca,
    parac_py_register_fca_stream,
    parac_py_register_fca_rules,
    parac_py_register_gemm,
    parac_py_register_ac,
    parac_py_register_metrics,
};

static struct PyModuleDef parac_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "parac._parac",
    .m_doc = "parac's C library (CPU threads and CUDA): the compiled core of the parac package.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__parac(void)
{
    PyObject *module = PyModule_Create(&parac_module);
    if (!module) return NULL;
    if (parac_py_add_exceptions(module) < 0) goto fail;
    for (size_t i = 0; i < sizeof area_registrars / sizeof area_registrars[0]; i++)
        if (area_registrars[i](module) < 0) goto fail;
    return module;
fail:
    Py_DECREF(module);
    return NULL;
}
