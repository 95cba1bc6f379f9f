"""parac.arc_consistency: AC (or SAC) of an XCSP3 / XCSP 2.1 constraint network."""
import os

import numpy as np

from . import _parac
from ._common import DEVICES, threads_for


def _is_xml_document(source):
    head = source.lstrip()[:1]
    return head in ("<", b"<")


def arc_consistency(path_or_xml_string, algorithm="auto", sac=False, device="auto", *, threads=None,
                    variant="auto", ignore_unsupported=False):
    """Enforces arc consistency (singleton AC with sac=True) on a constraint network.

    path_or_xml_string: a path (str, bytes or os.PathLike; plain, .xz or .lzma) or the XML document
    itself (a str or bytes starting with '<'). algorithm: "auto", "ac3", "ac3rm", "ac3bit",
    "ac2001", "ac4", "gpu-bitset", "ac4-gpu", "ac4-gpu-plus" (every one gives the same domains).
    ignore_unsupported: skip global constraints instead of failing (listed in stats["dropped"]).

    Returns (domains, stats): domains a dict {variable name: int64 array of the remaining values,
    increasing} in the network's variable order (every array empty on a wipe-out); stats the figures
    of `parac ac --json` (algorithm, device, sac, variables, constraints, values_before,
    values_after, removed, wipeout, iterations, revisions, ne_nodes, ne_edges, table_count and
    tuple_entries (the table constraints, which ran on `device`), dropped,
    parse_seconds, build_seconds, propagate_seconds, seconds). Ctrl-C stops the run.
    """
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if not isinstance(algorithm, str) or not isinstance(variant, str):
        raise TypeError("algorithm and variant must be strings")
    source = path_or_xml_string
    if isinstance(source, (bytearray, memoryview)):
        source = bytes(source)
    if isinstance(source, (str, bytes)) and _is_xml_document(source):
        is_path = False
    elif isinstance(source, (str, bytes, os.PathLike)):
        source, is_path = os.fsencode(source), True
        if b"\0" in source:
            raise ValueError("path contains a NUL byte")
    else:
        raise TypeError(f"expected a path or an XML document, got {type(source).__name__}")
    stats, names, offsets, values = _parac.arc_consistency(
        source, is_path, algorithm=algorithm, sac=bool(sac), device=device, threads=threads_for(threads),
        variant=variant, ignore_unsupported=bool(ignore_unsupported))
    offsets = np.frombuffer(offsets, dtype=np.int64)
    values = np.frombuffer(values, dtype=np.int64)
    domains = {name: values[offsets[i]:offsets[i + 1]] for i, name in enumerate(names)}
    stats["dropped"] = list(stats["dropped"])
    return domains, stats
