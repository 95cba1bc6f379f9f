#!/usr/bin/env python3
"""tests/metrics/test_sklearn.py — parac metrics against scikit-learn's scores."""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from sklearn import metrics
except ImportError:
    sys.exit(77)

PARAC = os.environ.get("PARAC", "parac")
failures = []


def parac_scores(tmp, labels, truth=None, data=None, extra=()):
    labels_path = os.path.join(tmp, "labels.npy")
    np.save(labels_path, labels.astype(np.int32))
    args = [PARAC, "metrics", "--labels", labels_path, *extra]
    if truth is not None:
        np.save(os.path.join(tmp, "truth.npy"), truth.astype(np.int64))
        args += ["--truth", os.path.join(tmp, "truth.npy")]
    if data is not None:
        np.save(os.path.join(tmp, "data.npy"), data)
        args += ["--data", os.path.join(tmp, "data.npy")]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return {line.split()[0]: float(line.split()[1]) for line in out.splitlines()}


def close(name, ours, theirs, tolerance=1e-9):
    if abs(ours - theirs) > tolerance * max(1.0, abs(theirs)):
        failures.append(f"{name}: parac {ours!r} vs sklearn {theirs!r}")
    else:
        print(f"ok {name}: {ours:.10g}")


def main():
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        for case, (n, k1, k2) in enumerate([(500, 3, 4), (2000, 10, 7), (50, 2, 2), (300, 1, 5), (400, 40, 3)]):
            truth = rng.integers(0, k2, n)
            labels = np.where(rng.random(n) < 0.7, truth % k1 if k1 > 1 else 0, rng.integers(-1, k1, n))
            got = parac_scores(tmp, labels, truth)
            close(f"ari-{case}", got["ari"], metrics.adjusted_rand_score(truth, labels))
            close(f"nmi-{case}", got["nmi"], metrics.normalized_mutual_info_score(truth, labels))
        same = rng.integers(0, 5, 300)
        got = parac_scores(tmp, same, same)
        close("ari-identical", got["ari"], 1.0)
        close("nmi-identical", got["nmi"], 1.0)
        for case, (n, d, k) in enumerate([(400, 2, 3), (900, 5, 6), (150, 16, 2)]):
            data = rng.normal(size=(n, d)) + np.repeat(rng.normal(scale=4, size=(k, d)), n // k + 1, axis=0)[:n]
            labels = np.repeat(np.arange(k), n // k + 1)[:n]
            labels[::17] = -1
            got = parac_scores(tmp, labels, data=data)
            close(f"silhouette-{case}", got["silhouette"], metrics.silhouette_score(data, labels))
            close(f"davies-bouldin-{case}", got["davies_bouldin"], metrics.davies_bouldin_score(data, labels))
        # Sampled silhouette: close to the full one on well-separated blobs.
        got = parac_scores(tmp, labels, data=data, extra=("--sample", "100", "--seed", "3"))
        if abs(got["silhouette"] - metrics.silhouette_score(data, labels)) > 0.1:
            failures.append(f"sampled silhouette {got['silhouette']} far from the full value")
    for failure in failures:
        print("FAIL", failure)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
