#!/bin/bash
# tests/cli/test_device_reason.sh — --json says which device each module ran on and why
# ("device_reason"), and --device auto keeps a small run on the CPU on any machine (the GPU's
# start-up alone costs more than these runs: core/device_choice.c).
set -u
PARAC=${PARAC:-./parac}
TMP=$(mktemp -d /tmp/parac-reason-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

check() { # NAME EXPECTED_DEVICE REASON_PREFIX ARGS...
    local name=$1 device=$2 prefix=$3; shift 3
    if ! "$PARAC" "$@" --json -q >"$TMP/out" 2>"$TMP/err"; then
        fail "$name: parac $* failed: $(head -c 300 "$TMP/err")"; return
    fi
    local last; last=$(tail -n 1 "$TMP/out")
    [[ "$last" == *"\"device\":\"$device\""* ]] || fail "$name: device not $device: $last"
    [[ "$last" == *"\"device_reason\":\"$prefix"* ]] || fail "$name: reason not '$prefix...': $last"
}

"$PARAC" gen points --n 2000 --dim 2 --kind blobs --seed 1 -o "$TMP/points.npy" -q || fail "gen points"
"$PARAC" gen csp --vars 30 --dom 8 --constraints 60 --seed 2 -o "$TMP/net.xml" -q || fail "gen csp"
printf '1 2 3\n2 3\n1 3\n4\n' >"$TMP/context.dat"
# A build without CUDA says so; a CUDA build shows the model's two estimates (fca: its CPU search ended
# before there was progress to decide on, fca/device_handover.h).
if "$PARAC" devices --json | grep -q '"built_with_cuda":true'; then
    AUTO="auto: estimated cpu"; AUTO_BIRCH="auto: birch work unknown"; AUTO_FCA="auto: the cpu search ended in"
else
    AUTO="auto: parac was built without CUDA"; AUTO_BIRCH=$AUTO; AUTO_FCA=$AUTO
fi

check "dbscan auto" cpu "$AUTO" dbscan "$TMP/points.npy" --eps 0.3 --min-samples 5
check "dbscan cpu" cpu "requested: --device cpu" dbscan "$TMP/points.npy" --eps 0.3 --min-samples 5 --device cpu
check "birch auto" cpu "$AUTO_BIRCH" birch "$TMP/points.npy"
check "fca auto" cpu "$AUTO_FCA" fca "$TMP/context.dat" --count
check "gemm auto" cpu "$AUTO" gemm --m 64 --n 64 --k 64
check "ac auto" cpu "$AUTO" ac "$TMP/net.xml"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "cli.device_reason: all passed"
