"""scikit-learn's Birch side by side with parac birch on 1 M 2-D blobs (20 centres,
std 0.5, threshold 0.3, 20 clusters), same file, same run.
    PARAC=build/parac python3 bench/bench_birch_sklearn.py --device cpu|cuda|all [--build DIR] [--quick]
Prints bench JSON lines (seconds, points/s, speedup_vs_sklearn, ARI against sklearn)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    from sklearn.cluster import Birch
    from sklearn.metrics import adjusted_rand_score
except ImportError:
    print("bench_birch_sklearn: numpy/scikit-learn missing, skipped", file=sys.stderr)
    sys.exit(0)


def emit(case, device, threads, seconds, n, extra):
    line = {"module": "birch", "case": case, "device": device, "threads": threads, "seconds": seconds,
            "metric": "points_per_s", "value": n / seconds, "unit": "points/s", **extra}
    print(json.dumps(line), flush=True)


def run_parac(parac, path, labels, device, extra):
    args = [parac, "birch", path, "--threshold", "0.3", "--n-clusters", "20", "--device", device, "-o", labels,
            "--json", "--quiet", *extra]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--build", default="build")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    parac = os.environ.get("PARAC", os.path.join(args.build, "parac"))
    n = 100_000 if args.quick else 1_000_000
    with tempfile.TemporaryDirectory() as work:
        path, labels = os.path.join(work, "blobs.npy"), os.path.join(work, "labels.npy")
        subprocess.run([parac, "gen", "points", "--n", str(n), "--dim", "2", "--kind", "blobs", "--centers", "20",
                        "--std", "0.5", "--seed", "42", "-o", path], check=True, capture_output=True)
        points = np.load(path)
        started = time.perf_counter()
        model = Birch(threshold=0.3, n_clusters=20).fit(points)
        sklearn_seconds = time.perf_counter() - started
        emit("blobs 1M 2-D scikit-learn Birch", "cpu", os.cpu_count(), sklearn_seconds, n,
             {"subclusters": len(model.subcluster_centers_)})
        runs = [("serial (sklearn order)", "cpu", ["--batch-size", "0", "--threads", "1"]),
                ("parallel batched", "cpu", [])]
        if args.device != "cpu":
            runs.append(("gpu batched", "cuda", []))
        for name, device, extra in runs:
            if args.device == "cuda" and device == "cpu" and "serial" not in name:
                continue
            try:
                summary = run_parac(parac, path, labels, device, extra)
            except subprocess.CalledProcessError as failure:
                print(f"bench_birch_sklearn: {name}: {failure.stderr.strip()}", file=sys.stderr)
                continue
            ari = adjusted_rand_score(model.labels_, np.load(labels))
            emit(f"blobs 1M 2-D parac {name} (incl. file read)", device, summary["threads"], summary["seconds"], n,
                 {"subclusters": summary["subclusters"], "speedup_vs_sklearn": sklearn_seconds / summary["seconds"],
                  "ari_vs_sklearn": ari})


main()
