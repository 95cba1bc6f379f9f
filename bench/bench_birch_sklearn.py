"""scikit-learn's Birch side by side with parac birch on 1 M 2-D blobs (20 centres,
std 0.5, threshold 0.3, 20 clusters), same file, same run.
    PARAC=build/parac python3 bench/bench_birch_sklearn.py --device cpu|cuda|all [--build DIR] [--quick]
Prints bench JSON lines (seconds, points/s, speedup_vs_sklearn, ARI against sklearn)."""
import os
import subprocess
import sys
import tempfile
import time

from side_by_side import emit, make_blobs, parse_args, run_parac

try:
    import numpy as np
    from sklearn.cluster import Birch
    from sklearn.metrics import adjusted_rand_score
except ImportError:
    print("bench_birch_sklearn: numpy/scikit-learn missing, skipped", file=sys.stderr)
    sys.exit(0)


def main():
    args = parse_args()
    n = args.n
    with tempfile.TemporaryDirectory() as work:
        path, labels = os.path.join(work, "blobs.npy"), os.path.join(work, "labels.npy")
        make_blobs(args.parac, path, n)
        points = np.load(path)
        started = time.perf_counter()
        model = Birch(threshold=0.3, n_clusters=20).fit(points)
        sklearn_seconds = time.perf_counter() - started
        emit("birch", f"blobs {args.size} 2-D scikit-learn Birch", "cpu", os.cpu_count(), sklearn_seconds, n,
             {"subclusters": len(model.subcluster_centers_)})
        runs = [("serial (sklearn order)", "cpu", ["--batch-size", "0", "--threads", "1"]),
                ("parallel batched", "cpu", [])]
        if args.device != "cpu":
            runs.append(("gpu batched", "cuda", []))
        for name, device, extra in runs:
            if args.device == "cuda" and device == "cpu" and "serial" not in name:
                continue
            try:
                summary = run_parac([args.parac, "birch", path, "--threshold", "0.3", "--n-clusters", "20",
                                     "--device", device, "-o", labels, *extra])
            except subprocess.CalledProcessError as failure:
                print(f"bench_birch_sklearn: {name}: {failure.stderr.strip()}", file=sys.stderr)
                continue
            ari = adjusted_rand_score(model.labels_, np.load(labels))
            emit("birch", f"blobs {args.size} 2-D parac {name} (incl. file read)", device, summary["threads"],
                 summary["seconds"], n,
                 {"subclusters": summary["subclusters"], "speedup_vs_sklearn": sklearn_seconds / summary["seconds"],
                  "ari_vs_sklearn": ari})


main()
