"""birch serial path (--batch-size 0) against scikit-learn's Birch: same subclusters
(count, centroids in leaf order), same partition (ARI = 1), on generated sets and
the shared chameleon set; plus the rounding-tie case where they cannot agree."""
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

try:
    import warnings
    import numpy as np
    from sklearn.cluster import Birch
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import adjusted_rand_score
except ImportError:
    print("numpy/scikit-learn missing: skipped")
    sys.exit(77)

PARAC = os.environ.get("PARAC", "./parac")
DATA = os.environ.get("PARAC_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
failures = []


def run_parac(points, threshold, branching, clusters, workdir, extra=()):
    path = os.path.join(workdir, "points.npy")
    np.save(path, points)
    labels_path = os.path.join(workdir, "labels.npy")
    sub_path = os.path.join(workdir, "sub.npy")
    args = [PARAC, "birch", path, "--threshold", repr(threshold), "--branching-factor", str(branching),
            "--n-clusters", str(clusters), "--batch-size", "0", "--device", "cpu", "-o", labels_path,
            "--subclusters", sub_path, "--json", "--quiet", *extra]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr}")
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    return summary, np.load(labels_path), np.load(sub_path).reshape(-1, points.shape[1])


def sorted_rows(centers):
    """The subclusters as a set. Their leaf order can differ from sklearn's: when
    sklearn splits a node it takes the farthest pair from argmax over a distance
    matrix computed as (-2<a,b> + |a|^2) + |b|^2, which is not symmetric in
    rounding, so whether d[i,j] or d[j,i] wins (which half comes first) is a
    last-bit coin flip; the halves, and so the subclusters, are the same."""
    return centers[np.lexsort(centers.T[::-1])]


def compare(name, points, threshold, branching, clusters, workdir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = Birch(threshold=threshold, branching_factor=branching,
                      n_clusters=clusters if clusters > 0 else None).fit(points)
    summary, labels, subclusters = run_parac(points, threshold, branching, clusters, workdir)
    ours, theirs = summary["subclusters"], len(model.subcluster_centers_)
    problems = []
    if ours != theirs:
        problems.append(f"subclusters {ours} vs sklearn {theirs}")
    elif not np.allclose(sorted_rows(subclusters), sorted_rows(model.subcluster_centers_), rtol=1e-9,
                         atol=1e-9 * (1 + np.abs(points).max())):
        problems.append("subcluster centroids differ")
    ari = adjusted_rand_score(model.labels_, labels)
    if ari != 1.0:
        problems.append(f"ARI {ari:.6f} != 1")
    print(f"{name}: n={len(points)} subclusters {ours} (sklearn {theirs}) clusters {summary['clusters']} ARI {ari:.6f}"
          + ("" if not problems else "  FAIL: " + "; ".join(problems)))
    if problems:
        failures.append(name)


def blobs(rng, n, centers, dims, std, box=10.0):
    middle = rng.uniform(-box, box, size=(centers, dims))
    return middle[np.arange(n) % centers] + rng.normal(scale=std, size=(n, dims))


def tie_case(workdir, rng):
    """Pairs of points whose distance is 2*threshold within rounding, far from the
    origin: the radius test is then decided by the last bits. Our stable CF form
    decides as exact rational arithmetic does; scikit-learn's
    ss/n - |mean|^2 cancels and often decides the other way."""
    threshold = 0.3
    offsets = rng.uniform(1e3, 1e4, size=200)
    points = []
    for k, offset in enumerate(offsets):
        a = np.array([offset, 1e5 * k])
        b = np.array([offset + 2 * threshold, 1e5 * k])
        points += [a, b]
    points = np.array(points)
    exact_merges = 0
    for k in range(len(offsets)):
        d = Fraction(points[2 * k + 1, 0]) - Fraction(points[2 * k, 0])
        exact_merges += d * d / 4 <= Fraction(threshold) ** 2
    summary, _, _ = run_parac(points, threshold, 50, 0, workdir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs = len(Birch(threshold=threshold, n_clusters=None).fit(points).subcluster_centers_)
    expected = 2 * len(offsets) - exact_merges
    print(f"ties: {len(offsets)} pairs at distance 2T within rounding; exact arithmetic merges {exact_merges}: "
          f"parac {summary['subclusters']} subclusters, exact {expected}, sklearn {theirs}"
          + (" (sklearn's ss/n - |c|^2 cancellation decides differently)" if theirs != expected else ""))
    if summary["subclusters"] != expected:
        failures.append("ties")


def main():
    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory() as workdir:
        compare("small blobs", blobs(rng, 300, 3, 2, 1.0), 0.5, 50, 3, workdir)
        compare("blobs, B=3 (deep tree)", blobs(rng, 2000, 5, 2, 1.0), 0.4, 3, 5, workdir)
        compare("blobs 5-D, no global step", blobs(rng, 3000, 4, 5, 1.0), 1.0, 10, 0, workdir)
        compare("medium blobs", blobs(rng, 30000, 20, 2, 0.5), 0.3, 50, 20, workdir)
        compare("uniform 3-D", rng.uniform(size=(5000, 3)), 0.1, 20, 8, workdir)
        compare("too few subclusters", blobs(rng, 200, 2, 2, 0.1), 2.0, 50, 10, workdir)
        chameleon = np.loadtxt(os.path.join(DATA, "cluster", "chameleon_t7_10k.data.gz"))
        compare("chameleon t7 10k", chameleon, 8.0, 50, 9, workdir)
        compare("chameleon t7 10k, B=7", chameleon, 4.0, 7, 20, workdir)
        tie_case(workdir, rng)
    if failures:
        print("FAILED:", ", ".join(failures))
        sys.exit(1)
    print("all cases match scikit-learn")


main()
