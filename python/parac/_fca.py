"""parac.concepts and parac.lattice: formal concept analysis (FCbO) of a binary context."""
import os
from typing import NamedTuple, Optional

import numpy as np

from . import _parac
from ._common import DEVICES, threads_for

FORMATS = ("auto", "fimi", "cxt", "csv")


class Concepts(NamedTuple):
    """The concepts of a context, CSR-style, in parac's canonical order (lexicographic by the
    ascending intent). Concept i has the attributes intent_indices[intent_offsets[i]:intent_offsets[i+1]]
    and the objects extent_indices[extent_offsets[i]:extent_offsets[i+1]], both ascending (uint32
    ids, int64 offsets). edges: the lattice's covering edges (parac.lattice), else None."""

    count: int
    n_objects: int
    n_attributes: int
    intent_offsets: np.ndarray
    intent_indices: np.ndarray
    extent_offsets: np.ndarray
    extent_indices: np.ndarray
    edges: Optional[np.ndarray] = None

    def intent(self, i):
        return self.intent_indices[self.intent_offsets[i]:self.intent_offsets[i + 1]]

    def extent(self, i):
        return self.extent_indices[self.extent_offsets[i]:self.extent_offsets[i + 1]]


def _context_cells(context):
    """A context given as an array or scipy.sparse matrix, as a C-contiguous 0/1 uint8 matrix."""
    if hasattr(context, "tocsr") and hasattr(context, "nnz"):  # scipy.sparse: any stored nonzero = 1
        sparse = context.tocsr()
        cells = np.zeros(sparse.shape, dtype=np.uint8)
        rows = np.repeat(np.arange(sparse.shape[0]), np.diff(sparse.indptr))
        nonzero = sparse.data != 0
        cells[rows[nonzero], sparse.indices[nonzero]] = 1
        return cells
    cells = np.asarray(context)
    if cells.ndim != 2:
        raise ValueError(f"context must be 2-D (objects x attributes), got shape {cells.shape}")
    if cells.dtype == np.bool_:
        return np.ascontiguousarray(cells, dtype=np.uint8)
    if not np.issubdtype(cells.dtype, np.integer):
        raise TypeError(f"context must be a bool or 0/1 integer array, got dtype {cells.dtype}")
    if cells.size and (cells.min() < 0 or cells.max() > 1):
        raise ValueError("context must hold only 0 and 1")
    return np.ascontiguousarray(cells, dtype=np.uint8)


def _run(context, min_support, device, count_only, threads, lattice, format, progress):
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if isinstance(min_support, bool) or not isinstance(min_support, (int, np.integer)) or min_support < 0:
        raise ValueError(f"min_support must be an int >= 0, got {min_support!r}")
    options = dict(min_support=int(min_support), device=device, threads=threads_for(threads),
                   count_only=count_only, lattice=lattice, progress=progress, format=format)
    if isinstance(context, (str, bytes, os.PathLike)):
        answer = _parac.fca(os.fsencode(context), path=True, **options)
    else:
        answer = _parac.fca(_context_cells(context), **options)
    if count_only:
        return answer
    count, objects, attributes, intent_offsets, intents, extent_offsets, extents, edges = answer
    return Concepts(
        count, objects, attributes,
        np.frombuffer(intent_offsets, dtype=np.int64), np.frombuffer(intents, dtype=np.uint32),
        np.frombuffer(extent_offsets, dtype=np.int64), np.frombuffer(extents, dtype=np.uint32),
        None if edges is None else np.frombuffer(edges, dtype=np.int64).reshape(-1, 2))


def concepts(context, min_support=0, device="auto", count_only=False, threads=None, *, format="auto",
             progress=None):
    """All formal concepts of a context.

    context: a 2-D bool or 0/1 integer array (objects x attributes), a scipy.sparse matrix (any
    stored nonzero = 1; densified once), or a path to a FIMI .dat, Burmeister .cxt or 0/1 CSV file
    (plain or .gz, read by parac's own readers; format= overrides the choice by extension).
    min_support: only concepts whose extent has at least that many objects. threads: CPU threads
    (None = all cores, as n_jobs elsewhere). Returns a Concepts named tuple (count, n_objects,
    n_attributes, intent_offsets, intent_indices, extent_offsets, extent_indices), or the count
    alone with count_only=True (nothing stored). progress(done, total) may return True to stop
    (parac.CancelledError); Ctrl-C stops it too.
    """
    return _run(context, min_support, device, bool(count_only), threads, False, format, progress)


def lattice(context, min_support=0, device="auto", threads=None, *, format="auto", progress=None):
    """The concepts (as parac.concepts) with `edges` set: the covering relation of the concept
    lattice as an (E, 2) int64 array of (upper, lower) concept indices, sorted; lower's intent
    strictly contains upper's with no concept between."""
    return _run(context, min_support, device, False, threads, True, format, progress)
