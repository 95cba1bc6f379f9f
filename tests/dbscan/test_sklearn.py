#!/usr/bin/env python3
"""tests/dbscan/test_sklearn.py — parac dbscan against scikit-learn's DBSCAN.

Core masks must be identical and the labels of non-border points (core and
noise) must be the same partition (ARI = 1, same noise set). Border points may
legitimately differ: parac gives them the cluster of their lowest-index core
neighbour, scikit-learn the first cluster that reached them.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from sklearn.cluster import DBSCAN
    from sklearn.metrics import adjusted_rand_score
except ImportError:
    sys.exit(77)

PARAC = os.environ.get("PARAC", "parac")
DATA = os.environ.get("PARAC_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
failures = []


def run_parac(path, eps, min_samples, tmp, extra=()):
    labels_path = os.path.join(tmp, "labels.npy")
    core_path = os.path.join(tmp, "core.txt")
    subprocess.run([PARAC, "dbscan", path, "--eps", repr(eps), "--min-samples", str(min_samples), "-o", labels_path,
                    "--core-mask", core_path, "--device", "cpu", "-q", *extra], check=True)
    return np.load(labels_path), np.loadtxt(core_path, dtype=np.int64).reshape(-1).astype(bool)


def compare(name, points, path, eps, min_samples, tmp):
    ours, our_core = run_parac(path, eps, min_samples, tmp)
    model = DBSCAN(eps=eps, min_samples=min_samples).fit(points)
    theirs = model.labels_
    their_core = np.zeros(len(points), dtype=bool)
    their_core[model.core_sample_indices_] = True
    if not np.array_equal(our_core, their_core):
        failures.append(f"{name}: core masks differ at {np.flatnonzero(our_core != their_core)[:10]}")
        return
    if not np.array_equal(ours == -1, theirs == -1):
        failures.append(f"{name}: noise sets differ")
        return
    keep = our_core | (ours == -1)
    ari = adjusted_rand_score(ours[keep], theirs[keep]) if keep.any() else 1.0
    if ari != 1.0:
        failures.append(f"{name}: ARI of non-border labels {ari}")
    clusters = len(set(ours.tolist()) - {-1})
    if clusters != len(set(theirs.tolist()) - {-1}):
        failures.append(f"{name}: {clusters} clusters vs sklearn's {len(set(theirs.tolist()) - {-1})}")
    print(f"ok {name}: n={len(points)} clusters={clusters} core={our_core.sum()}")


def generated(tmp, kind, n, dim, seed, extra=()):
    path = os.path.join(tmp, f"{kind}{dim}.npy")
    subprocess.run([PARAC, "gen", "points", "--kind", kind, "--n", str(n), "--dim", str(dim), "--seed", str(seed),
                    "-o", path, *extra], check=True)
    return np.load(path), path


def main():
    with tempfile.TemporaryDirectory() as tmp:
        points, path = generated(tmp, "blobs", 20000, 2, 1, ("--centers", "6", "--std", "0.6"))
        compare("blobs-2d", points, path, 0.1, 10, tmp)
        points, path = generated(tmp, "blobs", 8000, 3, 2, ("--centers", "4"))
        compare("blobs-3d", points, path, 0.35, 8, tmp)
        points, path = generated(tmp, "moons", 5000, 2, 3, ("--std", "0.08"))
        compare("moons", points, path, 0.06, 6, tmp)
        points, path = generated(tmp, "uniform", 3000, 6, 4)
        compare("uniform-6d", points, path, 0.3, 5, tmp)
        points, path = generated(tmp, "blobs", 2000, 12, 5, ("--centers", "3", "--std", "2"))
        compare("blobs-12d", points, path, 4.0, 5, tmp)
        # Points on a lattice: many pairs at exactly eps.
        lattice = np.random.default_rng(6).integers(0, 40, size=(4000, 2)).astype(np.float64) / 4.0
        lattice_path = os.path.join(tmp, "lattice.npy")
        np.save(lattice_path, lattice)
        compare("lattice-ties", lattice, lattice_path, 0.25, 5, tmp)
        compare("lattice-ties-diagonal", lattice, lattice_path, 0.5, 9, tmp)
        chameleon = os.path.join(DATA, "cluster", "chameleon_t7_10k.data.gz")
        if os.path.exists(chameleon):
            points = np.loadtxt(chameleon)
            compare("chameleon", points, chameleon, 10.0, 12, tmp)
        else:
            print(f"note: {chameleon} missing, chameleon case skipped")
    for failure in failures:
        print("FAIL", failure)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
