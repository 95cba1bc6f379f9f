#!/usr/bin/env bash
# tests/csp/test_gen_csp.sh — `parac gen csp`: same seed => same bytes, valid XCSP3 shape,
# usage errors exit 1.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$PARAC" gen csp --model B --vars 30 --dom 8 --constraints 100 --tightness 0.4 --seed 5 -o "$tmp/a.xml" || fail "gen B"
"$PARAC" gen csp --model B --vars 30 --dom 8 --constraints 100 --tightness 0.4 --seed 5 --threads 1 -o "$tmp/b.xml" || fail "gen B again"
cmp -s "$tmp/a.xml" "$tmp/b.xml" || fail "same seed gave different files"
"$PARAC" gen csp --model B --vars 30 --dom 8 --constraints 100 --tightness 0.4 --seed 6 -o "$tmp/c.xml" || fail "gen seed 6"
cmp -s "$tmp/a.xml" "$tmp/c.xml" && fail "another seed gave the same file"
[ "$(grep -c '<extension>' "$tmp/a.xml")" = 100 ] || fail "expected 100 <extension> in a.xml"
grep -q '<array id="x" size="\[30\]"> 0 1 2 3 4 5 6 7 </array>' "$tmp/a.xml" || fail "array declaration"
"$PARAC" gen csp --model RB --vars 30 --dom 8 --constraints 100 --tightness 0.4 --seed 5 -o "$tmp/rb.xml" || fail "gen RB"
"$PARAC" gen csp --model X --vars 3 -o "$tmp/x.xml" 2>/dev/null; [ $? = 1 ] || fail "bad --model should exit 1"
"$PARAC" gen csp --model B --vars 3 --constraints 4 -o "$tmp/x.xml" 2>"$tmp/err"; [ $? = 2 ] || fail "4 scopes over 3 vars should exit 2"
grep -q "N(N-1)/2" "$tmp/err" || fail "message should explain the scope limit: $(cat "$tmp/err")"
echo "gen csp: ok"
