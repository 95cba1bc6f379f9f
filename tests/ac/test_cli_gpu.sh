#!/usr/bin/env bash
# tests/ac/test_cli_gpu.sh — every GPU algorithm (and GPU SAC) writes the same
# --domains file as the CPU on every shared instance.
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
exit $fail
