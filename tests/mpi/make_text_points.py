"""tests/mpi/make_text_points.py — the text inputs of test_mpi_text_input.sh, each beside the .npy of
the same float64 values, standard library only: python3 make_text_points.py DIR.

Every file holds clustered 2-D points written with repr (which round-trips exactly), so parac and
parac-mpi on FILE and on FILE's .npy must give the same labels. The kinds stress the cut into byte
ranges: a header, a byte-order mark with CRLF line ends and blank and comment lines, very long lines
(a 300 KB comment, rows padded with 40 KB of blanks), fixed-width lines whose count is a multiple of
1..4 (every range boundary falls exactly on a line start), a leading comment block longer than half
the file (the header is the first content line of rank 1 or 2), no final newline, fewer lines than
ranks, an empty file, a header alone; and bad files whose first bad line lands on rank 2 or 3 of 4.
"""
import os
import random
import struct
import sys


def save_npy(path, rows):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, 2), }" % len(rows)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        for x, y in rows:
            out.write(struct.pack("<dd", x, y))


def blobs(count, seed):
    rng = random.Random(seed)
    centers = [(0.0, 0.0), (6.0, 1.0), (2.0, 7.0), (-5.0, 4.0)]
    return [tuple(c + rng.gauss(0, 0.7) for c in centers[rng.randrange(4)]) for _ in range(count)]


def write(directory, name, text, rows=None):
    with open(os.path.join(directory, name), "wb") as out:
        out.write(text.encode("latin-1") if isinstance(text, str) else text)
    if rows is not None:
        save_npy(os.path.join(directory, name + ".npy"), rows)


def main(directory):
    rows = blobs(3000, 1)
    write(directory, "plain.csv", "".join("%r,%r\n" % row for row in rows), rows)

    rows = blobs(1500, 2)
    lines = ["\ufeffx,y".encode("utf-8").decode("latin-1"), "# exported", ""]
    for i, row in enumerate(rows):
        lines.append("%r,%r" % row + ("  # note" if i % 97 == 0 else ""))
        if i % 50 == 0:
            lines += ["", "   ", "# comment %d" % i]
    write(directory, "header_bom_crlf.csv", "\r\n".join(lines) + "\r\n", rows)

    rows = blobs(800, 3)
    lines = []
    for i, row in enumerate(rows):
        if i == 200:
            lines.append("#" + "x" * 300000)
        pad = " " * 40000 if i % 150 == 7 else " "
        lines.append("%r%s%r" % (row[0], pad, row[1]))
    write(directory, "long_lines.txt", "\n".join(lines) + "\n", rows)

    rows = [(round(x, 4), round(y, 4)) for x, y in blobs(1200, 4)]
    write(directory, "exact.csv", "".join("%+012.4f,%+012.4f\n" % row for row in rows), rows)

    rows = blobs(60, 5)
    text = "".join("# a comment line of the preamble, %04d\n" % i for i in range(200)) + "px,py\n"
    write(directory, "lead_comments.csv", text + "".join("%r,%r\n" % row for row in rows), rows)

    rows = blobs(500, 6)
    write(directory, "no_newline.csv", "\n".join("%r,%r" % row for row in rows), rows)

    rows = [(0.5, 0.5), (0.75, 0.5)]
    write(directory, "few.csv", "0.5,0.5\n0.75,0.5\n", rows)
    write(directory, "empty.csv", "")
    write(directory, "header_only.csv", "x,y\n")

    rows = blobs(400, 7)
    good = ["%r,%r" % row for row in rows]
    bad = list(good)
    bad[329] = "%r,1.5e" % rows[329][0]       # line 330: rank 3 of 4 (and of 3: rank 2)
    bad[379] = "1,2,3"                         # a later bad line: never the one reported
    write(directory, "bad_rank3.csv", "\n".join(bad) + "\n")
    bad = list(good)
    bad[219] = "%r,nan" % rows[219][0]          # line 220: rank 2 of 4
    bad[359] = "oops,1"
    write(directory, "bad_rank2.csv", "\n".join(bad) + "\n")
    bad = list(good)
    bad[309] = "1,2,3"                          # line 310: a ragged row on rank 3
    write(directory, "ragged.csv", "\n".join(bad) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
