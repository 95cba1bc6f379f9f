#!/usr/bin/env bash
# ThreadSanitizer over the CPU parallel paths: builds build-tsan (clang -fsanitize=thread, LLVM's
# OpenMP) and runs the tests labelled "tsan" (tests/CMakeLists.txt lists them), with the Archer OMPT
# tool loaded so that TSan sees OpenMP's barriers, tasks, locks and atomics as synchronisation.
# libgomp (gcc's OpenMP) is not TSan-aware and reports false races at its barriers: not used here.
# No suppression beyond scripts/lib/tsan.supp (one proved false positive, explained there).
#   TSAN_BUILD=dir (default build-tsan)   TSAN_THREADS=n (OMP_NUM_THREADS, default 4)
# Any race report fails its test (TSan's exit code 66). Exit: 0 clean, 1 a test failed, 2 no build.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${TSAN_BUILD:-$PWD/build-tsan}
cc=${TSAN_CC:-clang}
if ! command -v "$cc" > /dev/null 2>&1; then
  echo "tsan: $cc not found (apt-get install clang libomp-dev)" >&2; exit 2
fi
mkdir -p "$build"
if ! CC=$cc CXX=${cc/clang/clang++} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPARAC_CUDA=OFF \
       -DPARAC_TSAN=ON -DPARAC_WERROR=ON > "$build/configure.log" 2>&1; then
  tail -30 "$build/configure.log"; exit 2
fi
# Only the library and the tsan tests' programs (test <group>.<name> is target test_<group>_<name>).
targets=$(cd "$build" && ctest -N -L tsan | sed -n 's/^ *Test *#[0-9]*: \([a-z_]*\)\.\([a-z0-9_]*\)$/test_\1_\2/p')
if [[ -z "$targets" ]]; then
  echo "tsan: no tests labelled tsan" >&2; exit 2
fi
# shellcheck disable=SC2086
if ! cmake --build "$build" -j "${JOBS:-$(nproc)}" --target $targets > "$build/build.log" 2>&1; then
  grep -E "error|Error" "$build/build.log" | head -40; exit 2
fi
archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort -V | tail -1)
if [[ -z "$archer" ]]; then
  echo "tsan: libarcher.so (LLVM's OpenMP TSan tool, Debian libomp-dev) not found" >&2; exit 2
fi
export OMP_TOOL_LIBRARIES=$archer
export ARCHER_OPTIONS=${ARCHER_OPTIONS:-verbose=1}
# ignore_noninstrumented_modules: libomp itself is not instrumented; Archer asks for this so that
# its internal allocations and locks are not reported (races in parac code still are).
# tsan.supp: the one proved false positive of LLVM 14's Archer (task descriptor reuse), see there.
export TSAN_OPTIONS=${TSAN_OPTIONS:-ignore_noninstrumented_modules=1 suppressions=$PWD/scripts/lib/tsan.supp halt_on_error=0 second_deadlock_stack=1 history_size=4}
export OMP_NUM_THREADS=${TSAN_THREADS:-4}
echo "== TSan: $(echo "$targets" | wc -w) tests, OMP_NUM_THREADS=$OMP_NUM_THREADS, OMP tool $archer"
(cd "$build" && ctest -L tsan --output-on-failure -j "${JOBS:-$(nproc)}" --timeout "${TSAN_TIMEOUT:-900}")
