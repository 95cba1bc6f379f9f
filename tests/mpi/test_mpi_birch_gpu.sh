#!/usr/bin/env bash
# tests/mpi/test_mpi_birch_gpu.sh — `parac-mpi birch --device cuda` (each rank's fit, and rank 0's Ward
# step when the merged tree has >= 2048 subclusters, on the GPU) writes the bytes of the same run with
# --device cpu, for 1-3 ranks, on fresh random float64 and float32 blobs; one rank on the GPU writes
# `parac birch --device cpu`'s bytes. Skipped (77) without parac-mpi or a usable GPU.
set -u
MPI_TEST_NEEDS="gpu"
MPI_TEST_LIMIT=300
# shellcheck source=tests/mpi/mpi_test_lib.sh
source "$(dirname "$0")/mpi_test_lib.sh"

"$PARAC" gen points --n 300000 --dim 2 --kind blobs --centers 20 --std 0.5 --seed $RANDOM -o "$tmp/b64.npy" -q || fail "gen"
"$PARAC" gen points --n 200000 --dim 3 --kind blobs --centers 8 --std 0.4 --seed $RANDOM --float32 -o "$tmp/b32.npy" -q ||
  fail "gen f32"
if ! "$PARAC" birch "$tmp/b32.npy" --device cuda -q >/dev/null 2>"$tmp/err"; then
  grep -qi "gpu\|cuda\|device" "$tmp/err" && { echo "no usable GPU: $(cat "$tmp/err")"; exit 77; }
  fail "parac birch --device cuda: $(cat "$tmp/err")"
fi

run() { # tag ranks file T K device
  mpi "$2" "$mpi_cli" birch "$3" --threshold "$4" --n-clusters "$5" --device "$6" -o "$tmp/$1.npy" \
    --centers "$tmp/$1.c.csv" --subclusters "$tmp/$1.s.csv" --json >"$tmp/$1.json" 2>"$tmp/$1.err" ||
    fail "$1: exit $?: $(head -3 "$tmp/$1.err")"
}
same() { # a b what
  for suffix in npy c.csv s.csv; do
    cmp -s "$tmp/$1.$suffix" "$tmp/$2.$suffix" || fail "$3: $suffix differs"
  done
}
check() { # file T K
  local file=$1 threshold=$2 k=$3 name ranks
  name=$(basename "$file" .npy)
  "$PARAC" birch "$file" --threshold "$threshold" --n-clusters "$k" --device cpu -o "$tmp/ref.npy" \
    --centers "$tmp/ref.c.csv" --subclusters "$tmp/ref.s.csv" -q >/dev/null || fail "$name: parac birch"
  for ranks in 1 2 3; do
    run "$name.cpu$ranks" "$ranks" "$file" "$threshold" "$k" cpu
    run "$name.gpu$ranks" "$ranks" "$file" "$threshold" "$k" cuda
    grep -q '"device":"cuda"' "$tmp/$name.gpu$ranks.json" || fail "$name, $ranks ranks: not on the GPU: $(cat "$tmp/$name.gpu$ranks.json")"
    same "$name.cpu$ranks" "$name.gpu$ranks" "$name, $ranks ranks, cuda vs cpu"
    echo "$name, $ranks ranks: $(sed -n 's/.*"subclusters":\([0-9]*\).*/\1 subclusters/p' "$tmp/$name.gpu$ranks.json")"
  done
  same ref "$name.gpu1" "$name, 1 rank on the GPU vs parac birch --device cpu"
}
check "$tmp/b64.npy" 0.12 20 # > 2048 subclusters: Ward on the GPU too
check "$tmp/b32.npy" 0.5 8

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: parac-mpi birch on the GPU writes the CPU's bytes on 1-3 ranks"
