#!/usr/bin/env bash
# tests/metrics/test_cli.sh — `parac metrics`: output fields and bad input (exit 2).
set -u
: "${PARAC:?PARAC must name the parac binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
"$PARAC" gen points --n 3000 --kind blobs --centers 3 --std 0.3 --seed 5 -o "$tmp/x.csv" --truth "$tmp/truth.txt" || fail gen
"$PARAC" dbscan "$tmp/x.csv" --eps 0.3 --min-samples 5 -o "$tmp/labels.txt" -q || fail dbscan
"$PARAC" metrics --labels "$tmp/labels.txt" --truth "$tmp/truth.txt" --data "$tmp/x.csv" --json >"$tmp/out" || fail metrics
for field in ari nmi silhouette davies_bouldin; do
  grep -q "\"$field\":" "$tmp/out" || fail "missing $field in $(cat "$tmp/out")"
done
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['ari'] > 0.95 else 1)" "$tmp/out" ||
  fail "well-separated blobs should give ARI > 0.95: $(cat "$tmp/out")"
head -n 100 "$tmp/truth.txt" >"$tmp/short.txt"
"$PARAC" metrics --labels "$tmp/labels.txt" --truth "$tmp/short.txt" >/dev/null 2>"$tmp/err"
[[ $? == 2 ]] || fail "length mismatch should exit 2"
grep -q "short.txt" "$tmp/err" || fail "mismatch message should name the file: $(cat "$tmp/err")"
"$PARAC" metrics --labels "$tmp/labels.txt" >/dev/null 2>&1
[[ $? == 1 ]] || fail "no --truth/--data is a usage error"
if [[ $failures -ne 0 ]]; then echo "$failures failed"; exit 1; fi
echo "metrics cli: all passed"
