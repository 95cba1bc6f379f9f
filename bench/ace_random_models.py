#!/usr/bin/env python3
"""bench/ace_random_models.py — small random pycsp3 models, one global constraint kind each (18
kinds in turn) plus a few random clues, compiled to XCSP3 for bench/compare_ace.py.

usage (pycsp3 from PyPI in a virtual environment, as tests/data/xcsp3/make_instances.py):
    venv/bin/python bench/ace_random_models.py FOLDER [COUNT]
    python3 bench/compare_ace.py --parac build/parac --ace ACE.jar FOLDER/*.xml
Model i uses seed i, so the same COUNT gives the same files. A model pycsp3 refuses (e.g. an
element index whose domain leaves the list) is reported and left out.
"""
import os
import random
import subprocess
import sys
import tempfile

KINDS = ["allDifferent", "allDifferent-expressions", "sum", "count", "nValues", "cardinality", "element",
         "channel", "lex", "minimum-maximum", "cumulative", "noOverlap", "circuit", "binPacking", "knapsack",
         "regular", "ordered", "allEqual"]


def integers(rng, count, low, high):
    return "[" + ", ".join(str(rng.randint(low, high)) for _ in range(count)) + "]"


def constraint_of(kind, rng, n, d):
    return {
        "allDifferent": lambda: ["AllDifferent(x)"],
        "allDifferent-expressions": lambda: [f"AllDifferent(x[i] + {rng.randint(0, 2)} * i for i in range({n}))"],
        "sum": lambda: [f"Sum(x[i] * {rng.randint(1, 3)} for i in range({n})) == z"],
        "count": lambda: ["Count(x, values=[0, 1]) == y[0]"],
        "nValues": lambda: [f"NValues(x) <= {rng.randint(1, 3)}"],
        "cardinality": lambda: ["Cardinality(x, occurrences={0: y[0], 1: y[1], 2: y[2]})"],
        "element": lambda: ["x[y[0]] == z"],
        "channel": lambda: ["Channel(x[:4], y)"],
        "lex": lambda: ["LexIncreasing(x[:3], x[3:6], strict=True)"],
        "minimum-maximum": lambda: ["Minimum(x) == y[0]", f"Maximum(x[i] + i for i in range({n})) == z"],
        "cumulative": lambda: [f"Cumulative(origins=x, lengths={integers(rng, n, 1, 3)}, "
                               f"heights={integers(rng, n, 1, 2)}) <= 3"],
        "noOverlap": lambda: ["NoOverlap(origins=x[:4], lengths=[2, 1, 2, 1])"],
        "circuit": lambda: ["Circuit(x)"],
        "binPacking": lambda: [f"BinPacking(x, sizes={integers(rng, n, 1, 4)}) <= {rng.randint(4, 7)}"],
        "knapsack": lambda: [f"Knapsack(x, weights={integers(rng, n, 1, 4)}, wlimit={rng.randint(6, 12)}, "
                             f"profits={integers(rng, n, 1, 4)}) >= {rng.randint(5, 12)}"],
        "regular": lambda: ['x in Automaton(start="a", final=["b"], transitions=[("a", 0, "a"), ("a", 1, "b"), '
                            '("b", 1, "b"), ("b", 2, "a"), ("a", 2, "b")])'],
        "ordered": lambda: ["Increasing(x, strict=True)" if d >= n else "Increasing(x)"],
        "allEqual": lambda: ["AllEqual(x[:3])"],
    }[kind]()


def model(seed):
    rng = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    n, d = rng.randint(4, 7), rng.randint(3, 6)
    constraints = constraint_of(kind, rng, n, d)
    for _ in range(rng.randint(1, 3)):  # clues: something for the root propagation to start from
        i, v = rng.randrange(n), rng.randrange(d)
        constraints.append(rng.choice([f"x[{i}] == {v}", f"x[{i}] != {v}"]))
    constraints.append(f"z >= {rng.randint(0, 5)}")
    return kind, (f"from pycsp3 import *\nx = VarArray(size={n}, dom=range({d}))\n"
                  "y = VarArray(size=4, dom=range(6))\nz = Var(dom=range(12))\n"
                  "satisfy(\n    " + ",\n    ".join(constraints) + "\n)\n")


def main():
    target = os.path.abspath(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 54
    os.makedirs(target, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(count):
            kind, text = model(seed)
            script = os.path.join(folder, f"random_{seed}.py")
            with open(script, "w") as f:
                f.write(text)
            output = os.path.join(target, f"random-{seed:03d}-{kind}.xml")
            done = subprocess.run([sys.executable, script, "-output=" + output], cwd=folder,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if done.returncode != 0 or not os.path.exists(output):
                print(f"seed {seed} ({kind}): pycsp3 refuses the model, left out")


if __name__ == "__main__":
    main()
