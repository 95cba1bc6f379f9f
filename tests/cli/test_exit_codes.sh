#!/bin/bash
# tests/cli/test_exit_codes.sh — the one exit-code rule, on every subcommand:
#   0 ok, 1 usage (unknown option or command, missing option/value/argument, a value not of the
#   option's form: not a number, not one of the listed names; options that exclude each other),
#   2 bad input (a well-formed value out of range, bad file contents, an unreadable or unwritable
#   file, an output that is an input), 3 out of memory / device failure, 4 internal, 130 interrupted.
# Every failure prints exactly one stderr line, starting "parac: error:".
set -u
PARAC=${PARAC:-./parac}
TMP=$(mktemp -d /tmp/parac-exit-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE ARGS...: exit code CODE and, when non-zero, one "parac: error:" line on stderr.
expect() {
    local want=$1; shift
    "$PARAC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    local code=$? lines
    lines=$(wc -l <"$TMP/err")
    if [ "$code" -ne "$want" ]; then
        fail "parac $* exited $code, expected $want; stderr: $(head -c 300 "$TMP/err")"
    elif [ "$want" -ne 0 ] && { [ "$lines" -ne 1 ] || ! head -1 "$TMP/err" | grep -q '^parac: error: '; }; then
        fail "parac $*: stderr is not one 'parac: error:' line: $(cat "$TMP/err")"
    fi
}

# small valid inputs for every command
"$PARAC" gen points --n 60 --dim 2 --seed 1 -o "$TMP/p.csv" --truth "$TMP/t.csv" || fail "gen points"
"$PARAC" gen context --objects 20 --attributes 8 --density 0.4 --seed 1 -o "$TMP/c.dat" || fail "gen context"
"$PARAC" gen matrix --rows 8 --cols 8 --seed 1 -o "$TMP/a.npy" || fail "gen matrix"
"$PARAC" gen csp --vars 6 --dom 3 --constraints 8 --seed 1 -o "$TMP/n.xml" || fail "gen csp"
printf '1,2\n3,4,5\n' >"$TMP/bad.csv"                          # ragged rows
P=$TMP/p.csv C=$TMP/c.dat A=$TMP/a.npy N=$TMP/n.xml

# --- the rule's reference points: all of them pass ---
expect 0 fca "$C" --count --device cpu
expect 0 dbscan "$P" --eps 0.5 --min-samples 3 --device cpu -q
expect 0 metrics --labels "$TMP/t.csv" --truth "$TMP/t.csv"

# --- 1: usage ---
expect 1                                                  # no command
expect 1 frobnicate                                       # unknown command
expect 1 gen                                              # missing kind
expect 1 gen shapes                                       # unknown kind
for command in fca lattice dbscan birch metrics gemm ac devices "gen context" "gen points" "gen matrix" "gen csp"; do
    # shellcheck disable=SC2086
    expect 1 $command --no-such-option
    # shellcheck disable=SC2086
    expect 1 $command --threads                           # missing value
    # shellcheck disable=SC2086
    expect 1 $command --threads 2x                        # malformed number
    # shellcheck disable=SC2086
    expect 1 $command --device tpu                        # not one of the names
done
expect 1 fca                                              # missing input
expect 1 fca "$C" "$C"                                    # one input too many
expect 1 fca "$C" --format xls
expect 1 fca "$C" --max-device-memory 12Q
expect 1 fca "$C" --count=yes                             # a flag takes no value
expect 1 lattice "$C" --format svg
expect 1 lattice "$C" --svg "$TMP/l.svg"                  # --svg needs -o
expect 1 dbscan "$P" --eps x --min-samples 3
expect 1 dbscan "$P" --eps nan --min-samples 3
expect 1 dbscan "$P" --eps 0.5 --min-samples 3 --method fastest
expect 1 dbscan "$P" --eps 0.5 --min-samples 3 --max-device-memory lots
expect 1 birch "$P" --variant magic
expect 1 birch "$P" --threshold 0.5.1
expect 1 metrics --truth "$TMP/t.csv"                     # --labels missing
expect 1 metrics --labels "$TMP/t.csv"                    # nothing to score against
expect 1 gemm "$A"                                        # one matrix
expect 1 gemm --m 4 --n 4                                 # --k missing
expect 1 gemm --m 4 --n 4 --k 4 --dtype fp16
expect 1 gemm --m 4 --n 4 --k 4 --schedule eager
expect 1 gemm --m 4 --n 4 --k 4 --variant tma
expect 1 gemm --m 4 --n 4 --k 4 --band 1 --block-density 0.5
expect 1 ac "$N" --algorithm ac5
expect 1 ac "$N" --variant diagonal
expect 1 gen context --objects 3 --attributes 3 --density 0.5                 # -o missing
expect 1 gen context --objects 3 --density 0.5 -o "$TMP/x.dat"                # --attributes missing
expect 1 gen points --kind spirals -o "$TMP/x.csv"
expect 1 gen points --float32 -o "$TMP/x.csv"                                 # float32 needs .npy
expect 1 gen matrix --rows 3 --cols 3                                         # -o missing
expect 1 gen matrix --rows 3 --cols 3 --band 1 --block-density 0.5 -o "$TMP/x.npy"
expect 1 gen csp --model C
expect 1 devices extra

# --- 2: bad input ---
valid_runs=(
    "fca $C" "lattice $C" "dbscan $P --eps 0.5 --min-samples 3" "birch $P" "metrics --labels $TMP/t.csv --truth $TMP/t.csv"
    "gemm --m 4 --n 4 --k 4" "ac $N" "devices" "gen context --objects 3 --attributes 3 --density 0.5 -o $TMP/x.dat"
    "gen points -o $TMP/x.csv" "gen matrix --rows 3 --cols 3 -o $TMP/x.npy" "gen csp")
for run in "${valid_runs[@]}"; do
    # shellcheck disable=SC2086
    expect 2 $run --threads -2                            # well-formed, out of range
    # shellcheck disable=SC2086
    expect 2 $run --cuda-device 5000
done
expect 2 fca "$TMP/missing.dat"
expect 2 fca "$P"                                         # not a context
expect 2 fca "$C" --min-support -1
expect 2 fca "$C" --max-device-memory 0
expect 2 fca "$C" --max-device-memory -5M
expect 2 fca "$C" --min-support 99999999999999999999      # too large for its type
expect 2 fca "$C" -o "$C"                                 # the output is the input
expect 2 fca "$C" -o "$TMP/no/such/dir/out.txt"           # cannot create
expect 2 lattice "$TMP/missing.dat"
expect 2 lattice "$C" --min-support -3
expect 2 dbscan "$TMP/bad.csv" --eps 0.5 --min-samples 3
expect 2 dbscan "$P" --eps -1 --min-samples 3
expect 2 dbscan "$P" --eps 1e999 --min-samples 3
expect 2 dbscan "$P" --eps 0.5 --min-samples 0
expect 2 dbscan "$P" --eps 0.5 --min-samples 3 --max-device-memory 0
expect 2 birch "$TMP/bad.csv"
expect 2 birch "$P" --threshold -1
expect 2 birch "$P" --branching-factor 1
expect 2 birch "$P" --n-clusters -2
expect 2 birch "$P" --chunk -5
expect 2 metrics --labels "$TMP/missing.csv" --truth "$TMP/t.csv"
expect 2 metrics --labels "$TMP/t.csv" --truth "$TMP/t.csv" --sample -1
expect 2 gemm "$A" "$TMP/missing.npy"
expect 2 gemm --m 0 --n 4 --k 4
expect 2 gemm --m 4 --n 4 --k 4 --repeats 0
expect 2 gemm --m 4 --n 4 --k 4 --tile-m 96
expect 2 gemm --m 4 --n 4 --k 4 --split-k -1
expect 2 gemm --m 4 --n 4 --k 4 --band -5
expect 2 gemm --m 4 --n 4 --k 4 --block-density -0.5
expect 2 gemm --m 4 --n 4 --k 4 --block-density 1.5
expect 2 gemm --m 3000000000 --n 2 --k 3000000000       # sizes whose product overflows: not "out of memory"
expect 2 gemm --m 4000000000000 --n 4000000000000 --k 4000000000000
expect 2 ac "$TMP/missing.xml"
expect 2 ac "$P"                                          # not XCSP
expect 2 gen context --objects -1 --attributes 3 --density 0.5 -o "$TMP/x.dat"
expect 2 gen context --objects 3 --attributes 3 --density 1.5 -o "$TMP/x.dat"
expect 2 gen points --n -1 -o "$TMP/x.csv"
expect 2 gen points --dim 0 -o "$TMP/x.csv"
expect 2 gen points --n 9223372036854775807 --dim 4096 -o "$TMP/x.npy"
expect 2 gen points --std -1 -o "$TMP/x.csv"
expect 2 gen matrix --rows 0 --cols 3 -o "$TMP/x.npy"
expect 2 gen matrix --rows 3 --cols 3 --band -2 -o "$TMP/x.npy"
expect 2 gen matrix --rows 3 --cols 3 --block-density -1 -o "$TMP/x.npy"
expect 2 gen matrix --rows 100000000000 --cols 100000000000 -o "$TMP/x.npy"
expect 2 gen csp --vars 1
expect 2 gen csp --tightness 3
expect 2 gen points --n 10 -o "$TMP/no/such/dir/x.csv"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "cli exit codes: all passed"
