#!/usr/bin/env bash
# tests/fca/test_cli_gpu.sh — `parac fca --device cuda` prints byte-identical
# output to the CPU (with extents, min support) on random contexts; exits 77
# (skipped) when no GPU is usable. PARAC_TEST_QUICK=1 (compute-sanitizer, docs/GPU.md): three shapes, a
# smaller capped context (~25k concepts, output ~3x a 64K cap) and only primary-tumor of the data sets;
# PARAC_TEST_QUICK=2 (tiny): two shapes, the same capped context, no data set.
set -u
PARAC=${PARAC:-./parac}
dir=$(mktemp -d /tmp/parac-fca-gpu.XXXXXX)
trap 'rm -rf "$dir"' EXIT
printf '0 1\n1 2\n' > "$dir/tiny.dat"
"$PARAC" fca "$dir/tiny.dat" --device cuda --count > /dev/null 2>&1 || { echo "no usable GPU: skipped"; exit 77; }
failures=0
seed=$(date +%s)
shapes=("40 20 0.4" "130 65 0.2" "333 97 0.15" "64 128 0.1" "1000 33 0.3")
capped="120 40 0.45" cap=256K data_sets="mushroom:238710 vote:227033 primary-tumor:87232"
if [[ "${PARAC_TEST_QUICK:-0}" == 1 ]]; then
  shapes=("40 20 0.4" "130 65 0.2" "64 128 0.1") capped="100 24 0.55" cap=64K data_sets="primary-tumor:87232"
elif [[ "${PARAC_TEST_QUICK:-0}" == 2 ]]; then # tiny mode (docs/GPU.md): every path, smallest inputs
  shapes=("40 20 0.4" "64 128 0.1") capped="100 24 0.55" cap=64K data_sets=""
fi
for shape in "${shapes[@]}"; do
  set -- $shape
  "$PARAC" gen context --objects $1 --attributes $2 --density $3 --seed $seed -o "$dir/r.dat" || exit 1
  for support in 0 3; do
    "$PARAC" fca "$dir/r.dat" --device cpu --extents --min-support $support -o "$dir/cpu.txt"
    "$PARAC" fca "$dir/r.dat" --device cuda --extents --min-support $support -o "$dir/gpu.txt" || { echo "FAIL: cuda run"; failures=$((failures + 1)); }
    if ! cmp -s "$dir/cpu.txt" "$dir/gpu.txt"; then
      echo "FAIL: shape $shape seed $seed support $support: GPU output differs ($(wc -l < "$dir/cpu.txt") vs $(wc -l < "$dir/gpu.txt") lines)"
      failures=$((failures + 1))
    fi
  done
done
# output (~1.2 MB of intents, ~150k concepts) several times a 256 KiB device cap: same bytes as the CPU
set -- $capped
"$PARAC" gen context --objects $1 --attributes $2 --density $3 --seed $seed -o "$dir/capped.dat" || exit 1
"$PARAC" fca "$dir/capped.dat" --device cpu -o "$dir/cpu.txt"
"$PARAC" fca "$dir/capped.dat" --device cuda --max-device-memory $cap -o "$dir/gpu.txt" ||
  { echo "FAIL: cuda run with --max-device-memory $cap"; failures=$((failures + 1)); }
cmp -s "$dir/cpu.txt" "$dir/gpu.txt" || { echo "FAIL: capped GPU output differs (seed $seed)"; failures=$((failures + 1)); }
for data in $data_sets; do
  got=$("$PARAC" fca "$PARAC_DATA/fca/${data%%:*}.dat" --device cuda --count)
  [[ "$got" == "${data##*:}" ]] || { echo "FAIL: ${data%%:*} on GPU: $got"; failures=$((failures + 1)); }
done
if ((failures)); then echo "$failures failure(s)"; exit 1; fi
echo "fca gpu cli: all passed"
