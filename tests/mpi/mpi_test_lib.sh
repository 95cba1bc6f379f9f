# tests/mpi/mpi_test_lib.sh — sourced by every tests/mpi/test_mpi_*.sh (not a test itself): the skip rules,
# a scratch folder, failure counting and one `mpi` runner with a time limit.
#   MPI_TEST_LIMIT  seconds one mpirun may take (default 120): a hang is a failure, not a stuck CI
#   MPI_TEST_NEEDS  "python3" and/or "gpu": skip (77) without them too
: "${PARAC:?PARAC must name the parac binary}"
mpi_cli="$(dirname "$PARAC")/parac-mpi"
if [[ ! -x "$mpi_cli" ]] || ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIP: parac-mpi was not built (no MPI found: apt-get install libopenmpi-dev openmpi-bin)"
  exit 77
fi
if [[ " ${MPI_TEST_NEEDS:-} " == *" python3 "* ]] && ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is needed to write or compare the test's data"
  exit 77
fi
if [[ " ${MPI_TEST_NEEDS:-} " == *" gpu "* ]] && ! "$PARAC" devices --json | grep -q '"ordinal"'; then
  echo "SKIP: no GPU"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# mpirun as root (CI containers) needs both variables; only the tests' runs get them. Oversubscribed
# ranks yield when idle, and Open MPI's own allocations are not freed at MPI_Finalize: no leak check in
# parac-mpi's runs (an AddressSanitizer build; parac's own runs keep it).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
hung=0
mpi() { # ranks command args...: sets hung when the run reached the limit
  local ranks=$1 started=$SECONDS code limit=${MPI_TEST_LIMIT:-120}; shift
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout -k 5 "$limit" mpirun --oversubscribe --bind-to none \
    -n "$ranks" "$@"
  code=$?
  hung=$((SECONDS - started >= limit))
  return $code
}
