#!/usr/bin/env python3
"""tests/data/xcsp3/make_instances.py — compiles small public pycsp3 models into the XCSP3 files
of this folder (one file per model, named after it; README.md lists them).

pycsp3 (PyPI) is not a dependency of parac: run this with a throwaway virtual environment,
    python3 -m venv /tmp/pycsp3venv && /tmp/pycsp3venv/bin/pip install pycsp3
    /tmp/pycsp3venv/bin/python tests/data/xcsp3/make_instances.py
Each model is written to a temporary folder as its own script (pycsp3 compiles the script it
runs) and compiled with `python model.py -output=NAME.xml`. The models are textbook ones (queens,
magic square, sudoku, ...), kept tiny so each file stays far below 50 KB.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

MODELS = {
    # n-queens: allDifferent on the rows, the diagonals as intension
    "queens-8": """
n = 8
q = VarArray(size=n, dom=range(n))
satisfy(
    AllDifferent(q),
    [abs(q[i] - q[j]) != j - i for i in range(n) for j in range(i + 1, n)]
)
""",
    # magic square 3x3: allDifferent and sums over rows, columns and diagonals
    "magic-square-3": """
n = 3
s = n * (n * n + 1) // 2
x = VarArray(size=[n, n], dom=range(1, n * n + 1))
satisfy(
    AllDifferent(x),
    [Sum(row) == s for row in x],
    [Sum(col) == s for col in columns(x)],
    Sum(diagonal_down(x)) == s,
    Sum(diagonal_up(x)) == s
)
""",
    # sudoku 4x4 with clues: allDifferent as a matrix, blocks, clues as an instantiation
    "sudoku-4": """
clues = [[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]]
x = VarArray(size=[4, 4], dom=range(1, 5))
satisfy(
    AllDifferent(x, matrix=True),
    [AllDifferent(x[i:i + 2, j:j + 2]) for i in [0, 2] for j in [0, 2]],
    [x[i][j] == clues[i][j] for i in range(4) for j in range(4) if clues[i][j] > 0]
)
""",
    # small scheduling: cumulative on one resource, noOverlap on another, minimize the makespan
    "rcpsp-tiny": """
durations = [3, 2, 4, 2, 1]
heights = [2, 1, 2, 1, 3]
horizon = 12
s = VarArray(size=5, dom=range(horizon))
satisfy(
    Cumulative(origins=s, lengths=durations, heights=heights) <= 3,
    NoOverlap(origins=s[:3], lengths=durations[:3]),
    s[0] + durations[0] <= s[3]
)
minimize(
    Maximum(s[i] + durations[i] for i in range(5))
)
""",
    # nonogram-like rows: a regular automaton (blocks 2 then 1) and an mdd
    "regular-mdd": """
x = VarArray(size=[2, 6], dom={0, 1})
a = Automaton(start="q0", final=["q5", "q6"], transitions=[
    ("q0", 0, "q0"), ("q0", 1, "q1"), ("q1", 1, "q2"), ("q2", 0, "q3"), ("q3", 0, "q3"),
    ("q3", 1, "q5"), ("q5", 0, "q6"), ("q6", 0, "q6")])
m = MDD([("r", 0, "n1"), ("r", 1, "n2"), ("n1", 1, "t"), ("n2", 0, "t"), ("n2", 1, "t")])
satisfy(
    [x[i] in a for i in range(2)],
    (x[0][0], x[1][0]) in m,
    (x[0][5], x[1][5]) in m
)
""",
    # a 5-city TSP: circuit on successors, the cost by element over a table, minimize it
    "tsp-5": """
d = cp_array([[0, 3, 4, 2, 7], [3, 0, 4, 6, 3], [4, 4, 0, 5, 8], [2, 6, 5, 0, 6], [7, 3, 8, 6, 0]])
n = 5
succ = VarArray(size=n, dom=range(n))
cost = VarArray(size=n, dom=range(9))
satisfy(
    Circuit(succ),
    [cost[i] == d[i][succ[i]] for i in range(n)]
)
minimize(
    Sum(cost)
)
""",
    # element and channel: y is the inverse of x, z = x[i]
    "element-channel": """
n = 5
x = VarArray(size=n, dom=range(n))
y = VarArray(size=n, dom=range(n))
i = Var(dom=range(n))
z = Var(dom=range(n))
b = VarArray(size=n, dom={0, 1})
v = Var(dom=range(n))
satisfy(
    Channel(x, y),
    x[i] == z,
    Channel(b, v),
    x[0] != 0
)
""",
    # cardinality, count (with several operators), nValues
    "cardinality": """
x = VarArray(size=7, dom=range(4))
c = VarArray(size=3, dom=range(4))
satisfy(
    Cardinality(x, occurrences={0: c[0], 1: c[1], 2: c[2]}),
    Count(x, value=3) >= 1,
    Count(x[:4], values=[0, 1]) == 2,
    NValues(x) <= 3,
    Count(x[4:], value=2) == 1
)
""",
    # lex and ordered: rows lex-increasing, columns increasing, a strictly decreasing list
    "lex-ordered": """
x = VarArray(size=[3, 3], dom=range(4))
y = VarArray(size=4, dom=range(6))
satisfy(
    LexIncreasing(x),
    [Increasing(col) for col in columns(x)],
    Decreasing(y, strict=True),
    AllEqual(x[0][0], x[1][1], x[2][2])
)
""",
    # minimum, maximum, allDifferent with an except value, and a slide-like chain of sums
    "min-max": """
x = VarArray(size=6, dom=range(10))
m = Var(dom=range(10))
M = Var(dom=range(10))
satisfy(
    Minimum(x) == m,
    Maximum(x) == M,
    M - m >= 5,
    AllDifferent(x, excepting=0),
    [Sum(x[i:i + 3]) <= 15 for i in range(4)]
)
maximize(
    Sum(x)
)
""",
    # pycsp3's forms of many globals at once: in-set and range conditions, matrix element, 2-D
    # noOverlap, cardinality with a range, count over several values, channel, lex matrix,
    # ordered with lengths, cumulative with variable heights and limit
    "forms": """
x = VarArray(size=6, dom=range(5))
m = VarArray(size=[3, 3], dom=range(5))
ii = Var(dom=range(3))
jj = Var(dom=range(3))
v = Var(dom=range(5))
w = VarArray(size=3, dom=range(1, 3))
h = VarArray(size=3, dom=range(1, 3))
ox = VarArray(size=3, dom=range(6))
oy = VarArray(size=3, dom=range(6))
satisfy(
    Sum(x) in {3, 5, 7},
    Sum(x[:3]) in range(2, 6),
    Sum(x[3:]) != v,
    Count(x, value=2) != 1,
    m[ii][jj] == v,
    NoOverlap(origins=[(ox[k], oy[k]) for k in range(3)], lengths=[(w[k], h[k]) for k in range(3)]),
    Cardinality(x, occurrences={0: range(0, 2), 1: 1, 2: v}, closed=True),
    Count(x, values=[4, 1]) <= 2,
    NValues(x[:4]) == v,
    Minimum(x[:3]) <= 2,
    Maximum(m[0]) >= v,
    AllDifferent(m[1], excepting=[0, 1]),
    x[v] == 2,
    Channel(x[:3]),
    LexIncreasing(m, matrix=True),
    AllEqual(m[2]),
    Increasing(x[:3], lengths=[1, 0]),
    Circuit(x[:5]),
    Cumulative(origins=ox, lengths=w, heights=h) <= v,
    Sum(x[k] * (k + 1) for k in range(6)) >= 10
)
""",
    # expressions as list terms: pycsp3 writes AllDifferent(x[i] + i), Sum(x[i] * y[i]), ... with
    # add/mul/gt/dist terms in the lists (parac: an auxiliary variable per expression)
    "expressions": """
x = VarArray(size=4, dom=range(5))
y = VarArray(size=4, dom=range(3))
M = Var(dom=range(12))
satisfy(
    AllDifferent(x[i] + i for i in range(4)),
    Sum(x[i] * y[i] for i in range(4)) <= 10,
    Sum(x[i] > 2 for i in range(4)) == 2,
    Maximum(x[i] + y[i] for i in range(4)) == M,
    Minimum(abs(x[i] - y[i]) for i in range(4)) >= 1,
    Count([x[0] + 1, x[1] * 2, y[0]], value=2) >= 1,
    y[2] == 2
)
""",
    # groups over globals whose <args> hold expressions, and a scalar product with variable <coeffs>
    "groups-expressions": """
x = VarArray(size=[3, 3], dom=range(4))
y = VarArray(size=3, dom=range(3))
satisfy(
    [Sum(x[i][j] * y[j] for j in range(3)) <= 5 for i in range(3)],
    [AllDifferent(x[i][j] + j for j in range(3)) for i in range(3)],
    [Maximum(x[i][j] + 1 for j in range(3)) == y[i] + 1 for i in range(3)],
    x[0] * y <= 4,
    x[1][1] == 1
)
""",
    # binPacking (load condition) and knapsack (weight and profit conditions)
    "packing": """
b = VarArray(size=6, dom=range(3))
q = VarArray(size=5, dom=range(3))
satisfy(
    BinPacking(b, sizes=[4, 3, 3, 2, 2, 1]) <= 6,
    b[0] == 0,
    b[1] == 1,
    b[2] == 1,
    Knapsack(q, weights=[3, 4, 2, 5, 1], wlimit=10, profits=[4, 5, 3, 6, 1]) >= 12
)
""",
}

# Larger models for bench/compare_ace.py (compiled into a folder given with --larger, not
# committed): every kind at sizes where the root propagation has work to do.
LARGER_MODELS = {
    # n-queens with the diagonals as allDifferent over expressions (the classic pycsp3 model)
    "queens-20-diagonals": """
n = 20
q = VarArray(size=n, dom=range(n))
satisfy(
    AllDifferent(q),
    AllDifferent(q[i] + i for i in range(n)),
    AllDifferent(q[i] - i for i in range(n)),
    q[0] == 3,
    q[1] == 7
)
""",
    # Golomb ruler: allDifferent over differences (expressions sharing variables)
    "golomb-7": """
n = 7
x = VarArray(size=n, dom=range(30))
satisfy(
    x[0] == 0,
    Increasing(x, strict=True),
    AllDifferent(x[j] - x[i] for i in range(n) for j in range(i + 1, n)),
    x[n - 1] <= 25
)
""",
    # sudoku 9x9 with clues: allDifferent matrix and blocks
    "sudoku-9": """
clues = [[5, 3, 0, 0, 7, 0, 0, 0, 0], [6, 0, 0, 1, 9, 5, 0, 0, 0], [0, 9, 8, 0, 0, 0, 0, 6, 0],
         [8, 0, 0, 0, 6, 0, 0, 0, 3], [4, 0, 0, 8, 0, 3, 0, 0, 1], [7, 0, 0, 0, 2, 0, 0, 0, 6],
         [0, 6, 0, 0, 0, 0, 2, 8, 0], [0, 0, 0, 4, 1, 9, 0, 0, 5], [0, 0, 0, 0, 8, 0, 0, 7, 9]]
x = VarArray(size=[9, 9], dom=range(1, 10))
satisfy(
    AllDifferent(x, matrix=True),
    [AllDifferent(x[i:i + 3, j:j + 3]) for i in [0, 3, 6] for j in [0, 3, 6]],
    [x[i][j] == clues[i][j] for i in range(9) for j in range(9) if clues[i][j] > 0]
)
""",
    # magic square 4x4 with a few cells fixed: sums and allDifferent
    "magic-square-4": """
n = 4
s = n * (n * n + 1) // 2
x = VarArray(size=[n, n], dom=range(1, n * n + 1))
satisfy(
    AllDifferent(x),
    [Sum(row) == s for row in x],
    [Sum(col) == s for col in columns(x)],
    Sum(diagonal_down(x)) == s,
    Sum(diagonal_up(x)) == s,
    x[0][0] == 16,
    x[0][1] == 3
)
""",
    # scheduling: cumulative on one resource, noOverlap on another, the makespan by maximum of expressions
    "rcpsp-10": """
durations = [3, 2, 4, 2, 1, 3, 2, 2, 4, 1]
heights = [2, 1, 2, 1, 3, 2, 2, 1, 1, 2]
horizon = 16
s = VarArray(size=10, dom=range(horizon))
mk = Var(dom=range(horizon + 5))
satisfy(
    Cumulative(origins=s, lengths=durations, heights=heights) <= 3,
    NoOverlap(origins=s[:4], lengths=durations[:4]),
    [s[i] + durations[i] <= s[i + 4] for i in range(4)],
    Maximum(s[i] + durations[i] for i in range(10)) == mk,
    mk <= 14
)
""",
    # a 8-city TSP: circuit on successors, costs by element over a table
    "tsp-8": """
d = cp_array([[0, 3, 4, 2, 7, 5, 6, 4], [3, 0, 4, 6, 3, 2, 5, 7], [4, 4, 0, 5, 8, 3, 2, 6], [2, 6, 5, 0, 6, 4, 3, 5],
              [7, 3, 8, 6, 0, 2, 4, 3], [5, 2, 3, 4, 2, 0, 6, 2], [6, 5, 2, 3, 4, 6, 0, 4], [4, 7, 6, 5, 3, 2, 4, 0]])
n = 8
succ = VarArray(size=n, dom=range(n))
cost = VarArray(size=n, dom=range(9))
satisfy(
    Circuit(succ),
    [cost[i] == d[i][succ[i]] for i in range(n)],
    Sum(cost) <= 24,
    succ[0] == 3
)
""",
    # counting: cardinality, count, nValues, among over 16 variables
    "counting-16": """
x = VarArray(size=16, dom=range(5))
c = VarArray(size=5, dom=range(6))
satisfy(
    Cardinality(x, occurrences={v: c[v] for v in range(5)}),
    Count(x[:8], value=4) >= 3,
    Count(x[8:], values=[0, 1]) == 6,
    NValues(x[:6]) <= 2,
    x[0] == 4,
    c[2] <= 1,
    Sum(c) == 16
)
""",
    # symmetry breaking: lex over rows and columns, ordered, allEqual
    "lex-matrix-4": """
x = VarArray(size=[4, 4], dom=range(3))
satisfy(
    LexIncreasing(x, matrix=True),
    [Sum(row) == 3 for row in x],
    x[3][3] == 2,
    AllEqual(x[3][0], x[3][1]),
    Increasing(x[1], strict=False)
)
""",
    # nonogram rows as regular and an mdd over column pairs
    "nonogram-6": """
rows = [[2, 1], [3], [1, 1], [4], [1], [2, 2]]
x = VarArray(size=[6, 6], dom={0, 1})
def automaton(blocks):
    transitions, state = [], 0
    transitions.append((f"q{state}", 0, f"q{state}"))
    for k, b in enumerate(blocks):
        for j in range(b):
            transitions.append((f"q{state}", 1, f"q{state + 1}"))
            state += 1
        if k + 1 < len(blocks):
            transitions.append((f"q{state}", 0, f"q{state + 1}"))
            state += 1
            transitions.append((f"q{state}", 0, f"q{state}"))
    transitions.append((f"q{state}", 0, f"q{state}"))
    return Automaton(start="q0", final=[f"q{state}"], transitions=transitions)
satisfy(
    [x[i] in automaton(rows[i]) for i in range(6)],
    [Sum(x[:, j]) >= 1 for j in range(6)]
)
""",
    # expressions in sums, minimum and element, scalar products with variables
    "expressions-12": """
x = VarArray(size=12, dom=range(6))
y = VarArray(size=12, dom=range(3))
z = Var(dom=range(40))
satisfy(
    Sum(x[i] * y[i] for i in range(12)) == z,
    Sum(x[i] > 3 for i in range(12)) == 3,
    Minimum(x[i] + y[i] for i in range(6)) >= 2,
    AllDifferent(x[i] + 2 * y[i] for i in range(6)),
    z <= 20,
    y[0] == 2
)
""",
    # bin packing and knapsack at sizes where the support search does not cover them
    "packing-12": """
b = VarArray(size=12, dom=range(4))
q = VarArray(size=10, dom=range(4))
satisfy(
    BinPacking(b, sizes=[5, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1]) <= 8,
    b[0] == 0, b[1] == 1, b[2] == 2, b[3] == 0,
    Knapsack(q, weights=[3, 4, 2, 5, 1, 6, 2, 3, 4, 1], wlimit=20, profits=[4, 5, 3, 6, 1, 7, 2, 4, 5, 1]) >= 24
)
""",
}

PRELUDE = "from pycsp3 import *\n"


def compile_model(name, body, python, folder, target=HERE, size_limit=50_000):
    script = os.path.join(folder, name.replace("-", "_") + ".py")
    with open(script, "w") as f:
        f.write(PRELUDE + body)
    output = os.path.join(target, name + ".xml")
    subprocess.run([python, script, "-output=" + output], cwd=folder, check=True,
                   stdout=subprocess.DEVNULL)
    size = os.path.getsize(output)
    assert size < size_limit, f"{output}: {size} bytes"
    print(f"{name}.xml: {size} bytes")


def main():
    """make_instances.py [NAME...]: the committed files of this folder (all by default);
    make_instances.py --larger FOLDER: the larger models, into FOLDER (for bench/compare_ace.py)."""
    python = sys.executable
    if sys.argv[1:2] == ["--larger"]:
        target = os.path.abspath(sys.argv[2])
        os.makedirs(target, exist_ok=True)
        with tempfile.TemporaryDirectory() as folder:
            for name, body in LARGER_MODELS.items():
                compile_model(name, body, python, folder, target, size_limit=10_000_000)
        return
    wanted = sys.argv[1:] or list(MODELS)
    with tempfile.TemporaryDirectory() as folder:
        for name in wanted:
            compile_model(name, MODELS[name], python, folder)


if __name__ == "__main__":
    main()
