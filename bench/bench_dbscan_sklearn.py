"""scikit-learn's DBSCAN side by side with parac dbscan on 1 M 2-D blobs (20 centres, std 0.5,
eps 0.05, min-samples 10), the same .npy file, the same run.
    PARAC=build/parac python3 bench/bench_dbscan_sklearn.py --device cpu|cuda|all [--build DIR] [--quick]
Prints bench JSON lines (module, case, device, threads, seconds, metric, value, unit, speedup_vs_sklearn).
parac's seconds are its own --json "seconds" (file read, CUDA start-up and label write included); each parac
line also gives, against sklearn's fit (data already in memory on both sides):
  speedup_compute      sklearn fit / parac's compute (index..relabel phases, the library call minus transfers)
  speedup_call         sklearn fit / parac's call in memory (compute + upload + download, no CUDA start-up)
  speedup_end_to_end   sklearn fit / the whole `parac dbscan` process, wall clock (start, read, write)
Core masks must equal
scikit-learn's, else the script fails. Skips cleanly (exit 0) when numpy/scikit-learn are missing."""
import os
import subprocess
import sys
import tempfile
import time

from side_by_side import emit, make_blobs, parse_args, run_parac

try:
    import numpy as np
    from sklearn.cluster import DBSCAN
except ImportError:
    print("bench_dbscan_sklearn: numpy/scikit-learn missing, skipped", file=sys.stderr)
    sys.exit(0)

EPS, MIN_SAMPLES = 0.05, 10


def parac_dbscan(parac, path, work, device):
    labels, core = os.path.join(work, "labels.npy"), os.path.join(work, "core.npy")
    summary = run_parac([parac, "dbscan", path, "--eps", repr(EPS), "--min-samples", str(MIN_SAMPLES),
                         "--device", device, "-o", labels, "--core-mask", core])
    return summary, np.load(labels), np.load(core).astype(bool)


def main():
    args = parse_args()
    n = args.n
    failed = False
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "blobs.npy")
        make_blobs(args.parac, path, n)
        points = np.load(path)
        started = time.perf_counter()
        model = DBSCAN(eps=EPS, min_samples=MIN_SAMPLES, n_jobs=-1).fit(points)
        sklearn_seconds = time.perf_counter() - started
        their_core = np.zeros(n, dtype=bool)
        their_core[model.core_sample_indices_] = True
        clusters = int(model.labels_.max()) + 1
        emit("dbscan", f"blobs {args.size} 2-D scikit-learn DBSCAN", "cpu", os.cpu_count(), sklearn_seconds, n,
             {"clusters": clusters})
        devices = {"cpu": ["cpu"], "cuda": ["cuda"]}.get(args.device, ["cpu", "cuda"])
        for device in devices:
            try:
                started = time.perf_counter()
                summary, labels, core = parac_dbscan(args.parac, path, work, device)
                end_to_end = time.perf_counter() - started
            except subprocess.CalledProcessError as failure:
                print(f"bench_dbscan_sklearn: parac --device {device}: {failure.stderr.strip()}", file=sys.stderr)
                failed = True
                continue
            same_core = bool(np.array_equal(core, their_core))
            if not same_core:
                print(f"bench_dbscan_sklearn: MISMATCH: core mask on {device} differs from scikit-learn's",
                      file=sys.stderr)
                failed = True
            compute = sum(summary[k] for k in ("seconds_index", "seconds_core", "seconds_union", "seconds_border",
                                               "seconds_relabel"))
            call = compute + summary["seconds_upload"] + summary["seconds_download"]
            emit("dbscan", f"blobs {args.size} 2-D parac dbscan (incl. file read)", summary["device"],
                 summary["threads"], summary["seconds"], n,
                 {"clusters": summary["clusters"], "speedup_vs_sklearn": sklearn_seconds / summary["seconds"],
                  "core_mask_equal": same_core, "compute_seconds": compute, "call_seconds": call,
                  "end_to_end_seconds": end_to_end,
                  "speedup_compute": sklearn_seconds / compute if compute > 0 else None,
                  "speedup_call": sklearn_seconds / call if call > 0 else None,
                  "speedup_end_to_end": sklearn_seconds / end_to_end})
    sys.exit(1 if failed else 0)


main()
