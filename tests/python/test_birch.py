"""parac.Birch against scikit-learn's Birch on the same inputs."""
import pickle
import warnings

import numpy as np
import pytest
from sklearn.cluster import Birch as SkBirch
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

import parac
from conftest import blobs, requires_cuda


def sorted_rows(centers):
    """Subclusters as a set: on a node split scikit-learn's farthest pair comes from a distance
    matrix that is not symmetric in rounding, so which half comes first is a last-bit coin flip
    (tests/birch/test_sklearn.py); the subclusters themselves are the same."""
    return centers[np.lexsort(centers.T[::-1])]


def assert_same_subclusters(ours, theirs, X):
    assert len(ours.subcluster_centers_) == len(theirs.subcluster_centers_)
    np.testing.assert_allclose(sorted_rows(ours.subcluster_centers_), sorted_rows(theirs.subcluster_centers_),
                               rtol=1e-9, atol=1e-9 * (1 + np.abs(X).max()))


CASES = [
    # name, points, threshold, branching_factor, n_clusters
    ("small blobs", blobs(10, 300, 3, 2, 1.0), 0.5, 50, 3),
    ("deep tree", blobs(11, 2000, 5, 2, 1.0), 0.4, 3, 5),
    ("5-D, no global step", blobs(12, 3000, 4, 5, 1.0), 1.0, 10, None),
    ("uniform 3-D", np.random.default_rng(13).uniform(size=(4000, 3)), 0.1, 20, 8),
]


@pytest.mark.parametrize("batch_size", [0, "auto", 64])
@pytest.mark.parametrize("name, X, threshold, branching, n_clusters", CASES, ids=[case[0] for case in CASES])
def test_matches_sklearn(name, X, threshold, branching, n_clusters, batch_size):
    params = dict(threshold=threshold, branching_factor=branching, n_clusters=n_clusters)
    ours = parac.Birch(**params, batch_size=batch_size, device="cpu").fit(X)
    theirs = SkBirch(**params).fit(X)
    assert_same_subclusters(ours, theirs, X)
    assert adjusted_rand_score(ours.labels_, theirs.labels_) == 1.0
    np.testing.assert_array_equal(ours.predict(X), ours.labels_)
    if n_clusters is not None:
        assert len(np.unique(ours.subcluster_labels_)) == n_clusters


def test_batched_tree_is_the_serial_tree():
    X = blobs(14, 5000, 6, 2, 1.0)
    serial = parac.Birch(threshold=0.3, batch_size=0).fit(X)
    for batch_size in (1, 100, "auto"):
        batched = parac.Birch(threshold=0.3, batch_size=batch_size, n_jobs=3).fit(X)
        np.testing.assert_array_equal(batched.subcluster_centers_, serial.subcluster_centers_)
        np.testing.assert_array_equal(batched.labels_, serial.labels_)


def test_partial_fit_streams_like_fit():
    X = blobs(15, 3000, 4, 3, 1.0)
    whole = parac.Birch(threshold=0.5, n_clusters=4).fit(X)
    streamed = parac.Birch(threshold=0.5, n_clusters=4)
    for chunk in np.array_split(X, 7):
        streamed.partial_fit(chunk)
    np.testing.assert_array_equal(streamed.subcluster_centers_, whole.subcluster_centers_)
    np.testing.assert_array_equal(streamed.predict(X), whole.labels_)
    theirs = SkBirch(threshold=0.5, n_clusters=4)
    for chunk in np.array_split(X, 7):
        theirs.partial_fit(chunk)
    assert_same_subclusters(streamed, theirs, X)
    # partial_fit() without X only redoes the global step, here with another n_clusters.
    streamed.set_params(n_clusters=2).partial_fit()
    assert len(np.unique(streamed.subcluster_labels_)) == 2


def test_n_clusters_estimator_and_none():
    X = blobs(16, 1500, 3, 2, 0.5)
    kmeans = KMeans(n_clusters=3, n_init=3, random_state=0)
    ours = parac.Birch(n_clusters=kmeans).fit(X)
    theirs = SkBirch(n_clusters=KMeans(n_clusters=3, n_init=3, random_state=0)).fit(X)
    assert_same_subclusters(ours, theirs, X)
    assert len(np.unique(ours.labels_)) == 3
    none = parac.Birch(n_clusters=None).fit(X)
    np.testing.assert_array_equal(none.subcluster_labels_, np.arange(len(none.subcluster_centers_)))


def test_too_few_subclusters_warns_like_sklearn():
    X = blobs(17, 200, 2, 2, 0.1)
    with pytest.warns(ConvergenceWarning, match="Number of subclusters found"):
        ours = parac.Birch(threshold=2.0, n_clusters=10).fit(X)
    np.testing.assert_array_equal(ours.subcluster_labels_, np.arange(len(ours.subcluster_centers_)))


def test_transform_and_predict_follow_nearest_centre(small_blobs):
    model = parac.Birch(threshold=0.4, n_clusters=4).fit(small_blobs)
    distances = model.transform(small_blobs)
    assert distances.shape == (len(small_blobs), len(model.subcluster_centers_))
    nearest = np.argmin(distances, axis=1)
    agree = model.subcluster_labels_[nearest] == model.predict(small_blobs)
    assert agree.mean() > 0.999  # the transform's dot-product distances may break near-ties otherwise
    np.testing.assert_array_equal(model.fit_predict(small_blobs), model.labels_)


def test_compute_labels_false(small_blobs):
    model = parac.Birch(compute_labels=False).fit(small_blobs)
    assert not hasattr(model, "labels_")
    assert model.predict(small_blobs).shape == (len(small_blobs),)


def test_pickle_keeps_predictions_and_refuses_partial_fit(small_blobs):
    model = parac.Birch(threshold=0.4, n_clusters=4).fit(small_blobs)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict(small_blobs), model.predict(small_blobs))
    np.testing.assert_array_equal(copy.subcluster_centers_, model.subcluster_centers_)
    with pytest.raises(ValueError, match="CF tree"):
        copy.partial_fit(small_blobs)
    copy.fit(small_blobs)  # a new fit starts a new tree
    np.testing.assert_array_equal(copy.labels_, model.labels_)
    model.partial_fit(small_blobs[:10])  # the original still continues


@pytest.mark.parametrize("params, message", [
    (dict(threshold=0.0), "The 'threshold' parameter of Birch"),
    (dict(branching_factor=1), "The 'branching_factor' parameter of Birch"),
    (dict(n_clusters=0), "The 'n_clusters' parameter of Birch"),
    (dict(n_clusters="three"), "The 'n_clusters' parameter of Birch"),
    (dict(device="gpu"), "The 'device' parameter of Birch"),
    (dict(batch_size=-1), "The 'batch_size' parameter of Birch"),
])
def test_bad_parameters_raise_value_error(small_blobs, params, message):
    with pytest.raises(ValueError, match=message):
        parac.Birch(**params).fit(small_blobs)


def test_bad_input_raises_value_error(small_blobs):
    with pytest.raises(ValueError, match="NaN"):
        parac.Birch().fit([[0.0, 1.0], [np.nan, 2.0]])
    model = parac.Birch().fit(small_blobs)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(np.zeros((3, 5)))


@requires_cuda
def test_cuda_same_tree_as_cpu():
    X = blobs(18, 50000, 10, 2, 1.0)
    cpu = parac.Birch(threshold=0.2, n_clusters=10, device="cpu").fit(X)
    gpu = parac.Birch(threshold=0.2, n_clusters=10, device="cuda").fit(X)
    assert gpu._model.device == "cuda"
    np.testing.assert_array_equal(gpu.subcluster_centers_, cpu.subcluster_centers_)
    np.testing.assert_array_equal(gpu.labels_, cpu.labels_)


@pytest.mark.skipif(parac.cuda_available(), reason="checks the error raised without a GPU")
def test_cuda_without_gpu_raises_no_device(small_blobs):
    with pytest.raises(parac.NoDeviceError):
        parac.Birch(device="cuda").fit(small_blobs)
