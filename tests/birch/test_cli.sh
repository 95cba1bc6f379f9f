#!/usr/bin/env bash
# parac birch on the command line: summary, streaming == one pass, stdin, devices, bad input (exit 2).
set -u
PARAC=${PARAC:-./parac}
DATA=${PARAC_DATA:-$(dirname "$0")/../data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$PARAC" gen points --n 20000 --dim 2 --kind blobs --centers 6 --std 0.5 --seed 3 -o "$work/p.npy" > /dev/null 2>&1 ||
  python3 -c "import numpy as np; r=np.random.default_rng(3); np.save('$work/p.npy', r.normal(size=(20000,2))*4)" ||
  { echo "cannot make points"; exit 1; }

out=$("$PARAC" birch "$work/p.npy" --threshold 0.3 --n-clusters 6 --device cpu --json -o "$work/one.npy" --centers "$work/c.csv") ||
  fail "plain run exited $?"
echo "$out" | grep -q '"subclusters":' || fail "no subclusters in --json: $out"
echo "$out" | grep -q '"clusters":6' || fail "clusters != 6: $out"
[[ $(wc -l < "$work/c.csv") -eq 6 ]] || fail "--centers should have 6 rows"

# streaming with chunks that are multiples of the batch equals one pass
"$PARAC" birch "$work/p.npy" --threshold 0.3 --n-clusters 6 --device cpu --chunk 4096 --batch-size 1024 -o "$work/s.npy" > /dev/null || fail "chunked run"
"$PARAC" birch "$work/p.npy" --threshold 0.3 --n-clusters 6 --device cpu --batch-size 1024 -o "$work/o.npy" > /dev/null || fail "one-pass run"
cmp -s "$work/s.npy" "$work/o.npy" || fail "--chunk 4096 --batch-size 1024 labels differ from one pass"
# serial mode: any chunk equals one pass; thread counts give the same bytes
"$PARAC" birch "$work/p.npy" --threshold 0.3 --batch-size 0 --chunk 777 -o "$work/s0.npy" > /dev/null || fail "serial chunked"
"$PARAC" birch "$work/p.npy" --threshold 0.3 --batch-size 0 -o "$work/o0.npy" > /dev/null || fail "serial"
cmp -s "$work/s0.npy" "$work/o0.npy" || fail "serial: --chunk 777 differs from one pass"
"$PARAC" birch "$work/p.npy" --threshold 0.3 --threads 1 -o "$work/t1.npy" > /dev/null || fail "threads 1"
"$PARAC" birch "$work/p.npy" --threshold 0.3 --threads 2 -o "$work/t2.npy" > /dev/null || fail "threads 2"
cmp -s "$work/t1.npy" "$work/t2.npy" || fail "--threads 1 and 2 differ"
# the default (speculative-parallel) batched run is the serial run; segmented runs, threads agree
"$PARAC" birch "$work/p.npy" --threshold 0.3 --device cpu --batch-size 700 --chunk 1234 -o "$work/sp.npy" > /dev/null || fail "default batched"
cmp -s "$work/sp.npy" "$work/o0.npy" || fail "default (speculative-parallel) labels differ from the serial ones"
"$PARAC" birch "$work/p.npy" --threshold 0.3 --device cpu --variant speculative --batch-size 700 --chunk 1234 \
    -o "$work/sp.npy" > /dev/null || fail "speculative"
cmp -s "$work/sp.npy" "$work/o0.npy" || fail "speculative labels differ from the serial ones"
for threads in 1 3; do
    "$PARAC" birch "$work/p.npy" --threshold 0.3 --device cpu --variant speculative-parallel --batch-size 2000 \
        --threads $threads -o "$work/spp.npy" > /dev/null || fail "speculative-parallel"
    cmp -s "$work/spp.npy" "$work/o0.npy" || fail "speculative-parallel ($threads threads) labels differ from the serial ones"
done
for variant in segmented; do
    "$PARAC" birch "$work/p.npy" --threshold 0.3 --device cpu --variant $variant --threads 1 -o "$work/v1.npy" > /dev/null || fail "$variant"
    "$PARAC" birch "$work/p.npy" --threshold 0.3 --device cpu --variant $variant --threads 2 -o "$work/v2.npy" > /dev/null || fail "$variant"
    cmp -s "$work/v1.npy" "$work/v2.npy" || fail "$variant: --threads 1 and 2 differ"
done
err=$("$PARAC" birch "$work/p.npy" --variant fastest 2>&1 >/dev/null) && fail "--variant fastest accepted"
echo "$err" | grep -q -- "--variant must be" || fail "--variant fastest: unclear error: $err"
# hybrid moved to dev/birch/: refused as a bad value (exit 2), saying where it went
err=$("$PARAC" birch "$work/p.npy" --variant hybrid 2>&1 >/dev/null); code=$?
[[ $code == 2 ]] || fail "--variant hybrid: exit $code, expected 2"
echo "$err" | grep -q "dev/birch/01_hybrid.cu" || fail "--variant hybrid: message does not say where it went: $err"

# text input from stdin, streamed
python3 -c "import numpy as np; np.savetxt('$work/p.csv', np.load('$work/p.npy')[:3000], delimiter=',')"
out=$("$PARAC" birch - --threshold 0.3 --chunk 500 --json < "$work/p.csv") || fail "stdin run"
echo "$out" | grep -q '"points":3000' || fail "stdin: expected 3000 points: $out"
# shared chameleon set straight from its .gz
"$PARAC" birch "$DATA/cluster/chameleon_t7_10k.data.gz" --threshold 8 --n-clusters 9 --json > /dev/null || fail "chameleon .gz"

# bad input: exit 2 with file and line
printf '1,2\n3,x\n' > "$work/bad.csv"
err=$("$PARAC" birch "$work/bad.csv" 2>&1 >/dev/null); code=$?
[[ $code -eq 2 ]] || fail "non-number: exit $code, expected 2"
echo "$err" | grep -q "bad.csv:2" || fail "non-number: message lacks file:line: $err"
printf '1,2\n3\n' > "$work/ragged.csv"
"$PARAC" birch "$work/ragged.csv" > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "ragged row: expected exit 2"
: > "$work/empty.csv"
"$PARAC" birch "$work/empty.csv" > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "empty file: expected exit 2"
"$PARAC" birch "$work/missing.csv" > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "missing file: expected exit 2"
"$PARAC" birch "$work/p.npy" --threshold -1 > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "negative threshold: expected exit 2"
"$PARAC" birch "$work/p.npy" --branching-factor 1 > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "branching 1: an absurd value is bad input, expected exit 2"
err=$("$PARAC" birch "$work/p.npy" --threshold 100 --n-clusters 5 2>&1 >/dev/null) || fail "too few subclusters should still succeed"
echo "$err" | grep -q "warning" || fail "no warning for fewer subclusters than clusters"
exit $failed
