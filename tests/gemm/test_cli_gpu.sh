#!/usr/bin/env bash
# parac gemm --device cuda --verify (against cuBLAS): fp32, tf32, block-sparse, banded, split-k shapes.
set -u
if ! "$PARAC" devices --json | grep -q '"ordinal"'; then echo "skipped: no GPU"; exit 77; fi
fail=0
run_case() { # name bound args...
  local name=$1 bound=$2; shift 2
  local out; out=$("$PARAC" gemm --device cuda --verify --json "$@" 2>&1 | tail -1)
  local err; err=$(echo "$out" | sed -n 's/.*"max_rel_err":\([^,}]*\).*/\1/p')
  if [[ -z "$err" ]] || ! python3 -c "import sys; sys.exit(0 if float('$err') < $bound else 1)"; then
    echo "FAILED: $name: $out"; fail=1
  else
    echo "ok: $name max_rel_err=$err"
  fi
}
run_case "fp32 1000^3" 1e-5 --m 1000 --n 1000 --k 1000
run_case "fp32 odd shape beta" 1e-5 --m 1001 --n 333 --k 517 --alpha 1.5 --beta -0.5
run_case "fp32 split-k" 1e-5 --m 100 --n 100 --k 20000
run_case "fp32 K=1" 1e-5 --m 300 --n 301 --k 1
run_case "tf32 2048" 1e-2 --m 2048 --n 2048 --k 2048 --dtype tf32
run_case "tf32 wgmma_tma 2048" 1e-2 --m 2048 --n 2048 --k 2048 --dtype tf32 --variant wgmma_tma
run_case "tf32 wgmma_tma 6 stages odd" 1e-2 --m 1001 --n 777 --k 1500 --dtype tf32 --variant wgmma_tma --stages 6 --beta 0.5
run_case "tf32 wgmma_tma sparse dynamic" 1e-2 --m 2048 --n 1024 --k 2048 --dtype tf32 --variant wgmma_tma --block-density 0.2 --power-law --schedule dynamic
run_case "block-sparse" 1e-5 --m 2048 --n 2048 --k 2048 --block-density 0.125 --block 64
run_case "power-law dynamic" 1e-5 --m 2048 --n 1024 --k 2048 --block-density 0.2 --power-law --schedule dynamic
run_case "fp32 base odd" 1e-5 --m 1001 --n 777 --k 1500 --variant base --beta 0.5
run_case "fp32 base sparse dynamic" 1e-5 --m 2048 --n 1024 --k 2048 --variant base --block-density 0.2 --power-law --schedule dynamic
run_case "fp32 bk32 2048" 1e-5 --m 2048 --n 2048 --k 2048 --variant bk32
run_case "fp32 bk32 odd beta" 1e-5 --m 1001 --n 777 --k 1500 --variant bk32 --beta 0.5
run_case "fp32 bk32 sparse dynamic" 1e-5 --m 2048 --n 1024 --k 2048 --variant bk32 --block-density 0.2 --power-law --schedule dynamic
run_case "banded" 1e-5 --m 3000 --n 1000 --k 3000 --band 100
run_case "fp32 n256 (bk32x2) block-sparse" 1e-5 --m 2048 --n 1500 --k 2048 --variant n256 --block-density 0.125
run_case "fp32 n256 bk16x4 banded dynamic" 1e-5 --m 2000 --n 1024 --k 2000 --variant n256 --stages 4 --band 200 --schedule dynamic
run_case "fp32 auto block-sparse (masked pack)" 1e-5 --m 3000 --n 2000 --k 2500 --block-density 0.1
run_case "fp32 bk32 --pack" 1e-5 --m 1001 --n 777 --k 1500 --variant bk32 --pack
# B in place (default) or packed (--pack): C is the same to the bit
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$PARAC" gemm --device cuda --m 777 --n 520 --k 333 --beta 0.5 -o "$tmp/in_place.npy" > /dev/null 2>&1
"$PARAC" gemm --device cuda --m 777 --n 520 --k 333 --beta 0.5 --pack -o "$tmp/packed.npy" > /dev/null 2>&1
if [[ -s "$tmp/in_place.npy" ]] && cmp -s "$tmp/in_place.npy" "$tmp/packed.npy"; then
  echo "ok: B in place and packed give the same bits"
else
  echo "FAILED: B in place vs --pack differ (or no output)"; fail=1
fi
exit $fail
