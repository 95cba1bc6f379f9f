#!/usr/bin/env bash
# tests/dbscan/test_cli_gpu.sh — `parac dbscan --device cuda` writes the CPU's bytes (labels and core mask)
# for float64 and float32 .npy and CSV input; skipped (77) without a usable GPU.
# PARAC_TEST_QUICK=1 (compute-sanitizer, docs/GPU.md): a tenth of the points, eps widened to keep the neighbour counts.
set -u
: "${PARAC:?PARAC must name the parac binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

blobs=200000 uniform=300000 eps_blobs=0.05 eps_uniform=0.01 budget=16M
if [[ "${PARAC_TEST_QUICK:-0}" == 1 ]]; then blobs=20000 uniform=30000 eps_blobs=0.16 eps_uniform=0.0215 budget=2M; fi
"$PARAC" gen points --n $blobs --dim 2 --kind blobs --centers 20 --std 0.5 --seed $RANDOM -o "$tmp/b64.npy" || fail "gen"
"$PARAC" gen points --n $uniform --dim 3 --kind uniform --seed $RANDOM --float32 -o "$tmp/u32.npy" || fail "gen f32"
"$PARAC" gen points --n 5000 --dim 12 --kind blobs --centers 4 --seed $RANDOM -o "$tmp/d12.csv" || fail "gen csv"
if ! "$PARAC" dbscan "$tmp/b64.npy" --eps $eps_blobs --min-samples 10 --device cuda -q 2>"$tmp/err"; then
  grep -qi "gpu\|cuda" "$tmp/err" && { echo "no usable GPU: $(cat "$tmp/err")"; exit 77; }
  fail "dbscan --device cuda: $(cat "$tmp/err")"
fi

same_on_both() { # file eps min_samples
  local file=$1 eps=$2 min=$3 device
  for device in cpu cuda; do
    "$PARAC" dbscan "$file" --eps "$eps" --min-samples "$min" --device "$device" -o "$tmp/l_$device.npy" \
      --core-mask "$tmp/c_$device.npy" --json >"$tmp/s_$device" || fail "dbscan $file on $device"
  done
  grep -q '"device":"cuda"' "$tmp/s_cuda" || fail "$file: did not run on the GPU: $(cat "$tmp/s_cuda")"
  grep -q '"gpu_fallback":false' "$tmp/s_cuda" || fail "$file: fell back to the CPU"
  cmp -s "$tmp/l_cpu.npy" "$tmp/l_cuda.npy" || fail "$file eps=$eps min=$min: labels differ between cpu and cuda"
  cmp -s "$tmp/c_cpu.npy" "$tmp/c_cuda.npy" || fail "$file eps=$eps min=$min: core masks differ between cpu and cuda"
}
same_on_both "$tmp/b64.npy" $eps_blobs 10
same_on_both "$tmp/b64.npy" 0.3 1
same_on_both "$tmp/u32.npy" $eps_uniform 5
same_on_both "$tmp/d12.csv" 4.0 8
# a device budget far below the points' needs: slabs on the GPU, still the CPU's bytes
"$PARAC" dbscan "$tmp/b64.npy" --eps $eps_blobs --min-samples 10 --device cuda --max-device-memory $budget \
  -o "$tmp/l_slabs.npy" --core-mask "$tmp/c_slabs.npy" || fail "dbscan --max-device-memory $budget on the GPU"
"$PARAC" dbscan "$tmp/b64.npy" --eps $eps_blobs --min-samples 10 --device cpu -o "$tmp/l_ref.npy" \
  --core-mask "$tmp/c_ref.npy" || fail "dbscan on the CPU"
cmp -s "$tmp/l_slabs.npy" "$tmp/l_ref.npy" || fail "--max-device-memory $budget: labels differ from the CPU's"
cmp -s "$tmp/c_slabs.npy" "$tmp/c_ref.npy" || fail "--max-device-memory $budget: core masks differ from the CPU's"
[[ $failures == 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "ok"
