#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan + coverage, build-fuzz/) and runs each one for
# FUZZ_SECONDS (default 60), then prints one line per target: executions, coverage, crashes.
#   make fuzz FUZZ_SECONDS=60            all targets        FUZZ_FILTER=regex   only matching names
#   FUZZ_BUILD=dir                       build directory (default build-fuzz)
# Seeds are read from fuzz/corpus/<name>/ and tests/regress/<name>/ and never written: new corpus
# entries go to a scratch folder ($FUZZ_WORK, default build-fuzz/work/<name>/corpus) and crash, timeout,
# leak and out-of-memory reproducers to build-fuzz/work/<name>/artifacts/. Exits 1 when any target
# found one (copy it into tests/regress/<name>/, fix the reader, commit both), 2 when the build fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build-fuzz}
work=${FUZZ_WORK:-$build/work}
cc=${FUZZ_CC:-clang}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# libomp's worker threads would otherwise spin between the parallel regions of one input.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

if ! compgen -G "fuzz/fuzz_*.c" > /dev/null; then
  echo "fuzz: no fuzz/fuzz_*.c targets in this tree: nothing to fuzz"; exit 0
fi
if ! command -v "$cc" > /dev/null 2>&1; then
  echo "fuzz: $cc not found (libFuzzer needs clang: apt-get install clang libomp-dev)" >&2; exit 2
fi
mkdir -p "$build"
if ! CC=$cc CXX=${cc/clang/clang++} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DPARAC_CUDA=OFF \
       -DPARAC_FUZZ=ON -DBUILD_SHARED_LIBS=OFF -DCMAKE_C_FLAGS_DEBUG="-O1 -g" > "$build/configure.log" 2>&1; then
  tail -30 "$build/configure.log"; exit 2
fi
if ! cmake --build "$build" --target fuzz_all -j "${JOBS:-$(nproc)}" > "$build/build.log" 2>&1; then
  grep -E "error|Error" "$build/build.log" | head -40; exit 2
fi

failed=0 targets=0
printf '%-12s %8s %12s %8s %8s %7s  %s\n' target seconds executions cov ft crashes result
for binary in "$build"/fuzz/fuzz_*; do
  [[ -x "$binary" && -f "$binary" ]] || continue
  target=$(basename "$binary"); name=${target#fuzz_}
  [[ "$name" == replay_* ]] && continue
  [[ -n "${FUZZ_FILTER:-}" && ! "$name" =~ $FUZZ_FILTER ]] && continue
  targets=$((targets + 1))
  scratch="$work/$name/corpus" artifacts="$work/$name/artifacts"
  rm -rf "$artifacts"; mkdir -p "$scratch" "$artifacts"
  seeds=(fuzz/corpus/"$name")
  [[ -d tests/regress/$name ]] && seeds+=(tests/regress/"$name")
  log="$work/$name/fuzz.log"
  "$binary" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 \
            -artifact_prefix="$artifacts/" "$scratch" "${seeds[@]}" > "$log" 2>&1
  code=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -oE '(DONE|INITED|NEW|REDUCE|pulse|RELOAD) +cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  ft=$(grep -oE ' ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  crashes=$(find "$artifacts" -type f | wc -l)
  result=ok
  if ((code != 0 || crashes > 0)); then
    result="FAILED (exit $code): $(grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error|SUMMARY' "$log" | cut -c1-120)"
    failed=$((failed + 1))
  fi
  printf '%-12s %8s %12s %8s %8s %7s  %s\n' "$name" "$seconds" "${executions:-?}" "${cov:-?}" "${ft:-?}" "$crashes" "$result"
  if [[ $result != ok ]]; then
    find "$artifacts" -type f | sed 's/^/    reproducer: /'
    echo "    log: $log"
  fi
done
if ((targets == 0)); then
  echo "fuzz: no fuzz targets built (fuzz/fuzz_*.c${FUZZ_FILTER:+ matching $FUZZ_FILTER})" >&2; exit 2
fi
echo "fuzz: $targets target(s), $failed failed"
((failed == 0))
