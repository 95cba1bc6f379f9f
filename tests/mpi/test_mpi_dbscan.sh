#!/usr/bin/env bash
# tests/mpi/test_mpi_dbscan.sh — `mpirun -n 1..4 parac-mpi dbscan` writes the bytes `parac dbscan` writes
# (labels and core mask) on generated inputs chosen to stress the partition (blobs, uniform, duplicates,
# points exactly eps apart across boundaries, border points shared by two clusters, all noise, one cluster,
# 1-D and 10-D, fewer points than ranks, no points), and a failing or dying rank ends the job with a
# clear message instead of hanging. Skipped (77) when parac-mpi was not built (no MPI found).
set -u
MPI_TEST_NEEDS="python3"
# shellcheck source=tests/mpi/mpi_test_lib.sh
source "$(dirname "$0")/mpi_test_lib.sh"

compare() { # name input eps min_samples [extra args]
  local name=$1 input=$2 eps=$3 min=$4; shift 4
  "$PARAC" dbscan "$input" --eps "$eps" --min-samples "$min" --threads 1 -o "$tmp/$name.ref.txt" \
    --core-mask "$tmp/$name.refcore.txt" -q "$@" || { fail "$name: parac dbscan failed"; return; }
  for ranks in 1 2 3 4; do
    rm -f "$tmp/$name.out.txt" "$tmp/$name.core.txt"
    mpi "$ranks" "$mpi_cli" dbscan "$input" --eps "$eps" --min-samples "$min" --threads 1 -o "$tmp/$name.out.txt" \
      --core-mask "$tmp/$name.core.txt" -q "$@" >"$tmp/log" 2>&1
    local code=$?
    if [[ $code != 0 ]]; then fail "$name, $ranks ranks: exit $code: $(tail -5 "$tmp/log")"; continue; fi
    cmp -s "$tmp/$name.ref.txt" "$tmp/$name.out.txt" || fail "$name, $ranks ranks: labels differ from parac dbscan"
    cmp -s "$tmp/$name.refcore.txt" "$tmp/$name.core.txt" || fail "$name, $ranks ranks: core mask differs"
  done
}

"$PARAC" gen points --n 30000 --dim 2 --kind blobs --centers 6 --std 0.6 --seed 5 -o "$tmp/blobs.npy" -q
"$PARAC" gen points --n 30000 --dim 3 --kind uniform --seed 6 --float32 -o "$tmp/uniform32.npy" -q
for kind in grid shared dups noise one wide line tiny empty nan; do
  python3 "$here/make_points.py" "$kind" "$tmp/$kind.npy" || fail "make_points $kind"
done
python3 "$here/make_points.py" grid "$tmp/grid32.npy" float32 || fail "make_points grid float32"

compare blobs "$tmp/blobs.npy" 0.15 5
compare uniform32 "$tmp/uniform32.npy" 0.06 6
compare grid "$tmp/grid.npy" 0.25 5
compare grid32 "$tmp/grid32.npy" 0.25 3
compare shared "$tmp/shared.npy" 1.45 4
compare dups "$tmp/dups.npy" 0.1 10
compare noise "$tmp/noise.npy" 1 3
compare one "$tmp/one.npy" 0.2 5
compare wide "$tmp/wide.npy" 1.5 5
compare line "$tmp/line.npy" 0.01 3
compare tiny "$tmp/tiny.npy" 1 2
compare empty "$tmp/empty.npy" 1 2
compare min1 "$tmp/blobs.npy" 0.05 1 # every point core: many clusters of one point

# The host phases (exchange, merge, numbering, return) split each rank's points over its threads: the
# same bytes for any thread count, halo and shared clusters included (2 and 3 ranks, 3 threads each).
for ranks in 2 3; do
  for name in blobs uniform32 min1; do
    case $name in blobs) args=(--eps 0.15 --min-samples 5) ;; uniform32) args=(--eps 0.06 --min-samples 6) ;;
      min1) args=(--eps 0.05 --min-samples 1) ;; esac
    input=$tmp/$name.npy; [[ $name == min1 ]] && input=$tmp/blobs.npy
    mpi "$ranks" "$mpi_cli" dbscan "$input" "${args[@]}" --threads 3 -o "$tmp/threads.txt" \
      --core-mask "$tmp/threads.core.txt" -q || { fail "$name, $ranks ranks, 3 threads: the run failed"; continue; }
    cmp -s "$tmp/$name.ref.txt" "$tmp/threads.txt" || fail "$name, $ranks ranks, 3 threads: labels differ"
    cmp -s "$tmp/$name.refcore.txt" "$tmp/threads.core.txt" || fail "$name, $ranks ranks, 3 threads: core mask differs"
  done
done

# --spread-gpus picks each rank's GPU by its rank on the host (the CPU path here: same bytes).
mpi 3 "$mpi_cli" dbscan "$tmp/blobs.npy" --eps 0.15 --min-samples 5 --threads 1 -o "$tmp/spread.txt" -q --spread-gpus ||
  fail "--spread-gpus run failed"
cmp -s "$tmp/blobs.ref.txt" "$tmp/spread.txt" || fail "--spread-gpus: labels differ"

# Text to stdout goes through rank 0 (gathered), not the parallel file write.
mpi 3 "$mpi_cli" dbscan "$tmp/blobs.npy" --eps 0.15 --min-samples 5 --threads 1 -o - -q >"$tmp/stdout.txt" ||
  fail "-o - run failed"
cmp -s "$tmp/blobs.ref.txt" "$tmp/stdout.txt" || fail "-o -: labels on stdout differ"

# The summary agrees with the single process, and .npy labels are the same bytes too.
"$PARAC" dbscan "$tmp/shared.npy" --eps 1.45 --min-samples 4 -o "$tmp/ref.npy" 2>"$tmp/ref.log" || fail "parac npy"
mpi 3 "$mpi_cli" dbscan "$tmp/shared.npy" --eps 1.45 --min-samples 4 -o "$tmp/out.npy" 2>"$tmp/out.log" ||
  fail "parac-mpi npy: $(cat "$tmp/out.log")"
cmp -s "$tmp/ref.npy" "$tmp/out.npy" || fail ".npy labels differ"
grep -q "1199 points, 150 clusters, 1050 core, 149 border, 0 noise (3 ranks" "$tmp/out.log" ||
  fail "summary line: $(cat "$tmp/out.log")"

expect_failure() { # code what pattern ranks args...
  local expected=$1 what=$2 pattern=$3 ranks=$4; shift 4
  mpi "$ranks" "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  ((hung)) && { fail "$what: the job hung (killed after 120 s)"; return; }
  [[ $code == "$expected" ]] || fail "$what: exit $code, expected $expected ($(head -5 "$tmp/err"))"
  grep -q -- "$pattern" "$tmp/err" || fail "$what: message should match '$pattern': $(head -5 "$tmp/err")"
}
# Bad input every rank sees: one message from one rank, exit 2 (as parac dbscan).
expect_failure 2 "non-finite coordinate" "nan.npy: row 57, column 2: non-finite value" 3 \
  "$mpi_cli" dbscan "$tmp/nan.npy" --eps 1 --min-samples 2
[[ $(grep -c "error" "$tmp/err") == 1 ]] || fail "one error line expected, got: $(cat "$tmp/err")"
expect_failure 2 "missing file" "missing.npy: cannot open" 2 "$mpi_cli" dbscan "$tmp/missing.npy" --eps 1 --min-samples 2
printf 'not an npy file' >"$tmp/bad.npy"
expect_failure 2 "malformed file" "bad.npy: not a .npy file" 4 "$mpi_cli" dbscan "$tmp/bad.npy" --eps 1 --min-samples 2
expect_failure 2 "output folder missing" "cannot create a file in its folder" 3 \
  "$mpi_cli" dbscan "$tmp/one.npy" --eps 1 --min-samples 2 -o "$tmp/no/such/labels.txt"
expect_failure 2 "bad eps" "eps must be" 2 "$mpi_cli" dbscan "$tmp/one.npy" --eps 0 --min-samples 2
expect_failure 1 "unknown option" "unknown option" 2 "$mpi_cli" dbscan "$tmp/one.npy" --eps 1 --min-samples 2 --nope
expect_failure 2 "output is the input" "" 2 "$mpi_cli" dbscan "$tmp/one.npy" --eps 1 --min-samples 2 -o "$tmp/one.npy"
cmp -s "$tmp/one.npy" <(python3 "$here/make_points.py" one /dev/stdout) || fail "the input was overwritten"
# One rank cannot read its file (the others can): the job fails with that rank's message.
mpi 2 "$mpi_cli" dbscan "$tmp/one.npy" --eps 1 --min-samples 2 : -n 1 "$mpi_cli" dbscan "$tmp/missing.npy" --eps 1 --min-samples 2 >"$tmp/out" 2>"$tmp/err"
code=$?
[[ $code == 2 ]] || fail "one rank without its file: exit $code, expected 2 ($(head -3 "$tmp/err"))"
grep -q "missing.npy: cannot open" "$tmp/err" || fail "one rank without its file: $(head -3 "$tmp/err")"
# A rank that dies (SIGKILL, as a lost node) ends the whole job with a non-zero exit, never a hang.
PARAC_MPI_TEST_KILL_RANK=1 mpi 3 "$mpi_cli" dbscan "$tmp/blobs.npy" --eps 0.15 --min-samples 5 -o "$tmp/killed.txt" \
  >"$tmp/out" 2>"$tmp/err"
code=$?
((hung)) && fail "a killed rank left the job hanging"
[[ $code != 0 ]] || fail "a killed rank: the job exited 0"
grep -qi "signal 9\|killed" "$tmp/err" || fail "a killed rank: mpirun should say so: $(head -5 "$tmp/err")"
[[ ! -e "$tmp/killed.txt" ]] || fail "a killed job left an output file"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: parac-mpi dbscan equals parac dbscan on 1-4 ranks; failures end the job"
