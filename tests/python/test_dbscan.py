"""parac.DBSCAN against scikit-learn's DBSCAN on the same inputs."""
import numpy as np
import pytest
from sklearn.cluster import DBSCAN as SkDBSCAN

import parac
from parac import _parac
from conftest import blobs, requires_cuda

CASES = [
    # name, points, eps, min_samples
    ("blobs 2-D", blobs(1, 3000, 5, 2, 0.7), 0.3, 8),
    ("blobs 3-D", blobs(2, 4000, 6, 3, 1.0), 0.5, 10),
    ("blobs 5-D", blobs(3, 2000, 3, 5, 1.0), 1.2, 5),
    ("blobs 12-D (brute force)", blobs(4, 1500, 3, 12, 1.0), 3.5, 5),
    ("uniform 2-D", np.random.default_rng(5).uniform(size=(3000, 2)), 0.02, 4),
    ("min_samples 1", blobs(6, 500, 3, 2, 1.0), 0.2, 1),
]


def sklearn_fit(X, eps, min_samples):
    return SkDBSCAN(eps=eps, min_samples=min_samples).fit(X)


def assert_same_partition(a, b):
    """a and b split the points the same way: a one-to-one map between their cluster ids."""
    pairs = np.unique(np.stack([a, b]), axis=1)
    assert len(np.unique(pairs[0])) == pairs.shape[1] and len(np.unique(pairs[1])) == pairs.shape[1], \
        "the clusterings differ"


def assert_matches_sklearn(ours, theirs):
    """Core points identical, noise identical, clusters of the core points identical. Border points
    may go to another adjacent cluster (parac: the lowest-index core neighbour's; scikit-learn: the
    first cluster to reach them), which can also change the numbering: parac numbers clusters by
    their lowest point, border points included, scikit-learn by its first core point."""
    np.testing.assert_array_equal(ours.core_sample_indices_, theirs.core_sample_indices_)
    np.testing.assert_array_equal(ours.labels_ == -1, theirs.labels_ == -1)
    core = ours.core_sample_indices_
    assert_same_partition(ours.labels_[core], theirs.labels_[core])
    np.testing.assert_array_equal(ours.components_, theirs.components_)
    assert len(set(ours.labels_.tolist())) == len(set(theirs.labels_.tolist()))


@pytest.mark.parametrize("name, X, eps, min_samples", CASES, ids=[case[0] for case in CASES])
def test_matches_sklearn(name, X, eps, min_samples):
    ours = parac.DBSCAN(eps=eps, min_samples=min_samples, device="cpu").fit(X)
    theirs = sklearn_fit(X, eps, min_samples)
    assert len(set(ours.labels_.tolist()) - {-1}) > 0 or name == "uniform 2-D"
    assert_matches_sklearn(ours, theirs)


def test_partition_check_fails_on_a_different_partition():
    with pytest.raises(AssertionError):
        assert_same_partition(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))
    assert_same_partition(np.array([0, 0, 1, 1]), np.array([5, 5, 2, 2]))


def test_labels_identical_without_shared_borders(small_blobs):
    """Separated blobs have no border point between two clusters: every label is scikit-learn's."""
    ours = parac.DBSCAN(eps=0.6, min_samples=5).fit_predict(small_blobs)
    theirs = SkDBSCAN(eps=0.6, min_samples=5).fit_predict(small_blobs)
    np.testing.assert_array_equal(ours, theirs)


def test_float32_is_widened_points(small_blobs):
    X32 = small_blobs.astype(np.float32)
    ours = parac.DBSCAN(eps=0.5, min_samples=6).fit(X32)
    theirs = sklearn_fit(X32.astype(np.float64), 0.5, 6)
    assert ours.components_.dtype == np.float32
    assert_matches_sklearn(ours, theirs)


def test_non_contiguous_and_integer_input(small_blobs):
    """Fortran order, strided views and integer arrays are converted once, with the same answer."""
    expected = parac.DBSCAN(eps=0.5).fit_predict(small_blobs)
    np.testing.assert_array_equal(parac.DBSCAN(eps=0.5).fit_predict(np.asfortranarray(small_blobs)), expected)
    wide = np.repeat(small_blobs, 2, axis=1)
    np.testing.assert_array_equal(parac.DBSCAN(eps=0.5).fit_predict(wide[:, ::2]), expected)
    grid = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [10, 10]])
    np.testing.assert_array_equal(parac.DBSCAN(eps=1.0, min_samples=3).fit_predict(grid), [0, 0, 0, 0, -1])


def test_same_labels_for_every_thread_count(small_blobs):
    reference = parac.DBSCAN(eps=0.4, min_samples=4, n_jobs=1).fit_predict(small_blobs)
    for n_jobs in (2, 3, None, -1):
        np.testing.assert_array_equal(parac.DBSCAN(eps=0.4, min_samples=4, n_jobs=n_jobs).fit_predict(small_blobs),
                                      reference)


def test_function_form(small_blobs):
    core, labels = parac.dbscan(small_blobs, eps=0.5, min_samples=5)
    model = parac.DBSCAN(eps=0.5, min_samples=5).fit(small_blobs)
    np.testing.assert_array_equal(core, model.core_sample_indices_)
    np.testing.assert_array_equal(labels, model.labels_)


def test_function_form_validates_parameters(small_blobs):
    with pytest.raises(ValueError, match="The 'eps' parameter of DBSCAN"):
        parac.dbscan(small_blobs, eps=-0.5)
    with pytest.raises(ValueError, match="The 'device' parameter of DBSCAN"):
        parac.dbscan(small_blobs, device="tpu")


def test_empty_core_and_single_point():
    model = parac.DBSCAN(eps=0.1, min_samples=2).fit(np.array([[0.0, 0.0], [5.0, 5.0]]))
    np.testing.assert_array_equal(model.labels_, [-1, -1])
    assert model.core_sample_indices_.shape == (0,)
    assert model.components_.shape == (0, 2)
    np.testing.assert_array_equal(parac.DBSCAN(min_samples=1).fit_predict([[1.0, 2.0]]), [0])


@pytest.mark.parametrize("params, message", [
    (dict(eps=0.0), "The 'eps' parameter of DBSCAN must be a float in the range (0.0, inf)"),
    (dict(eps=-1.0), "The 'eps' parameter"),
    (dict(min_samples=0), "The 'min_samples' parameter"),
    (dict(metric="manhattan"), "The 'metric' parameter"),
    (dict(device="tpu"), "The 'device' parameter"),
])
def test_bad_parameters_raise_value_error(small_blobs, params, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parac.DBSCAN(**params).fit(small_blobs)


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="NaN"):
        parac.DBSCAN().fit([[0.0, 1.0], [np.nan, 2.0]])
    with pytest.raises(ValueError, match="infinity"):
        parac.DBSCAN().fit([[0.0, 1.0], [np.inf, 2.0]])
    with pytest.raises(ValueError, match="Expected 2D array"):
        parac.DBSCAN().fit(np.zeros(5))
    with pytest.raises(ValueError, match="0 sample"):
        parac.DBSCAN().fit(np.zeros((0, 2)))


@pytest.mark.skipif(parac.cuda_available(), reason="checks the error raised without a GPU")
def test_cuda_without_gpu_raises_no_device(small_blobs):
    with pytest.raises(parac.NoDeviceError):
        parac.DBSCAN(device="cuda").fit(small_blobs)
    assert issubclass(parac.NoDeviceError, parac.ParacError)


@requires_cuda
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cuda_same_bytes_as_cpu(dtype):
    X = blobs(7, 20000, 8, 3, 1.0).astype(dtype)
    cpu = parac.DBSCAN(eps=0.3, min_samples=6, device="cpu").fit(X)
    gpu = parac.DBSCAN(eps=0.3, min_samples=6, device="cuda").fit(X)
    assert gpu._run_info["device"] == "cuda"
    np.testing.assert_array_equal(gpu.labels_, cpu.labels_)
    np.testing.assert_array_equal(gpu.core_sample_indices_, cpu.core_sample_indices_)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_core_samples_gathers_the_masked_rows_in_order(dtype):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(500, 3)).astype(dtype)
    mask = (rng.random(500) < 0.4).astype(np.uint8)
    k = int(mask.sum())
    indices, rows = np.empty(k, dtype=np.intp), np.empty((k, 3), dtype=dtype)
    _parac.core_samples(X, mask, indices, rows)
    assert np.array_equal(indices, np.flatnonzero(mask))
    assert np.array_equal(rows, X[np.flatnonzero(mask)])


def test_core_samples_refuses_outputs_of_the_wrong_size():
    X = np.zeros((10, 2))
    mask = np.ones(10, dtype=np.uint8)
    with pytest.raises(ValueError):
        _parac.core_samples(X, mask, np.empty(9, dtype=np.intp), np.empty((9, 2)))
    with pytest.raises(ValueError):
        _parac.core_samples(X, mask, np.empty(11, dtype=np.intp), np.empty((11, 2)))
