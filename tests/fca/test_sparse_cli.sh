#!/usr/bin/env bash
# tests/fca/test_sparse_cli.sh — `parac fca --cpu-strategy`: the sparse search's output is
# byte-identical to the dense search's (intents, extents, min support, 1 and 2 threads) on a sparse
# and a dense context, auto agrees, an unknown strategy is a usage error (exit 1) and a removed one
# (moved to dev/fca/) a bad value that says where it went (exit 2).
set -u
PARAC=${PARAC:-./parac}
dir=$(mktemp -d /tmp/parac-fca-sparse-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$PARAC" gen context --objects 3000 --attributes 900 --density 0.01 --seed 3 -o "$dir/sparse.dat" || fail "gen sparse"
"$PARAC" gen context --objects 150 --attributes 37 --density 0.3 --seed 7 -o "$dir/dense.dat" || fail "gen dense"
for data in sparse dense; do
  for support in 0 3; do
    "$PARAC" fca "$dir/$data.dat" --device cpu --threads 1 --cpu-strategy dense --extents --min-support $support \
      -o "$dir/reference.txt" || fail "$data: dense run"
    [[ -s $dir/reference.txt ]] || fail "$data: dense output is empty"
    for strategy in sparse auto; do
      for threads in 1 2; do
        "$PARAC" fca "$dir/$data.dat" --device cpu --threads $threads --cpu-strategy $strategy --extents \
          --min-support $support -o "$dir/other.txt" || fail "$data: $strategy on $threads threads"
        cmp -s "$dir/reference.txt" "$dir/other.txt" ||
          fail "$data, min support $support: $strategy on $threads threads differs from dense"
      done
    done
    count=$("$PARAC" fca "$dir/$data.dat" --device cpu --cpu-strategy sparse --count --min-support $support)
    [[ $count == $(wc -l < "$dir/reference.txt") ]] || fail "$data: sparse --count $count"
  done
done

out=$("$PARAC" fca "$dir/dense.dat" --cpu-strategy quick 2>&1 >/dev/null); code=$?
[[ $code == 1 && $out == *"--cpu-strategy"* ]] || fail "unknown strategy: exit $code ($out)"
[[ $out != *work_stealing* && $out != *shared_pool* && $out != *per_thread* ]] ||
  fail "the usage message lists a removed strategy ($out)"
for strategy in shared_pool per_thread work_stealing; do # moved to dev/fca/: refused, saying where they went
  out=$("$PARAC" fca "$dir/dense.dat" --device cpu --threads 2 --cpu-strategy $strategy --count 2>&1 >/dev/null); code=$?
  [[ $code == 2 && $out == *"dev/fca/"*"$strategy.c"* ]] || fail "removed $strategy: exit $code ($out)"
done

if (( failures )); then echo "$failures failure(s)"; exit 1; fi
echo "fca sparse cli: ok"
