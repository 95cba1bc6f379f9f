#!/usr/bin/env bash
# tests/core/test_hostile_cli.sh — hostile input files through the CLI (issue 15):
# every one must end within 30 s with exit 2 and a single line naming the file
# (and the line, for text formats). Before the readers were hardened, the .npy
# files hung `parac birch`/`parac metrics` or ran off buffers, the .mtx files
# corrupted the heap in `parac gemm`, and the CSV files lost their first point.
set -u
PARAC=${PARAC:-./parac}
dir=$(mktemp -d /tmp/parac-hostile.XXXXXX)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_bad "NAME_IN_MESSAGE" COMMAND...: exit 2 within 30 s, one line on stderr containing NAME_IN_MESSAGE
expect_bad() {
  local needle=$1 out code
  shift
  out=$(timeout 30 "$PARAC" "$@" --device cpu 2>&1 >/dev/null); code=$?
  [[ $code == 2 ]] || fail "$*: exit $code, expected 2 ($out)"
  [[ "$out" == *"$needle"* ]] || fail "$*: message '$out' does not name '$needle'"
  [[ $(printf '%s\n' "$out" | wc -l) == 1 ]] || fail "$*: message is not one line: $out"
}

# write_npy FILE DICT DATA_BYTES: a version 1.0 .npy with that header dict and zero data
write_npy() {
  python3 - "$@" <<'PY'
import struct, sys
path, header, data = sys.argv[1], sys.argv[2], int(sys.argv[3])
pad = (64 - (10 + len(header) + 1) % 64) % 64
header = header + ' ' * pad + '\n'
open(path, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + b'\0' * data)
PY
}
command -v python3 > /dev/null || { echo "python3 is needed to write the .npy files"; exit 77; }

# --- .npy: shape products that overflow, shapes larger than the file, bad headers
write_npy "$dir/wide.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2305843009213693952), }" 8
write_npy "$dir/long.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (2305843009213693952, 1), }" 8
write_npy "$dir/wrap.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }" 8
write_npy "$dir/claims.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (549755813888, 2), }" 8
write_npy "$dir/nocols.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 0), }" 0
write_npy "$dir/badtuple.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (2 2), }" 32
[[ $(stat -c %s "$dir/wide.npy") == 136 ]] || fail "wide.npy should be the reported 136-byte file"
for f in wide long wrap claims nocols badtuple; do
  expect_bad "$dir/$f.npy:" birch "$dir/$f.npy"
  expect_bad "$dir/$f.npy:" birch "$dir/$f.npy" --chunk 4611686018427387904
  expect_bad "$dir/$f.npy:" dbscan "$dir/$f.npy" --eps 1 --min-samples 2
  expect_bad "$dir/$f.npy:" metrics --labels "$dir/$f.npy" --truth "$dir/$f.npy"
  expect_bad "$dir/$f.npy:" metrics --labels "$dir/$f.npy" --data "$dir/$f.npy"
done
expect_bad "$dir/long.npy:" gemm "$dir/long.npy" "$dir/long.npy" -o "$dir/c.npy"

# --- Matrix Market: symmetric but not square, rows*cols overflowing, too many entries
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n3 1 1\n' > "$dir/rect.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n4294967296 4294967297 1\n1 1 1\n' > "$dir/wrap.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 5\n1 1 1\n' > "$dir/many.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n5\n' > "$dir/extra.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n' > "$dir/ok.mtx"
expect_bad "$dir/rect.mtx:2:" gemm "$dir/rect.mtx" "$dir/ok.mtx" -o "$dir/c.npy"
expect_bad "$dir/wrap.mtx:2:" gemm "$dir/ok.mtx" "$dir/wrap.mtx" -o "$dir/c.npy"
expect_bad "$dir/many.mtx:2:" gemm "$dir/many.mtx" "$dir/ok.mtx" -o "$dir/c.npy"
expect_bad "$dir/extra.mtx:7:" gemm "$dir/extra.mtx" "$dir/ok.mtx" -o "$dir/c.npy"
# A three-line coordinate file may declare a dense matrix past memory: exit 3 (out of memory) at once,
# naming the size line, not an allocation that overcommit grants and the OOM killer ends when C is
# written (60000^2 floats are 14.4 GB; 20000^2, 1.6 GB; all under a 1 GB limit).
printf '%%%%MatrixMarket matrix coordinate real general\n60000 60000 1\n1 1 2\n' > "$dir/vast.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n20000 20000 1\n1 1 2\n' > "$dir/large.mtx"
# An AddressSanitizer build reserves terabytes of shadow address space at start and cannot run under
# ulimit -v: these three run in the plain build (make test), the ASan pass says it left them out.
expect_code() {
  local want=$1 needle=$2 out code
  shift 2
  if ldd "$PARAC" 2> /dev/null | grep -q libasan; then
    echo "not under AddressSanitizer (no ulimit -v): $*"
    return
  fi
  out=$( (ulimit -v 1000000; timeout 30 "$PARAC" "$@" --device cpu) 2>&1 >/dev/null); code=$?
  [[ $code == "$want" ]] || fail "$*: exit $code under 1 GB, expected $want ($out)"
  [[ "$out" == *"$needle"* ]] || fail "$*: message '$out' does not name '$needle'"
  [[ $(printf '%s\n' "$out" | wc -l) == 1 ]] || fail "$*: message is not one line: $out"
}
expect_code 3 "$dir/vast.mtx:2: a dense 60000 x 60000 matrix would take 14400000000 bytes" \
  gemm "$dir/vast.mtx" "$dir/ok.mtx" -o "$dir/c.npy"
expect_code 3 "$dir/large.mtx:2: a dense 20000 x 20000 matrix would take" gemm "$dir/large.mtx" "$dir/large.mtx" -o "$dir/c.npy"
expect_code 3 "gemm: A, B and C (20000 x 20000 x 20000, fp32) would take" gemm --m 20000 --n 20000 --k 20000
# 32 MB of A, B and C, but packed in whole tiles (k = 1 fills 64 columns of A): 1 GB, refused before the
# allocation (which overcommit would grant without a limit) rather than failing in it
expect_code 3 "gemm packed operands would take" gemm --m 4000000 --n 1 --k 1
[[ ! -e "$dir/c.npy" ]] || fail "a refused gemm left $dir/c.npy"

# --- CSV points: a typo in the first row is an error at line 1 and its column, not a lost "header"
printf '1,x2\n3,4\n5,6\n' > "$dir/typo.csv"
expect_bad "$dir/typo.csv:1: column 2: 'x2' is not a number" dbscan "$dir/typo.csv" --eps 1 --min-samples 2
expect_bad "$dir/typo.csv:1: column 2" birch "$dir/typo.csv"
printf '1,2\n3,4\n' | { printf '\xEF\xBB\xBF'; cat; } > "$dir/bom.csv"
out=$(timeout 30 "$PARAC" dbscan "$dir/bom.csv" --eps 0.5 --min-samples 1 --device cpu 2>&1); code=$?
[[ $code == 0 && "$out" == *"2 points"* ]] || fail "a byte-order mark lost a point: exit $code, $out"

# --- label files: out of int32's range, non-integers, bad lines: named by line
printf '0\n1\n# c\n2147483648\n' > "$dir/big.txt"
printf '0\n1\n1.5\n' > "$dir/half.txt"
printf '0\n1\n1 2\n' > "$dir/two.txt"
printf '0\n1\n1\n' > "$dir/ok.txt"
expect_bad "$dir/big.txt:4: label 2147483648" metrics --labels "$dir/big.txt" --truth "$dir/ok.txt"
expect_bad "$dir/half.txt:3:" metrics --labels "$dir/ok.txt" --truth "$dir/half.txt"
expect_bad "$dir/two.txt:3:" metrics --labels "$dir/two.txt" --truth "$dir/ok.txt"

# --- FCA: a huge id, a context above the cell limit from a small file, inconsistent .cxt counts
printf '1 4294967295\n' > "$dir/id.dat"
printf '1000000000000000000\n' > "$dir/id18.dat"
python3 -c "import sys; sys.stdout.write('1000000\n' * 20000)" > "$dir/big.dat"
printf 'B\n\n1\n1\n\no\na\nX\nX\n' > "$dir/extra.cxt"
printf 'B\n\n100000000\n100000000\n\no\n' > "$dir/huge.cxt"
printf '1,0,x\n0,1,1\n' > "$dir/mixed.csv"
expect_bad "$dir/id.dat:1:" fca "$dir/id.dat"
expect_bad "$dir/id18.dat:1:" fca "$dir/id18.dat"
expect_bad "$dir/big.dat:17180: the context" fca "$dir/big.dat"
expect_bad "$dir/extra.cxt:9: more rows" fca "$dir/extra.cxt"
expect_bad "$dir/huge.cxt:4:" fca "$dir/huge.cxt"
expect_bad "$dir/mixed.csv:1: cell 3" fca "$dir/mixed.csv"

# --- gzip: a 65 KB .gz that expands to one 65 MiB line stops at the line limit
head -c $((64 * 1024 * 1024 + 10)) /dev/zero | tr '\0' '1' | gzip -c > "$dir/bomb.dat.gz"
expect_bad "$dir/bomb.dat.gz:1: line is longer than the limit" fca "$dir/bomb.dat.gz"
{ printf '1,2\n'; head -c $((64 * 1024 * 1024 + 10)) /dev/zero | tr '\0' '1'; } | gzip -c > "$dir/bomb.csv.gz"
expect_bad "$dir/bomb.csv.gz:2: line is longer than the limit" birch "$dir/bomb.csv.gz"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "hostile CLI inputs: all refused with exit 2 (3 past memory)"
