"""tests/mpi/make_points.py — the hand-made point sets of test_mpi_dbscan.sh, as .npy, standard library only.

python3 make_points.py KIND OUT.npy [float32|float64]. Every kind is deterministic (random.Random(seed)).
python3 make_points.py text OUT.npy IN: the whitespace-separated rows of IN (.gz read as gzip) as float64,
            so that parac and parac-mpi read the same numbers (test_mpi_birch.sh: the committed chameleon set)
  grid      a 70 x 70 lattice of spacing 0.25 (exact in binary) with holes: neighbours exactly eps = 0.25
            apart, chains that cross any split; use eps 0.25, min-samples 5
  shared    150 clusters on a line 4.2 apart, each with a core edge point 0.7 either side of its centre, and
            between two clusters a point 1.4 from both edges (eps 1.45, min-samples 4): a border point
            within eps of cores of two clusters; indices shuffled, so the lowest-index core neighbour is
            in the earlier cluster for some and in the later one for others
  dups      3000 points on 40 distinct positions plus 200 scattered ones; min-samples 10, eps 0.1
  noise     500 points spread over [0, 1000]^2: all noise at eps 1, min-samples 3
  one       4000 points in a 1 x 1 square: one cluster at eps 0.2, min-samples 5
  wide      2000 points in 10 dimensions, 4 blobs (local runs use brute force); eps 1.5, min-samples 5
  line      a 1-D array (n x 1) of 3000 points; eps 0.01, min-samples 3
  tiny      3 points (fewer than ranks); eps 1, min-samples 2
  empty     a 0 x 2 array
  nan       100 points, the 57th with a NaN coordinate
"""
import gzip
import random
import struct
import sys


def save(path, rows, dim, dtype, one_d=False):
    code, size = ("<f4", "f") if dtype == "float32" else ("<f8", "d")
    shape = "(%d,)" % len(rows) if one_d else "(%d, %d)" % (len(rows), dim)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (code, shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        for row in rows:
            out.write(struct.pack("<%d%s" % (dim, size), *row))


def grid(rng):
    rows = [(0.25 * i, 0.25 * j) for i in range(70) for j in range(70) if rng.random() > 0.15]
    rng.shuffle(rows)
    return rows


def shared(rng):
    rows = []
    for k in range(150):
        centre = 4.2 * k
        rows += [(centre + rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05)) for _ in range(5)]
        rows += [(centre - 0.7, 0.0), (centre + 0.7, 0.0)]  # the cluster's edges: core points
        if k + 1 < 150:
            rows.append((centre + 2.1, 0.0))  # 1.4 from this cluster's right edge and the next one's left
    rng.shuffle(rows)
    return rows


def dups(rng):
    spots = [(rng.uniform(0, 5), rng.uniform(0, 5)) for _ in range(40)]
    rows = [spots[rng.randrange(40)] for _ in range(3000)] + [(rng.uniform(0, 5), rng.uniform(0, 5)) for _ in range(200)]
    rng.shuffle(rows)
    return rows


def wide(rng):
    centres = [[rng.uniform(-10, 10) for _ in range(10)] for _ in range(4)]
    return [[c + rng.gauss(0, 0.4) for c in centres[rng.randrange(4)]] for _ in range(2000)]


def text_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as lines:
        return [tuple(float(v) for v in line.split()) for line in lines if line.strip()]


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "text":
        rows = text_rows(sys.argv[3])
        save(path, rows, len(rows[0]), "float64")
        return
    dtype = sys.argv[3] if len(sys.argv) > 3 else "float64"
    rng = random.Random(21)
    if kind == "grid":
        save(path, grid(rng), 2, dtype)
    elif kind == "shared":
        save(path, shared(rng), 2, dtype)
    elif kind == "dups":
        save(path, dups(rng), 2, dtype)
    elif kind == "noise":
        save(path, [(rng.uniform(0, 1000), rng.uniform(0, 1000)) for _ in range(500)], 2, dtype)
    elif kind == "one":
        save(path, [(rng.random(), rng.random()) for _ in range(4000)], 2, dtype)
    elif kind == "wide":
        save(path, wide(rng), 10, dtype)
    elif kind == "line":
        save(path, [(rng.uniform(0, 10),) for _ in range(3000)], 1, dtype, one_d=True)
    elif kind == "tiny":
        save(path, [(0.0, 0.0), (0.5, 0.0), (9.0, 9.0)], 2, dtype)
    elif kind == "empty":
        save(path, [], 2, dtype)
    elif kind == "nan":
        rows = [(rng.random(), rng.random()) for _ in range(100)]
        rows[56] = (0.5, float("nan"))
        save(path, rows, 2, dtype)
    else:
        sys.exit("unknown kind " + kind)


main()
