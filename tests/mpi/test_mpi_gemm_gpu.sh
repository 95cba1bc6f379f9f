#!/usr/bin/env bash
# tests/mpi/test_mpi_gemm_gpu.sh — parac-mpi gemm with every rank's multiply on the GPU (--device cuda) against
# its CPU twin, on fresh random matrices (a new --seed each run, printed): fp32 C is byte-identical to
# `parac gemm --device cpu` (fp32 kernels keep the CPU's fmaf chains: docs/gemm.md), on 1, 2 and 4 ranks
# sharing the GPUs (--spread-gpus), dense, split-k and block-sparse; tf32 is within the tf32 bound (1e-2 of
# max|C|) of `parac gemm --device cuda --dtype tf32` (the tensor core's order, docs/DISTRIBUTED.md) and the
# test says whether its bytes were the same. Skipped (77) without parac-mpi or without a GPU.
set -u
MPI_TEST_NEEDS="gpu python3"
MPI_TEST_LIMIT=300
# shellcheck source=tests/mpi/mpi_test_lib.sh
source "$(dirname "$0")/mpi_test_lib.sh"
seed=$((RANDOM * 32768 + RANDOM))
echo "seed $seed"

same_bytes() { # name ranks "parac-mpi's own options" args...: parac gemm on the CPU, parac-mpi with each rank on the GPU
  local name=$1 ranks=$2 mpi_options=$3; shift 3
  "$PARAC" gemm "$@" --seed "$seed" --device cpu --repeats 1 -o "$tmp/$name.cpu.npy" >/dev/null || { fail "$name: parac gemm"; return; }
  # shellcheck disable=SC2086
  mpi "$ranks" "$mpi_cli" gemm "$@" $mpi_options --seed "$seed" --device cuda --spread-gpus -q -o "$tmp/$name.gpu.npy" >"$tmp/log" 2>&1 ||
    { fail "$name: parac-mpi on $ranks ranks: $(tail -3 "$tmp/log")"; return; }
  if cmp -s "$tmp/$name.cpu.npy" "$tmp/$name.gpu.npy"; then echo "ok: $name, $ranks ranks on the GPU: the CPU's bytes"
  else fail "$name, $ranks ranks: the GPU ranks' C differs from parac gemm on the CPU"; fi
}
same_bytes dense 1 "" --m 1500 --n 1100 --k 900
same_bytes dense_2x1 2 "--grid 2x1" --m 1500 --n 1100 --k 900
same_bytes dense_4 4 "--cyclic-block 256" --m 2100 --n 1300 --k 700
same_bytes split_k 2 "" --m 300 --n 200 --k 6000
same_bytes beta 4 "" --m 1001 --n 777 --k 517 --alpha 1.5 --beta -0.5
same_bytes block_sparse 4 "" --m 2048 --n 1024 --k 2048 --block-density 0.2 --power-law --schedule dynamic
same_bytes bk32 2 "" --m 1001 --n 777 --k 1500 --variant bk32

# tf32 on the GPU: within 1e-2 of max|C| of the single process on the GPU.
"$PARAC" gemm --m 2048 --n 1536 --k 1024 --dtype tf32 --seed "$seed" --device cuda --repeats 1 -o "$tmp/tf32.ref.npy" >/dev/null ||
  fail "tf32: parac gemm"
mpi 4 "$mpi_cli" gemm --m 2048 --n 1536 --k 1024 --dtype tf32 --seed "$seed" --device cuda --spread-gpus -q -o "$tmp/tf32.npy" ||
  fail "tf32: parac-mpi"
python3 - "$tmp/tf32.ref.npy" "$tmp/tf32.npy" <<'PY' || fail "tf32: beyond the tf32 bound"
import array, ast, sys
def load(path):  # a float32 C-order .npy, standard library only
    data = open(path, "rb").read()
    header_length = int.from_bytes(data[8:10], "little")
    header = ast.literal_eval(data[10:10 + header_length].decode())
    assert header["descr"] == "<f4", header
    values = array.array("f")
    values.frombytes(data[10 + header_length:])
    return values
ref, got = load(sys.argv[1]), load(sys.argv[2])
assert len(ref) == len(got) and len(ref) > 0
scale = max(abs(v) for v in ref) or 1.0
error = max(abs(a - b) for a, b in zip(ref, got)) / scale
print(f"tf32, 4 ranks on the GPU: max|dC| / max|C| = {error:.3g} (bound 1e-2), bytes {'equal' if ref == got else 'differ'}")
sys.exit(0 if error < 1e-2 else 1)
PY

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: parac-mpi gemm on GPU ranks gives the CPU's fp32 bytes and tf32 within its bound"
