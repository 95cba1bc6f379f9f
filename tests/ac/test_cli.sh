#!/usr/bin/env bash
# tests/ac/test_cli.sh — `parac ac`: the text line, --json fields, --domains JSON,
# identical domains for every CPU algorithm and thread count, errors and exit codes.
set -u
data="$PARAC_DATA/csp"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

file="$data/composed-25-01-25-0.xml"
out=$("$PARAC" ac "$file" --device cpu) || bad "plain run failed"
[[ "$out" == *"arc consistent: 322 of 330 values remain (8 removed)"* ]] || bad "text line: $out"

json=$("$PARAC" ac "$file" --device cpu --json --algorithm ac4 | tail -1)
python3 - "$json" <<'PY' || bad "--json fields: $json"
import json, sys
d = json.loads(sys.argv[1])
assert d["values_before"] == 330 and d["values_after"] == 322 and d["removed"] == 8, d
assert d["wipeout"] is False and d["algorithm"] == "ac4", d
for key in ("parse_seconds", "build_seconds", "propagate_seconds", "ne_nodes", "ne_edges", "iterations"):
    assert key in d, key
PY

for algorithm in ac3 ac3rm ac3bit ac2001 ac4 gpu-bitset; do
  for threads in 1 2; do
    "$PARAC" ac "$file" --device cpu --algorithm $algorithm --threads $threads --domains "$tmp/$algorithm-$threads.json" \
      > /dev/null || bad "$algorithm t$threads failed"
    cmp -s "$tmp/ac3-1.json" "$tmp/$algorithm-$threads.json" || bad "$algorithm t$threads: domains differ from ac3"
  done
done
python3 - "$tmp/ac3-1.json" <<'PY' || bad "--domains JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert sum(len(v) for v in d.values()) == 322, sum(len(v) for v in d.values())
assert all(v == sorted(v) for v in d.values())
PY

"$PARAC" ac "$file" --device cpu --sac --domains "$tmp/sac.json" > "$tmp/sac.txt" || bad "--sac failed"
grep -q "wiped out\|singleton arc consistent" "$tmp/sac.txt" || bad "--sac text: $(cat "$tmp/sac.txt")"

"$PARAC" ac "$tmp/missing.xml" 2> "$tmp/err"; code=$?
[[ $code == 2 ]] || bad "missing file: exit $code"
printf '<instance format="XCSP3" type="CSP">\n<variables>\n<var id="x"> 0..3 </var>\n' > "$tmp/truncated.xml"
"$PARAC" ac "$tmp/truncated.xml" 2> "$tmp/err"; code=$?
[[ $code == 2 ]] || bad "truncated file: exit $code"
grep -q "truncated.xml" "$tmp/err" || bad "error does not name the file: $(cat "$tmp/err")"
"$PARAC" ac "$file" --algorithm ac5 2> /dev/null; code=$?
[[ $code == 1 ]] || bad "unknown algorithm: exit $code"
"$PARAC" ac "$file" --device cpu --algorithm ac4-gpu-plus 2> "$tmp/err"; code=$?
[[ $code == 2 ]] || bad "ac4-gpu-plus on --device cpu: exit $code"
cat > "$tmp/alldiff.xml" <<'XML'
<instance format="XCSP3" type="CSP">
  <variables> <var id="x"> 0..2 </var> <var id="y"> 0..2 </var> </variables>
  <constraints>
    <intension> lt(x,y) </intension>
    <stretch> x y </stretch>
  </constraints>
</instance>
XML
"$PARAC" ac "$tmp/alldiff.xml" --device cpu 2> "$tmp/err"; code=$?
[[ $code == 2 ]] || bad "unsupported constraint: exit $code"
grep -q "alldiff.xml:5" "$tmp/err" || bad "unsupported error lacks file:line: $(cat "$tmp/err")"
"$PARAC" ac "$tmp/alldiff.xml" --device cpu --ignore-unsupported --domains "$tmp/alldiff.json" > /dev/null 2> "$tmp/err" \
  || bad "--ignore-unsupported failed"
grep -q "warning" "$tmp/err" || bad "--ignore-unsupported gave no warning"
[[ "$(cat "$tmp/alldiff.json")" == '{"x":[0,1],"y":[1,2]}' ]] || bad "alldiff domains: $(cat "$tmp/alldiff.json")"

# GAC on an arity-3 table, with every CPU algorithm
cat > "$tmp/table.xml" <<'XML'
<instance format="XCSP3" type="CSP">
  <variables> <array id="x" size="[3]"> 0..2 </array> </variables>
  <constraints>
    <extension> <list> x[0] x[1] x[2] </list> <supports> (0,1,2)(1,1,1)(2,0,0) </supports> </extension>
    <intension> ne(x[2],0) </intension>
  </constraints>
</instance>
XML
for algorithm in ac3 ac3rm ac3bit ac2001 ac4 gpu-bitset; do
  "$PARAC" ac "$tmp/table.xml" --device cpu --algorithm $algorithm --domains "$tmp/table.json" > /dev/null \
    || bad "table $algorithm failed"
  [[ "$(cat "$tmp/table.json")" == '{"x[0]":[0,1],"x[1]":[1],"x[2]":[1,2]}' ]] \
    || bad "table $algorithm domains: $(cat "$tmp/table.json")"
done
# gen csp --arity: a random table network; every CPU algorithm and thread count agrees on it, and the
# JSON says who handled the tables (the CPU's tuple walk here).
"$PARAC" gen csp --arity 4 --vars 12 --dom 5 --constraints 10 --tuples 60 --seed 7 -o "$tmp/tables.xml" -q \
  || bad "gen csp --arity failed"
grep -c "<extension>" "$tmp/tables.xml" | grep -qx 10 || bad "gen csp --arity: not 10 tables"
for algorithm in ac3bit ac4 gpu-bitset; do
  for threads in 1 2; do
    "$PARAC" ac "$tmp/tables.xml" --device cpu --algorithm $algorithm --threads $threads \
      --domains "$tmp/tables-$algorithm-$threads.json" > /dev/null || bad "tables $algorithm t$threads failed"
    cmp -s "$tmp/tables-ac3bit-1.json" "$tmp/tables-$algorithm-$threads.json" \
      || bad "tables $algorithm t$threads: domains differ from ac3bit"
  done
done
json=$("$PARAC" ac "$tmp/tables.xml" --device cpu --json | tail -1)
python3 - "$json" <<'PY' || bad "--json tables: $json"
import json, sys
d = json.loads(sys.argv[1])["tables"]
assert d["count"] == 10 and 0 < d["tuple_entries"] <= 4 * 60 * 10, d
assert d["device"] == "cpu" and d["propagator"] == "tuple-walk" and d["algorithm"] == "ac3bit", d
PY
"$PARAC" gen csp --arity 9 --vars 12 -o "$tmp/bad.xml" -q 2> "$tmp/err"; code=$?
[[ $code == 2 ]] || bad "gen csp --arity 9: exit $code"
exit $fail
