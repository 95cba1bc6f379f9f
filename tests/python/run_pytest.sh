#!/usr/bin/env bash
# ctest python.pytest: `pip install .` of this repository into a fresh venv in the build directory,
# then pytest tests/python/ with that venv. The venv sees the system's site-packages (numpy,
# scikit-learn, pytest, scikit-build-core when installed), so no download is needed where they are
# present; the CMake build directory is kept between runs ($PARAC_BUILD/python-build).
set -euo pipefail
skip() {
  if [[ -n "${CI:-}" ]]; then echo "FAIL: $1 (CI is set: the Python package must be tested)"; exit 1; fi
  echo "skip: $1"; exit 77
}
python=${PARAC_PYTHON:-python3}
command -v "$python" > /dev/null || skip "no $python"
venv="$PARAC_BUILD/python-venv"
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv" > /dev/null 2>&1 || skip "$python -m venv is unavailable"
"$venv/bin/python" -m pip --version > /dev/null 2>&1 || skip "pip is unavailable in a venv"

# The build's CUDA choice, when a GPU is here to run the CUDA tests; without one, compiling every kernel
# a second time would only repeat what the main build proved (and take many minutes), so the package
# is built CPU-only. PARAC_PYTEST_CUDA=ON/OFF overrides.
cuda=OFF
if [[ "${PARAC_HAVE_CUDA:-OFF}" == "ON" ]] && nvidia-smi -L > /dev/null 2>&1; then cuda=ON; fi
cuda=${PARAC_PYTEST_CUDA:-$cuda}
pip_args=(--quiet --disable-pip-version-check -C "build-dir=$PARAC_BUILD/python-build"
          -C "cmake.define.PARAC_CUDA=$cuda")
# Without network access a build-isolated install cannot fetch scikit-build-core: use the
# system's copy when it has one.
if "$venv/bin/python" -c "import scikit_build_core" 2> /dev/null; then
  pip_args+=(--no-build-isolation)
fi
echo "== pip install $PARAC_SOURCE[test] (PARAC_CUDA=$cuda)"
"$venv/bin/python" -m pip install "${pip_args[@]}" "$PARAC_SOURCE[test]"
cd "$PARAC_BUILD"
echo "== pytest"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$PARAC_SOURCE/tests/python"
