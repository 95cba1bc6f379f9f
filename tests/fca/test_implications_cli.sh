#!/usr/bin/env bash
# tests/fca/test_implications_cli.sh — `parac fca --implications` and `parac fca --rules`:
# exact output on a context worked out by hand, names, supports, --json counts, -o,
# identical output on every thread count, every printed implication holding in the
# context, and the exit codes of bad options and bad input.
set -u
PARAC=${PARAC:-./parac}
DATA=${PARAC_DATA:-$(dirname "$0")/../data}
dir=$(mktemp -d /tmp/parac-fca-implications.XXXXXX)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_code() { # CODE ARGS...: the command's exit code
  local want=$1; shift
  "$PARAC" "$@" > /dev/null 2> "$dir/err"; local code=$?
  [[ $code == "$want" ]] || fail "parac $*: exit $code, expected $want ($(cat "$dir/err"))"
}

# objects {0,1}, {1,2}, {0,1,2}, {3}: attribute 1 is in every object but the last
printf '0 1\n1 2\n0 1 2\n3\n' > "$dir/small.dat"
# pseudo-intents: {0} and {2} (both imply 1) and {1 3} (no object has it: it implies everything);
# {0 2}, {0 3}, {2 3}, {0 1 3}, {1 2 3} contain a pseudo-intent whose closure they lack
out=$("$PARAC" fca "$dir/small.dat" --implications --supports) || fail "--implications"
[[ "$out" == $'0 -> 1 | 2\n1 3 -> 0 2 | 0\n2 -> 1 | 2' ]] || fail "small implications: $(printf '%s' "$out" | tr '\n' ';')"
lines=3
json=$("$PARAC" fca "$dir/small.dat" --implications --json | tail -1)
[[ "$json" == *"\"implications\":$lines"* ]] || fail "--json: $json (expected $lines implications)"
"$PARAC" fca "$dir/small.dat" --implications --min-support 1 > "$dir/frequent.txt" || fail "--min-support 1"
[[ "$(cat "$dir/frequent.txt")" == $'0 -> 1\n2 -> 1' ]] || fail "frequent implications: $(tr '\n' ';' < "$dir/frequent.txt")"

# empty premise: 1 is in every object here
printf '0 1\n1 2\n0 1 2\n' > "$dir/common.dat"
[[ "$("$PARAC" fca "$dir/common.dat" --implications --supports)" == "-> 1 | 3" ]] || fail "empty premise line"

# rules: the Luxenburger basis and every pair, exact
rules=$("$PARAC" fca "$dir/common.dat" --rules) || fail "--rules"
[[ "$rules" == $'0 1 -> 2 | 1 0.5\n1 -> 0 | 2 0.666667\n1 -> 2 | 2 0.666667\n1 2 -> 0 | 1 0.5' ]] ||
  fail "rules: $(printf '%s' "$rules" | tr '\n' ';')"
all=$("$PARAC" fca "$dir/common.dat" --rules --all-rules) || fail "--all-rules"
[[ "$all" == *'1 -> 0 2 | 1 0.333333'* && $(printf '%s\n' "$all" | wc -l) == 5 ]] || fail "all rules: $all"
[[ "$("$PARAC" fca "$dir/common.dat" --rules --min-confidence 0.6 | wc -l)" == 2 ]] || fail "--min-confidence 0.6"
[[ -z "$("$PARAC" fca "$dir/common.dat" --rules --min-support 3)" ]] || fail "--min-support 3 leaves one itemset"
json=$("$PARAC" fca "$dir/common.dat" --rules --all-rules --min-confidence 0.5 --json | tail -1)
[[ "$json" == *'"rules":4'* && "$json" == *'"rule_set":"all"'* ]] || fail "rules --json: $json"
expect_code 2 fca "$dir/common.dat" --rules --all-rules --max-rules 4
expect_code 0 fca "$dir/common.dat" --rules --all-rules --max-rules 5

# names from a .cxt
printf 'B\n\n3\n3\n\nfrog\ncar\nfish\nswims\nlegs\nmotor\nXX.\n.XX\nX..\n' > "$dir/small.cxt"
[[ "$("$PARAC" fca "$dir/small.cxt" --implications --names)" == "motor -> legs" ]] ||
  fail "--names: $("$PARAC" fca "$dir/small.cxt" --implications --names | tr '\n' ';')"

# the same output on every thread count; -o writes the same bytes
"$PARAC" gen context --objects 120 --attributes 24 --density 0.3 --seed 11 -o "$dir/random.dat" || fail "gen context"
"$PARAC" fca "$dir/random.dat" --implications --supports --threads 1 -o "$dir/one.txt" || fail "-o"
"$PARAC" fca "$dir/random.dat" --implications --supports --threads 3 > "$dir/three.txt"
cmp -s "$dir/one.txt" "$dir/three.txt" || fail "implications differ between -o/1 thread and stdout/3 threads"
"$PARAC" fca "$dir/random.dat" --rules --min-support 5 --min-confidence 0.3 --threads 1 > "$dir/r1.txt" || fail "rules 1"
"$PARAC" fca "$dir/random.dat" --rules --min-support 5 --min-confidence 0.3 --threads 3 > "$dir/r3.txt" || fail "rules 3"
cmp -s "$dir/r1.txt" "$dir/r3.txt" || fail "rules differ between 1 and 3 threads"
[[ -s "$dir/one.txt" && -s "$dir/r1.txt" ]] || fail "no implications or rules on the random context"

# every implication holds: the objects having the premise have the conclusion, as many as the support says
if command -v python3 > /dev/null; then
  python3 - "$dir/random.dat" "$dir/one.txt" << 'EOF' || fail "an implication does not hold"
import sys
rows = [set(map(int, line.split())) for line in open(sys.argv[1]) if not line.startswith('#')]
for line in open(sys.argv[2]):
    pair, support = line.rsplit('|', 1)
    premise, conclusion = pair.split('->')
    premise, conclusion = set(map(int, premise.split())), set(map(int, conclusion.split()))
    having = [row for row in rows if premise <= row]
    assert len(having) == int(support), line
    assert all(conclusion <= row for row in having), line
EOF
fi

# a shared data set: the line count is the --json count
if [[ -r "$DATA/fca/primary-tumor.dat" ]]; then
  count=$("$PARAC" fca "$DATA/fca/primary-tumor.dat" --implications | wc -l)
  json=$("$PARAC" fca "$DATA/fca/primary-tumor.dat" --implications --json --output /dev/null | tail -1)
  [[ "$json" == *"\"implications\":$count"* && $count -gt 0 ]] || fail "primary-tumor: $count lines, $json"
fi

# the result's memory budget: past --max-memory, exit 3 with the budget and a hint; within it, the same lines
out=$("$PARAC" fca "$dir/small.dat" --implications --max-memory 40 2>&1 > /dev/null); code=$?
[[ $code == 3 && "$out" == *"budget of 40 bytes"* && "$out" == *"min_support"* ]] || fail "--max-memory 40: exit $code ($out)"
out=$("$PARAC" fca "$dir/common.dat" --rules --max-memory 100 2>&1 > /dev/null); code=$?
[[ $code == 3 && "$out" == *"min_confidence"* ]] || fail "rules --max-memory 100: exit $code ($out)"
[[ "$("$PARAC" fca "$dir/small.dat" --implications --max-memory 1M)" == $'0 -> 1\n1 3 -> 0 2\n2 -> 1' ]] ||
  fail "--max-memory 1M changed the basis"
expect_code 1 fca "$dir/small.dat" --implications --max-memory lots

# usage errors (1), values out of range and bad input (2)
expect_code 1 fca "$dir/small.dat" --implications --rules
expect_code 1 fca "$dir/small.dat" --implications --min-confidence 0.5
expect_code 1 fca "$dir/small.dat" --rules --max-rules 3
expect_code 1 fca "$dir/small.dat" --rules --supports
expect_code 1 fca "$dir/small.dat" --implications --no-such-option
expect_code 1 fca "$dir/small.dat" --rules --min-confidence abc
expect_code 2 fca "$dir/small.dat" --rules --min-confidence 1.5
expect_code 2 fca "$dir/small.dat" --rules --min-confidence -0.5
expect_code 2 fca "$dir/small.dat" --implications --min-support -1
expect_code 2 fca "$dir/small.dat" --rules --all-rules --max-rules -2
expect_code 2 fca "$dir/missing.dat" --implications
printf '1 2\n3 x\n' > "$dir/bad.dat"
out=$("$PARAC" fca "$dir/bad.dat" --implications 2>&1 > /dev/null); code=$?
[[ $code == 2 && "$out" == *"$dir/bad.dat:2:"* ]] || fail "bad input: exit $code ($out)"
expect_code 2 fca "$dir/small.dat" --implications -o "$dir/small.dat"
[[ "$(cat "$dir/small.dat")" == $'0 1\n1 2\n0 1 2\n3' ]] || fail "the input was overwritten"

[[ $failures == 0 ]] && echo "fca implications cli: ok" || echo "fca implications cli: $failures failures"
exit $((failures > 0))
