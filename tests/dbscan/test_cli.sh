#!/usr/bin/env bash
# tests/dbscan/test_cli.sh — `parac gen points` and `parac dbscan` from the command line:
# determinism across thread counts, output formats, and bad input (exit 2 naming the file).
set -u
: "${PARAC:?PARAC must name the parac binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_exit() { # expected_code description command...
  local expected=$1 what=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  [[ $code == "$expected" ]] || fail "$what: exit $code, expected $expected ($(cat "$tmp/err"))"
}

# gen points: same bytes for any thread count, float32 and CSV outputs.
"$PARAC" gen points --n 70000 --dim 3 --kind blobs --centers 5 --seed 9 --threads 1 -o "$tmp/a.npy" || fail "gen points"
"$PARAC" gen points --n 70000 --dim 3 --kind blobs --centers 5 --seed 9 --threads 2 -o "$tmp/b.npy" || fail "gen points"
cmp -s "$tmp/a.npy" "$tmp/b.npy" || fail "gen points differs between thread counts"
"$PARAC" gen points --n 500 --kind moons --std 0.05 --seed 3 -o "$tmp/moons.csv" || fail "gen moons csv"
[[ $(wc -l <"$tmp/moons.csv") == 500 ]] || fail "moons.csv should have 500 rows"
"$PARAC" gen points --n 1000 --dim 2 --kind uniform --seed 3 --float32 -o "$tmp/u32.npy" || fail "gen float32"
expect_exit 1 "gen points unknown kind" "$PARAC" gen points --kind spiral -o "$tmp/x.npy"

# dbscan: identical labels for 1 and 2 threads, and for float64 .npy vs CSV of the same points.
"$PARAC" dbscan "$tmp/a.npy" --eps 0.3 --min-samples 8 --threads 1 -o "$tmp/l1.npy" --core-mask "$tmp/c1.txt" || fail "dbscan t1"
"$PARAC" dbscan "$tmp/a.npy" --eps 0.3 --min-samples 8 --threads 2 -o "$tmp/l2.npy" --core-mask "$tmp/c2.txt" || fail "dbscan t2"
cmp -s "$tmp/l1.npy" "$tmp/l2.npy" || fail "labels differ between thread counts"
cmp -s "$tmp/c1.txt" "$tmp/c2.txt" || fail "core masks differ between thread counts"
"$PARAC" dbscan "$tmp/moons.csv" --eps 0.2 --min-samples 5 -o "$tmp/moons_labels.csv" --json >"$tmp/summary" || fail "dbscan csv"
grep -q '"clusters":2' "$tmp/summary" || fail "two moons should give 2 clusters: $(cat "$tmp/summary")"
grep -q '"noise":' "$tmp/summary" && grep -q '"core":' "$tmp/summary" || fail "summary fields missing"
"$PARAC" dbscan "$tmp/u32.npy" --eps 0.05 --min-samples 4 --json >"$tmp/summary32" || fail "dbscan float32"

# Bad input: exit 2 with the file named.
printf '1,2\n3,4\n5\n' >"$tmp/ragged.csv"
expect_exit 2 "ragged rows" "$PARAC" dbscan "$tmp/ragged.csv" --eps 1 --min-samples 2
grep -q "ragged.csv:3" "$tmp/err" || fail "ragged rows message should name file and line: $(cat "$tmp/err")"
printf '1,2\nnan,4\n' >"$tmp/nan.csv"
expect_exit 2 "NaN" "$PARAC" dbscan "$tmp/nan.csv" --eps 1 --min-samples 2
grep -q "nan.csv" "$tmp/err" || fail "NaN message should name the file: $(cat "$tmp/err")"
python3 - "$tmp/d0.npy" <<'PY' 2>/dev/null
import struct, sys
header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 0), }"
header += " " * (63 - len(header) - 10 % 64) + "\n"
pad = (64 - (10 + len(header)) % 64) % 64
header = header[:-1] + " " * pad + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
PY
expect_exit 2 "d = 0" "$PARAC" dbscan "$tmp/d0.npy" --eps 1 --min-samples 2
expect_exit 2 "eps = 0" "$PARAC" dbscan "$tmp/moons.csv" --eps 0 --min-samples 2
expect_exit 2 "eps < 0" "$PARAC" dbscan "$tmp/moons.csv" --eps -1 --min-samples 2
expect_exit 2 "min-samples 0" "$PARAC" dbscan "$tmp/moons.csv" --eps 1 --min-samples 0
expect_exit 2 "missing file" "$PARAC" dbscan "$tmp/none.csv" --eps 1 --min-samples 2
# a required option left out is a usage error (exit 1) saying so, not a value out of range (exit 2)
expect_exit 1 "no --min-samples" "$PARAC" dbscan "$tmp/moons.csv" --eps 1
grep -q "^parac: error: dbscan: --min-samples is required" "$tmp/err" || fail "no --min-samples: $(cat "$tmp/err")"
expect_exit 1 "no --eps" "$PARAC" dbscan "$tmp/moons.csv" --min-samples 2
grep -q "^parac: error: dbscan: --eps is required" "$tmp/err" || fail "no --eps: $(cat "$tmp/err")"
# --max-device-memory: a size with a suffix is accepted (the CPU ignores it, same labels); a size out of
# range is exit 2, one that is not a size is a usage error (exit 1)
"$PARAC" dbscan "$tmp/moons.csv" --eps 0.2 --min-samples 5 --device cpu --max-device-memory 64M \
  -o "$tmp/capped.csv" || fail "--max-device-memory 64M"
cmp -s "$tmp/capped.csv" "$tmp/moons_labels.csv" || fail "--max-device-memory changed the CPU labels"
for bad in 0 -5; do
  expect_exit 2 "--max-device-memory $bad" "$PARAC" dbscan "$tmp/moons.csv" --eps 0.2 --min-samples 5 \
    --max-device-memory "$bad"
done
for bad in 12Q M; do
  expect_exit 1 "--max-device-memory $bad" "$PARAC" dbscan "$tmp/moons.csv" --eps 0.2 --min-samples 5 \
    --max-device-memory "$bad"
done

if [[ $failures -ne 0 ]]; then echo "$failures failed"; exit 1; fi
echo "dbscan cli: all passed"
