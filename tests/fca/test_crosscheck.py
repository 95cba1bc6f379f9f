"""tests/fca/test_crosscheck.py — `parac fca --extents` against an independent
numpy computation: every printed (extent, intent) is a concept of the
context, and the concepts are exactly the closures of all attribute subsets."""
import itertools
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    sys.exit(77)


def closures(matrix):
    objects, attributes = matrix.shape
    found = set()
    for size in range(attributes + 1):
        for subset in itertools.combinations(range(attributes), size):
            rows = matrix[:, list(subset)].all(axis=1) if subset else np.ones(objects, bool)
            intent = matrix[rows].all(axis=0) if rows.any() else np.ones(attributes, bool)
            found.add(tuple(np.flatnonzero(intent)))
    return found


def run(parac, path):
    out = subprocess.run([parac, "fca", path, "--extents", "--device", "cpu"], check=True, capture_output=True,
                         text=True).stdout
    concepts = []
    for line in out.splitlines():
        intent, extent = line.split("|")
        concepts.append((tuple(int(x) for x in intent.split()), tuple(int(x) for x in extent.split())))
    return concepts


def main():
    parac = os.environ.get("PARAC", "./parac")
    rng = np.random.default_rng(2024)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for trial in range(12):
            objects, attributes = int(rng.integers(1, 40)), int(rng.integers(1, 11))
            matrix = rng.random((objects, attributes)) < rng.uniform(0.1, 0.7)
            path = os.path.join(tmp, "c.csv")
            with open(path, "w") as f:
                for row in matrix:
                    f.write(",".join("1" if v else "0" for v in row) + "\n")
            concepts = run(parac, path)
            expected = closures(matrix)
            intents = [c[0] for c in concepts]
            if set(intents) != expected or len(intents) != len(expected) or intents != sorted(intents):
                print(f"FAIL trial {trial}: {len(intents)} concepts, expected {len(expected)}")
                failures += 1
            for intent, extent in concepts:
                rows = matrix[:, list(intent)].all(axis=1) if intent else np.ones(objects, bool)
                if tuple(np.flatnonzero(rows)) != extent:
                    print(f"FAIL trial {trial}: extent of {intent} is {extent}")
                    failures += 1
                    break
    print("fca crosscheck:", "failures" if failures else "all passed")
    sys.exit(1 if failures else 0)


main()
