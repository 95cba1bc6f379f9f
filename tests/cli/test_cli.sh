#!/bin/bash
# tests/cli/test_cli.sh — the CLI framework: help, version, devices, usage errors, exit codes.
# $PARAC is the binary. Prints every failed expectation and exits 1 if any failed.
set -u
PARAC=${PARAC:-./parac}
TMP=$(mktemp -d /tmp/parac-cli-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run EXPECTED_EXIT ARGS...: runs parac, keeps stdout/stderr in $TMP/out, $TMP/err.
run() {
    local expected=$1; shift
    "$PARAC" "$@" >"$TMP/out" 2>"$TMP/err"
    local code=$?
    if [ "$code" -ne "$expected" ]; then
        fail "parac $* exited $code, expected $expected; stderr: $(head -c 300 "$TMP/err")"
    fi
    return 0
}
expect_in() { # FILE TEXT DESCRIPTION
    grep -qF -- "$2" "$1" || fail "$3: '$2' not in $(basename "$1"): $(head -c 300 "$1")"
}
one_line_error() { # the error is a single "parac: error: ..." line
    local lines; lines=$(wc -l <"$TMP/err")
    [ "$lines" -eq 1 ] || fail "$1: stderr has $lines lines, expected one: $(cat "$TMP/err")"
    expect_in "$TMP/err" "parac: error: " "$1"
}

# --help lists every command; no arguments prints the same help with exit 1.
run 0 --help
for command in fca lattice dbscan birch metrics gemm ac gen devices; do
    grep -qE "^  $command " "$TMP/out" || fail "--help does not list '$command'"
done
expect_in "$TMP/out" "--device auto|cpu|cuda" "--help common options"
expect_in "$TMP/out" "Exit codes" "--help exit codes"
run 0 -h
run 1
expect_in "$TMP/out" "usage: parac <command>" "bare parac"

# --version: "parac X.Y.Z (CPU only|with CUDA)".
run 0 --version
grep -qE '^parac [0-9]+\.[0-9]+\.[0-9]+ \((CPU only|with CUDA)\)$' "$TMP/out" || fail "--version: $(cat "$TMP/out")"

# devices, text and --json. Without a GPU both say so.
run 0 devices --json
json_line=$(tail -n 1 "$TMP/out")
python3 - "$json_line" <<'PY' || fail "devices --json is not the expected JSON: $json_line"
import json, sys
d = json.loads(sys.argv[1])
assert d["command"] == "devices", d
for key in ("device", "seconds", "threads", "built_with_cuda", "cpu_cores", "gpus"):
    assert key in d, key
assert isinstance(d["gpus"], list) and d["cpu_cores"] >= 1
assert d["device"] == ("cuda" if d["gpus"] else "cpu")
for g in d["gpus"]:
    assert g["total_memory_bytes"] >= g["free_memory_bytes"] > 0 and g["compute_major"] >= 5
PY
gpu_count=$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["gpus"]))' "$json_line" 2>/dev/null || echo 0)
run 0 devices
if [ "$gpu_count" -eq 0 ]; then
    expect_in "$TMP/out" "no GPU" "devices without a GPU"
    expect_in "$TMP/out" "runs on the CPU" "devices without a GPU"
else
    [ "$(grep -c '^cuda:' "$TMP/out")" -eq "$gpu_count" ] || fail "devices lists $(grep -c '^cuda:' "$TMP/out") GPUs, JSON says $gpu_count"
fi
run 0 devices --help
expect_in "$TMP/out" "usage: parac devices" "devices --help"
expect_in "$TMP/out" "--threads N" "devices --help lists common options"

# Usage errors: exit 1 with one clear line.
run 1 frobnicate
one_line_error "unknown command"
expect_in "$TMP/err" "unknown command 'frobnicate'" "unknown command"
run 1 devices --no-such-option
one_line_error "unknown option"
expect_in "$TMP/err" "unknown option '--no-such-option'" "unknown option"
run 1 devices -Z
one_line_error "unknown short option"
run 1 devices --threads
one_line_error "missing value"
expect_in "$TMP/err" "--threads needs a value" "missing value"
run 1 devices --threads abc
expect_in "$TMP/err" "--threads expects an integer, got 'abc'" "bad integer"
run 2 devices --threads=-2 # a well-formed number out of range: bad input
expect_in "$TMP/err" "--threads" "negative threads"
run 1 devices --seed 12x
expect_in "$TMP/err" "--seed expects an integer" "bad seed"
run 1 devices --device tpu
expect_in "$TMP/err" "--device must be auto, cpu or cuda, got 'tpu'" "bad device"
run 1 devices --json=yes
expect_in "$TMP/err" "--json takes no value" "flag with a value"
run 1 devices extra-argument
expect_in "$TMP/err" "unexpected argument 'extra-argument'" "extra positional"
run 0 devices --threads=3 --seed 7 --device=cpu -q
run 1 gen no-such-kind
one_line_error "unknown gen kind"

# --device cuda without a GPU: exit 3 with a clear message. Tried on the commands that
# resolve a device, once their module is built (placeholders answer "not built yet").
if [ "$gpu_count" -eq 0 ]; then
    printf '0,0\n0.1,0\n5,5\n5.1,5\n' >"$TMP/points.csv"
    tried=0
    try_cuda() { # ARGS...: a command line that would run on the device
        "$PARAC" "$@" >"$TMP/out" 2>"$TMP/err"
        local code=$?
        if grep -q "not built yet" "$TMP/err"; then return; fi
        tried=$((tried + 1))
        [ "$code" -eq 3 ] || fail "parac $* exited $code without a GPU, expected 3: $(cat "$TMP/err")"
        grep -qi "GPU" "$TMP/err" || fail "parac $*: message does not mention the GPU: $(cat "$TMP/err")"
        one_line_error "parac $*"
    }
    try_cuda dbscan "$TMP/points.csv" --eps 0.5 --min-samples 2 --device cuda
    try_cuda birch "$TMP/points.csv" --threshold 0.5 --device cuda
    echo "--device cuda checked on $tried built command(s); core.devices covers parac_exec_resolve_device"
fi

if [ "$failures" -ne 0 ]; then
    echo "cli.cli: $failures failure(s)"
    exit 1
fi
echo "cli.cli: all checks passed"
