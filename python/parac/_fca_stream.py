"""parac.iter_concepts and parac.iter_edges: the concepts of a context, or its lattice's covering edges,
one at a time in parac's canonical order, without holding them all: the library keeps its host memory for
them within max_memory (sorted runs in temporary files beyond it), and this side holds a few batches."""
import os
import queue
import threading

import numpy as np

from . import _parac
from ._common import DEVICES, threads_for
from ._fca import FORMATS, _context_cells

_QUEUED_BATCHES = 2  # batches waiting for the caller's loop: what bounds this side's memory


def _check(min_support, device, format, max_memory, batch_size):
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if isinstance(min_support, bool) or not isinstance(min_support, (int, np.integer)) or min_support < 0:
        raise ValueError(f"min_support must be an int >= 0, got {min_support!r}")
    if max_memory is not None and (isinstance(max_memory, bool) or not isinstance(max_memory, (int, np.integer))
                                   or max_memory < 1):
        raise ValueError(f"max_memory must be None or a number of bytes >= 1, got {max_memory!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")


def _batches(context, options, progress):
    """Runs _parac.fca_stream on a thread and yields its batches in order. Closing the generator (a
    break, an exception in the caller's loop, Ctrl-C, garbage collection) stops the run, waits for the
    thread and so frees the library's memory and temporary file before it returns."""
    if isinstance(context, (str, bytes, os.PathLike)):
        source, options = os.fsencode(context), dict(options, path=True)
    else:
        source = _context_cells(context)
    batches = queue.Queue(maxsize=_QUEUED_BATCHES)
    stop = threading.Event()
    done = object()

    def sink(kind, *parts):
        while True:  # a full queue waits for the caller's loop, which may stop instead
            try:
                batches.put(parts, timeout=0.05)
                return False
            except queue.Full:
                if stop.is_set():
                    return True

    def watch(finished, total):  # the library's progress checkpoints: the caller's stop is seen there too
        return stop.is_set() or bool(progress is not None and progress(finished, total))

    def produce():
        outcome = done
        try:
            _parac.fca_stream(source, sink, progress=watch, **options)
        except BaseException as exception:  # handed to the caller's thread
            outcome = exception
        while not stop.is_set():
            try:
                batches.put(outcome, timeout=0.05)
                return
            except queue.Full:
                pass

    worker = threading.Thread(target=produce, name="parac-fca-stream", daemon=True)
    worker.start()
    try:
        while True:
            try:
                item = batches.get(timeout=0.1)
            except queue.Empty:
                continue
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


def iter_concepts(context, min_support=0, device="auto", threads=None, *, max_memory=None, extents=True,
                  format="auto", batch_size=4096, temp_directory=None, progress=None):
    """Every formal concept of a context, one at a time, in the order of parac.concepts.

    Yields (intent, extent) pairs of ascending uint32 id arrays (intent alone with extents=False),
    without holding all of them: the library keeps at most max_memory bytes of concepts in memory (None:
    a quarter of what the process may use (physical memory, or a lower rlimit or cgroup limit);
    beyond it they go through sorted runs in temporary files in
    temp_directory, default $TMPDIR), and at most a few batches of batch_size concepts wait here. The
    search runs on a thread without the GIL; leaving the loop early (break, an exception, Ctrl-C) stops
    it and frees what it held. context, min_support, device, threads, format, progress as for
    parac.concepts.
    """
    _check(min_support, device, format, max_memory, batch_size)
    options = dict(format=format, min_support=int(min_support), device=device, threads=threads_for(threads),
                   max_memory=int(max_memory or 0), extents=bool(extents), batch=int(batch_size),
                   temp_directory=temp_directory)
    for parts in _batches(context, options, progress):
        intent_offsets = np.frombuffer(parts[0], dtype=np.int64)
        intents = np.frombuffer(parts[1], dtype=np.uint32)
        if extents:
            extent_offsets = np.frombuffer(parts[2], dtype=np.int64)
            extent_ids = np.frombuffer(parts[3], dtype=np.uint32)
        for i in range(len(intent_offsets) - 1):
            intent = intents[intent_offsets[i]:intent_offsets[i + 1]]
            yield (intent, extent_ids[extent_offsets[i]:extent_offsets[i + 1]]) if extents else intent


def iter_edges(context, min_support=0, threads=None, *, max_memory=None, format="auto", batch_size=65536,
               temp_directory=None, progress=None):
    """The covering edges of the concept lattice, one (upper, lower) pair of concept indices at a time,
    sorted: the edges of parac.lattice, with concepts numbered in the order of parac.concepts and
    iter_concepts. Memory as iter_concepts: the concepts and edges held stay within max_memory bytes.
    Runs on the CPU (the lattice's covers are a CPU pass).
    """
    _check(min_support, "cpu", format, max_memory, batch_size)
    options = dict(format=format, min_support=int(min_support), device="cpu", threads=threads_for(threads),
                   max_memory=int(max_memory or 0), edges=True, batch=int(batch_size), temp_directory=temp_directory)
    for (pairs,) in _batches(context, options, progress):
        for upper, lower in np.frombuffer(pairs, dtype=np.int64).reshape(-1, 2).tolist():
            yield upper, lower
