#!/usr/bin/env bash
# tests/cli/test_threads.sh — --threads far past the cores (issue 15: 100000 segfaulted in fca, dbscan,
# birch and gemm): every module clamps the count (core/threads.h: at most 4 per core, 1024 in all)
# and writes the same bytes as with one thread.
set -u
: "${PARAC:?PARAC must name the parac binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# same_for_all_counts NAME COMMAND ARGS...: the file the command writes with -o is compared.
same_for_all_counts() {
  local name=$1; shift
  "$PARAC" "$@" --device cpu --threads 1 -o "$tmp/$name.1" >"$tmp/$name.stdout.1" 2>"$tmp/err" ||
    { fail "$name --threads 1: exit $? ($(head -c 300 "$tmp/err"))"; return; }
  for threads in 1000 100000; do
    "$PARAC" "$@" --device cpu --threads "$threads" -o "$tmp/$name.$threads" >"$tmp/$name.stdout.$threads" 2>"$tmp/err"
    local code=$?
    [[ $code == 0 ]] || { fail "$name --threads $threads: exit $code ($(head -c 300 "$tmp/err"))"; continue; }
    cmp -s "$tmp/$name.1" "$tmp/$name.$threads" || fail "$name --threads $threads: output differs from --threads 1"
  done
  [[ -s "$tmp/$name.1" ]] || fail "$name: empty output"
}

"$PARAC" gen context --objects 300 --attributes 24 --density 0.3 --seed 5 -o "$tmp/context.dat" || fail "gen context"
"$PARAC" gen points --n 3000 --dim 2 --kind blobs --centers 4 --seed 5 -o "$tmp/points.npy" || fail "gen points"
"$PARAC" gen matrix --rows 96 --cols 80 --seed 5 -o "$tmp/a.npy" || fail "gen matrix a"
"$PARAC" gen matrix --rows 80 --cols 64 --seed 6 -o "$tmp/b.npy" || fail "gen matrix b"

same_for_all_counts fca fca "$tmp/context.dat"
same_for_all_counts dbscan dbscan "$tmp/points.npy" --eps 0.3 --min-samples 5
same_for_all_counts dbscan-brute dbscan "$tmp/points.npy" --eps 0.3 --min-samples 5 --method brute-force
same_for_all_counts birch birch "$tmp/points.npy" --n-clusters 4
same_for_all_counts gemm gemm "$tmp/a.npy" "$tmp/b.npy"

# fca: the count is the one of a single thread (the concepts themselves are compared above).
[[ $(cat "$tmp/fca.stdout.1") == "$(cat "$tmp/fca.stdout.100000")" ]] || fail "fca summaries differ"

# metrics: silhouette and Davies-Bouldin print the same scores.
"$PARAC" dbscan "$tmp/points.npy" --eps 0.3 --min-samples 5 --device cpu -o "$tmp/labels.npy" >/dev/null 2>&1 || fail "labels"
for threads in 1 1000 100000; do
  "$PARAC" metrics --labels "$tmp/labels.npy" --data "$tmp/points.npy" --device cpu --threads "$threads" \
    >"$tmp/metrics.$threads" 2>"$tmp/err" || fail "metrics --threads $threads: $(head -c 300 "$tmp/err")"
done
cmp -s "$tmp/metrics.1" "$tmp/metrics.100000" || fail "metrics differ: $(cat "$tmp/metrics.1") / $(cat "$tmp/metrics.100000")"
cmp -s "$tmp/metrics.1" "$tmp/metrics.1000" || fail "metrics differ at 1000 threads"
grep -q "silhouette" "$tmp/metrics.1" || fail "metrics printed no silhouette: $(cat "$tmp/metrics.1")"

# ac (gpu-bitset runs its rounds with OpenMP on the CPU): the same domains.
"$PARAC" gen csp --vars 40 --dom 6 --constraints 120 --tightness 0.4 --seed 3 -o "$tmp/csp.xml" || fail "gen csp"
for threads in 1 1000 100000; do
  "$PARAC" ac "$tmp/csp.xml" --device cpu --algorithm gpu-bitset --threads "$threads" --domains "$tmp/domains.$threads" \
    >/dev/null 2>"$tmp/err" || fail "ac --threads $threads: $(head -c 300 "$tmp/err")"
done
cmp -s "$tmp/domains.1" "$tmp/domains.100000" && cmp -s "$tmp/domains.1" "$tmp/domains.1000" ||
  fail "ac domains differ between thread counts"

# --json reports the clamped count, never the request.
"$PARAC" dbscan "$tmp/points.npy" --eps 0.3 --min-samples 5 --device cpu --threads 100000 --json >"$tmp/json" ||
  fail "dbscan --json"
threads=$(tail -1 "$tmp/json" | sed -n 's/.*"threads":\([0-9]*\).*/\1/p')
[[ -n $threads && $threads -ge 1 && $threads -le 1024 ]] || fail "--json threads should be clamped: $(tail -1 "$tmp/json")"

[[ $failures == 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "all thread-count checks passed"
