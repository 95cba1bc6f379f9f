"""gemm against numpy on .npy and .mtx inputs written by parac gen matrix, incl. a column-major .mtx A."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    sys.exit(77)

PARAC = os.environ["PARAC"]


def run(*args):
    return subprocess.run([PARAC, *args], check=True, capture_output=True, text=True).stdout


def read_mtx_array(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("%")]
    rows, cols = map(int, lines[0].split())
    return np.array([float(v) for v in lines[1:]], dtype=np.float32).reshape(cols, rows).T


failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for (m, k, n, a_ext, b_ext) in [(97, 130, 65, "npy", "npy"), (64, 1, 200, "mtx", "npy"), (1, 300, 1, "npy", "mtx")]:
        a_path, b_path, c_path = f"{tmp}/a.{a_ext}", f"{tmp}/b.{b_ext}", f"{tmp}/c.npy"
        run("gen", "matrix", "--rows", str(m), "--cols", str(k), "--band", "40", "--seed", "5", "-o", a_path)
        run("gen", "matrix", "--rows", str(k), "--cols", str(n), "--seed", "6", "-o", b_path)
        summary = json.loads(run("gemm", a_path, b_path, "-o", c_path, "--device", "cpu", "--json").splitlines()[-1])
        a = np.load(a_path) if a_ext == "npy" else read_mtx_array(a_path)
        b = np.load(b_path) if b_ext == "npy" else read_mtx_array(b_path)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        c = np.load(c_path)
        bound = (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) * (k + 4) * 1.2e-7 + 1e-30
        worst = float(np.max(np.abs(c - ref) / bound))
        if c.shape != (m, n) or worst > 1.0 or "tflops" not in summary:
            print(f"FAILED: {m}x{k}x{n} {a_ext}/{b_ext}: shape {c.shape}, error/bound {worst}")
            failures += 1
print("gemm numpy cross-check:", "ok" if failures == 0 else f"{failures} failed")
sys.exit(1 if failures else 0)
