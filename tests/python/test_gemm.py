"""parac.matmul against numpy (float64 reference) and its documented error bound."""
import numpy as np
import pytest

import parac
from conftest import requires_cuda


def reference_and_bound(A, B, unit):
    """The float64 product of the float32-rounded inputs and the bound k * unit * (|A| |B|)."""
    A64 = np.asarray(A, dtype=np.float32).astype(np.float64)
    B64 = np.asarray(B, dtype=np.float32).astype(np.float64)
    k = A64.shape[1]
    return A64 @ B64, k * unit * (np.abs(A64) @ np.abs(B64)) + 1e-30


@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 13, 5), (64, 64, 64), (130, 70, 200), (33, 257, 129)])
@pytest.mark.parametrize("schedule", ["static", "dynamic"])
def test_matmul_fp32_within_bound(shape, schedule):
    m, k, n = shape
    rng = np.random.default_rng(m * 1000 + k)
    A = rng.uniform(-1, 1, size=(m, k))  # float64: converted once
    B = rng.uniform(-1, 1, size=(k, n)).astype(np.float32)
    C = parac.matmul(A, B, schedule=schedule, device="cpu")
    assert C.dtype == np.float32 and C.shape == (m, n)
    exact, bound = reference_and_bound(A, B, 2.0 ** -24)
    assert np.all(np.abs(C - exact) <= bound)


def test_matmul_same_bits_every_schedule_and_thread_count():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((150, 90)).astype(np.float32)
    B = rng.standard_normal((90, 110)).astype(np.float32)
    first = parac.matmul(A, B, schedule="static", device="cpu", n_jobs=1)
    for schedule, jobs in [("dynamic", 1), ("static", 2), ("dynamic", None), ("auto", 3)]:
        assert np.array_equal(first, parac.matmul(A, B, schedule=schedule, device="cpu", n_jobs=jobs))


def test_matmul_tf32_within_bound():
    rng = np.random.default_rng(2)
    A = rng.uniform(-1, 1, size=(65, 100))
    B = rng.uniform(-1, 1, size=(100, 40))
    C = parac.matmul(A, B, dtype="tf32", device="cpu")
    exact, bound = reference_and_bound(A, B, 2.0 ** -10)
    assert np.all(np.abs(C - exact) <= bound)


def test_matmul_explain_describes_the_plan():
    A = np.ones((100, 300), np.float32)
    B = np.ones((300, 50), np.float32)
    C, plan = parac.matmul(A, B, schedule="dynamic", device="cpu", explain=True)
    assert np.all(C == 300)
    assert plan["schedule"] == "dynamic" and plan["device"] == "cpu" and plan["dtype"] == "fp32"
    assert plan["tiles_m"] == -(-100 // plan["tile_m"]) and plan["tiles_n"] == -(-50 // plan["tile_n"])
    assert plan["flops"] == pytest.approx(2 * 100 * 300 * 50, rel=0.5)
    assert isinstance(plan["text"], str) and plan["text"]


def test_matmul_non_contiguous_and_int_input():
    A = np.arange(12, dtype=np.int64).reshape(3, 4)
    B = np.arange(20, dtype=np.float64).reshape(5, 4).T  # Fortran-ordered view
    assert np.array_equal(parac.matmul(A, B, device="cpu"), (A @ B).astype(np.float32))


def test_matmul_bad_arguments():
    A = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError):
        parac.matmul(A, np.ones((5, 2), np.float32))
    with pytest.raises(ValueError):
        parac.matmul(A, np.ones(4, np.float32))
    with pytest.raises(ValueError):
        parac.matmul(A, np.ones((4, 2)), dtype="fp16")
    with pytest.raises(ValueError):
        parac.matmul(A, np.ones((4, 2)), schedule="greedy")
    with pytest.raises(ValueError):
        parac.matmul(np.ones((0, 4)), np.ones((4, 2)))
    with pytest.raises(TypeError):
        parac.matmul(np.array([["a"]]), np.ones((1, 1)))
    with pytest.raises(TypeError):  # the extension checks its buffers itself
        parac._parac.matmul(np.ones((3, 4)), np.ones((4, 2), np.float32), np.empty(6, np.float32))
    with pytest.raises(ValueError):
        parac._parac.matmul(A, np.ones((4, 2), np.float32), np.empty(5, np.float32))
    if not parac.cuda_available():
        with pytest.raises(parac.NoDeviceError):
            parac.matmul(A, np.ones((4, 2)), device="cuda")


@requires_cuda
def test_matmul_cuda_fp32_same_bits_as_cpu():
    rng = np.random.default_rng(9)
    A = rng.standard_normal((300, 200)).astype(np.float32)
    B = rng.standard_normal((200, 100)).astype(np.float32)
    assert np.array_equal(parac.matmul(A, B, device="cuda"), parac.matmul(A, B, device="cpu"))


def test_gil_is_released_during_matmul_and_concepts():
    """Python bytecode runs on this thread while a worker thread is inside matmul or concepts."""
    import threading
    import time
    from pathlib import Path

    A = np.ones((1500, 1500), np.float32)
    mushroom = Path(__file__).resolve().parents[1] / "data" / "fca" / "mushroom.dat"
    for call in (lambda: parac.matmul(A, A, device="cpu", n_jobs=1),
                 lambda: parac.concepts(mushroom, count_only=True, device="cpu", threads=1)):
        finished = threading.Event()
        worker = threading.Thread(target=lambda: (call(), finished.set()))
        ticks, started = 0, time.monotonic()
        worker.start()
        while not finished.is_set():
            ticks += 1
            time.sleep(0.002)
        worker.join()
        elapsed = time.monotonic() - started
        if elapsed < 0.1:
            continue  # too short to tell
        assert ticks >= 10, f"the main thread ran {ticks} times in {elapsed:.2f} s: the GIL was held"
