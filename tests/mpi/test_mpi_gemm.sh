#!/usr/bin/env bash
# tests/mpi/test_mpi_gemm.sh — `mpirun -n 1..4 parac-mpi gemm` writes the bytes `parac gemm` writes, on grids
# 1x1, 1x2, 2x1, 2x2, 3x1, 1x3, 1x4, sizes no block divides, dense, banded and block-sparse inputs, split-k
# plans (dense and sparse), tf32 (CPU emulation), alpha and beta, .npy and .mtx files, more ranks than blocks;
# bad input gives parac gemm's message and exit code, once; a dying rank ends the job, with no output. Two
# .npy inputs are read in parallel (each rank its pieces) and a .npy C written in parallel: the same bytes,
# rank 0 reading only its pieces (--json), a non-finite value found by the rank that holds it.
# The bits are the same because every rank multiplies its whole k range in one call with the whole plan's
# tile_k, split_k and tiles (docs/DISTRIBUTED.md, "gemm"). Skipped (77) when parac-mpi was not built.
set -u
# shellcheck source=tests/mpi/mpi_test_lib.sh
source "$(dirname "$0")/mpi_test_lib.sh"

# compare name grids output-suffix block [parac gemm args...]: parac gemm --threads 1 once, then parac-mpi on
# each grid (PxQ; ranks = P * Q) with --cyclic-block block (0: the default), byte for byte. The runs alternate
# 1 and 2 threads per rank: threads change no bit.
compare() {
  local name=$1 grids=$2 suffix=$3 block=$4; shift 4
  "$PARAC" gemm "$@" --threads 1 --repeats 1 -o "$tmp/$name.ref$suffix" >/dev/null || { fail "$name: parac gemm failed"; return; }
  local grid threads=1
  for grid in $grids; do
    local ranks=$(( ${grid%x*} * ${grid#*x} ))
    rm -f "$tmp/$name.out$suffix"
    mpi "$ranks" "$mpi_cli" gemm "$@" --grid "$grid" --cyclic-block "$block" --threads "$threads" -o "$tmp/$name.out$suffix" >"$tmp/log" 2>&1
    local code=$?
    threads=$((3 - threads))
    if [[ $code != 0 ]]; then fail "$name, grid $grid: exit $code: $(tail -5 "$tmp/log")"; continue; fi
    cmp -s "$tmp/$name.ref$suffix" "$tmp/$name.out$suffix" || fail "$name, grid $grid: C differs from parac gemm"
    grep -q "^gemm: .* on $ranks ranks (grid $grid, block " "$tmp/log" || fail "$name, grid $grid: summary: $(cat "$tmp/log")"
  done
}
all_grids="1x1 1x2 2x1 2x2 3x1"
# split_k of parac gemm's plan for these arguments (so the split-k cases cannot silently stop splitting)
split_of() { "$PARAC" gemm "$@" --threads 1 --repeats 1 --json | sed -n 's/.*"split_k":\([0-9]*\).*/\1/p'; }

compare dense "$all_grids" .npy 0 --m 257 --n 131 --k 199
compare dense_block32 "1x3 2x2 3x1" .npy 32 --m 257 --n 131 --k 199
compare dense_block48 "2x2" .npy 48 --m 257 --n 131 --k 199 --seed 3
compare banded "2x2 3x1" .npy 64 --m 300 --n 200 --k 260 --band 20
compare tf32_alpha_beta "1x1 2x2" .mtx 16 --m 129 --n 70 --k 95 --dtype tf32 --alpha 0.5 --beta -2 --seed 9
compare tiles "2x2" .npy 0 --m 260 --n 190 --k 150 --tile-m 128 --tile-n 64 --tile-k 32 --schedule dynamic
compare one_column "2x1 1x2" .npy 8 --m 70 --n 1 --k 1
compare ranks_without_blocks "1x4" .npy 0 --m 50 --n 40 --k 30   # block 64: only rank 0 holds C
grep -q "^gemm: 50 x 40 x 30 fp32 on 4 ranks (grid 1x4, block 64)" "$tmp/log" || fail "summary line: $(cat "$tmp/log")"
split=$(split_of --m 100 --n 90 --k 1500)
[[ ${split:-0} -gt 1 ]] || fail "the dense split-k case no longer splits (split_k '$split')"
compare dense_split_k "2x2 3x1" .npy 16 --m 100 --n 90 --k 1500

# Files: a block-sparse A (.npy, scanned for zero tiles, split-k 4) times a dense column-major B (.mtx).
"$PARAC" gen matrix --rows 300 --cols 1100 --block-density 0.3 --block 64 --seed 4 -o "$tmp/sparse_a.npy" >/dev/null
"$PARAC" gen matrix --rows 1100 --cols 140 --seed 5 -o "$tmp/b.mtx" >/dev/null
"$PARAC" gen matrix --rows 1100 --cols 130 --seed 6 -o "$tmp/b.npy" >/dev/null
"$PARAC" gen matrix --rows 140 --cols 90 --seed 7 -o "$tmp/c.mtx" >/dev/null
split=$(split_of "$tmp/sparse_a.npy" "$tmp/b.mtx")
[[ ${split:-0} -gt 1 ]] || fail "the sparse split-k case no longer splits (split_k '$split')"
compare sparse_files "$all_grids" .npy 0 "$tmp/sparse_a.npy" "$tmp/b.mtx"
compare sparse_files_block128 "3x1" .mtx 128 "$tmp/sparse_a.npy" "$tmp/b.npy"
compare dense_files "2x2" .npy 0 "$tmp/b.mtx" "$tmp/c.mtx"

# .npy inputs read in parallel (each rank its block-cyclic pieces, MPI-IO), C written in parallel: odd
# shapes, every grid, default and explicit blocks; a scanned (block-sparse) .npy A with split-k; a .mtx C
# (gathered on rank 0) from parallel-read inputs.
"$PARAC" gen matrix --rows 257 --cols 199 --seed 11 -o "$tmp/odd_a.npy" >/dev/null
"$PARAC" gen matrix --rows 199 --cols 131 --seed 12 -o "$tmp/odd_b.npy" >/dev/null
compare npy_pieces "1x1 1x2 2x1 2x2 3x1 1x3 1x4" .npy 0 "$tmp/odd_a.npy" "$tmp/odd_b.npy"
compare npy_pieces_block48 "2x2 1x3" .npy 48 "$tmp/odd_a.npy" "$tmp/odd_b.npy" --beta 0.5 --alpha 2
compare npy_pieces_mtx_out "3x1" .mtx 0 "$tmp/odd_a.npy" "$tmp/odd_b.npy"
compare sparse_npy_pieces "$all_grids" .npy 0 "$tmp/sparse_a.npy" "$tmp/b.npy"
compare sparse_npy_pieces_tf32 "2x2" .npy 128 "$tmp/sparse_a.npy" "$tmp/b.npy" --dtype tf32
# float64 and int32 files are converted as parac gemm converts them (through double)
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp" <<'PY'
import struct, sys
def save(path, code, rows, cols, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (code, rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), "d" if code == "<f8" else "i"), *values))
save(sys.argv[1] + "/f64_a.npy", "<f8", 133, 77, [((i * 7919) % 1000 - 500) / 3.0 for i in range(133 * 77)])
save(sys.argv[1] + "/i32_b.npy", "<i4", 77, 65, [(i * 104729) % 17 - 8 for i in range(77 * 65)])
PY
  compare npy_pieces_f64_i32 "2x2 1x3" .npy 32 "$tmp/f64_a.npy" "$tmp/i32_b.npy"
fi
# rank 0 reads only its pieces: on 2x2 with block 64, rank 0 holds rows 0-63, 128-191 and 256 of A (257 x
# 199) and its columns 0-63 and 128-191 (129 x 128), and B's (199 x 131) rows 0-63, 128-191 and columns
# 0-63, 128-130 (128 x 67): 16512 + 8576 = 25088 of the 77212 values. The rank-0 path reads them all.
mpi 4 "$mpi_cli" gemm "$tmp/odd_a.npy" "$tmp/odd_b.npy" --json -o "$tmp/json_c.npy" >"$tmp/json.out" 2>"$tmp/err" ||
  fail "--json, parallel read: $(tail -3 "$tmp/err")"
tail -1 "$tmp/json.out" | grep -q '"input_read":"parallel","rank0_input_values":25088,"output_written":"parallel"' ||
  fail "--json, parallel read: $(tail -1 "$tmp/json.out")"
"$PARAC" gen matrix --rows 199 --cols 50 --seed 13 -o "$tmp/odd_b.mtx" >/dev/null
mpi 4 "$mpi_cli" gemm "$tmp/odd_a.npy" "$tmp/odd_b.mtx" --json 2>"$tmp/err" | tail -1 >"$tmp/json.out"
grep -q '"input_read":"rank 0","rank0_input_values":61093,"output_written":"none"' "$tmp/json.out" ||
  fail "--json, .mtx input: $(cat "$tmp/json.out") $(tail -3 "$tmp/err")"
mpi 2 "$mpi_cli" gemm "$tmp/odd_a.npy" "$tmp/odd_b.npy" --timings -o "$tmp/t.npy" >/dev/null 2>"$tmp/err"
grep -q "^input: A and B read in parallel; values read: rank 0 46229, busiest rank 46229, all 77212; C written in parallel" "$tmp/err" ||
  fail "--timings, parallel read: $(grep input "$tmp/err")"

# put_nan file row col: a NaN (float32) at (row, col) of a row-major float32 .npy matrix of `cols` columns
put_nan() {
  local file=$1 row=$2 col=$3 cols=$4
  local header=$(( $(od -An -tu2 -j8 -N2 "$file") + 10 ))
  printf '\x00\x00\xc0\x7f' | dd of="$file" bs=1 seek=$(( header + (row * cols + col) * 4 )) conv=notrunc status=none
}

# Bad input: parac gemm's error line and exit code, printed once.
same_failure() { # what ranks args...
  local what=$1 ranks=$2; shift 2
  "$PARAC" gemm "$@" --repeats 1 >/dev/null 2>"$tmp/ref.err"
  local expected=$?
  mpi "$ranks" "$mpi_cli" gemm "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  ((hung)) && { fail "$what: the job hung (killed after 120 s)"; return; }
  [[ $expected != 0 ]] || fail "$what: parac gemm accepted it"
  [[ $code == "$expected" ]] || fail "$what: exit $code, parac gemm's is $expected ($(head -3 "$tmp/err"))"
  local line; line=$(grep "parac: error" "$tmp/ref.err")
  [[ $(grep -c "parac: error" "$tmp/err") == 1 ]] || fail "$what: one error line expected: $(head -5 "$tmp/err")"
  grep -qF -- "$line" "$tmp/err" || fail "$what: expected '$line', got: $(head -3 "$tmp/err")"
}
same_failure "missing file" 3 "$tmp/missing.npy" "$tmp/b.mtx" -o "$tmp/x.npy"
same_failure "shape mismatch" 4 "$tmp/sparse_a.npy" "$tmp/c.mtx" -o "$tmp/x.npy"
printf 'not a matrix' >"$tmp/bad.npy"
same_failure "malformed file" 2 "$tmp/bad.npy" "$tmp/b.mtx"
same_failure "output is the input" 2 "$tmp/b.mtx" "$tmp/c.mtx" -o "$tmp/b.mtx"
same_failure "missing output folder" 2 --m 10 --n 10 --k 10 -o "$tmp/no/such/c.npy"
# A NaN that only rank 2 reads (2x2, block 64: rank 2 holds rows 64-127 x columns 0-63 of A): parac gemm's
# message, once, exit 2, no output. Then two NaNs: (100, 70) on rank 3 comes before (101, 10) on rank 2 in
# parac gemm's row-major order, so rank 3's is the message although rank 2 is the lower failing rank.
cp "$tmp/odd_a.npy" "$tmp/nan_a.npy"
put_nan "$tmp/nan_a.npy" 100 10 199
same_failure "NaN read by rank 2 only" 4 "$tmp/nan_a.npy" "$tmp/odd_b.npy" -o "$tmp/x.npy"
grep -q "non-finite value at row 100, column 10" "$tmp/err" || fail "NaN on rank 2: $(head -3 "$tmp/err")"
put_nan "$tmp/nan_a.npy" 100 70 199
put_nan "$tmp/nan_a.npy" 101 10 199
same_failure "first NaN on rank 3, another on rank 2" 4 "$tmp/nan_a.npy" "$tmp/odd_b.npy" -o "$tmp/x.npy"
grep -q "non-finite value at row 100, column 10" "$tmp/err" || fail "two NaNs: $(head -3 "$tmp/err")"
cp "$tmp/odd_b.npy" "$tmp/nan_b.npy"
put_nan "$tmp/nan_b.npy" 150 100 131
same_failure "NaN in B, 3 ranks" 3 "$tmp/odd_a.npy" "$tmp/nan_b.npy" -o "$tmp/x.npy"
same_failure "NaN in A before a shape mismatch" 4 "$tmp/nan_a.npy" "$tmp/odd_a.npy" -o "$tmp/x.npy"
same_failure ".npy shape mismatch" 3 "$tmp/odd_a.npy" "$tmp/odd_a.npy" -o "$tmp/x.npy"
head -c 1000 "$tmp/odd_b.npy" >"$tmp/short_b.npy"
same_failure "truncated .npy B" 2 "$tmp/odd_a.npy" "$tmp/short_b.npy" -o "$tmp/x.npy"
[[ ! -e "$tmp/x.npy" ]] || fail "a failed job left an output file"

expect_failure() { # code pattern ranks args...
  local expected=$1 pattern=$2 ranks=$3; shift 3
  mpi "$ranks" "$mpi_cli" gemm "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  ((hung)) && { fail "'$pattern': the job hung"; return; }
  [[ $code == "$expected" ]] || fail "'$pattern': exit $code, expected $expected ($(head -3 "$tmp/err"))"
  [[ $(grep -c "parac: error" "$tmp/err") == 1 ]] || fail "'$pattern': one error line expected: $(head -5 "$tmp/err")"
  grep -q -- "$pattern" "$tmp/err" || fail "'$pattern' expected: $(head -3 "$tmp/err")"
}
expect_failure 2 "grid must be PxQ with P \* Q = 3 ranks" 3 --m 10 --n 10 --k 10 --grid 2x2
expect_failure 2 "cyclic-block must be >= 1" 2 --m 10 --n 10 --k 10 --cyclic-block -4
# A sparse split-k plan on blocks that cut its tiles would change bits (tried: C differs): refused.
expect_failure 2 "not a multiple of the plan's 64 x 64 tiles" 4 "$tmp/sparse_a.npy" "$tmp/b.mtx" --cyclic-block 32
expect_failure 1 "unknown option" 2 --m 10 --n 10 --k 10 --nope

# A rank that dies (SIGKILL, as a lost node) ends the job with a non-zero exit and no output, never a hang.
PARAC_MPI_TEST_KILL_RANK=1 mpi 3 "$mpi_cli" gemm --m 300 --n 300 --k 300 -o "$tmp/killed.npy" >"$tmp/out" 2>"$tmp/err"
code=$?
((hung)) && fail "a killed rank left the job hanging"
[[ $code != 0 ]] || fail "a killed rank: the job exited 0"
grep -qi "signal 9\|killed" "$tmp/err" || fail "a killed rank: mpirun should say so: $(head -5 "$tmp/err")"
[[ ! -e "$tmp/killed.npy" ]] || fail "a killed job left an output file"

# --json: one object, last on stdout, from rank 0 only, naming the ranks, the grid and where the multiply ran.
mpi 3 "$mpi_cli" gemm --m 300 --n 200 --k 100 --device cpu --json >"$tmp/json.out" 2>"$tmp/err" || fail "--json: $(tail -3 "$tmp/err")"
[[ $(grep -c '^{' "$tmp/json.out") == 1 ]] || fail "--json: $(grep -c '^{' "$tmp/json.out") JSON lines, not one"
tail -1 "$tmp/json.out" | grep -q '"command":"gemm","device":"cpu".*"m":300,"n":200,"k":100,.*"ranks":3,"grid_rows":1,"grid_cols":3' ||
  fail "--json: $(tail -1 "$tmp/json.out")"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: parac-mpi gemm equals parac gemm byte for byte on 1-4 ranks; failures end the job"
