#!/usr/bin/env python3
"""bench/contention.py — whole commands of birch, dbscan and fca on a shared machine (issue 16, item 4).

For each module it runs the CLI's default parallel path (no --threads) unloaded and with k threads of
another process spinning (k = 1 and k = n, n = the cores this process may use; --spinner-sessions each:
k separate processes instead, see spinners()), interleaving the three
conditions round after round (other users of the machine drift; medians of the rounds), and checks
    loaded time <= 1.5 x unloaded x (n + k) / n.
Prints one JSON line per (module, k) and a table last.
    python3 bench/contention.py [--parac build/parac] [--rounds 5] [--points N] [--quick]
                                [--baseline OTHER_PARAC]   (another build timed in the same rounds)
                                [--sweep 1,4,8,16]         (also --threads t at k = n, to see the best t)
                                [--spinner-sessions one|each]
                                [--limit SECONDS]          (a run past it is stopped and counted as the limit)
The inputs grow with the cores, so that the unloaded command is not a few milliseconds of process start
and scheduler latency on a large machine (a CFS time slice is several milliseconds when two tasks share a
core): 300,000 2-D points per core (4.8 M on 16 cores: birch about 0.7 s, dbscan 0.25 s there), fca on
mushroom up to 4 cores and on a generated 500 x 80 context at density 0.35 (8.9 M concepts) above.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def spinners(k, sessions="one"):
    """k busy loops. sessions="one": one shell and its k looping subshells in one new session, which is
    "k threads of another process" (issue 16) to the scheduler: with autogroup (Linux's default,
    /proc/sys/kernel/sched_autogroup_enabled) CPU time is shared fairly between sessions first and
    between the tasks of a session second, and one process's threads are one session. "each": k
    processes in k sessions (k users' programs): then every session, ours included, gets n / (k + 1)
    cores whatever its thread count, so no thread count can meet the bound at k = n (it asks for
    n / 3 of the cores)."""
    if k == 0:
        return []
    # no inherited stdout/stderr: a spinner left behind must not hold the caller's pipe open (a device run
    # piped this script into tee under `timeout`: SIGTERM ended the script, the spinners kept tee waiting)
    quiet = {"start_new_session": True, "stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL,
             "stderr": subprocess.DEVNULL}
    if sessions == "one":
        loops = " ".join(["(while :; do :; done) &"] * k)
        return [subprocess.Popen(["sh", "-c", loops + " wait"], **quiet)]
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], **quiet) for _ in range(k)]


def autogroup():
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return None


def stop(processes):
    for p in processes:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


LIMIT = None  # --limit: seconds after which a run is stopped and counted as taking the limit


def timed(command):
    started = time.perf_counter()
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:  # subprocess.run has killed it; the median then shows the limit
        print(f"contention: {' '.join(command)} stopped at the {LIMIT} s limit", file=sys.stderr, flush=True)
        return float(LIMIT)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"contention: {' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[:300]}")
    return seconds


def fca_context(parac, cores, directory):
    """mushroom (0.03 s on 16 threads: too short to show a parallel path there) up to 4 cores; above, a
    generated dense context of about 3 s of one thread's work."""
    if cores > 4:
        path = os.path.join(directory, "context_500x80.dat")
        if not os.path.exists(path):
            subprocess.run([parac, "gen", "context", "--objects", "500", "--attributes", "80", "--density", "0.35",
                            "--seed", "1", "-o", path, "-q"], check=True)
        return path
    candidates = [os.environ.get("PARAC_DATA", ""), os.path.join(ROOT, ".gpu-data", "data"),
                  os.path.join(ROOT, "..", "shared", "data"), os.path.join(ROOT, "..", "..", "shared", "data"),
                  os.path.join(ROOT, "tests", "data")]
    return next((os.path.join(d, "fca", "mushroom.dat") for d in candidates
                 if d and os.path.exists(os.path.join(d, "fca", "mushroom.dat"))), "mushroom.dat")


def make_inputs(parac, points, cores, directory):
    blobs = os.path.join(directory, f"blobs_{points}.npy")
    if not os.path.exists(blobs):
        subprocess.run([parac, "gen", "points", "--n", str(points), "--dim", "2", "--kind", "blobs", "--centers", "8",
                        "--seed", "7", "-o", blobs, "-q"], check=True)
    fca_input = fca_context(parac, cores, directory)
    return {
        "birch": [parac, "birch", blobs, "--threshold", "0.3", "--device", "cpu", "-q"],
        "dbscan": [parac, "dbscan", blobs, "--eps", "0.1", "--min-samples", "10", "--device", "cpu", "-q"],
        "fca": [parac, "fca", fca_input, "--count", "--device", "cpu", "-q"],
    }


def stop_on_sigterm(signum, frame):
    """SIGTERM (`timeout`) as an exit, so that the `finally` around each timed run stops its spinners."""
    raise SystemExit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parac", default=os.environ.get("PARAC", os.path.join(ROOT, "build", "parac")))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--points", type=int, default=0, help="2-D points for birch and dbscan (0: 300,000 a core)")
    parser.add_argument("--quick", action="store_true", help="3 rounds, 50,000 points")
    parser.add_argument("--modules", default="birch,dbscan,fca")
    parser.add_argument("--label", default="", help="a name for this build in the JSON lines")
    parser.add_argument("--baseline", help="another parac (e.g. an earlier build) timed in the same rounds")
    parser.add_argument("--sweep", default="", help="thread counts also timed with --threads at k = n, e.g. 1,4,8,16")
    parser.add_argument("--spinner-sessions", choices=("one", "each"), default="one",
                        help="one: the k spinners are one other process (issue 16's case); each: k processes")
    parser.add_argument("--limit", type=float, help="stop a run after this many seconds and count it as the limit "
                        "(a pathological team size must not eat a device call)")
    args = parser.parse_args()
    global LIMIT
    LIMIT = args.limit
    if args.quick:
        args.rounds, args.points = 3, 50000
    n = len(os.sched_getaffinity(0))
    loads = [0, 1, n]
    if not args.points:
        args.points = 300000 * n
    directory = os.path.join(tempfile.gettempdir(), "parac-contention")
    os.makedirs(directory, exist_ok=True)
    commands = make_inputs(args.parac, args.points, n, directory)
    builds = [("", args.parac)] + ([("baseline_", args.baseline)] if args.baseline else [])
    rows = []
    sweep = [int(t) for t in args.sweep.split(",") if t]
    swept = {}
    for module in args.modules.split(","):
        command = commands[module]
        timed(command)  # page cache, first-touch
        times = {(b, k): [] for b, _ in builds for k in loads}
        for _ in range(args.rounds):
            for k in loads:  # interleaved: unloaded, k = 1, k = n, again (and the builds alternate)
                for b, binary in builds:
                    busy = spinners(k, args.spinner_sessions)
                    time.sleep(0.05)
                    try:
                        times[(b, k)].append(timed([binary] + command[1:]))
                    finally:
                        stop(busy)
            for t in sweep:  # the same load as k = n, with the thread count fixed
                busy = spinners(n, args.spinner_sessions)
                time.sleep(0.05)
                try:
                    swept.setdefault((module, t), []).append(timed(command + ["--threads", str(t)]))
                finally:
                    stop(busy)
        for k in loads:
            row = {"bench": "contention", "label": args.label, "module": module, "cores": n, "spinners": k,
                   "rounds": args.rounds, "spinner_sessions": args.spinner_sessions, "autogroup": autogroup(),
                   "loadavg": open("/proc/loadavg").read().split()[:4]}
            for b, _ in builds:
                unloaded, loaded = statistics.median(times[(b, 0)]), statistics.median(times[(b, k)])
                row.update({b + "unloaded_s": round(unloaded, 4), b + "loaded_s": round(loaded, 4),
                            b + "ratio": round(loaded / unloaded, 3), b + "all": [round(t, 4) for t in times[(b, k)]]})
            row["bound_ratio"] = round(1.5 * (n + k) / n, 3)
            row["ok"] = row["ratio"] <= row["bound_ratio"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    for (module, t), values in swept.items():
        unloaded = next(r["unloaded_s"] for r in rows if r["module"] == module and r["spinners"] == n)
        row = {"bench": "contention_sweep", "module": module, "cores": n, "spinners": n, "threads": t,
               "spinner_sessions": args.spinner_sessions,
               "loaded_s": round(statistics.median(values), 4), "all": [round(v, 4) for v in values],
               "ratio": round(statistics.median(values) / unloaded, 3), "bound_ratio": round(1.5 * 2, 3)}
        print(json.dumps(row), flush=True)
        print(f"sweep {module:8} k={n:2} --threads {t:3}: {row['loaded_s']:.3f} s, {row['ratio']:.2f}x unloaded")
    base = " baseline loaded s" if args.baseline else ""
    print(f"{'module':8} {'n':>2} {'k':>2} {'unloaded s':>11} {'loaded s':>9} {'ratio':>6} {'bound':>6}  ok{base}")
    for r in rows:
        extra = f"  {r['baseline_loaded_s']:17.3f}" if args.baseline else ""
        print(f"{r['module']:8} {r['cores']:2} {r['spinners']:2} {r['unloaded_s']:11.3f} {r['loaded_s']:9.3f} "
              f"{r['ratio']:6.2f} {r['bound_ratio']:6.2f}  {'yes' if r['ok'] else 'NO '}{extra}")


if __name__ == "__main__":
    main()
