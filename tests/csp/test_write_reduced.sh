#!/usr/bin/env bash
# tests/csp/test_write_reduced.sh — `parac ac --write-reduced FILE`: the reduced instance keeps the
# variables' names, the globals and the objective, holds exactly AC's domains (checked against
# --domains), loads again with nothing more removed (same bytes when written a second time); a
# wipe-out writes nothing and exits 2; the JSON says "objective": true/false; an output that is
# the input is refused.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# x0 < x1 < x2 over 0..3 removes values; an allDifferent and an objective travel along
cat > "$tmp/chain.xml" <<'XML'
<instance format="XCSP3" type="COP">
  <variables>
    <array id="x" size="[3]"> 0..3 </array>
    <var id="cost"> 0..9 </var>
  </variables>
  <constraints>
    <intension> lt(x[0],x[1]) </intension>
    <intension> lt(x[1],x[2]) </intension>
    <allDifferent> x[] </allDifferent>
    <sum><list> x[] </list><condition> (le,cost) </condition></sum>
  </constraints>
  <objectives>
    <minimize> cost </minimize>
  </objectives>
</instance>
XML
"$PARAC" ac "$tmp/chain.xml" --device cpu --json --domains "$tmp/d1.json" --write-reduced "$tmp/r1.xml" > "$tmp/out1" \
  || bad "ac --write-reduced failed: $(cat "$tmp/out1")"
grep -q '"objective":true' "$tmp/out1" || bad "JSON lacks \"objective\":true: $(cat "$tmp/out1")"
grep -q '"globals":2' "$tmp/out1" || bad "JSON lacks \"globals\":2: $(cat "$tmp/out1")"
grep -q '<array id="x" size="\[3\]">' "$tmp/r1.xml" || bad "array x not kept: $(cat "$tmp/r1.xml")"
grep -q '<domain for="x\[0\]"> 0 1 </domain>' "$tmp/r1.xml" || bad "x[0] not reduced to 0 1: $(cat "$tmp/r1.xml")"
grep -q '<var id="cost">' "$tmp/r1.xml" || bad "var cost not kept"
grep -q '<allDifferent>' "$tmp/r1.xml" || bad "allDifferent not written"
grep -q '<sum>' "$tmp/r1.xml" || bad "sum not written"
grep -q '<minimize> cost </minimize>' "$tmp/r1.xml" || bad "objective not copied verbatim"
grep -q 'type="COP"' "$tmp/r1.xml" || bad "type COP not kept"

# the reduced instance: same domains after AC, nothing more removed, same bytes again
"$PARAC" ac "$tmp/r1.xml" --device cpu --json --domains "$tmp/d2.json" --write-reduced "$tmp/r2.xml" > "$tmp/out2" \
  || bad "the reduced instance does not load: $(cat "$tmp/out2")"
cmp -s "$tmp/d1.json" "$tmp/d2.json" || bad "domains differ: $(cat "$tmp/d1.json") vs $(cat "$tmp/d2.json")"
grep -q '"removed":0' "$tmp/out2" || bad "AC removed more on the reduced instance: $(cat "$tmp/out2")"
cmp -s "$tmp/r1.xml" "$tmp/r2.xml" || bad "writing the reduced instance again changed it"
"$PARAC" ac "$tmp/r1.xml" --device cpu --threads 1 --write-reduced "$tmp/r3.xml" > /dev/null || bad "1 thread failed"
cmp -s "$tmp/r2.xml" "$tmp/r3.xml" || bad "bytes depend on the thread count"

# a CSP without objective says false
printf '<instance format="XCSP3" type="CSP"><variables><array id="x" size="[2]"> 0..1 </array></variables><constraints><allDifferent> x[] </allDifferent></constraints></instance>\n' > "$tmp/csp.xml"
"$PARAC" ac "$tmp/csp.xml" --device cpu --json > "$tmp/out3" || bad "csp.xml failed"
grep -q '"objective":false' "$tmp/out3" || bad "JSON lacks \"objective\":false: $(cat "$tmp/out3")"

# a wipe-out: nothing written, exit 2, one line that says why
printf '<instance format="XCSP3" type="CSP"><variables><array id="x" size="[2]"> 0..1 </array></variables><constraints><intension> lt(x[0],x[0]) </intension></constraints></instance>\n' > "$tmp/wipe.xml"
"$PARAC" ac "$tmp/wipe.xml" --device cpu --write-reduced "$tmp/wiped.xml" > /dev/null 2> "$tmp/err"; code=$?
[[ $code == 2 ]] || bad "wipe-out: exit $code, expected 2"
[[ ! -e "$tmp/wiped.xml" ]] || bad "wipe-out wrote a file"
grep -q "wipe\.xml: wiped out (no solution): no reduced instance written" "$tmp/err" || bad "wipe-out message: $(cat "$tmp/err")"
[[ "$(wc -l < "$tmp/err")" == 1 ]] || bad "wipe-out: more than one line: $(cat "$tmp/err")"

# the output may not be the input
cp "$tmp/chain.xml" "$tmp/same.xml"
"$PARAC" ac "$tmp/same.xml" --device cpu --write-reduced "$tmp/same.xml" > /dev/null 2>&1; code=$?
[[ $code == 2 ]] || bad "output = input: exit $code"
cmp -s "$tmp/chain.xml" "$tmp/same.xml" || bad "the input was overwritten"

# the committed pycsp3 instances: each reduced file loads and changes nothing more
for f in "$PARAC_SOURCE"/tests/data/xcsp3/*.xml; do
  name=$(basename "$f" .xml)
  if [[ $name == forms ]]; then
    # forms.xml samples every syntactic form and has no solution (its closed cardinality keeps x[] in
    # {0,1,2} while its circuit needs x[0..4] to be a permutation of 0..4): GAC wipes it out
    "$PARAC" ac "$f" --device cpu --write-reduced "$tmp/$name.r.xml" > /dev/null 2> "$tmp/err"; code=$?
    [[ $code == 2 && ! -e "$tmp/$name.r.xml" ]] || bad "forms: expected the wipe-out refusal, exit $code"
    grep -q "wiped out" "$tmp/err" || bad "forms: $(cat "$tmp/err")"
    continue
  fi
  "$PARAC" ac "$f" --device cpu --domains "$tmp/$name.a.json" --write-reduced "$tmp/$name.r.xml" > /dev/null 2> "$tmp/err" \
    || { bad "$name: $(cat "$tmp/err")"; continue; }
  "$PARAC" ac "$tmp/$name.r.xml" --device cpu --domains "$tmp/$name.b.json" > /dev/null 2> "$tmp/err" \
    || { bad "$name reduced: $(cat "$tmp/err")"; continue; }
  # the auxiliary variables of expression terms are declared variables of the reduced file
  # (docs/xcsp.md): the file's own variables must keep their domains
  python3 - "$tmp/$name.a.json" "$tmp/$name.b.json" <<'PY' || bad "$name: domains differ after the round trip"
import json, sys
a, b = (json.load(open(path)) for path in sys.argv[1:3])
extra = [k for k in b if k not in a]
assert all(k.startswith("parac_aux_") for k in extra), extra
assert {k: b[k] for k in a} == a
PY
done

exit $fail
