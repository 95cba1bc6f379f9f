"""parac.concepts / parac.lattice against a brute-force enumeration and against the CLI."""
import itertools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse

import parac
from conftest import requires_cuda

DATA = Path(__file__).resolve().parents[1] / "data" / "fca"


def cli_path():
    """The CLI of the build the tests run in ($PARAC_BUILD/parac under ctest), else build/parac."""
    for candidate in [os.environ.get("PARAC_CLI"), os.path.join(os.environ.get("PARAC_BUILD", "build"), "parac"),
                      str(Path(__file__).resolve().parents[2] / "build" / "parac"), shutil.which("parac")]:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def brute_force(cells):
    """Every concept (intent, extent) of a small context, sorted by the ascending intent."""
    objects, attributes = cells.shape
    found = set()
    for size in range(attributes + 1):
        for subset in itertools.combinations(range(attributes), size):
            extent = [o for o in range(objects) if all(cells[o, a] for a in subset)]
            intent = tuple(a for a in range(attributes) if all(cells[o, a] for o in extent))
            found.add(intent)
    concepts = []
    for intent in sorted(found):
        extent = tuple(o for o in range(objects) if all(cells[o, a] for a in intent))
        concepts.append((intent, extent))
    return concepts


def as_lists(result):
    return [(tuple(int(a) for a in result.intent(i)), tuple(int(o) for o in result.extent(i)))
            for i in range(result.count)]


def random_context(seed):
    rng = np.random.default_rng(seed)
    objects, attributes = int(rng.integers(0, 9)), int(rng.integers(1, 8))
    return rng.random((objects, attributes)) < rng.uniform(0.2, 0.8)


@pytest.mark.parametrize("seed", range(12))
def test_concepts_match_brute_force(seed):
    cells = random_context(seed)
    expected = brute_force(cells)
    result = parac.concepts(cells, device="cpu")
    assert result.count == len(expected) and result.n_objects == cells.shape[0]
    assert as_lists(result) == expected
    assert result.intent_indices.dtype == np.uint32 and result.intent_offsets.dtype == np.int64
    assert parac.concepts(cells, count_only=True, device="cpu", threads=1) == len(expected)
    # the same context as 0/1 ints and as sparse matrices
    assert as_lists(parac.concepts(cells.astype(np.int64), device="cpu")) == expected
    for sparse in (scipy.sparse.csr_matrix(cells.astype(np.int8) * 3), scipy.sparse.csc_matrix(cells)):
        assert as_lists(parac.concepts(sparse, device="cpu")) == expected


@pytest.mark.parametrize("seed", range(4))
def test_min_support_keeps_the_large_extents(seed):
    cells = random_context(100 + seed)
    support = 2
    expected = [c for c in brute_force(cells) if len(c[1]) >= support]
    assert as_lists(parac.concepts(cells, min_support=support, device="cpu")) == expected


@pytest.mark.parametrize("seed", range(8))
def test_lattice_edges_are_the_covering_relation(seed):
    cells = random_context(200 + seed)
    expected = brute_force(cells)
    result = parac.lattice(cells, device="cpu")
    assert as_lists(result) == expected
    intents = [set(i) for i, _ in expected]
    covers = []
    for upper, lower in itertools.permutations(range(len(intents)), 2):
        if intents[upper] < intents[lower] and not any(
                intents[upper] < intents[k] < intents[lower] for k in range(len(intents))):
            covers.append((upper, lower))
    assert result.edges.shape == (len(covers), 2)
    assert [tuple(e) for e in result.edges.tolist()] == sorted(covers)


def test_files_match_the_cli(tmp_path):
    cli = cli_path()
    if cli is None:
        pytest.skip("no parac CLI built (set PARAC_CLI)")
    for name, support in [("primary-tumor.dat", 30), ("vote.dat", 120), ("mushroom.dat", 2500)]:
        path = DATA / name
        out = subprocess.run([cli, "fca", str(path), "--extents", "--min-support", str(support)], check=True,
                             capture_output=True, text=True).stdout.splitlines()
        result = parac.concepts(path, min_support=support, device="cpu")
        assert result.count == len(out) > 0
        for i, line in enumerate(out):
            intent, extent = line.split("|")
            assert result.intent(i).tolist() == [int(a) for a in intent.split()]
            assert result.extent(i).tolist() == [int(o) for o in extent.split()]


def test_counts_of_files_match_the_cli():
    cli = cli_path()
    if cli is None:
        pytest.skip("no parac CLI built (set PARAC_CLI)")
    path = DATA / "primary-tumor.dat"
    out = subprocess.run([cli, "fca", str(path), "--count"], check=True, capture_output=True, text=True).stdout
    assert parac.concepts(str(path), count_only=True) == int(out)


def test_file_formats_agree(tmp_path):
    cells = random_context(7)
    cells[0, :] = True  # a non-empty first row
    (tmp_path / "c.csv").write_text("\n".join(",".join(str(int(v)) for v in row) for row in cells) + "\n")
    fimi = "\n".join(" ".join(str(a) for a in np.flatnonzero(row)) for row in cells) + "\n"
    (tmp_path / "c.dat").write_text(fimi)
    expected = as_lists(parac.concepts(cells, device="cpu"))
    assert as_lists(parac.concepts(tmp_path / "c.csv", device="cpu")) == expected
    assert as_lists(parac.concepts(str(tmp_path / "c.dat"), device="cpu")) == expected
    assert as_lists(parac.concepts(tmp_path / "c.dat", format="fimi")) == expected


def test_bad_arguments_and_files(tmp_path):
    with pytest.raises(ValueError):
        parac.concepts(np.array([[0, 2]]))
    with pytest.raises(ValueError):
        parac.concepts(np.zeros(3, bool))
    with pytest.raises(TypeError):
        parac.concepts(np.zeros((2, 2), np.float64))
    with pytest.raises(ValueError):
        parac.concepts(np.zeros((2, 2), bool), min_support=-1)
    with pytest.raises(ValueError):
        parac.concepts(np.zeros((2, 2), bool), device="tpu")
    with pytest.raises(ValueError):
        parac.concepts(np.zeros((2, 2), bool), format="xml")
    with pytest.raises(parac.ParacIOError):
        parac.concepts(tmp_path / "missing.dat")
    (tmp_path / "bad.dat").write_text("1 2\n3 x\n")
    with pytest.raises(parac.ParseError, match="bad.dat:2"):
        parac.concepts(tmp_path / "bad.dat")
    with pytest.raises(TypeError):
        parac._parac.fca(np.zeros((2, 2), np.int32))
    if not parac.cuda_available():
        with pytest.raises(parac.NoDeviceError):
            parac.concepts(np.ones((2, 2), bool), device="cuda")


def test_progress_can_cancel():
    cells = np.random.default_rng(0).random((300, 40)) < 0.5
    with pytest.raises(parac.CancelledError):
        parac.concepts(cells, device="cpu", progress=lambda done, total: True)


@requires_cuda
def test_cuda_gives_the_cpu_concepts():
    cells = np.random.default_rng(1).random((60, 20)) < 0.4
    assert as_lists(parac.concepts(cells, device="cuda")) == as_lists(parac.concepts(cells, device="cpu"))


CTRL_C_SCRIPT = """
import os, signal, sys, threading, time, numpy as np, parac
cells = np.random.default_rng(0).random((3000, 60)) < 0.4   # about 5e8 concepts: minutes to count
ticks = []
threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
started = time.monotonic()
try:
    parac.concepts(cells, count_only=True, device="cpu", threads=1)
    print("RESULT completed")
except KeyboardInterrupt:
    print("RESULT interrupted %.2f" % (time.monotonic() - started))
"""


def test_ctrl_c_stops_a_long_count():
    """SIGINT during a long count: KeyboardInterrupt within seconds (the run checks for it)."""
    done = subprocess.run([sys.executable, "-c", CTRL_C_SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT")][0].split()
    assert result[1] == "interrupted", done.stdout
    assert float(result[2]) < 0.5 + 5.0, f"stopped only after {result[2]} s"
