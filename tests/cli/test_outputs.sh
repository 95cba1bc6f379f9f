#!/bin/bash
# tests/cli/test_outputs.sh — every output file of every subcommand is written whole or not at all:
#   - an output that is one of the inputs (same path, a hard link, a symlink) is refused, exit 2,
#     and the input is left untouched;
#   - a write that fails (a full disk: /dev/full; stdout on a full disk or closed) exits 2, never 0;
#   - a failed run leaves the old target as it was and no temporary file behind;
#   - a successful run replaces the target (keeping its permissions; through a symlink, the file
#     it points at).
set -u
PARAC=${PARAC:-./parac}
TMP=$(mktemp -d /tmp/parac-outputs-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE ARGS...: the exit code, and one "parac: error:" line on stderr when it is not 0.
expect() {
    local want=$1; shift
    "$PARAC" "$@" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
    local code=$?
    [ "$code" -eq "$want" ] || { fail "parac $* exited $code, expected $want: $(head -c 300 "$TMP/stderr")"; return; }
    if [ "$want" -ne 0 ] && ! grep -q '^parac: error: ' "$TMP/stderr"; then fail "parac $*: no error line"; fi
}
no_temporary_files() { # DIR WHAT
    local left; left=$(find "$1" -name '.parac-*' | head -3)
    [ -z "$left" ] || fail "$2: temporary files left behind: $left"
}

D=$TMP/work
mkdir -p "$D"
"$PARAC" gen points --n 80 --dim 2 --seed 1 -o "$D/p.csv" --truth "$D/t.csv" || fail "gen points"
"$PARAC" gen context --objects 30 --attributes 10 --density 0.4 --seed 1 -o "$D/c.dat" || fail "gen context"
"$PARAC" gen matrix --rows 8 --cols 8 --seed 1 -o "$D/a.npy" || fail "gen matrix"
"$PARAC" gen matrix --rows 8 --cols 8 --seed 2 -o "$D/b.npy" || fail "gen matrix"
"$PARAC" gen csp --vars 6 --dom 3 --constraints 8 --seed 1 -o "$D/n.xml" || fail "gen csp"
ln "$D/c.dat" "$D/c_hard.dat"
ln -s c.dat "$D/c_link.dat"
ln -s p.csv "$D/p_link.csv"
sums() { (cd "$D" && cksum p.csv t.csv c.dat a.npy b.npy n.xml); }
before=$(sums)

# --- an output that is an input is refused: every output option of every subcommand ---
expect 2 fca "$D/c.dat" -o "$D/c.dat"
expect 2 fca "$D/c.dat" -o "$D/c_hard.dat"         # a hard link to the input
expect 2 fca "$D/c.dat" -o "$D/c_link.dat"         # a symlink to the input
expect 2 fca "$D/c_link.dat" -o "$D/c.dat"         # the input through a symlink
expect 2 fca "$D/c.dat" -o "$D/../work/c.dat"      # another spelling
expect 2 lattice "$D/c.dat" -o "$D/c.dat"
expect 2 lattice "$D/c.dat" -o "$D/l.dot" --svg "$D/c_hard.dat"
expect 2 dbscan "$D/p.csv" --eps 0.5 --min-samples 3 -o "$D/p.csv"
expect 2 dbscan "$D/p.csv" --eps 0.5 --min-samples 3 --core-mask "$D/p_link.csv"
expect 2 birch "$D/p.csv" -o "$D/p.csv"
expect 2 birch "$D/p.csv" --centers "$D/p.csv"
expect 2 birch "$D/p.csv" --subclusters "$D/p_link.csv"
expect 2 gemm "$D/a.npy" "$D/b.npy" -o "$D/a.npy"
expect 2 gemm "$D/a.npy" "$D/b.npy" -o "$D/b.npy"
expect 2 ac "$D/n.xml" --domains "$D/n.xml"
expect 2 dbscan "$D/p.csv" --eps 0.5 --min-samples 3 -o "$D/same.csv" --core-mask "$D/same.csv"   # one file, two outputs
expect 2 birch "$D/p.csv" --centers "$D/same.csv" --subclusters "$D/same.csv"
expect 2 gen points -o "$D/same.csv" --truth "$D/same.csv"
[ "$(sums)" == "$before" ] || fail "an input changed: $(diff <(echo "$before") <(sums))"
no_temporary_files "$D" "refused outputs"

# --- a full disk is an error (exit 2), whichever writer hits it ---
if [ -w /dev/full ]; then
    expect 2 fca "$D/c.dat" -o /dev/full
    expect 2 fca "$D/c.dat" --count -o /dev/full
    expect 2 lattice "$D/c.dat" -o /dev/full
    expect 2 dbscan "$D/p.csv" --eps 0.5 --min-samples 3 -q -o /dev/full
    expect 2 dbscan "$D/p.csv" --eps 0.5 --min-samples 3 -q --core-mask /dev/full
    expect 2 birch "$D/p.csv" -o /dev/full
    expect 2 birch "$D/p.csv" --centers /dev/full
    expect 2 birch "$D/p.csv" --subclusters /dev/full
    expect 2 ac "$D/n.xml" --domains /dev/full
    expect 2 gen context --objects 30 --attributes 10 --density 0.4 -o /dev/full
    expect 2 gen points --n 80 -o /dev/full
    expect 2 gen points --n 80 -o "$D/g.csv" --truth /dev/full
    expect 2 gen csp --vars 6 --dom 3 --constraints 8 -o /dev/full
    # stdout on a full disk: the results, the summaries, the help
    for run in "fca $D/c.dat" "lattice $D/c.dat" "birch $D/p.csv" "metrics --labels $D/t.csv --truth $D/t.csv" \
               "gemm --m 8 --n 8 --k 8 --device cpu" "ac $D/n.xml" "gen csp --vars 6 --dom 3 --constraints 8" \
               "devices" "fca --help" "--help" "--version" "gen points -o $D/g.csv --json"; do
        # shellcheck disable=SC2086
        "$PARAC" $run >/dev/full 2>"$TMP/stderr"
        code=$?
        [ "$code" -eq 2 ] || fail "parac $run >/dev/full exited $code, expected 2"
        grep -q '^parac: error: .*write failed' "$TMP/stderr" || fail "parac $run >/dev/full: $(cat "$TMP/stderr")"
        [ "$(wc -l <"$TMP/stderr")" -eq 1 ] || fail "parac $run >/dev/full: not one error line: $(cat "$TMP/stderr")"
    done
    no_temporary_files "$D" "full disk"
fi

# --- a closed stdout: an error, and the summary must not land in an output file ---
"$PARAC" fca "$D/c.dat" >&- 2>"$TMP/stderr"
code=$?
[ "$code" -eq 2 ] || fail "fca with stdout closed exited $code"
[ "$(wc -l <"$TMP/stderr")" -eq 1 ] || fail "fca with stdout closed: not one error line: $(cat "$TMP/stderr")"
"$PARAC" gen points --n 80 --seed 1 -o "$D/g.csv" --json >&- 2>"$TMP/stderr"
code=$?
[ "$code" -eq 2 ] || fail "gen points --json with stdout closed exited $code"
if grep -q command "$D/g.csv"; then fail "the --json summary went into the output file"; fi
"$PARAC" gen points --n 80 --seed 1 -o "$D/g2.csv" || fail "gen points"
cmp -s "$D/g.csv" "$D/g2.csv" || fail "with stdout closed the output file differs"

# --- a failed run keeps the old target and leaves nothing behind ---
echo "old labels" >"$D/keep.csv"
echo "old truth" >"$D/keep_truth.csv"
expect 2 gen points --n 80 -o "$D/keep.csv" --truth "$D/no/such/dir/t.csv"   # the second output fails
[ "$(cat "$D/keep.csv")" == "old labels" ] || fail "a failed run replaced -o"
expect 2 dbscan "$D/p.csv" --eps 0.5 --min-samples 3 -q -o "$D/keep.csv" --core-mask /dev/full
[ "$(cat "$D/keep.csv")" == "old labels" ] || fail "dbscan: a failed --core-mask still replaced -o"
expect 2 birch "$D/p.csv" -o "$D/keep.csv" --centers /dev/full
[ "$(cat "$D/keep.csv")" == "old labels" ] || fail "birch: a failed --centers still replaced -o"
expect 2 gemm "$D/a.npy" "$D/missing.npy" -o "$D/keep.csv"
[ "$(cat "$D/keep.csv")" == "old labels" ] || fail "gemm: a failed run replaced -o"
no_temporary_files "$D" "failed runs"

# --- a successful run replaces the target, keeps its mode, writes through a symlink ---
chmod 640 "$D/keep.csv"
expect 0 fca "$D/c.dat" -o "$D/keep.csv"
"$PARAC" fca "$D/c.dat" >"$D/expected.txt"
cmp -s "$D/keep.csv" "$D/expected.txt" || fail "fca -o differs from stdout"
[ "$(stat -c %a "$D/keep.csv")" == 640 ] || fail "the replaced file lost its mode: $(stat -c %a "$D/keep.csv")"
ln -s keep.csv "$D/keep_link.csv"
expect 0 fca "$D/c.dat" --count -o "$D/keep_link.csv"
[ -L "$D/keep_link.csv" ] || fail "writing through a symlink replaced the link"
[ "$(cat "$D/keep.csv")" == "$(wc -l <"$D/expected.txt")" ] || fail "the symlink's target did not get the output"
expect 0 dbscan "$D/p.csv" --eps 0.5 --min-samples 3 -q -o "$D/l.npy" --core-mask "$D/m.csv"
expect 0 metrics --labels "$D/l.npy" --truth "$D/m.csv"   # .npy stayed .npy through the temporary name
expect 0 birch "$D/p.csv" -o "$D/bl.csv" --centers "$D/bc.npy" --subclusters "$D/bs.csv"
expect 0 gemm "$D/a.npy" "$D/b.npy" -o "$D/c.mtx" --device cpu
head -1 "$D/c.mtx" | grep -q MatrixMarket || fail "gemm -o .mtx is not Matrix Market"
expect 0 ac "$D/n.xml" --domains "$D/d.json"
expect 0 lattice "$D/c.dat" -o "$D/l.dot"
no_temporary_files "$D" "successful runs"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "cli outputs: all passed"
