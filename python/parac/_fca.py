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


class Rules(NamedTuple):
    """Implications (parac.implications) or association rules (parac.association_rules), CSR-style in
    parac's order. Rule i is premise(i) -> conclusion(i) (ascending uint32 attribute ids); support[i]
    objects have both sides, premise_support[i] the premise (equal for implications), so
    confidence = support / premise_support."""

    count: int
    premise_offsets: np.ndarray
    premise_indices: np.ndarray
    conclusion_offsets: np.ndarray
    conclusion_indices: np.ndarray
    support: np.ndarray
    premise_support: np.ndarray

    def premise(self, i):
        return self.premise_indices[self.premise_offsets[i]:self.premise_offsets[i + 1]]

    def conclusion(self, i):
        return self.conclusion_indices[self.conclusion_offsets[i]:self.conclusion_offsets[i + 1]]

    @property
    def confidence(self):
        return self.support / np.maximum(self.premise_support, 1)


def _rules(context, implications, min_support, min_confidence, all_rules, max_rules, device, threads, format,
           progress, max_memory):
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if isinstance(min_support, bool) or not isinstance(min_support, (int, np.integer)) or min_support < 0:
        raise ValueError(f"min_support must be an int >= 0, got {min_support!r}")
    if isinstance(min_confidence, bool) or not isinstance(min_confidence, (int, float, np.number)) \
            or not 0.0 <= float(min_confidence) <= 1.0:
        raise ValueError(f"min_confidence must be a number in [0, 1], got {min_confidence!r}")
    if max_rules is not None and (isinstance(max_rules, bool) or not isinstance(max_rules, (int, np.integer))
                                  or max_rules < 1):
        raise ValueError(f"max_rules must be None or an int >= 1, got {max_rules!r}")
    if max_memory is not None and (isinstance(max_memory, bool) or not isinstance(max_memory, (int, np.integer))
                                   or max_memory < 1):
        raise ValueError(f"max_memory must be None or a number of bytes >= 1, got {max_memory!r}")
    options = dict(format=FORMATS.index(format), implications=implications, min_support=int(min_support),
                   min_confidence=float(min_confidence), all_rules=bool(all_rules),
                   max_rules=0 if max_rules is None else int(max_rules), device=device,
                   threads=threads_for(threads), progress=progress, max_memory=int(max_memory or 0))
    if isinstance(context, (str, bytes, os.PathLike)):
        answer = _parac.fca_rules(os.fsencode(context), path=True, **options)
    else:
        answer = _parac.fca_rules(_context_cells(context), **options)
    premise_offsets, premises, conclusion_offsets, conclusions, support, premise_support = answer
    premise_offsets = np.frombuffer(premise_offsets, dtype=np.int64)
    return Rules(len(premise_offsets) - 1, premise_offsets, np.frombuffer(premises, dtype=np.uint32),
                 np.frombuffer(conclusion_offsets, dtype=np.int64), np.frombuffer(conclusions, dtype=np.uint32),
                 np.frombuffer(support, dtype=np.uint64), np.frombuffer(premise_support, dtype=np.uint64))


def implications(context, min_support=0, *, format="auto", progress=None, max_memory=None):
    """The Duquenne-Guigues (canonical) basis of the context's attribute implications: one rule
    P -> P'' minus P per pseudo-intent P, sorted by premise (lexicographic by ascending ids); with
    min_support only the pseudo-intents with at least that many objects. context as for
    parac.concepts. Runs on one CPU thread. Returns a Rules named tuple (support = premise_support).
    max_memory: bytes the result may hold (None: a quarter of what the process may use); past it
    parac.OutOfMemoryError. Without min_support the basis of a wide sparse context grows with the square
    of its attributes."""
    return _rules(context, True, min_support, 0.0, False, None, "cpu", 1, format, progress, max_memory)


def association_rules(context, min_support=1, min_confidence=0.0, all_rules=False, max_rules=None, device="auto",
                      threads=None, *, format="auto", progress=None, max_memory=None):
    """Association rules X -> Y between frequent closed itemsets B1 (= X) and B2 (= X u Y), B1 a
    proper subset of B2, both with at least min_support objects, confidence |B2'| / |B1'| at least
    min_confidence (always below 1: the exact rules are parac.implications). By default the
    Luxenburger basis (B2 covers B1 in the concept lattice); all_rules=True gives every pair, and
    max_rules then bounds their number (parac.InvalidArgumentError beyond it). Returns a Rules
    named tuple sorted by premise, then conclusion. max_memory as for parac.implications."""
    return _rules(context, False, min_support, min_confidence, all_rules, max_rules, device, threads, format,
                  progress, max_memory)
