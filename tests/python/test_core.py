"""The extension itself: version, exceptions, argument checks, cancellation, the GIL."""
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import parac
from parac import _parac

SOURCE = os.environ.get("PARAC_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))


def test_version_matches_cmake_project_version():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as cmake:
        project_version = re.search(r"project\(parac VERSION ([0-9.]+)", cmake.read()).group(1)
    assert parac.__version__ == project_version
    assert parac.version() == _parac.HEADER_VERSION == project_version
    major, minor, patch = (int(part) for part in project_version.split("."))
    assert _parac.VERSION_NUMBER == major * 10000 + minor * 100 + patch


def test_exception_hierarchy():
    assert issubclass(parac.InvalidArgumentError, ValueError)
    assert issubclass(parac.ParseError, ValueError)
    assert issubclass(parac.ParacIOError, OSError)
    assert issubclass(parac.OutOfMemoryError, MemoryError)
    assert issubclass(parac.NoDeviceError, RuntimeError)
    for name in ("InvalidArgumentError", "ParacIOError", "ParseError", "UnsupportedError", "OutOfMemoryError",
                 "NoDeviceError", "DeviceError", "InternalError", "CancelledError"):
        assert issubclass(getattr(parac, name), parac.ParacError)


def test_devices_report():
    assert isinstance(parac.built_with_cuda(), bool)
    devices = parac.cuda_devices()
    assert parac.cuda_available() == (parac.built_with_cuda() and len(devices) > 0)
    for device in devices:
        assert device["total_memory_bytes"] > 0


# --- the raw extension: every misuse is a Python exception, never a crash -----------------

def outputs(n):
    return np.empty(n, np.int32), np.zeros(n, np.uint8)


def test_dbscan_argument_checks():
    X = np.random.default_rng(0).normal(size=(50, 2))
    labels, core = outputs(50)
    with pytest.raises(TypeError, match="C-contiguous"):
        _parac.dbscan(np.asfortranarray(X), 0.5, 5, labels, core)
    with pytest.raises(TypeError, match="C-contiguous"):
        _parac.dbscan([[1.0, 2.0]], 0.5, 5, labels, core)
    with pytest.raises(TypeError, match="float64 or float32"):
        _parac.dbscan(X.astype(np.int64), 0.5, 5, labels, core)
    with pytest.raises(ValueError, match="2-D"):
        _parac.dbscan(X.ravel(), 0.5, 5, labels, core)
    with pytest.raises(TypeError, match="int32"):
        _parac.dbscan(X, 0.5, 5, labels.astype(np.int64), core)
    with pytest.raises(ValueError, match="50 elements"):
        _parac.dbscan(X, 0.5, 5, labels[:10], core)
    readonly = labels.copy()
    readonly.setflags(write=False)
    with pytest.raises(TypeError, match="writable"):
        _parac.dbscan(X, 0.5, 5, readonly, core)
    with pytest.raises(TypeError, match="uint8"):
        _parac.dbscan(X, 0.5, 5, labels, core.astype(bool))
    with pytest.raises(ValueError, match="min_samples"):
        _parac.dbscan(X, 0.5, 0, labels, core)
    with pytest.raises(ValueError, match="min_samples"):
        _parac.dbscan(X, 0.5, -3, labels, core)
    with pytest.raises(parac.InvalidArgumentError, match="eps"):
        _parac.dbscan(X, -1.0, 5, labels, core)
    with pytest.raises(parac.InvalidArgumentError, match="eps"):
        _parac.dbscan(X, float("nan"), 5, labels, core)
    with pytest.raises(ValueError, match="device"):
        _parac.dbscan(X, 0.5, 5, labels, core, device="gpu")
    with pytest.raises(parac.InvalidArgumentError):
        _parac.dbscan(X, 0.5, 5, labels, core, method="octree")
    with pytest.raises(TypeError, match="progress"):
        _parac.dbscan(X, 0.5, 5, labels, core, progress=3)
    bad = X.copy()
    bad[7, 1] = np.nan
    with pytest.raises(parac.InvalidArgumentError, match="point 7"):
        _parac.dbscan(bad, 0.5, 5, labels, core)
    info = _parac.dbscan(X, 0.5, 5, labels, None, method="reference")
    assert info["method"] == "reference" and info["device"] == "cpu"


def test_birch_model_argument_checks():
    with pytest.raises(ValueError, match="dims"):
        _parac.BirchModel(0)
    with pytest.raises(parac.InvalidArgumentError, match="threshold"):
        _parac.BirchModel(2, threshold=-1.0)
    with pytest.raises(parac.InvalidArgumentError):
        _parac.BirchModel(2, variant="sideways")
    model = _parac.BirchModel(2, n_clusters=2, batch_size=0)
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="float64"):
        model.partial_fit(np.zeros((3, 2), np.float32))
    model.partial_fit(np.array([[0.0, 0.0], [0.1, 0.0], [9.0, 9.0], [9.1, 9.0]]))
    with pytest.raises(RuntimeError, match="global step"):
        model.subclusters(None, None, np.empty(model.subcluster_count, np.int32))
    model.global_step()
    with pytest.raises(ValueError, match="elements"):
        model.subclusters(np.empty(3), None, None)
    centers = np.empty((model.subcluster_count, 2))
    counts = np.empty(model.subcluster_count, np.int64)
    model.subclusters(centers, counts, None)
    assert counts.sum() == model.points_seen == 4
    labels = np.empty(2, np.int32)
    model.predict(np.array([[0.0, 0.1], [9.0, 9.1]]), labels, None)
    assert labels[0] != labels[1]
    with pytest.raises(TypeError):
        pickle_model = __import__("pickle").dumps(model)  # noqa: F841 (the handle is not picklable)


# --- cancellation ---------------------------------------------------------------------------

def long_points():
    return np.random.default_rng(1).normal(size=(10000, 12))


def test_progress_callback_cancels():
    calls = []

    def stop_at_first_report(done, total):
        calls.append((done, total))
        return True

    X = long_points()
    labels, core = outputs(len(X))
    with pytest.raises(parac.CancelledError):
        _parac.dbscan(X, 3.0, 10, labels, core, device="cpu", progress=stop_at_first_report)
    assert len(calls) == 1, f"{len(calls)} reports: the run went on after the callback asked it to stop"
    done, total = calls[0]
    assert done < total


def test_progress_callback_reports_without_changing_labels():
    calls = []
    X = long_points()
    labels, core = outputs(len(X))
    plain_labels, plain_core = outputs(len(X))
    _parac.dbscan(X, 3.0, 10, labels, core, device="cpu", progress=lambda done, total: calls.append((done, total)))
    _parac.dbscan(X, 3.0, 10, plain_labels, plain_core, device="cpu")
    assert np.array_equal(labels, plain_labels) and np.array_equal(core, plain_core)
    assert calls and calls[-1][0] == calls[-1][1], f"no final report: {calls[-3:]}"
    assert all(a[0] <= b[0] and b[0] <= b[1] for a, b in zip(calls, calls[1:])), "done went back or past total"


def test_birch_partial_fit_cancels_and_keeps_a_prefix():
    X = np.random.default_rng(2).normal(size=(200000, 2))
    model = _parac.BirchModel(2, threshold=0.5, n_clusters=3, batch_size=0)
    calls = []

    def stop_at_second_report(done, total):
        calls.append((done, total))
        if len(calls) == 2:
            return True
        time.sleep(0.12)  # past the report interval: the next slice boundary reports
        return False

    with pytest.raises(parac.CancelledError):
        model.partial_fit(X, progress=stop_at_second_report)
    assert len(calls) == 2 and calls[0] == (0, len(X)), calls
    kept = model.points_seen
    assert 0 < kept < len(X) and kept == calls[1][0]
    model.partial_fit(X[kept:])  # the rest: the model then holds every point once
    assert model.points_seen == len(X)


def test_progress_callback_exception_propagates():
    def broken(done, total):
        raise ZeroDivisionError("from the callback")

    X = long_points()
    labels, core = outputs(len(X))
    with pytest.raises(ZeroDivisionError, match="from the callback"):
        _parac.dbscan(X, 3.0, 10, labels, core, device="cpu", progress=broken)


CTRL_C_SCRIPT = textwrap.dedent("""
    import os, signal, threading, time, numpy as np, parac
    X = np.random.default_rng(1).normal(size=(int(os.environ["N"]), 12))
    reports = []
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    started = time.monotonic()
    try:
        parac.dbscan(X, eps=3.0, min_samples=10, device="cpu", progress=lambda d, t: reports.append(d) and False)
        print("RESULT completed")
    except KeyboardInterrupt:
        print("RESULT interrupted %.2f %d" % (time.monotonic() - started, len(reports)))
    # The handler is Python's again: a later Ctrl-C still raises KeyboardInterrupt.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    try:
        os.kill(os.getpid(), signal.SIGINT); time.sleep(1)
        print("AFTER no interrupt")
    except KeyboardInterrupt:
        print("AFTER interrupted")
""")


def test_ctrl_c_raises_keyboard_interrupt():
    """SIGINT during a long call: KeyboardInterrupt at the next checkpoint, soon after the signal,
    and Python's handler back in place afterwards."""
    env = dict(os.environ, N="40000")  # 12,000 points took 0.47 s on a 2-core machine: done before the 0.5 s signal
    done = subprocess.run([sys.executable, "-c", CTRL_C_SCRIPT], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT")][0].split()
    assert result[1] == "interrupted", done.stdout
    assert "AFTER interrupted" in done.stdout
    seconds, reports = float(result[2]), int(result[3])
    assert reports >= 1, "no progress report before the interrupt"
    assert seconds < 0.5 + 3.0, f"stopped only after {seconds:.2f} s"


# --- the GIL --------------------------------------------------------------------------------

def test_gil_is_released_during_a_run():
    X = long_points()
    finished = threading.Event()
    ticks = 0

    def run():
        parac.dbscan(X, eps=3.0, min_samples=10, device="cpu", n_jobs=1)
        finished.set()

    worker = threading.Thread(target=run)
    started = time.monotonic()
    worker.start()
    while not finished.is_set():
        ticks += 1  # Python bytecode on this thread while the worker is inside the C library
        time.sleep(0.005)
    worker.join()
    elapsed = time.monotonic() - started
    if elapsed < 0.3:
        pytest.skip("the run was too short to tell")
    assert ticks >= 10, f"the main thread ran {ticks} times in {elapsed:.2f} s: the GIL was held"
