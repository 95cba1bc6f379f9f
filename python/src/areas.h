/* python/src/areas.h — the areas of the extension, one python/src/<area>.c each. An area adds its
 * functions and types to the module; module.c calls every registrar in this list. To add an area:
 * write python/src/<area>.c with parac_py_register_<area>, declare it here, list it in module.c. */
#ifndef PARAC_PY_AREAS_H
#define PARAC_PY_AREAS_H

#include "common.h"

int parac_py_register_core(PyObject *module);   /* version, devices (core.c) */
int parac_py_register_dbscan(PyObject *module); /* dbscan (dbscan.c) */
int parac_py_register_birch(PyObject *module);  /* BirchModel (birch.c) */
int parac_py_register_fca(PyObject *module);    /* fca: concepts and lattice (fca.c) */
int parac_py_register_fca_stream(PyObject *module); /* fca_stream: concepts and edges in batches (fca_stream.c) */
int parac_py_register_fca_rules(PyObject *module); /* fca_rules: implications, association rules (fca_rules.c) */
int parac_py_register_gemm(PyObject *module);   /* matmul (gemm.c) */
int parac_py_register_ac(PyObject *module);     /* arc_consistency (ac.c) */
int parac_py_register_metrics(PyObject *module); /* ARI, NMI, silhouette, Davies-Bouldin (metrics.c) */

#endif
