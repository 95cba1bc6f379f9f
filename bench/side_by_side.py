"""What the scikit-learn side-by-side benchmarks share: arguments, the blobs file both
tools read, running the parac CLI for its --json summary, and the bench JSON line."""
import argparse
import json
import os
import subprocess


def parse_args():
    """--device cpu|cuda|all, --build DIR, --quick (as bench/run passes them); adds .parac, .n, .size."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda", "all"])
    parser.add_argument("--build", default="build")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    args.parac = os.environ.get("PARAC", os.path.join(args.build, "parac"))
    args.n = 100_000 if args.quick else 1_000_000
    args.size = "100k" if args.quick else "1M"
    return args


def make_blobs(parac, path, n):
    """The issue's data set: 2-D blobs, 20 centres, std 0.5, written by `parac gen points`."""
    subprocess.run([parac, "gen", "points", "--n", str(n), "--dim", "2", "--kind", "blobs", "--centers", "20",
                    "--std", "0.5", "--seed", "42", "-o", path], check=True, capture_output=True)


def run_parac(arguments):
    """Runs the CLI with --json --quiet and returns its summary (raises CalledProcessError)."""
    done = subprocess.run([*arguments, "--json", "--quiet"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def emit(module, case, device, threads, seconds, n, extra):
    line = {"module": module, "case": case, "device": device, "threads": threads, "seconds": seconds,
            "metric": "points_per_s", "value": n / seconds, "unit": "points/s", **extra}
    print(json.dumps(line), flush=True)
