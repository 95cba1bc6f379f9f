#!/usr/bin/env bash
# tests/mpi/test_mpi_text_input.sh — `parac-mpi dbscan` and `parac-mpi birch` read CSV/text points in
# parallel (mpi/text_block.c: each rank parses its byte range) and give `parac`'s bytes: on 1..4 ranks,
# dbscan's labels and core mask equal `parac dbscan`'s on the same file and on the .npy of the same
# values; birch on 1 rank equals `parac birch`, on 3 ranks parac-mpi on the .npy (the partition follows
# the ranks, not the format). Inputs (make_text_points.py): a header, a BOM with CRLF, blank and comment
# lines, very long lines, lines falling exactly on range boundaries, a header behind a long comment block,
# no final newline, fewer lines than ranks, an empty file, a header alone, .gz; bad files give the single
# process's message (global line and column) once, with its exit code. Skipped (77) without parac-mpi.
set -u
MPI_TEST_NEEDS="python3"
# shellcheck source=tests/mpi/mpi_test_lib.sh
source "$(dirname "$0")/mpi_test_lib.sh"

python3 "$here/make_text_points.py" "$tmp" || { echo "FAIL: make_text_points.py"; exit 1; }
gzip -c "$tmp/plain.csv" >"$tmp/plain.csv.gz"
cp "$tmp/plain.csv.npy" "$tmp/plain.csv.gz.npy"

dbscan_args=(--eps 0.45 --min-samples 5 --threads 1 -q)
compare_dbscan() { # name [ranks...]: FILE against parac dbscan on FILE and on FILE.npy
  local name=$1 file="$tmp/$1"; shift
  "$PARAC" dbscan "$file" "${dbscan_args[@]}" -o "$tmp/ref.txt" --core-mask "$tmp/refcore.txt" ||
    { fail "$name: parac dbscan failed"; return; }
  if [[ -e "$file.npy" ]]; then
    "$PARAC" dbscan "$file.npy" "${dbscan_args[@]}" -o "$tmp/npy.txt" || fail "$name: parac dbscan on the .npy failed"
    cmp -s "$tmp/ref.txt" "$tmp/npy.txt" || fail "$name: the .npy of the same values gives other labels"
  fi
  for ranks in "${@:-1 2 3 4}"; do
    rm -f "$tmp/out.txt" "$tmp/core.txt"
    mpi "$ranks" "$mpi_cli" dbscan "$file" "${dbscan_args[@]}" -o "$tmp/out.txt" --core-mask "$tmp/core.txt" \
      >"$tmp/log" 2>&1 || { fail "$name, $ranks ranks: exit $?: $(tail -3 "$tmp/log")"; continue; }
    cmp -s "$tmp/ref.txt" "$tmp/out.txt" || fail "$name, $ranks ranks: labels differ from parac dbscan"
    cmp -s "$tmp/refcore.txt" "$tmp/core.txt" || fail "$name, $ranks ranks: core mask differs"
  done
}
compare_dbscan plain.csv 1 2 3 4
compare_dbscan header_bom_crlf.csv 2 4
compare_dbscan long_lines.txt 2 4
compare_dbscan exact.csv 2 3 4        # every boundary r*size/R is a line start
compare_dbscan lead_comments.csv 2 4  # the header is the first content line of rank 1 (2 ranks), 3 (4 ranks)
compare_dbscan no_newline.csv 3
compare_dbscan few.csv 4
compare_dbscan header_only.csv 4
compare_dbscan plain.csv.gz 3

birch_args=(--threshold 0.5 --n-clusters 4 --threads 1)
compare_birch() { # name: 1 rank against parac birch, 3 ranks against parac-mpi on FILE.npy
  local name=$1 file="$tmp/$1"
  "$PARAC" birch "$file" "${birch_args[@]}" -o "$tmp/ref.txt" --centers "$tmp/refc.csv" >/dev/null ||
    { fail "$name: parac birch failed"; return; }
  for ranks in 1 3; do
    rm -f "$tmp/out.txt" "$tmp/c.csv"
    mpi "$ranks" "$mpi_cli" birch "$file" "${birch_args[@]}" -o "$tmp/out.txt" --centers "$tmp/c.csv" \
      >"$tmp/log" 2>&1 || { fail "birch $name, $ranks ranks: exit $?: $(tail -3 "$tmp/log")"; continue; }
    if [[ $ranks != 1 ]]; then
      mpi "$ranks" "$mpi_cli" birch "$file.npy" "${birch_args[@]}" -o "$tmp/ref.txt" --centers "$tmp/refc.csv" \
        >"$tmp/log" 2>&1 || { fail "birch $name.npy, $ranks ranks: exit $?: $(tail -3 "$tmp/log")"; continue; }
    fi
    cmp -s "$tmp/ref.txt" "$tmp/out.txt" || fail "birch $name, $ranks ranks: labels differ"
    cmp -s "$tmp/refc.csv" "$tmp/c.csv" || fail "birch $name, $ranks ranks: centres differ"
  done
}
compare_birch plain.csv
compare_birch header_bom_crlf.csv
compare_birch plain.csv.gz

# Bad input: the single process's error line, exit code and nothing else, from 4 (and 3) ranks.
expect_same_failure() { # command name ranks [args...]
  local command=$1 name=$2 ranks=$3; shift 3
  "$PARAC" "$command" "$tmp/$name" "$@" >/dev/null 2>"$tmp/ref.err"
  local expected=$?
  [[ $expected != 0 ]] || { fail "$command $name: parac should fail"; return; }
  mpi "$ranks" "$mpi_cli" "$command" "$tmp/$name" "$@" >/dev/null 2>"$tmp/err"
  local code=$?
  [[ $code == "$expected" ]] || fail "$command $name, $ranks ranks: exit $code, parac's is $expected"
  local message; message=$(grep "parac: error" "$tmp/ref.err")
  [[ $(grep -c "error" "$tmp/err") == 1 ]] || fail "$command $name, $ranks ranks: one error line expected: $(cat "$tmp/err")"
  grep -qxF -- "$message" "$tmp/err" || fail "$command $name, $ranks ranks: '$message' expected, got: $(head -3 "$tmp/err")"
}
expect_same_failure dbscan bad_rank3.csv 4 --eps 1 --min-samples 2
expect_same_failure dbscan bad_rank3.csv 3 --eps 1 --min-samples 2
expect_same_failure dbscan bad_rank2.csv 4 --eps 1 --min-samples 2
expect_same_failure dbscan ragged.csv 4 --eps 1 --min-samples 2
expect_same_failure dbscan empty.csv 3 --eps 1 --min-samples 2
expect_same_failure birch bad_rank2.csv 4
expect_same_failure birch empty.csv 2
expect_same_failure birch header_only.csv 4
expect_same_failure dbscan missing.csv 2 --eps 1 --min-samples 2
# The messages name the global line (what the single process says, checked above, is that line).
grep -q "bad_rank3.csv:330: column 2: '1.5e' is not a number" "$tmp/ref.err" 2>/dev/null ||
  "$PARAC" dbscan "$tmp/bad_rank3.csv" --eps 1 --min-samples 2 2>&1 | grep -q "bad_rank3.csv:330: column 2: '1.5e' is not a number" ||
  fail "parac's own message for bad_rank3.csv changed: $("$PARAC" dbscan "$tmp/bad_rank3.csv" --eps 1 --min-samples 2 2>&1)"

if ((failures)); then echo "$failures failure(s)"; exit 1; fi
echo "ok: parac-mpi reads text inputs in parallel with parac's bytes and errors"
