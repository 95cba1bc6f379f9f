#!/usr/bin/env bash
# tests/metrics/test_cli_gpu.sh — `parac metrics --device cuda` prints the CPU's silhouette, digit for digit;
# skipped (77) without a usable GPU.
set -u
: "${PARAC:?PARAC must name the parac binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
"$PARAC" gen points --n 8000 --dim 3 --kind blobs --centers 6 --std 0.8 --seed $RANDOM -o "$tmp/x.npy" \
  --truth "$tmp/truth.npy" || fail gen
"$PARAC" metrics --labels "$tmp/truth.npy" --data "$tmp/x.npy" --device cpu >"$tmp/cpu.out" || fail "metrics cpu"
if ! "$PARAC" metrics --labels "$tmp/truth.npy" --data "$tmp/x.npy" --device cuda >"$tmp/cuda.out" 2>"$tmp/err"; then
  grep -qi "gpu\|cuda\|device" "$tmp/err" && { echo "no usable GPU: $(cat "$tmp/err")"; exit 77; }
  fail "metrics --device cuda: $(cat "$tmp/err")"
fi
grep -q "^silhouette " "$tmp/cpu.out" || fail "no silhouette line: $(cat "$tmp/cpu.out")"
cmp -s "$tmp/cpu.out" "$tmp/cuda.out" || fail "GPU output differs: $(cat "$tmp/cpu.out") / $(cat "$tmp/cuda.out")"
if [[ $failures -ne 0 ]]; then echo "$failures failed"; exit 1; fi
echo "metrics cli gpu: all passed"
