#!/usr/bin/env bash
# tests/ac/test_ace_compare.sh — parac's arc consistency against ACE's root propagation
# (bench/compare_ace.py) on every instance of tests/data/xcsp3 and on the larger pycsp3 models of
# make_instances.py --larger, compiled here: fails when parac keeps a value ACE removes.
# Needs java and pycsp3 (PyPI; its wheel ships ACE's jar), installed into a venv in the build
# directory as python.pytest does. Without them: skipped (77) with what is missing, or a failure
# when CI is set (CI=true or PARAC_REQUIRE_PYTHON=1), so CI never skips it silently.
set -u
PYCSP3_VERSION=2.6.1
source_dir=${PARAC_SOURCE:?}
build_dir=${PARAC_BUILD:?}
missing() {
  if [[ "${CI:-}" == true || "${PARAC_REQUIRE_PYTHON:-0}" == 1 ]]; then
    echo "FAIL: $1 (CI is set: the comparison with ACE must run)"; exit 1
  fi
  echo "skip: $1"; exit 77
}
command -v java > /dev/null 2>&1 || missing "no java (ACE needs Java 11 or later)"
command -v python3 > /dev/null 2>&1 || missing "no python3"
venv="$build_dir/pycsp3-venv"
# importing pycsp3 compiles the importing script at exit: find it without importing it
find_pycsp3='import importlib.util, os; s = importlib.util.find_spec("pycsp3"); print(os.path.dirname(s.origin) if s else "")'
if [[ -z "$("$venv/bin/python" -c "$find_pycsp3" 2> /dev/null)" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv" > /dev/null 2>&1 || missing "python3 -m venv is unavailable"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pycsp3==$PYCSP3_VERSION" \
    || missing "pip cannot install pycsp3==$PYCSP3_VERSION (no network or index?)"
fi
jar=$(ls "$("$venv/bin/python" -c "$find_pycsp3")"/solvers/ace/ACE-*.jar 2> /dev/null | tail -1)
[[ -n "$jar" ]] || missing "the pycsp3 wheel in $venv has no solvers/ace/ACE-*.jar"
larger="$build_dir/ace-compare"
rm -rf "$larger"
echo "== compiling the larger pycsp3 models into $larger"
"$venv/bin/python" "$source_dir/tests/data/xcsp3/make_instances.py" --larger "$larger" || { echo "FAIL: make_instances.py --larger"; exit 1; }
echo "== parac ($PARAC) against $(basename "$jar")"
python3 "$source_dir/bench/compare_ace.py" --parac "$PARAC" --ace "$jar" --markdown \
  "$source_dir"/tests/data/xcsp3/*.xml "$larger"/*.xml
