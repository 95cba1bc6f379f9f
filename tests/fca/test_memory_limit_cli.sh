#!/usr/bin/env bash
# tests/fca/test_memory_limit_cli.sh — the default host budget of `parac fca` follows the memory the
# process may use (core/memory_limit.c), not the machine's: under `ulimit -v 300000` a wide sparse
# context (12,000 transactions over 60,000 items: 27,468 concepts of 7.5 KB of intent each, 206 MB) is written
# byte for byte as without the limit, spilling to disk; it used to fail with "out of host memory"
# (a budget of a quarter of physical memory, while the address space ended at 300 MB).
set -u
PARAC=${PARAC:-./parac}
dir=$(mktemp -d /tmp/parac-fca-limit.XXXXXX)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! (ulimit -v 300000 && "$PARAC" --version > /dev/null 2>&1); then
  # AddressSanitizer reserves terabytes of address space at start: no sanitizer build runs under -v
  echo "fca.memory_limit_cli: this build of parac cannot start under ulimit -v (a sanitizer build?): skipped"
  exit 77
fi
"$PARAC" gen context --objects 12000 --attributes 60000 --density 0.0000834 --seed 3 -o "$dir/wide.dat" ||
  fail "gen context"
"$PARAC" fca "$dir/wide.dat" --device cpu -q -o "$dir/unlimited.txt" || fail "fca without a limit"
for threads in 1 2; do
  if (ulimit -v 300000 && "$PARAC" fca "$dir/wide.dat" --device cpu --threads $threads -q -o "$dir/limited.txt" \
        2> "$dir/stderr"); then
    cmp -s "$dir/unlimited.txt" "$dir/limited.txt" || fail "$threads threads: the output under ulimit -v differs"
  else
    fail "$threads threads: fca under ulimit -v 300000 failed: $(head -c 300 "$dir/stderr")"
  fi
done
lines=$(wc -l < "$dir/unlimited.txt")
counted=$("$PARAC" fca "$dir/wide.dat" --device cpu -q --count)
[[ $lines == "$counted" && $counted -gt 20000 ]] || fail "$lines concepts written, $counted counted"
echo "fca.memory_limit_cli: $failures failures"
(( failures == 0 ))
