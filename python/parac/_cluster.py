"""scikit-learn-compatible clustering estimators over parac's C library: DBSCAN and Birch.

They validate input and parameters the way scikit-learn does (same messages), allocate the
result arrays and hand them to the extension as writable buffers; the computation runs in C
without the GIL (CPU threads, or the GPU with device="cuda"/"auto").
"""
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.cluster import AgglomerativeClustering
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _parac
from ._common import DEVICES, c_float_matrix, threads_for


def dbscan(X, eps=0.5, *, min_samples=5, device="auto", n_jobs=None, progress=None):
    """DBSCAN of X (n_samples x n_features) like sklearn.cluster.dbscan.

    Returns (core_sample_indices, labels). progress(done, total), if given, is called now and then
    from a worker thread (with the GIL); returning True stops the run with parac.CancelledError.
    """
    model = DBSCAN(eps=eps, min_samples=min_samples, device=device, n_jobs=n_jobs)
    model._validate_params()  # what fit's _fit_context does, with scikit-learn's messages
    model._fit(X, progress)
    return model.core_sample_indices_, model.labels_


class DBSCAN(ClusterMixin, BaseEstimator):
    """Exact DBSCAN (scikit-learn's semantics) on CPU threads or the GPU.

    Parameters
    ----------
    eps : float > 0, default 0.5
        Neighbourhood radius; a point at distance exactly eps is a neighbour.
    min_samples : int >= 1, default 5
        Neighbours (the point itself included) that make a point a core point.
    metric : "euclidean"
        The only metric parac computes.
    device : "auto", "cpu" or "cuda", default "auto"
        "auto" runs on the GPU when this build has CUDA and a GPU is usable.
    n_jobs : int or None
        CPU threads: None or -1 = all cores, k = k threads, -k = all but k - 1.

    Attributes
    ----------
    core_sample_indices_ : ndarray of shape (n_core,)
    components_ : ndarray of shape (n_core, n_features), the core samples
    labels_ : ndarray of shape (n_samples,), cluster ids 0, 1, ... (numbered by each cluster's
        lowest point index) and -1 for noise.

    Core samples and the clusters of core samples are scikit-learn's exactly. A border point
    reachable from two clusters goes to the cluster of its lowest-index core neighbour (scikit-learn:
    whichever cluster reached it first), so every device and thread count gives the same labels.
    """

    _parameter_constraints = {
        "eps": [Interval(Real, 0.0, None, closed="neither")],
        "min_samples": [Interval(Integral, 1, None, closed="left")],
        "metric": [StrOptions({"euclidean"})],
        "device": [StrOptions(set(DEVICES))],
        "n_jobs": [Integral, None],
    }

    def __init__(self, eps=0.5, *, min_samples=5, metric="euclidean", device="auto", n_jobs=None):
        self.eps = eps
        self.min_samples = min_samples
        self.metric = metric
        self.device = device
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Clusters X (n_samples x n_features, float64 or float32). y is ignored. Returns self."""
        return self._fit(X, None)

    def _fit(self, X, progress):
        X = validate_data(self, X, dtype=[np.float64, np.float32], order="C")
        n = X.shape[0]
        labels = np.empty(n, dtype=np.int32)
        core_mask = np.zeros(n, dtype=np.uint8)
        self._run_info = _parac.dbscan(X, float(self.eps), int(self.min_samples), labels, core_mask,
                                       device=self.device, threads=threads_for(self.n_jobs), progress=progress)
        # One pass in C (numpy's flatnonzero + fancy indexing took longer than a GPU fit of 10^6 points).
        core_count = self._run_info["core"]
        self.core_sample_indices_ = np.empty(core_count, dtype=np.intp)
        self.components_ = np.empty((core_count, X.shape[1]), dtype=X.dtype)
        _parac.core_samples(X, core_mask, self.core_sample_indices_, self.components_)
        self.labels_ = labels.astype(np.intp)
        return self

    def fit_predict(self, X, y=None):
        """fit(X) and return labels_."""
        return self.fit(X).labels_


class Birch(ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin, BaseEstimator):
    """BIRCH (scikit-learn's Birch: same CF tree, same order) on CPU threads or the GPU.

    Parameters
    ----------
    threshold : float > 0, default 0.5
    branching_factor : int > 1, default 50
    n_clusters : int, None or a scikit-learn clusterer, default 3
        int: Ward clustering of the subclusters (in C); None: every subcluster is a cluster; a
        clusterer: its fit_predict on subcluster_centers_ (as scikit-learn does).
    compute_labels : bool, default True
    copy : bool, default True
        Accepted for code written for older scikit-learn; parac never writes to X.
    device : "auto", "cpu" or "cuda", default "auto"
    n_jobs : int or None
        CPU threads, as in parac.DBSCAN.
    batch_size : "auto" or int >= 0, default "auto"
        0 inserts the points one by one (on the CPU). B > 0 lets windows of B points descend the
        tree in parallel and validates each against the serial order: the same tree, byte for byte,
        as 0 (docs/birch.md). "auto": parac's default window.

    Attributes
    ----------
    subcluster_centers_, subcluster_labels_, labels_, n_features_in_ : as scikit-learn's.
    The CF tree itself (scikit-learn's root_ and dummy_leaf_) stays in C.

    Pickling (and copy.deepcopy) keeps the learned attributes, so predict and transform work on
    the copy; the CF tree does not travel, so partial_fit on a copy raises ValueError.
    """

    _parameter_constraints = {
        "threshold": [Interval(Real, 0.0, None, closed="neither")],
        "branching_factor": [Interval(Integral, 1, None, closed="neither")],
        "n_clusters": [None, ClusterMixin, HasMethods("fit_predict"), Interval(Integral, 1, None, closed="left")],
        "compute_labels": ["boolean"],
        "copy": ["boolean"],
        "device": [StrOptions(set(DEVICES))],
        "n_jobs": [Integral, None],
        "batch_size": [StrOptions({"auto"}), Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, *, threshold=0.5, branching_factor=50, n_clusters=3, compute_labels=True, copy=True,
                 device="auto", n_jobs=None, batch_size="auto"):
        self.threshold = threshold
        self.branching_factor = branching_factor
        self.n_clusters = n_clusters
        self.compute_labels = compute_labels
        self.copy = copy
        self.device = device
        self.n_jobs = n_jobs
        self.batch_size = batch_size

    # --- fitting -------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Builds a new CF tree from X, then the global clustering. Returns self."""
        self._model = None
        return self._fit(X, partial=False)

    @_fit_context(prefer_skip_nested_validation=False)
    def partial_fit(self, X=None, y=None):
        """Inserts X into the CF tree (created by the first call); X=None only redoes the
        global clustering. Returns self."""
        if X is None:
            check_is_fitted(self)
            self._global_clustering()
            return self
        return self._fit(X, partial=True)

    def _fit(self, X, partial):
        continuing = partial and hasattr(self, "subcluster_centers_")
        if continuing and getattr(self, "_model", None) is None:
            raise ValueError("this Birch was copied or unpickled: its CF tree stayed with the original, so "
                             "partial_fit cannot continue it (predict and transform still work)")
        X = validate_data(self, X, reset=not continuing, dtype=[np.float64, np.float32])
        if not continuing:
            self._model = self._new_model(X.shape[1])
        self._model.partial_fit(c_float_matrix(X, allow_float32=False))
        self._model.global_step()
        self._read_subclusters()
        self._global_clustering(X)
        return self

    def _new_model(self, dims):
        n_clusters = self.n_clusters if isinstance(self.n_clusters, Integral) else 0
        batch = None if self.batch_size == "auto" else int(self.batch_size)
        options = dict(threshold=float(self.threshold), branching_factor=int(self.branching_factor),
                       n_clusters=int(n_clusters), device=self.device, threads=threads_for(self.n_jobs))
        if batch is not None:
            options["batch_size"] = batch
        self._model_n_clusters = n_clusters
        return _parac.BirchModel(dims, **options)

    def _read_subclusters(self):
        model = self._model
        count = model.subcluster_count
        centers = np.empty((count, model.dims), dtype=np.float64)
        cluster = np.empty(count, dtype=np.int32)
        model.subclusters(centers, None, cluster)
        self.subcluster_centers_ = centers
        self._subcluster_cluster = cluster.astype(np.intp)
        self._n_features_out = count

    def _global_clustering(self, X=None):
        clusterer = self.n_clusters
        centers = self.subcluster_centers_
        count = len(centers)
        if clusterer is None:
            self.subcluster_labels_ = np.arange(count)
        elif isinstance(clusterer, Integral):
            if count < clusterer:
                self.subcluster_labels_ = np.arange(count)
                warnings.warn("Number of subclusters found (%d) by BIRCH is less than (%d). Decrease the threshold."
                              % (count, clusterer), ConvergenceWarning)
            elif getattr(self, "_model_n_clusters", None) == clusterer and hasattr(self, "_subcluster_cluster"):
                self.subcluster_labels_ = self._subcluster_cluster  # parac's Ward step, in C
            else:  # n_clusters changed since the tree was built (set_params): the same Ward step
                self.subcluster_labels_ = AgglomerativeClustering(n_clusters=clusterer).fit_predict(centers)
        else:
            self.subcluster_labels_ = clusterer.fit_predict(centers)
        if X is not None and self.compute_labels:
            self.labels_ = self._predict(X)

    # --- using the model -----------------------------------------------------------------

    def predict(self, X):
        """Label of the nearest subcluster centre of each row of X."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        return self._predict(X)

    def _nearest_subcluster(self, X):
        X = c_float_matrix(X, allow_float32=False)
        model = getattr(self, "_model", None)
        if model is not None and model.subcluster_count == len(self.subcluster_centers_):
            nearest = np.empty(X.shape[0], dtype=np.int32)
            model.predict(X, None, nearest)
            return nearest
        # A copied or unpickled estimator: the same rule (squared distance, first on ties) in numpy.
        centers = self.subcluster_centers_
        nearest = np.empty(X.shape[0], dtype=np.intp)
        rows = max(1, 4_000_000 // max(1, centers.size))  # about 32 MB of differences at a time
        for start in range(0, X.shape[0], rows):
            block = X[start:start + rows]
            distances = ((block[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
            nearest[start:start + rows] = np.argmin(distances, axis=1)
        return nearest

    def _predict(self, X):
        return np.asarray(self.subcluster_labels_)[self._nearest_subcluster(X)]

    def transform(self, X):
        """Euclidean distance of each row of X to each subcluster centre (n_samples x n_subclusters)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        return euclidean_distances(X, self.subcluster_centers_)

    def fit_predict(self, X, y=None):
        """fit(X) and return labels_ (computed even when compute_labels is False)."""
        self.fit(X)
        return self.labels_ if self.compute_labels else self._predict(X)

    # --- copies --------------------------------------------------------------------------

    def __getstate__(self):
        state = super().__getstate__()
        state = dict(state)
        state["_model"] = None  # the C handle cannot be copied; see the class docstring
        return state
