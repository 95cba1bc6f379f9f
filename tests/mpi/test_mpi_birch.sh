#!/usr/bin/env bash
# tests/mpi/test_mpi_birch.sh — `mpirun -n R parac-mpi birch` against `parac birch`: one rank writes the
# same bytes (labels, cluster centres, subclusters); 2-4 ranks, whose per-rank trees are merged by CF
# additivity, find the same number of clusters and a partition with ARI >= 0.99 against the single
# process on separated blobs (2-D float64, 3-D float32). On the committed chameleon set no insertion
# order other than the file's holds 0.99 (one process on a row permutation scores 0.53-0.57,
# docs/DISTRIBUTED.md), so there the ranks must do as well against its reference labels as one process
# does. Bad input gives `parac birch`'s message, once, and its exit code; a dying rank ends the job
# without an output file. Skipped (77) when parac-mpi was not built (no MPI found).
set -u
MPI_TEST_NEEDS="python3"
# shellcheck source=tests/mpi/mpi_test_lib.sh
source "$(dirname "$0")/mpi_test_lib.sh"
data=${PARAC_DATA:-$here/../data}

clusters_of() { sed -n 's/^[0-9]* points, [0-9]* subclusters, \([0-9]*\) clusters.*/\1/p' "$1"; }
ari() { "$PARAC" metrics --labels "$1" --truth "$2" | sed -n 's/^ari //p'; }
at_least() { python3 -c "import sys; sys.exit(0 if float('$1') >= float('$2') else 1)"; }

# name input truth|- T K [extra args]: one rank byte for byte, then 2-4 ranks ($rank_counts): same K and ARI >=
# 0.99 against the single process (truth -), or at least the single process's ARI against the reference labels.
compare() {
  local name=$1 input=$2 truth=$3 threshold=$4 k=$5; shift 5
  "$PARAC" birch "$input" --threshold "$threshold" --n-clusters "$k" --threads 1 -o "$tmp/$name.ref.txt" \
    --centers "$tmp/$name.refc.csv" --subclusters "$tmp/$name.refs.csv" "$@" >"$tmp/$name.ref.log" ||
    { fail "$name: parac birch failed"; return; }
  local want_k serial_ari=""
  want_k=$(clusters_of "$tmp/$name.ref.log")
  [[ $truth != - ]] && serial_ari=$(ari "$tmp/$name.ref.txt" "$truth")
  for ranks in ${rank_counts:-1 2 3 4}; do
    rm -f "$tmp/$name.out.txt" "$tmp/$name.c.csv" "$tmp/$name.s.csv"
    mpi "$ranks" "$mpi_cli" birch "$input" --threshold "$threshold" --n-clusters "$k" --threads 1 -o "$tmp/$name.out.txt" \
      --centers "$tmp/$name.c.csv" --subclusters "$tmp/$name.s.csv" "$@" >"$tmp/log" 2>&1
    local code=$?
    if [[ $code != 0 ]]; then fail "$name, $ranks ranks: exit $code: $(tail -5 "$tmp/log")"; continue; fi
    if [[ $ranks == 1 ]]; then
      cmp -s "$tmp/$name.ref.txt" "$tmp/$name.out.txt" || fail "$name, 1 rank: labels differ from parac birch"
      cmp -s "$tmp/$name.refc.csv" "$tmp/$name.c.csv" || fail "$name, 1 rank: centres differ from parac birch"
      cmp -s "$tmp/$name.refs.csv" "$tmp/$name.s.csv" || fail "$name, 1 rank: subclusters differ from parac birch"
      continue
    fi
    # the merged tree's counts: every rank's points arrived, none twice
    grep -q "^$(sed -n 's/ points,.*//p' "$tmp/$name.ref.log") points, " "$tmp/log" || fail "$name, $ranks ranks: points: $(head -1 "$tmp/log")"
    [[ $(clusters_of "$tmp/log") == "$want_k" ]] || fail "$name, $ranks ranks: clusters $(clusters_of "$tmp/log"), parac birch $want_k"
    [[ $(wc -l <"$tmp/$name.c.csv") == $(wc -l <"$tmp/$name.refc.csv") ]] || fail "$name, $ranks ranks: centre rows differ"
    local score
    if [[ $truth == - ]]; then
      score=$(ari "$tmp/$name.out.txt" "$tmp/$name.ref.txt")
      at_least "$score" 0.99 || fail "$name, $ranks ranks: ARI $score against parac birch, below 0.99"
    else
      score=$(ari "$tmp/$name.out.txt" "$truth")
      at_least "$score" "$serial_ari" || fail "$name, $ranks ranks: ARI $score against the reference, parac birch $serial_ari"
    fi
    echo "$name, $ranks ranks: ARI $score ($(sed -n 's/ clusters.*//p' "$tmp/log"))"
  done
}

"$PARAC" gen points --n 30000 --dim 2 --kind blobs --centers 6 --std 0.6 --seed 5 -o "$tmp/blobs.npy" -q
"$PARAC" gen points --n 40000 --dim 3 --kind blobs --centers 8 --std 0.4 --seed 7 --float32 -o "$tmp/blobs32.npy" -q
python3 "$here/make_points.py" text "$tmp/chameleon.npy" "$data/cluster/chameleon_t7_10k.data.gz" || fail "chameleon to .npy"
gzip -dc "$data/cluster/chameleon_t7_10k.labels0.gz" >"$tmp/chameleon.truth.txt" || fail "chameleon labels"
for kind in tiny empty nan; do python3 "$here/make_points.py" "$kind" "$tmp/$kind.npy" || fail "make_points $kind"; done

compare blobs "$tmp/blobs.npy" - 0.3 6
compare blobs32 "$tmp/blobs32.npy" - 0.5 8
compare chameleon "$tmp/chameleon.npy" "$tmp/chameleon.truth.txt" 8 9
rank_counts="1 3" compare serial "$tmp/blobs.npy" - 0.3 6 --batch-size 0 --branching-factor 7 # sklearn's order, many splits

# Fewer points than ranks (rank 3 has none), and K above the subclusters (each is a cluster, warned once).
"$PARAC" birch "$tmp/tiny.npy" --threshold 1 --n-clusters 5 -o "$tmp/tiny.ref.txt" >/dev/null 2>&1 || fail "parac birch tiny"
mpi 4 "$mpi_cli" birch "$tmp/tiny.npy" --threshold 1 --n-clusters 5 -o "$tmp/tiny.txt" >"$tmp/out" 2>"$tmp/err" ||
  fail "tiny on 4 ranks: $(head -3 "$tmp/err")"
cmp -s "$tmp/tiny.ref.txt" "$tmp/tiny.txt" || fail "tiny on 4 ranks: labels differ (three points far apart or close: one answer)"
[[ $(grep -c "warning: birch: 2 subclusters, fewer than --n-clusters 5" "$tmp/err") == 1 ]] ||
  fail "tiny: one too-few-subclusters warning expected: $(cat "$tmp/err")"

# .npy labels and labels on stdout are gathered on rank 0; the summary and --json come from rank 0.
mpi 3 "$mpi_cli" birch "$tmp/blobs.npy" --threshold 0.3 --n-clusters 6 -o "$tmp/out.npy" --json >"$tmp/out" 2>"$tmp/err" ||
  fail ".npy output: $(head -3 "$tmp/err")"
"$PARAC" metrics --labels "$tmp/out.npy" --truth "$tmp/blobs.ref.txt" | grep -q "^ari 1$" || fail ".npy output: not the 3-rank partition"
grep -q '"command":"birch".*"points":30000.*"clusters":6.*"ranks":3' "$tmp/out" || fail "--json: $(cat "$tmp/out")"
mpi 1 "$mpi_cli" birch "$tmp/blobs.npy" --threshold 0.3 --n-clusters 6 --threads 1 -o - >"$tmp/stdout.txt" 2>"$tmp/err" ||
  fail "-o -: $(head -3 "$tmp/err")"
head -n 30000 "$tmp/stdout.txt" | cmp -s - "$tmp/blobs.ref.txt" || fail "-o -: labels on stdout differ"

# Bad input: `parac birch`'s error line, exactly and once, and its exit code; no hang.
expect_same_error() { # what ranks args... (the same args go to parac birch)
  local what=$1 ranks=$2; shift 2
  "$PARAC" birch "$@" >/dev/null 2>"$tmp/ref.err"
  local expected=$?
  mpi "$ranks" "$mpi_cli" birch "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  ((hung)) && { fail "$what: the job hung (killed after 120 s)"; return; }
  [[ $expected != 0 ]] || fail "$what: parac birch accepted it"
  [[ $code == "$expected" ]] || fail "$what: exit $code, parac birch $expected ($(head -3 "$tmp/err"))"
  local line
  line=$(grep "parac: error" "$tmp/ref.err")
  [[ $(grep -c -F -x -- "$line" "$tmp/err") == 1 ]] || fail "$what: expected '$line' once, got: $(head -5 "$tmp/err")"
  [[ $(grep -c "error" "$tmp/err") == 1 ]] || fail "$what: one error line expected, got: $(cat "$tmp/err")"
}
expect_same_error "missing file" 3 "$tmp/missing.npy"
expect_same_error "non-finite coordinate" 3 "$tmp/nan.npy"
expect_same_error "empty array" 2 "$tmp/empty.npy"
: >"$tmp/zero.npy"
expect_same_error "empty file" 4 "$tmp/zero.npy"
expect_same_error "bad threshold" 2 "$tmp/blobs.npy" --threshold 0
expect_same_error "bad branching factor" 2 "$tmp/blobs.npy" --branching-factor 1
expect_same_error "unknown variant" 2 "$tmp/blobs.npy" --variant nope
expect_same_error "removed variant" 2 "$tmp/blobs.npy" --variant hybrid
expect_same_error "output is the input" 2 "$tmp/tiny.npy" -o "$tmp/tiny.npy"
expect_same_error "output folder missing" 3 "$tmp/tiny.npy" --centers "$tmp/no/such/centres.csv"

# A rank that dies (SIGKILL, as a lost node) ends the whole job with a non-zero exit, never a hang,
# and leaves no output file.
PARAC_MPI_TEST_KILL_RANK=1 mpi 3 "$mpi_cli" birch "$tmp/blobs.npy" --threshold 0.3 --n-clusters 6 -o "$tmp/killed.txt" \
  --centers "$tmp/killed.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
((hung)) && fail "a killed rank left the job hanging"
[[ $code != 0 ]] || fail "a killed rank: the job exited 0"
grep -qi "signal 9\|killed" "$tmp/err" || fail "a killed rank: mpirun should say so: $(head -5 "$tmp/err")"
[[ ! -e "$tmp/killed.txt" && ! -e "$tmp/killed.csv" ]] || fail "a killed job left an output file"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: parac-mpi birch: 1 rank equals parac birch, 2-4 ranks agree (ARI >= 0.99 on blobs); failures end the job"
