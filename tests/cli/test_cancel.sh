#!/bin/bash
# tests/cli/test_cancel.sh — Ctrl-C (SIGINT) and SIGTERM stop a long run cleanly: exit 130 within a
# few seconds, "parac: error: interrupted", no output file and no temporary file left behind. And
# the progress bar: drawn on a terminal (checked through `script`), never with --quiet, never when
# stderr is not a terminal.
set -u
PARAC=${PARAC:-./parac}
TMP=$(mktemp -d /tmp/parac-cancel-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
now() { date +%s.%N; }

# A context whose concepts take minutes to enumerate on any machine (seconds to generate).
"$PARAC" gen context --objects 6000 --attributes 200 --density 0.2 --seed 7 -o "$TMP/long.dat" || fail "gen context"

# interrupt SIGNAL WHAT OUTPUT ARGS...: starts parac ARGS, sends SIGNAL after 1 s, expects exit 130 within
# 5 s of it, the one-line message, and neither OUTPUT nor a temporary file in its folder.
interrupt() {
    local signal=$1 what=$2 output=$3; shift 3
    "$PARAC" "$@" >"$TMP/stdout" 2>"$TMP/stderr" &
    local pid=$! code sent elapsed
    sleep 1
    sent=$(now)
    kill "-$signal" "$pid"
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    elapsed=$(echo "$(now) - $sent" | bc)
    kill -KILL "$pid" 2>/dev/null # still running after 15 s: fails below, and the test does not hang
    wait "$pid"
    code=$?
    [ "$code" -eq 130 ] || fail "$what: exit $code after SIG$signal, expected 130: $(head -c 300 "$TMP/stderr")"
    (( $(echo "$elapsed < 5" | bc) )) || fail "$what: took $elapsed s to stop after SIG$signal"
    [ "$(tail -1 "$TMP/stderr" | tr -d '\r')" == "parac: error: interrupted" ] ||
        fail "$what: last stderr line: $(tail -1 "$TMP/stderr")"
    [ ! -e "$output" ] || fail "$what: $output left behind"
    local left; left=$(find "$(dirname "$output")" -name '.parac-*' | head -3)
    [ -z "$left" ] || fail "$what: temporary files left behind: $left"
}

if ! command -v bc >/dev/null; then echo "bc is missing: skipped"; exit 77; fi
mkdir -p "$TMP/out"
interrupt INT "fca, one thread" "$TMP/out/concepts.txt" fca "$TMP/long.dat" --threads 1 -o "$TMP/out/concepts.txt"
interrupt INT "fca, two threads" "$TMP/out/concepts.txt" fca "$TMP/long.dat" --threads 2 -o "$TMP/out/concepts.txt"
interrupt INT "fca --count" "$TMP/out/count.txt" fca "$TMP/long.dat" --count -o "$TMP/out/count.txt"
interrupt TERM "fca, SIGTERM" "$TMP/out/concepts.txt" fca "$TMP/long.dat" -o "$TMP/out/concepts.txt"
interrupt INT "lattice" "$TMP/out/l.dot" lattice "$TMP/long.dat" -o "$TMP/out/l.dot"
# Wide and dense: nodes of 50,000 candidates each (the root's test took minutes without looking at the
# gate; the dense search copied 3 GB of failed sets): the default search and the sparse one.
"$PARAC" gen context --objects 30 --attributes 50000 --density 0.5 --seed 5 -o "$TMP/wide.dat" || fail "gen context"
interrupt TERM "fca, wide dense context" "$TMP/out/count.txt" fca "$TMP/wide.dat" --count -o "$TMP/out/count.txt"
interrupt INT "fca, wide dense context, sparse search" "$TMP/out/count.txt" fca "$TMP/wide.dat" --cpu-strategy sparse \
    --count -o "$TMP/out/count.txt"
# The association rules' lattice on 10 objects x 100,000 attributes (1,024 concepts, each tested against
# 100,000 attributes): it looked at no gate and ended 44 s after SIGTERM.
"$PARAC" gen context --objects 10 --attributes 100000 --density 0.5 --seed 6 -o "$TMP/wide10.dat" || fail "gen context"
interrupt TERM "fca --rules, wide context" "$TMP/out/rules.txt" fca "$TMP/wide10.dat" --rules --min-support 2 \
    -o "$TMP/out/rules.txt"

# an existing target keeps its contents when the run is interrupted
echo "previous results" >"$TMP/out/kept.txt"
"$PARAC" fca "$TMP/long.dat" -o "$TMP/out/kept.txt" 2>/dev/null &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
code=$?
[ "$code" -eq 130 ] || fail "fca onto an existing file: exit $code"
[ "$(cat "$TMP/out/kept.txt")" == "previous results" ] || fail "an interrupted run changed the existing target"

# A second Ctrl-C kills at once: parac blocked reading a FIFO that never ends sees no checkpoint, so
# the first SIGINT only asks; the second one ends it.
mkfifo "$TMP/endless"
"$PARAC" fca "$TMP/endless" -o "$TMP/out/fifo.txt" 2>/dev/null &
pid=$!
exec 3>"$TMP/endless" # a writer that never writes: parac blocks in read
echo "1 2" >&3
sleep 0.5
kill -INT "$pid"
sleep 0.5
kill -0 "$pid" 2>/dev/null || fail "the first SIGINT killed a run that had not reached a checkpoint"
kill -INT "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "a second SIGINT did not kill at once"
kill -KILL "$pid" 2>/dev/null
wait "$pid"
code=$?
exec 3>&-
[ "$code" -eq 130 ] || fail "second SIGINT: exit $code, expected 130 (killed by SIGINT)"
[ ! -e "$TMP/out/fifo.txt" ] || fail "second SIGINT: output left behind"

# --- the progress bar ---
"$PARAC" gen context --objects 2000 --attributes 90 --density 0.15 --seed 3 -o "$TMP/mid.dat" || fail "gen context"
"$PARAC" fca "$TMP/mid.dat" --count --threads 1 >"$TMP/stdout" 2>"$TMP/stderr" || fail "fca"
[ ! -s "$TMP/stderr" ] || fail "a bar or message on stderr that is not a terminal: $(head -c 200 "$TMP/stderr")"
if command -v script >/dev/null; then
    # long enough to draw the bar (it appears after 0.1 s)
    script -qec "$PARAC fca $TMP/mid.dat --count --threads 1" /dev/null >"$TMP/tty" 2>&1 || fail "fca on a pty"
    grep -q 'fca \[' "$TMP/tty" || fail "no progress bar on a terminal: $(head -c 200 "$TMP/tty" | od -c | head -3)"
    grep -q '%' "$TMP/tty" || fail "the bar shows no percentage"
    script -qec "$PARAC fca $TMP/mid.dat --count --threads 1 --quiet" /dev/null >"$TMP/tty" 2>&1 || fail "fca -q on a pty"
    if grep -q 'fca \[' "$TMP/tty"; then fail "a progress bar with --quiet"; fi
    # stdout to a file, stderr on the terminal: the result file holds the count alone
    script -qec "$PARAC fca $TMP/mid.dat --count --threads 1 >$TMP/count.txt" /dev/null >"$TMP/tty" 2>&1
    [[ $(cat "$TMP/count.txt") =~ ^[0-9]+$ ]] || fail "the bar leaked into stdout: $(head -c 100 "$TMP/count.txt")"
fi

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "cli cancel: all passed"
