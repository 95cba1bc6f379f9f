"""parac.metrics against sklearn.metrics on random inputs (agreement to 1e-12)."""
import numpy as np
import pytest
from sklearn import metrics as skm

import parac
import parac.metrics as pm
from conftest import blobs, requires_cuda


def close(ours, reference):
    """Within 1e-12, relative to the score when it exceeds 1: Davies-Bouldin grows as large as
    1/(distance of two centroids), which random labels make tiny, and the two summation orders then
    differ by that factor (seen: 146.59231824205 with a difference of 2e-11, 1.5e-13 relative)."""
    return abs(ours - reference) <= 1e-12 * max(1.0, abs(reference))


@pytest.mark.parametrize("seed", range(6))
def test_pair_metrics_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    truth = rng.integers(-1, int(rng.integers(1, 12)), size=n)
    pred = rng.integers(0, int(rng.integers(1, 12)), size=n)
    assert abs(pm.adjusted_rand_score(truth, pred) - skm.adjusted_rand_score(truth, pred)) <= 1e-12
    assert abs(pm.normalized_mutual_info_score(truth, pred) - skm.normalized_mutual_info_score(truth, pred)) <= 1e-12


def test_pair_metrics_special_cases_and_any_label_values():
    same = ["a", "b", "b", "c"]
    assert pm.adjusted_rand_score(same, [7, 3, 3, 9]) == pytest.approx(1.0, abs=1e-12)
    for truth, pred in [([0, 0, 0], [1, 1, 1]), ([0, 1, 2], [0, 0, 0]), ([5], [5])]:
        assert abs(pm.adjusted_rand_score(truth, pred) - skm.adjusted_rand_score(truth, pred)) <= 1e-12
        assert abs(pm.normalized_mutual_info_score(truth, pred)
                   - skm.normalized_mutual_info_score(truth, pred)) <= 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_spatial_metrics_match_sklearn(seed):
    rng = np.random.default_rng(100 + seed)
    X = blobs(seed, int(rng.integers(20, 300)), 4, int(rng.integers(1, 6)), 1.5)
    labels = rng.integers(0, int(rng.integers(2, 6)), size=X.shape[0])
    assert abs(pm.silhouette_score(X, labels, device="cpu") - skm.silhouette_score(X, labels)) <= 1e-12
    assert close(pm.davies_bouldin_score(X, labels), skm.davies_bouldin_score(X, labels))
    # float32 and list input are converted once to float64
    assert pm.silhouette_score(X.tolist(), labels.tolist(), device="cpu") == pm.silhouette_score(X, labels)


def test_silhouette_sample_is_reproducible():
    X = blobs(3, 500, 3, 2, 1.0)
    labels = np.arange(500) % 3
    a = pm.silhouette_score(X, labels, sample_size=100, random_state=5, device="cpu")
    assert a == pm.silhouette_score(X, labels, sample_size=100, random_state=5, device="cpu", n_jobs=1)
    assert -1.0 <= a <= 1.0


def test_bad_arguments_raise():
    X = blobs(0, 10, 2, 2, 1.0)
    with pytest.raises(ValueError):
        pm.adjusted_rand_score([0, 1], [0, 1, 2])
    with pytest.raises(ValueError):
        pm.silhouette_score(X, np.zeros(10))  # one cluster
    with pytest.raises(ValueError):
        pm.silhouette_score(X, np.arange(9))  # length mismatch
    with pytest.raises(ValueError):
        pm.davies_bouldin_score(X[:, 0], np.zeros(10))  # 1-D X
    with pytest.raises(ValueError):
        pm.silhouette_score(np.where(np.eye(10, 2) > 0, np.nan, X), np.arange(10) % 2)
    with pytest.raises(ValueError):
        pm.silhouette_score(X, np.arange(10) % 2, metric="cosine")
    with pytest.raises(TypeError):
        parac._parac.adjusted_rand(np.zeros(3, np.float64), np.zeros(3, np.int32))
    with pytest.raises(parac.InvalidArgumentError):
        parac._parac.davies_bouldin(np.zeros((0, 2)), np.zeros(0, np.int32))


@requires_cuda
def test_silhouette_cuda_matches_cpu():
    X = blobs(1, 3000, 4, 3, 1.0)
    labels = np.arange(3000) % 4
    assert pm.silhouette_score(X, labels, device="cuda") == pm.silhouette_score(X, labels, device="cpu")
