#!/usr/bin/env python3
"""bench/whole_command.py — whole commands end to end (issue 16, item 5).

Runs each module's CLI with --device cpu, cuda and auto on inputs from small to huge, beside the
peers installed here (scikit-learn DBSCAN and Birch, the `dbscan` PyPI package, cuBLAS through
`parac gemm --verify`), and `parac devices` beside a bare CUDA program (bench/bare_cuda.c).
Prints one JSON line per run and a table last: wall seconds, auto / best(cpu, cuda), auto's choice
and reason. CUDA rows are skipped without a GPU. Inputs are generated once into /tmp/parac-e2e.
    python3 bench/whole_command.py [--parac build/parac] [--quick] [--repeats 1] [--no-peers]
Full set on the H200 machine: < 8 minutes (every command has a time limit, --limit).
"""
import argparse
import json
import re
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join("/tmp", "parac-e2e")


def data_dir():
    for d in [os.environ.get("PARAC_DATA", ""), os.path.join(ROOT, ".gpu-data", "data"),
              os.path.join(ROOT, "..", "shared", "data"), os.path.join(ROOT, "..", "..", "shared", "data"),
              os.path.join(ROOT, "tests", "data")]:
        if d and os.path.isdir(os.path.join(d, "fca")):
            return d
    return ""


def run(command, limit, env=None):
    """Wall seconds and the last JSON line of stdout (None when the command failed or timed out)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=limit,
                              env=env)
    except subprocess.TimeoutExpired:
        return None, {"error": f"timeout {limit} s"}
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return None, {"error": done.stderr.strip()[-200:]}
    summary = {}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            try:
                summary = json.loads(line)
            except ValueError:
                pass
            break
    return seconds, summary


def gen_points(parac, n, d, kind, name, float32=True):
    path = os.path.join(CACHE, name)
    if not os.path.exists(path):
        command = [parac, "gen", "points", "--n", str(n), "--dim", str(d), "--kind", kind, "--seed", "3", "-o", path, "-q"]
        if kind == "blobs":
            command += ["--centers", "16", "--std", "0.5"]
        if float32:
            command.append("--float32")
        subprocess.run(command, check=True)
    return path


def gen_csp(parac, variables, domain, constraints, name):
    path = os.path.join(CACHE, name)
    if not os.path.exists(path):
        subprocess.run([parac, "gen", "csp", "--vars", str(variables), "--dom", str(domain), "--constraints",
                        str(constraints), "--tightness", "0.2", "--seed", "5", "-o", path, "-q"], check=True)
    return path


def gen_context(parac, objects, attributes, density, name):
    """A dense random context (parac gen context), cached like the points."""
    path = os.path.join(CACHE, name)
    if not os.path.exists(path):
        subprocess.run([parac, "gen", "context", "--objects", str(objects), "--attributes", str(attributes),
                        "--density", str(density), "--seed", "1", "-o", path, "-q"], check=True)
    return path


def cases(parac, quick):
    """(name, module, argument list after `parac MODULE`, peers) from small to huge."""
    q = quick
    out = []
    for n, tag in ([(10000, "10k"), (50000, "50k")] if q else [(10000, "10k"), (1000000, "1M"), (4000000, "4M")]):
        blobs = gen_points(parac, n, 2, "blobs", f"blobs_{tag}_2d.npy")
        peers = n <= 1000000  # the peers on 4M points would take minutes
        out.append((f"dbscan blobs {tag} 2-D", "dbscan", [blobs, "--eps", "0.05", "--min-samples", "10"],
                    [("sklearn", blobs, n), ("dbscan-pypi", blobs, n)] if peers else []))
        out.append((f"birch blobs {tag} 2-D", "birch", [blobs, "--threshold", "0.2"],
                    [("sklearn-birch", blobs, n)] if peers else []))
    if not q:
        uniform = gen_points(parac, 10000000, 3, "uniform", "uniform_10M_3d.npy")
        out.append(("dbscan uniform 10M 3-D", "dbscan", [uniform, "--eps", "0.005", "--min-samples", "10"], []))
        huge = gen_points(parac, 100000000, 3, "uniform", "uniform_100M_3d.npy")
        out.append(("dbscan uniform 100M 3-D", "dbscan", [huge, "--eps", "0.002", "--min-samples", "10"], []))
        birch_big = gen_points(parac, 4000000, 8, "blobs", "blobs_4M_8d.npy")
        out.append(("birch blobs 4M 8-D", "birch", [birch_big, "--threshold", "1.0"], []))
    data = data_dir()
    names = ["vote", "primary-tumor", "mushroom"] if q else \
        ["vote", "primary-tumor", "hepatitis", "mushroom", "heart-cleveland", "T10I4D100K"]
    for name in names:
        path = os.path.join(data, "fca", name + ".dat")
        if os.path.exists(path):
            out.append((f"fca {name}", "fca", [path, "--count"], []))
    # Dense generated contexts: 2.6 M concepts, and one with tens of millions.
    for objects, attributes, density in ([(100, 60, 0.4)] if q else [(300, 80, 0.35), (1000, 100, 0.35)]):
        path = gen_context(parac, objects, attributes, density, f"context_{objects}x{attributes}.dat")
        out.append((f"fca dense {objects}x{attributes} d{density}", "fca", [path, "--count"], []))
    for n in ([256, 1024] if q else [1024, 2048, 4096, 8192]):
        out.append((f"gemm fp32 {n}", "gemm", ["--m", str(n), "--n", str(n), "--k", str(n)], [("cublas", n, n)]))
    # N-E edges = constraints x domain^2: 2e5, 1e6, 2e7 (issue 16's size), 8e7.
    sizes = [(100, 20, 500, "small")] + ([] if q else [(500, 32, 1000, "medium"), (2000, 64, 5000, "large"),
                                                       (4000, 64, 20000, "huge")])
    for variables, domain, constraints, tag in sizes:
        path = gen_csp(parac, variables, domain, constraints, f"csp_{tag}.xml")
        out.append((f"ac {tag} ({variables} vars, d {domain}, {constraints} cons)", "ac", [path], []))
    return out


def peer(kind, args, limit):
    """(wall seconds of a peer run in a fresh Python process: load + fit, seconds of its fit call alone), or
    (None, None). The call alone is what issue 16 compares parac's whole command with (the `dbscan` package's
    in-memory call)."""
    if kind == "cublas":
        return None, None  # timed through parac gemm --verify below
    path, n = args[0], args[1]
    scripts = {
        "sklearn": "from sklearn.cluster import DBSCAN; fit = lambda: DBSCAN(eps=0.05, min_samples=10, n_jobs=-1).fit(x)",
        "dbscan-pypi": "import dbscan; x = x.astype('float64'); fit = lambda: dbscan.DBSCAN(x, eps=0.05, min_samples=10)",
        "sklearn-birch": "from sklearn.cluster import Birch; fit = lambda: Birch(threshold=0.2, n_clusters=3).fit(x)",
    }
    code = (f"import numpy as np, time; x = np.load({path!r}); " + scripts[kind] +
            "; t = time.perf_counter(); fit(); print(time.perf_counter() - t)")
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, None
    if done.returncode != 0:
        return None, None
    wall = time.perf_counter() - started
    try:
        call = float(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        call = None
    return wall, call


def bare_cuda_program():
    """Builds bench/bare_cuda.c into /tmp/parac-e2e/bare_cuda, or None without a CUDA toolkit."""
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    target = os.path.join(CACHE, "bare_cuda")
    if os.path.exists(target):
        return target
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc or not os.path.exists(os.path.join(home, "include", "cuda_runtime.h")):
        return None
    done = subprocess.run([cc, "-O2", os.path.join(HERE, "bare_cuda.c"), "-I", os.path.join(home, "include"),
                           "-L", os.path.join(home, "lib64"), "-Wl,-rpath," + os.path.join(home, "lib64"),
                           "-lcudart", "-o", target], capture_output=True, text=True)
    return target if done.returncode == 0 else None


def emit(row, rows):
    rows.append(row)
    print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parac", default=os.environ.get("PARAC", os.path.join(ROOT, "build", "parac")))
    parser.add_argument("--quick", action="store_true", help="CI-size inputs")
    parser.add_argument("--repeats", type=int, default=3,
                        help="rounds of the devices, interleaved (median); rounds after the first only while a round takes < 3 s")
    parser.add_argument("--limit", type=float, default=45.0, help="seconds before a command is abandoned")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--only", default="", help="a regular expression: only the cases whose name matches")
    parser.add_argument("--budget", type=float, default=390.0,
                        help="seconds for the whole benchmark: later cases are skipped (and listed) past it")
    args = parser.parse_args()
    os.makedirs(CACHE, exist_ok=True)
    parac = os.path.abspath(args.parac)
    _, devices = run([parac, "devices", "--json"], 60)
    gpus = len(devices.get("gpus") or []) if devices else 0
    device_list = ["cpu", "cuda", "auto"] if gpus else ["cpu", "auto"]
    rows = []
    began = time.perf_counter()
    if gpus:
        bare = bare_cuda_program()
        times = {"parac devices": [run([parac, "devices"], 60)[0] for _ in range(5)]}
        if bare:
            times["bare CUDA program"] = [run([bare], 60)[0] for _ in range(5)]
        for name, values in times.items():
            values = [v for v in values if v is not None]
            emit({"bench": "whole_command", "case": "start-up", "runner": name,
                  "seconds": round(statistics.median(values), 4) if values else None}, rows)
    for name, module, module_args, peers in cases(parac, args.quick):
        if args.only and not re.search(args.only, name):
            continue
        if time.perf_counter() - began > args.budget:
            emit({"bench": "whole_command", "case": name, "runner": "skipped", "seconds": None,
                  "error": f"past the {args.budget:.0f} s budget"}, rows)
            continue
        seconds, values, summaries = {}, {d: [] for d in device_list}, {}
        for round_index in range(args.repeats):  # devices interleaved: a busy host drifts between runs
            round_seconds = 0.0
            for device in device_list:
                if round_index and not values[device]:
                    continue  # failed or timed out in the first round
                wall, summaries[device] = run([parac, module] + module_args + ["--device", device, "--json", "-q"],
                                              args.limit)
                if wall is not None:
                    values[device].append(wall)
                    round_seconds += wall
            if round_seconds > 3.0:
                break
        for device in device_list:
            summary = summaries.get(device) or {}
            wall = statistics.median(values[device]) if values[device] else None
            seconds[device] = wall
            emit({"bench": "whole_command", "case": name, "runner": f"parac --device {device}",
                  "seconds": round(wall, 4) if wall is not None else None, "runs": len(values[device]),
                  "device": summary.get("device"), "device_reason": summary.get("device_reason"),
                  "error": summary.get("error")}, rows)
        known = [seconds[d] for d in ("cpu", "cuda") if seconds.get(d) is not None]
        if known and seconds.get("auto") is not None:
            rows[-1]["auto_over_best"] = round(seconds["auto"] / min(known), 3)
            print(json.dumps({"bench": "whole_command", "case": name, "auto_over_best": rows[-1]["auto_over_best"]}))
        for kind, *peer_args in ([] if args.no_peers else peers):
            if kind == "cublas":
                if not gpus:
                    continue
                wall, summary = run([parac, "gemm", "--m", str(peer_args[0]), "--n", str(peer_args[0]), "--k",
                                     str(peer_args[0]), "--device", "cuda", "--verify", "--json", "-q"], args.limit)
                emit({"bench": "whole_command", "case": name, "runner": "parac gemm --verify (cuBLAS reference)",
                      "seconds": round(wall, 4) if wall else None}, rows)
                continue
            wall, call = peer(kind, peer_args, args.limit)
            emit({"bench": "whole_command", "case": name, "runner": kind,
                  "seconds": round(wall, 4) if wall is not None else None}, rows)
            if call is not None:
                row = {"bench": "whole_command", "case": name, "runner": f"{kind} (its fit call alone)",
                       "seconds": round(call, 4)}
                if seconds.get("auto"):
                    row["parac_auto_over_this"] = round(seconds["auto"] / call, 3)
                emit(row, rows)
    print(f"{'case':38} {'runner':40} {'seconds':>8} {'auto/best':>9}  device (reason)")
    for r in rows:
        s = f"{r['seconds']:8.3f}" if r.get("seconds") is not None else f"{'-':>8}"
        ratio = f"{r['auto_over_best']:9.2f}" if "auto_over_best" in r else " " * 9
        extra = f"{r.get('device') or ''} ({r['device_reason']})" if r.get("device_reason") else (r.get("error") or "")
        print(f"{r['case'][:38]:38} {r['runner'][:40]:40} {s} {ratio}  {extra[:110]}")
    ratios = [r["auto_over_best"] for r in rows if "auto_over_best" in r]
    if ratios:
        print(f"auto within 1.2x of the better of cpu and cuda: {sum(x <= 1.2 for x in ratios)} of {len(ratios)} "
              f"commands (worst {max(ratios):.2f}x)" + ("" if gpus else "; no GPU here: cuda rows skipped"))


if __name__ == "__main__":
    main()
