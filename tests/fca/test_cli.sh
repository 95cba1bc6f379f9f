#!/usr/bin/env bash
# tests/fca/test_cli.sh — `parac fca`, `parac lattice`, `parac gen context`:
# bad input (exit 2, file and line named), byte-identical output across
# thread counts, formats, extents, names, verify, lattice formats.
set -u
PARAC=${PARAC:-./parac}
dir=$(mktemp -d /tmp/parac-fca-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_bad FILE LINE: exit 2 and a one-line message naming FILE:LINE
expect_bad() {
  local file=$1 line=$2 out code
  out=$("$PARAC" fca "$file" --device cpu 2>&1 >/dev/null); code=$?
  [[ $code == 2 ]] || fail "$file: exit $code, expected 2 ($out)"
  [[ "$out" == *"$file:$line:"* ]] || fail "$file: message '$out' does not name $file:$line"
  [[ $(printf '%s\n' "$out" | wc -l) == 1 ]] || fail "$file: message is not one line"
}
printf '1 2 3\n4 x5 6\n' > "$dir/token.dat";        expect_bad "$dir/token.dat" 2
printf '1 2\n\n3 -4\n' > "$dir/negative.dat";       expect_bad "$dir/negative.dat" 3
printf '1 99999999999\n' > "$dir/absurd.dat";        expect_bad "$dir/absurd.dat" 1
printf '1 2.5\n' > "$dir/float.dat";                 expect_bad "$dir/float.dat" 1
: > "$dir/empty.dat";                                expect_bad "$dir/empty.dat" 1
printf 'B\n\n2\n3\n\no1\no2\na\nb\nc\nX.X\nXX\n' > "$dir/ragged.cxt"; expect_bad "$dir/ragged.cxt" 12
printf 'B\n\n3\n2\n\no1\no2\no3\na\nb\nX.\n.X\n' > "$dir/short.cxt";  expect_bad "$dir/short.cxt" 13
printf 'B\n\n3\n2\n\no1\no2\n' > "$dir/names.cxt";   expect_bad "$dir/names.cxt" 8
printf 'a,b\n1,0\n1,2\n' > "$dir/bad.csv";           expect_bad "$dir/bad.csv" 3
printf '1 2 3\n2 3 4\n1 4 5\n' | gzip -c | head -c 20 > "$dir/cut.dat.gz"
out=$("$PARAC" fca "$dir/cut.dat.gz" 2>&1 >/dev/null); code=$?
[[ $code == 2 && "$out" == *cut.dat.gz* ]] || fail "truncated gzip: exit $code ($out)"

# byte-identical output on every thread count, with extents
"$PARAC" gen context --objects 150 --attributes 37 --density 0.3 --seed 7 -o "$dir/random.dat" || fail "gen context"
"$PARAC" fca "$dir/random.dat" --device cpu --threads 1 --extents -o "$dir/one.txt" || fail "fca 1 thread"
for threads in 2 3; do
  "$PARAC" fca "$dir/random.dat" --device cpu --threads $threads --extents > "$dir/many.txt" || fail "fca $threads threads"
  cmp -s "$dir/one.txt" "$dir/many.txt" || fail "output differs between 1 and $threads threads"
done
count=$("$PARAC" fca "$dir/random.dat" --device cpu --count)
[[ "$count" == $(wc -l < "$dir/one.txt") ]] || fail "--count $count vs $(wc -l < "$dir/one.txt") lines"
sort -c "$dir/one.txt" 2>/dev/null; # (lexicographic by ids is not text order; just make sure it is non-empty)
[[ -s "$dir/one.txt" ]] || fail "no concepts printed"
"$PARAC" gen context --objects 150 --attributes 37 --density 0.3 --seed 7 -o "$dir/again.dat"
cmp -s "$dir/random.dat" "$dir/again.dat" || fail "gen context is not reproducible"

# .cxt and CSV with names; the same context as FIMI gives the same concepts
printf 'B\n\n3\n3\n\nfrog\ncar\nfish\nswims\nlegs\nmotor\nXX.\n.XX\nX..\n' > "$dir/small.cxt"
printf 'name,swims,legs,motor\nfrog,1,1,0\ncar,0,1,1\nfish,1,0,0\n' > "$dir/small.csv"
printf '0 1\n1 2\n0\n' > "$dir/small.dat"
"$PARAC" fca "$dir/small.cxt" --device cpu > "$dir/cxt.txt" || fail "cxt"
"$PARAC" fca "$dir/small.csv" --device cpu > "$dir/csv.txt" || fail "csv"
"$PARAC" fca "$dir/small.dat" --device cpu > "$dir/dat.txt" || fail "dat"
cmp -s "$dir/cxt.txt" "$dir/dat.txt" && cmp -s "$dir/csv.txt" "$dir/dat.txt" || fail "formats disagree"
expected=$'\n0\n0 1\n0 1 2\n1\n1 2'
[[ "$(cat "$dir/dat.txt")" == "$expected" ]] || fail "small concepts: $(cat "$dir/dat.txt" | tr '\n' ';')"
line=$("$PARAC" fca "$dir/small.cxt" --names --extents --device cpu | sed -n 3p)
[[ "$line" == "swims legs | frog" ]] || fail "--names --extents gave '$line'"
[[ $("$PARAC" fca "$dir/small.dat" --min-support 2 --count) == 3 ]] || fail "--min-support 2"
json=$("$PARAC" fca "$dir/small.dat" --verify --json --device cpu | tail -1)
[[ "$json" == *'"concepts":6'* && "$json" == *'"verified":true'* ]] || fail "--json: $json"

# lattice: 6 concepts of small.dat have 7 covering edges
"$PARAC" lattice "$dir/small.dat" -o "$dir/l.json" --format json --device cpu || fail "lattice json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['concepts'])==6 and len(d['edges'])==7, d" "$dir/l.json" || fail "lattice json content"
"$PARAC" lattice "$dir/small.cxt" -o "$dir/l.dot" --device cpu || fail "lattice dot"
[[ $(grep -c -- '->' "$dir/l.dot") == 7 ]] || fail "dot edges"
"$PARAC" lattice "$dir/small.dat" -o "$dir/l.graphml" --format graphml --device cpu || fail "graphml"
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$dir/l.graphml" || fail "graphml is not XML"
if command -v dot > /dev/null; then
  "$PARAC" lattice "$dir/small.dat" -o "$dir/l2.dot" --svg "$dir/l.svg" --device cpu && [[ -s "$dir/l.svg" ]] || fail "svg"
fi

# --max-device-memory: sizes with suffixes are accepted (the CPU ignores the cap); out of range is exit 2,
# not a size at all is a usage error (exit 1)
[[ $("$PARAC" fca "$PARAC_DATA/fca/primary-tumor.dat" --count --device cpu --max-device-memory 64M) == 87232 ]] ||
  fail "--max-device-memory 64M on the CPU"
for bad in 12Q:1 0:2 -5:2 M:1 1.5G:1; do
  value=${bad%:*} want=${bad#*:}
  out=$("$PARAC" fca "$PARAC_DATA/fca/primary-tumor.dat" --count --device cpu --max-device-memory "$value" 2>&1); code=$?
  [[ $code == "$want" && "$out" == *max-device-memory* ]] || fail "--max-device-memory $value: exit $code ($out)"
done

# known count through the CLI
[[ $("$PARAC" fca "$PARAC_DATA/fca/primary-tumor.dat" --count --device cpu) == 87232 ]] || fail "primary-tumor count"

if ((failures)); then echo "$failures failure(s)"; exit 1; fi
echo "fca cli: all passed"
