"""parac.implications / parac.association_rules against brute force on small random contexts."""
import itertools
from pathlib import Path

import numpy as np
import pytest

import parac

DATA = Path(__file__).resolve().parents[1] / "data" / "fca"


def closure(cells, subset):
    rows = cells[np.all(cells[:, list(subset)] == 1, axis=1)] if subset else cells
    return frozenset(np.flatnonzero(rows.min(axis=0) == 1)) if len(rows) else frozenset(range(cells.shape[1]))


def support(cells, subset):
    return int(np.all(cells[:, sorted(subset)] == 1, axis=1).sum()) if subset else cells.shape[0]


def pseudo_intents(cells):
    """Every pseudo-intent by definition, subsets before supersets."""
    found = []
    attributes = cells.shape[1]
    for size in range(attributes + 1):
        for subset in itertools.combinations(range(attributes), size):
            p = frozenset(subset)
            if closure(cells, p) != p and all(closure(cells, q) <= p for q in found if q < p):
                found.append(p)
    return found


def as_pairs(rules):
    return [(tuple(rules.premise(i)), tuple(rules.conclusion(i))) for i in range(rules.count)]


def random_context(seed, objects, attributes, density):
    return (np.random.default_rng(seed).random((objects, attributes)) < density).astype(np.uint8)


@pytest.mark.parametrize("seed", range(12))
def test_implications_match_the_definition(seed):
    cells = random_context(seed, 4 + seed % 9, 2 + seed % 7, 0.3 + 0.04 * seed)
    expected = sorted((tuple(sorted(p)), tuple(sorted(closure(cells, p) - p))) for p in pseudo_intents(cells))
    basis = parac.implications(cells)
    assert as_pairs(basis) == expected
    assert [int(s) for s in basis.support] == [support(cells, p) for p, _ in expected]
    assert np.array_equal(basis.support, basis.premise_support)
    frequent = parac.implications(cells, min_support=2)
    assert as_pairs(frequent) == [pair for pair in expected if support(cells, pair[0]) >= 2]


@pytest.mark.parametrize("all_rules", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_rules_match_brute_force(seed, all_rules):
    cells = random_context(100 + seed, 5 + seed, 2 + seed % 6, 0.4)
    min_support, min_confidence = 1 + seed % 2, 0.25 * (seed % 4)
    attributes = cells.shape[1]
    closed = {closure(cells, frozenset(s)) for size in range(attributes + 1)
              for s in itertools.combinations(range(attributes), size)}
    closed = [c for c in closed if support(cells, c) >= min_support]
    expected = []
    for b1, b2 in itertools.permutations(closed, 2):
        if not b1 < b2 or support(cells, b2) / support(cells, b1) < min_confidence:
            continue
        if not all_rules and any(b1 < m < b2 for m in closed):
            continue
        expected.append((tuple(sorted(b1)), tuple(sorted(b2 - b1))))
    rules = parac.association_rules(cells, min_support=min_support, min_confidence=min_confidence,
                                    all_rules=all_rules, threads=2)
    assert as_pairs(rules) == sorted(expected)
    assert np.all(rules.confidence < 1) and np.all(rules.confidence >= min_confidence)


def test_files_errors_and_cancel(tmp_path):
    path = tmp_path / "small.dat"
    path.write_text("0 1\n1 2\n0 1 2\n")
    basis = parac.implications(str(path))
    assert as_pairs(basis) == [((), (1,))] and int(basis.support[0]) == 3
    rules = parac.association_rules(path, all_rules=True)
    assert rules.count == 5
    with pytest.raises(parac.InvalidArgumentError):
        parac.association_rules(path, all_rules=True, max_rules=4)
    with pytest.raises(ValueError):
        parac.association_rules(path, min_confidence=1.5)
    with pytest.raises(ValueError):
        parac.implications(path, min_support=-1)
    with pytest.raises(parac.CancelledError):
        parac.implications(random_context(7, 60, 30, 0.35), progress=lambda done, total: True)
    with pytest.raises(parac.OutOfMemoryError):  # the result's budget (max_host_bytes)
        parac.implications(random_context(7, 60, 30, 0.35), max_memory=64)
    with pytest.raises(parac.OutOfMemoryError):
        parac.association_rules(random_context(7, 60, 30, 0.35), max_memory=64)
    with pytest.raises(ValueError):
        parac.implications(path, max_memory=0)
    assert as_pairs(parac.implications(path, max_memory=1 << 20)) == [((), (1,))]
    if (DATA / "primary-tumor.dat").exists():
        assert parac.implications(DATA / "primary-tumor.dat", min_support=20).count > 0
