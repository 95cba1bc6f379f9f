"""Clustering metrics computed by parac's C library, with scikit-learn's definitions and special cases
(sklearn.metrics.adjusted_rand_score, normalized_mutual_info_score with the arithmetic mean,
silhouette_score and davies_bouldin_score agree to 1e-12). Labels may be any values numpy can sort
(ints, strings...); -1 is an ordinary cluster name, as in scikit-learn. Every call releases the GIL.
"""
import numpy as np

from . import _parac
from ._common import DEVICES, threads_for


def _cluster_ids(labels, what):
    """Any 1-D labelling as int32 cluster ids 0..k-1 (the order of np.unique)."""
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {labels.shape}")
    _, ids = np.unique(labels, return_inverse=True)
    return np.ascontiguousarray(ids.reshape(-1), dtype=np.int32)


def _label_pair(labels_true, labels_pred):
    labels_true = _cluster_ids(labels_true, "labels_true")
    labels_pred = _cluster_ids(labels_pred, "labels_pred")
    if labels_true.shape != labels_pred.shape:
        raise ValueError(f"labels_true and labels_pred have different lengths: "
                         f"{labels_true.shape[0]} and {labels_pred.shape[0]}")
    return labels_true, labels_pred


def _points_and_labels(X, labels):
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    if not np.issubdtype(X.dtype, np.number) or np.iscomplexobj(X):
        raise TypeError(f"X must hold real numbers, got dtype {X.dtype}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    labels = _cluster_ids(labels, "labels")
    if labels.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but labels has {labels.shape[0]}")
    return X, labels


def adjusted_rand_score(labels_true, labels_pred):
    """Adjusted Rand index (1.0 = the same partition), like sklearn.metrics.adjusted_rand_score."""
    if len(labels_true) == 0 and len(labels_pred) == 0:
        return 1.0  # scikit-learn's convention for two empty labellings
    return _parac.adjusted_rand(*_label_pair(labels_true, labels_pred))


def normalized_mutual_info_score(labels_true, labels_pred, *, average_method="arithmetic"):
    """Normalized mutual information with the arithmetic-mean normalisation (scikit-learn's default)."""
    if average_method != "arithmetic":
        raise ValueError(f"parac computes average_method='arithmetic' only, got {average_method!r}")
    if len(labels_true) == 0 and len(labels_pred) == 0:
        return 1.0
    return _parac.normalized_mutual_info(*_label_pair(labels_true, labels_pred))


def silhouette_score(X, labels, *, metric="euclidean", sample_size=None, random_state=None, device="auto",
                     n_jobs=None):
    """Mean silhouette coefficient (Euclidean), exact, on CPU threads or the GPU.

    sample_size scores a random subset drawn by parac's own generator from random_state (an int):
    the same seed gives the same subset on every machine, but not scikit-learn's subset.
    """
    if metric != "euclidean":
        raise ValueError(f"parac computes metric='euclidean' only, got {metric!r}")
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if sample_size is not None and (not isinstance(sample_size, (int, np.integer)) or sample_size < 1):
        raise ValueError(f"sample_size must be a positive int or None, got {sample_size!r}")
    if random_state is not None and not isinstance(random_state, (int, np.integer)):
        raise TypeError("random_state must be an int or None (parac draws the sample itself)")
    X, labels = _points_and_labels(X, labels)
    return _parac.silhouette(X, labels, sample=int(sample_size or 0), seed=int(random_state or 0), device=device,
                             threads=threads_for(n_jobs))


def davies_bouldin_score(X, labels, *, n_jobs=None):
    """Davies-Bouldin index (lower is better), like sklearn.metrics.davies_bouldin_score."""
    X, labels = _points_and_labels(X, labels)
    return _parac.davies_bouldin(X, labels, threads=threads_for(n_jobs))


__all__ = ["adjusted_rand_score", "normalized_mutual_info_score", "silhouette_score", "davies_bouldin_score"]
