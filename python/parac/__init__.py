"""parac: DBSCAN, BIRCH and more on CPU threads and NVIDIA GPUs, with scikit-learn's interface.

    import numpy as np, parac
    X = np.load("points.npy")
    labels = parac.DBSCAN(eps=0.05, min_samples=10).fit_predict(X)

The estimators (parac.DBSCAN, parac.Birch) follow scikit-learn's conventions; the other modules
are functions, numpy in and out: parac.concepts and parac.lattice (formal concepts), parac.matmul,
parac.arc_consistency and parac.metrics (ARI, NMI, silhouette, Davies-Bouldin). The compiled
extension parac._parac is a thin layer over the C library (include/parac/*.h). See docs/PYTHON.md.
"""
from . import _parac
from ._parac import (
    CancelledError,
    DeviceError,
    InternalError,
    InvalidArgumentError,
    NoDeviceError,
    OutOfMemoryError,
    ParacError,
    ParacIOError,
    ParseError,
    UnsupportedError,
)
from ._cluster import DBSCAN, Birch, dbscan
from . import metrics
from ._fca import Concepts, Rules, association_rules, concepts, implications, lattice
from ._fca_stream import iter_concepts, iter_edges
from ._ac import arc_consistency
from ._gemm import matmul
from ._devices import built_with_cuda, cuda_available, cuda_devices

__version__ = _parac.version()


def version():
    """The version of the loaded C library (the same as __version__)."""
    return _parac.version()


__all__ = [
    "DBSCAN",
    "Birch",
    "dbscan",
    "matmul",
    "concepts",
    "lattice",
    "iter_concepts",
    "iter_edges",
    "Concepts",
    "implications",
    "association_rules",
    "Rules",
    "arc_consistency",
    "metrics",
    "version",
    "built_with_cuda",
    "cuda_available",
    "cuda_devices",
    "ParacError",
    "InvalidArgumentError",
    "ParacIOError",
    "ParseError",
    "UnsupportedError",
    "OutOfMemoryError",
    "NoDeviceError",
    "DeviceError",
    "InternalError",
    "CancelledError",
]
