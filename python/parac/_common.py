"""Helpers the estimators share: device and n_jobs arguments, arrays for the extension."""
import os

import numpy as np

DEVICES = ("auto", "cpu", "cuda")


def threads_for(n_jobs):
    """parac's thread count for scikit-learn's n_jobs: None or -1 = all cores (parac's default,
    unlike scikit-learn's None = 1: the point of parac is its parallel paths), k > 0 = k threads,
    -k = all cores but k - 1 (joblib's convention)."""
    if n_jobs is None or n_jobs == -1:
        return 0
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning: use None, a positive count or a negative one")
    if n_jobs > 0:
        return int(n_jobs)
    return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))


def c_float_matrix(X, allow_float32=True):
    """X as a C-contiguous float64 (or float32) array: no copy when it already is one."""
    dtype = X.dtype if allow_float32 and X.dtype in (np.float32, np.float64) else np.float64
    return np.ascontiguousarray(X, dtype=dtype)
