#!/usr/bin/env bash
# tests/csp/test_xcsp_cli.sh — XCSP input through `parac ac`: malformed and unsupported files
# exit 2 with one "file:line: problem" line; a file using %..., compact lists and tables over
# the same variables in two orders loads, merged into one table.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

expect_error() { # file, exit code, pattern the single stderr line must match
  "$PARAC" ac "$1" --device cpu > "$tmp/out" 2> "$tmp/err"
  local code=$?
  [ $code = "$2" ] || bad "$1: exit $code, expected $2 ($(cat "$tmp/err"))"
  [ "$(wc -l < "$tmp/err")" = 1 ] || bad "$1: expected one error line, got: $(cat "$tmp/err")"
  grep -Eq "$3" "$tmp/err" || bad "$1: message '$(cat "$tmp/err")' does not match '$3'"
}

printf '<instance format="XCSP3" type="CSP">\n<variables>\n<array id="x" size="[3]"> 0..2 </array>\n</variables>\n<constraints>\n<extension>\n<list> x[0] x[1] </list>\n<supports> (0,1)(2 </supports>\n</extension>\n</constraints>\n</instance>\n' > "$tmp/bad_tuple.xml"
expect_error "$tmp/bad_tuple.xml" 2 "bad_tuple\.xml:8: .*malformed tuple"

printf '<instance format="XCSP3" type="CSP">\n<variables>\n<var id="a"> 0 1 </var>\n</variables>\n<constraints>\n<extension>\n<list> a </list>\n' > "$tmp/truncated.xml"
expect_error "$tmp/truncated.xml" 2 "truncated\.xml:[0-9]+: <extension> is never closed"

printf '<instance format="XCSP3" type="CSP">\n<variables>\n<array id="x" size="[3]"> 0..2 </array>\n</variables>\n<constraints>\n<group>\n<intension> eq(%%0, add(%%...)) </intension>\n<args> x[0] </args>\n</group>\n</constraints>\n</instance>\n' > "$tmp/short_args.xml"
expect_error "$tmp/short_args.xml" 2 "short_args\.xml:8: .*%\.\.\."

printf '<instance format="XCSP3" type="CSP">\n<variables>\n<array id="x" size="[3]"> 0..2 </array>\n</variables>\n<constraints>\n<stretch> x[] </stretch>\n</constraints>\n</instance>\n' > "$tmp/global.xml"
expect_error "$tmp/global.xml" 2 "global\.xml:6: unsupported constraint <stretch>"

expect_error "$tmp/missing.xml" 2 "missing\.xml"

# x0 + x1 + x2 = 2 from a %... group, and the same variables as a table in another order.
cat > "$tmp/good.xml" <<'XML'
<instance format="XCSP3" type="CSP">
  <variables> <array id="x" size="[4]"> 0..2 </array> </variables>
  <constraints>
    <group> <intension> eq(add(%...), %0) </intension> <args> 2 x[0..2] </args> </group>
    <extension> <list> x[2] x[1] x[0] </list> <supports> (2,0,0) (0,1,1) (1,1,1) </supports> </extension>
    <group> <extension> <list> %... </list> <conflicts> (0,0) </conflicts> </extension> <args> x[3] x[2] </args> </group>
  </constraints>
</instance>
XML
json=$("$PARAC" ac "$tmp/good.xml" --device cpu --json | tail -1) || bad "good.xml failed to load"
# tuples left: (x0,x1,x2) = (0,0,2), (1,1,0); x3 loses nothing (x2=0 forbids only x3=0, x2=2 supports all)
python3 - "$json" <<'PY' || bad "good.xml: $json"
import json, sys
d = json.loads(sys.argv[1])
assert d["values_before"] == 12 and d["wipeout"] is False, d
assert d["values_after"] == 2 + 2 + 2 + 3, d
PY
[ $fail = 0 ] && echo "xcsp cli: ok"
exit $fail
