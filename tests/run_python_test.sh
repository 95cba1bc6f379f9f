#!/usr/bin/env bash
# Runs one tests/*/test_*.py. Those scripts exit 77 ("skipped") when numpy, scipy or scikit-learn is
# missing, which is right on a user's machine but would hide a cross-check in CI: there (CI=true, or
# PARAC_REQUIRE_PYTHON=1 as .ci/run sets) a skip becomes a failure that names what is missing.
#   usage: run_python_test.sh PYTHON SCRIPT
python=$1 script=$2
if command -v "$python" > /dev/null 2>&1; then
  "$python" "$script"
  code=$?
else
  echo "no python3 (CMake found '$python'): skipped"
  code=77
fi
if [[ $code -eq 77 && ( "${CI:-}" == true || "${PARAC_REQUIRE_PYTHON:-0}" == 1 ) ]]; then
  missing=()
  for module in numpy scipy sklearn; do
    "$python" -c "import $module" > /dev/null 2>&1 || missing+=("$module")
  done
  echo "FAIL: $(basename "$script") skipped in CI (CI=${CI:-} PARAC_REQUIRE_PYTHON=${PARAC_REQUIRE_PYTHON:-}):" \
       "${missing[*]:-no module missing, see its message above} not importable by $python;" \
       "scripts/install-deps installs them" >&2
  exit 1
fi
exit "$code"
