#!/usr/bin/env bash
# tests/ac/test_cli_gpu.sh — every GPU algorithm (and GPU SAC) writes the same
# --domains file as the CPU on every shared instance; gpu-bitset on random table networks (tables
# on the GPU) the same as AC4 on the CPU, its JSON naming the compact-table kernels on cuda.
set -u
"$PARAC" devices | grep -q "^cuda:" || { echo "skipped: no GPU"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for file in "$PARAC_DATA"/csp/*.xml; do
  name=$(basename "$file")
  "$PARAC" ac "$file" --device cpu --algorithm ac4 --domains "$tmp/cpu.json" > /dev/null || { echo "FAIL: $name cpu"; fail=1; }
  for algorithm in ac4-gpu ac4-gpu-plus gpu-bitset auto; do
    "$PARAC" ac "$file" --device cuda --algorithm $algorithm --domains "$tmp/gpu.json" > /dev/null \
      || { echo "FAIL: $name $algorithm failed"; fail=1; continue; }
    cmp -s "$tmp/cpu.json" "$tmp/gpu.json" || { echo "FAIL: $name $algorithm: domains differ"; fail=1; }
  done
  "$PARAC" ac "$file" --device cpu --sac --domains "$tmp/sac_cpu.json" > /dev/null || { echo "FAIL: $name sac1"; fail=1; }
  "$PARAC" ac "$file" --device cuda --sac --domains "$tmp/sac_gpu.json" > /dev/null || { echo "FAIL: $name gpu sac"; fail=1; }
  cmp -s "$tmp/sac_cpu.json" "$tmp/sac_gpu.json" || { echo "FAIL: $name: GPU SAC differs from SAC1"; fail=1; }
done
for tuples in 40 120 400; do  # seed 11: a wipe-out, 23 values removed, nothing removed
  "$PARAC" gen csp --arity 3 --vars 60 --dom 10 --constraints 400 --tuples $tuples --seed 11 -o "$tmp/tables.xml" -q \
    || { echo "FAIL: gen csp --arity"; fail=1; continue; }
  "$PARAC" ac "$tmp/tables.xml" --device cpu --algorithm ac4 --domains "$tmp/cpu.json" > /dev/null \
    || { echo "FAIL: tables $tuples cpu"; fail=1; }
  for algorithm in gpu-bitset auto; do
    json=$("$PARAC" ac "$tmp/tables.xml" --device cuda --algorithm $algorithm --domains "$tmp/gpu.json" --json | tail -1) \
      || { echo "FAIL: tables $tuples $algorithm failed"; fail=1; continue; }
    cmp -s "$tmp/cpu.json" "$tmp/gpu.json" || { echo "FAIL: tables $tuples $algorithm: domains differ"; fail=1; }
    python3 - "$json" <<'PY' || { echo "FAIL: tables $tuples $algorithm --json: $json"; fail=1; }
import json, sys
d = json.loads(sys.argv[1])
t = d["tables"]
assert t["device"] == "cuda" and t["propagator"] == "compact-table" and t["algorithm"] == "gpu-bitset", d
PY
  done
  "$PARAC" ac "$tmp/tables.xml" --device cuda --algorithm ac4-gpu-plus > /dev/null 2>&1; code=$?
  [[ $code == 2 ]] || { echo "FAIL: ac4-gpu-plus on tables: exit $code (want 2, unsupported)"; fail=1; }
done
exit $fail
