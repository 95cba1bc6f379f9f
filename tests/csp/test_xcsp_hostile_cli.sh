#!/usr/bin/env bash
# tests/csp/test_xcsp_hostile_cli.sh — hostile XCSP files through `parac ac` (issue 15): each one
# ends within seconds with exit 2 and one "file:line: problem" line on stderr (no crash, no hang,
# no silent drop); a 100,000-deep expression and values at the ends of the 64-bit range load.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# Each run gets 2 GB of address space, so unbounded memory is a failure here too; an AddressSanitizer
# build reserves terabytes of shadow address space up front and cannot run under such a limit.
limit_memory() { ldd "$PARAC" 2> /dev/null | grep -q libasan || ulimit -v 2000000; }

expect_error() { # file, pattern the single stderr line must match
  (limit_memory; timeout 20 "$PARAC" ac "$1" --device cpu > "$tmp/out" 2> "$tmp/err")
  local code=$?
  [ $code = 2 ] || bad "$1: exit $code, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l < "$tmp/err")" = 1 ] || bad "$1: expected one error line, got: $(head -c 300 "$tmp/err")"
  grep -Fq "parac: error: $1:" "$tmp/err" && grep -Eq "^parac: error: [^:]+:[1-9][0-9]*: " "$tmp/err" ||
    bad "$1: no file:line in '$(cat "$tmp/err")'"
  grep -Eq "$2" "$tmp/err" || bad "$1: message '$(cat "$tmp/err")' does not match '$2'"
}

expect_values() { # file, values_after
  local json
  json=$(cd "$tmp" && limit_memory && timeout 20 "$PARAC" ac "$1" --device cpu --json | tail -1) || { bad "$1 failed to load"; return; }
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["values_after"] == int(sys.argv[2]), d' "$json" "$2" ||
    bad "$1: $json"
}

head='<instance format="XCSP3" type="CSP">\n<variables>\n<array id="x" size="[3]"> 0..2 </array>\n</variables>\n<constraints>\n'
tail='</constraints>\n</instance>\n'
doc() { printf "$head%s\n$tail" "$2" > "$tmp/$1"; }

python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
head = '<instance format="XCSP3" type="CSP">\n<variables>\n<array id="x" size="[3]"> 0..2 </array>\n</variables>\n<constraints>\n'
tail = '</constraints>\n</instance>\n'
open(d + '/deep_expr.xml', 'w').write(head + '<intension> eq(' + 'add(' * 100000 + 'x[0]' + ',1)' * 100000 + ', 100001) </intension>\n' + tail)
open(d + '/deep_block.xml', 'w').write(head + '<block>' * 30000 + '<intension> lt(x[0],x[1]) </intension>' + '</block>' * 30000 + '\n' + tail)
laughs = '<?xml version="1.0"?>\n<!DOCTYPE instance [\n<!ENTITY l0 "lollollollollollollollollol">\n'
for i in range(1, 10):
    laughs += '<!ENTITY l%d "%s">\n' % (i, ('&l%d;' % (i - 1)) * 10)
laughs += ']>\n' + head.replace('<array id="x" size="[3]"> 0..2 </array>', '<var id="a"> 0 1 </var>') + \
          '<extension><list> a </list><supports> &l9; </supports></extension>\n' + tail
open(d + '/laughs.xml', 'w').write(laughs)
open(d + '/entity.xml', 'w').write('<?xml version="1.0"?>\n<!DOCTYPE instance [\n<!ENTITY v "1 2">\n]>\n' + head +
                                   '<extension><list> x[0] </list><supports> &v; </supports></extension>\n' + tail)
PY
expect_values "$tmp/deep_expr.xml" 7
# UCS-4-looking bytes: libxml2's encoding layer reports through its generic handler, which prints to
# stderr unless the reader silences it while the input is open (found by the XCSP3 reader's fuzzing)
printf '\x3c\x00\x00\x00\x3c\x65\x78\x63\x3e\x69\x0a' > "$tmp/ucs4.xml"
expect_error "$tmp/ucs4.xml" "malformed XML|encoding"

expect_error "$tmp/deep_block.xml" "malformed XML: Excessive depth in document: 256"
expect_error "$tmp/laughs.xml" "malformed XML|entity"
expect_error "$tmp/entity.xml" "takes no entity declarations"
printf '<?xml version="1.0"?>\n<!DOCTYPE instance SYSTEM "x.dtd">\n'"$head"'<extension><list> x[0] </list><supports> &v; </supports></extension>\n'"$tail" > "$tmp/undeclared.xml"
expect_error "$tmp/undeclared.xml" "undeclared\.xml:8: entity reference &v;"

doc pow.xml '<intension> eq(pow(add(x[0],3),70),0) </intension>'
expect_error "$tmp/pow.xml" "pow\.xml:6: intension arithmetic overflows 64-bit integers at \(x\[0\]=0\)"
doc pow_long.xml '<intension> eq(pow(x[0],9000000000000000000),1) </intension>'
expect_error "$tmp/pow_long.xml" "overflows 64-bit integers at \(x\[0\]=2\)"
doc div_min.xml '<intension> eq(div(sub(-9223372036854775807,add(x[0],1)),-1),0) </intension>'
expect_error "$tmp/div_min.xml" "overflows 64-bit"
doc mod_min.xml '<intension> eq(mod(sub(-9223372036854775807,1),-1),x[0]) </intension>'
expect_values "$tmp/mod_min.xml" 7

vars() { printf '<instance format="XCSP3" type="CSP">\n<variables>\n%s\n</variables>\n<constraints/>\n</instance>\n' "$2" > "$tmp/$1"; }
vars as_constant.xml '<array id="x" size="[3]"> 0..2 </array>
<array id="y" size="[1]" as="5"/>'
expect_error "$tmp/as_constant.xml" "as_constant\.xml:4: as=\"5\""
vars size_32.xml '<array id="x" size="[4294967298]"> 0..2 </array>'
expect_error "$tmp/size_32.xml" "size_32\.xml:3: <array> needs"
vars size_product.xml '<array id="x" size="[65536][65536][65536][65536]"> 0 </array>'
expect_error "$tmp/size_product.xml" "variable budget"
vars range_max.xml '<var id="a"> 9223372036854775806..9223372036854775807 </var>'
expect_values "$tmp/range_max.xml" 2
vars range_all.xml '<var id="a"> -9223372036854775807..9223372036854775807 </var>'
expect_error "$tmp/range_all.xml" "range_all\.xml:3: variable 'a': more than 100000000 values"
# an array past the value budget is refused before any of its domains is copied: 2,000 x 0..10^6 took
# 800 MB of domains first (exit 3, out of memory, under 1 GB of address space), now a few MB
vars array_budget.xml '<array id="y" size="[2000]"> 0..1000000 </array>'
(ldd "$PARAC" 2> /dev/null | grep -q libasan || ulimit -v 1000000
 cd "$tmp" && timeout 20 "$PARAC" ac array_budget.xml --device cpu > /dev/null 2> err.txt); code=$?
[ $code = 2 ] && grep -q "array_budget.xml:3: array 'y': more than 100000000 values in all domains" "$tmp/err.txt" ||
  bad "array_budget.xml: exit $code, $(head -c 300 "$tmp/err.txt")"
vars empty.xml '<var id="a"> </var>'
(cd "$tmp" && "$PARAC" ac empty.xml --device cpu > /dev/null 2>&1) || bad "empty domain: exit $?"

# a 31-byte .lzma header declaring a 4 GiB dictionary: refused by the decoder's memory limit, not allocated
printf '\x5d\x00\x00\x00\x80\xff\xff\xff\xff\xff\xff\xff\xff\x00\x1e\x3e\x0a\x2c\x20\x75\x73\x65\x20\x58\x4d\x4c\x62\x6c\xf2\x5b\x00' > "$tmp/dict.lzma"
(limit_memory; cd "$tmp" && timeout 20 "$PARAC" ac dict.lzma --device cpu > /dev/null 2> err.txt); code=$?
[ $code = 2 ] && [ "$(cat "$tmp/err.txt")" = "parac: error: dict.lzma: the compressed stream needs more than 256 MiB to decode" ] ||
  bad "dict.lzma: exit $code, $(head -c 300 "$tmp/err.txt")"
[ $fail = 0 ] && echo "xcsp hostile cli: ok"
exit $fail
