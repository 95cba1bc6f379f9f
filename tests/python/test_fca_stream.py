"""parac.iter_concepts / parac.iter_edges: the concepts and edges of parac.concepts / parac.lattice in
the same order, under any memory budget and batch size; bounded memory when the concepts exceed the
budget; an early break, an exception or Ctrl-C stops the run and frees its thread and temporary file."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import parac
from conftest import requires_cuda

DATA = Path(__file__).resolve().parents[1] / "data" / "fca"


def random_context(seed, objects=None, attributes=None):
    rng = np.random.default_rng(seed)
    objects = objects or int(rng.integers(1, 50))
    attributes = attributes or int(rng.integers(1, 24))
    return rng.random((objects, attributes)) < rng.uniform(0.15, 0.6)


def same_as_concepts(streamed, computed, extents=True):
    assert len(streamed) == computed.count
    for i, item in enumerate(streamed):
        intent, extent = item if extents else (item, None)
        assert intent.dtype == np.uint32 and np.array_equal(intent, computed.intent(i)), i
        if extents:
            assert extent.dtype == np.uint32 and np.array_equal(extent, computed.extent(i)), i


@pytest.mark.parametrize("seed", range(8))
def test_concepts_in_the_order_of_parac_concepts(seed):
    cells = random_context(seed)
    min_support = seed % 3
    computed = parac.concepts(cells, min_support=min_support, device="cpu")
    for max_memory, batch_size in [(None, 4096), (1, 1), (4096, 7)]:  # 1 byte: every intent its own run
        streamed = list(parac.iter_concepts(cells, min_support=min_support, device="cpu", threads=1 + seed % 3,
                                            max_memory=max_memory, batch_size=batch_size))
        same_as_concepts(streamed, computed)
    same_as_concepts(list(parac.iter_concepts(cells, min_support=min_support, extents=False, max_memory=1)),
                     computed, extents=False)


@requires_cuda
def test_cuda_and_auto_stream_the_cpu_concepts():
    cells = np.random.default_rng(7).random((120, 30)) < 0.4
    computed = parac.concepts(cells, device="cpu")
    for device in ("cuda", "auto"):
        same_as_concepts(list(parac.iter_concepts(cells, device=device, max_memory=64 << 10)), computed)


def test_a_file_streams_as_parac_concepts_reads_it():
    path = DATA / "primary-tumor.dat"
    computed = parac.concepts(str(path), device="cpu")
    same_as_concepts(list(parac.iter_concepts(path, max_memory=64 << 10, device="cpu")), computed)


@pytest.mark.parametrize("seed", range(4))
def test_edges_in_the_order_of_parac_lattice(seed):
    cells = random_context(100 + seed, objects=40, attributes=14)
    min_support = seed % 2
    edges = parac.lattice(cells, min_support=min_support, device="cpu").edges
    for max_memory, batch_size in [(None, 65536), (1, 3)]:
        streamed = np.array(list(parac.iter_edges(cells, min_support=min_support, max_memory=max_memory,
                                                  batch_size=batch_size)), dtype=np.int64).reshape(-1, 2)
        assert np.array_equal(streamed, edges)


def test_bad_arguments():
    cells = random_context(0)
    for bad in [dict(max_memory=0), dict(max_memory=-5), dict(batch_size=0), dict(min_support=-1),
                dict(device="gpu"), dict(format="xml")]:
        with pytest.raises(ValueError):
            next(parac.iter_concepts(cells, **bad))
    with pytest.raises(parac.ParseError):
        next(parac.iter_concepts(str(DATA / "vote.dat"), format="cxt"))


def open_descriptors():
    return len(os.listdir("/proc/self/fd"))


def test_an_early_break_stops_the_run_and_frees_it(tmp_path):
    cells = random_context(5, objects=300, attributes=40)  # tens of thousands of concepts
    threads, descriptors = threading.active_count(), open_descriptors()
    for repeat in range(5):
        taken = 0
        for intent, extent in parac.iter_concepts(cells, device="cpu", max_memory=1, batch_size=16,
                                                  temp_directory=str(tmp_path)):
            taken += 1
            if taken == 10 + repeat:
                break
        assert taken == 10 + repeat
        assert threading.active_count() == threads  # the generator was closed at the break: thread joined
        assert open_descriptors() == descriptors    # and the runs' temporary file closed
    with pytest.raises(ZeroDivisionError):          # an exception in the caller's loop does the same
        for intent, extent in parac.iter_concepts(cells, device="cpu", max_memory=1):
            1 / 0
    assert threading.active_count() == threads and open_descriptors() == descriptors


def test_progress_can_cancel_and_sees_the_search():
    cells = random_context(1, objects=300, attributes=40)
    with pytest.raises(parac.CancelledError):
        list(parac.iter_concepts(cells, device="cpu", progress=lambda done, total: True))


def test_other_python_threads_run_while_the_search_does():
    """The search holds no GIL: a ticker thread keeps counting during a second of search (stopped by
    progress after 1 s; about 5e8 concepts would take minutes)."""
    cells = np.random.default_rng(0).random((3000, 60)) < 0.4
    ticks, finished = [0], threading.Event()

    def ticker():
        while not finished.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    thread = threading.Thread(target=ticker)
    thread.start()
    started = time.monotonic()
    try:
        with pytest.raises(parac.CancelledError):
            next(parac.iter_concepts(cells, device="cpu", threads=1,
                                     progress=lambda done, total: time.monotonic() - started > 1.0))
    finally:
        finished.set()
        thread.join()
    assert time.monotonic() - started >= 1.0
    assert ticks[0] >= 50, f"the ticker ran {ticks[0]} times in a second of search"


MEMORY_SCRIPT = """
import sys, numpy as np, parac
# The contranominal scale of 18 objects (2^18 concepts) plus 600 attributes every object has: 262,144
# concepts whose intents take 10 words each, 21 MB in the library (twice that while they are sorted).
n, full = 18, 600
cells = np.ones((n, n + full), dtype=np.uint8)
cells[np.arange(n), np.arange(n)] = 0
budget = None if sys.argv[1] == "none" else int(sys.argv[1])
def status(field):  # kB
    return int([line for line in open("/proc/self/status") if line.startswith(field)][0].split()[1])
with open("/proc/self/clear_refs", "w") as reset:  # the peak (VmHWM) starts again from here: imports excluded
    reset.write("5")
before = status("VmRSS:")
# Two threads in both runs: each search thread has its own allocator arena and work buffers, which the
# budget (concepts held) does not cover; on the 16-core GPU machine they added 12 MB to the budgeted run.
count = sum(1 for _ in parac.iter_concepts(cells, device="cpu", threads=2, max_memory=budget, extents=False,
                                           batch_size=256))
print("RESULT", count, status("VmHWM:") - before)
"""


def peak_growth(budget):
    done = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, str(budget)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    _, count, grown = [line for line in done.stdout.splitlines() if line.startswith("RESULT")][0].split()
    return int(count), int(grown) * 1024


def test_memory_stays_within_the_budget_when_the_concepts_do_not_fit():
    count, unbudgeted = peak_growth("none")
    budgeted_count, budgeted = peak_growth(1 << 20)
    assert count == budgeted_count == 2 ** 18
    assert unbudgeted > 30e6, f"the unbudgeted run held only {unbudgeted / 1e6:.1f} MB"  # the intents: 21 MB, x2
    assert budgeted < unbudgeted / 3 and budgeted < 16e6, \
        f"1 MiB budget: {budgeted / 1e6:.1f} MB peak growth, unbudgeted {unbudgeted / 1e6:.1f} MB"


CTRL_C_SCRIPT = """
import os, signal, threading, time, numpy as np, parac
cells = np.random.default_rng(0).random((3000, 60)) < 0.4   # about 5e8 concepts: minutes to search
threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
started = time.monotonic()
try:
    for concept in parac.iter_concepts(cells, device="cpu", threads=1):
        pass
    print("RESULT completed")
except KeyboardInterrupt:
    print("RESULT interrupted %.2f %d" % (time.monotonic() - started, threading.active_count()))
"""


def test_ctrl_c_stops_the_stream():
    done = subprocess.run([sys.executable, "-c", CTRL_C_SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT")][0].split()
    assert result[1] == "interrupted", done.stdout
    assert float(result[2]) < 0.5 + 5.0, f"stopped only after {result[2]} s"
    assert result[3] == "1", "the stream's thread was still alive after the interrupt"
