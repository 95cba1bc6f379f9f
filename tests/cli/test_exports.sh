#!/usr/bin/env bash
# The shared libparac exports its public API and nothing else (cmake/parac_exports.cmake): every
# defined dynamic symbol starts with parac_ and is a function the public headers declare, and
# every such function is exported.
set -euo pipefail
lib="$PARAC_BUILD/libparac.so"
[[ -e "$lib" ]] || { echo "skip: no shared libparac in $PARAC_BUILD (BUILD_SHARED_LIBS=OFF)"; exit 77; }
command -v nm > /dev/null || { echo "skip: nm not found"; exit 77; }
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
leaked=$(grep -v '^parac_' <<< "$exported" || true)
if [[ -n "$leaked" ]]; then
  echo "FAIL: $(wc -l <<< "$leaked") non-parac_ symbols exported, e.g.:"; head -20 <<< "$leaked"; exit 1
fi
# Functions declared in the public headers: "parac_name(" at the start of a declaration.
declared=$(cat "$PARAC_SOURCE"/include/parac/*.h "$PARAC_BUILD"/generated/parac/version.h |
           grep -oE '^[A-Za-z_][A-Za-z0-9_ \*]*[ \*]parac_[a-z0-9_]+\(' | grep -oE 'parac_[a-z0-9_]+\($' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [[ -n "$missing" ]]; then
  echo "FAIL: declared in include/parac but not exported:"; echo "$missing"; exit 1
fi
internal=$(comm -13 <(echo "$declared") <(echo "$exported"))
if [[ -n "$internal" ]]; then
  echo "FAIL: exported but not declared in include/parac (internal functions):"; head -20 <<< "$internal"; exit 1
fi
echo "exports: the $(wc -l <<< "$declared") functions of include/parac/, nothing else; 1 passed, 0 failed"
