#!/usr/bin/env python3
"""Runs ctest tests under a checking tool (compute-sanitizer), --jobs at a time, for scripts/gpu-check.

ctest cannot put a wrapper in front of a test's command, so this reads the tests' commands,
environments and working directories from `ctest --show-only=json-v1` and runs each itself:

    sanitize_tests.py BUILD_DIR --label gpu [--filter REGEX] [--exclude REGEX] --tool memcheck -- compute-sanitizer ARGS...

The tool's own arguments follow `--`; `--tool NAME` only names the pass in the summary. A test
passes when the wrapped command exits 0, is skipped on 77 (no GPU), and fails otherwise (the
sanitizer's --error-exitcode, the test's own failure, or the time limit). One line per test and a
summary line go to stdout; the whole output of each run to LOG_DIR/<tool>-<test>.log. Exit status:
1 when any test failed, else 0.
"""
import argparse
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import time


def load_tests(build, label, pattern, exclude):
    listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    chosen = []
    for test in json.loads(listing.stdout)["tests"]:
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = properties.get("LABELS", [])
        if label and label not in labels:
            continue
        if pattern and not re.search(pattern, test["name"]):
            continue
        if exclude and re.search(exclude, test["name"]):
            continue
        chosen.append((test["name"], test["command"], properties))
    return chosen


def run_one(name, command, properties, wrapper, timeout, log_path):
    environment = dict(os.environ)
    # The tests' quick mode (tests/test_util.h test_quick): same checks, fewer and smaller cases.
    environment.setdefault("PARAC_TEST_QUICK", "1")
    for assignment in properties.get("ENVIRONMENT", []):
        key, _, value = assignment.partition("=")
        environment[key] = value
    started = time.time()
    with open(log_path, "w") as log:
        # Its own process group: at the time limit the tool AND the test it started are stopped. Killing
        # the tool alone left the test running (a device call found 4 such tests still at work, load 19.6).
        process = subprocess.Popen(wrapper + command, cwd=properties.get("WORKING_DIRECTORY"), env=environment,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = "timeout"
    seconds = time.time() - started
    with open(log_path, errors="replace") as log:
        text = log.read()
    errors = re.findall(r"ERROR SUMMARY: (\d+) error", text)
    return code, seconds, (errors[-1] if errors else "?")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--label", default="gpu")
    parser.add_argument("--filter", default="")
    parser.add_argument("--exclude", default="")
    parser.add_argument("--tool", required=True)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--log-dir", default=".")
    parser.add_argument("--jobs", type=int, default=1, help="tests run at once (each is its own process)")
    parser.add_argument("--fail-on-skip", action="store_true", help="a skipped test fails (a GPU is present)")
    arguments = sys.argv[1:]
    split = arguments.index("--") if "--" in arguments else len(arguments)
    args = parser.parse_args(arguments[:split])
    wrapper = arguments[split + 1:]
    if not wrapper:
        parser.error("the checking tool's command line follows --")
    tests = load_tests(args.build, args.label, args.filter, args.exclude)
    os.makedirs(args.log_dir, exist_ok=True)
    counts = {"passed": 0, "failed": 0, "skipped": 0}

    def check(test):
        name, command, properties = test
        log_path = os.path.join(args.log_dir, f"{args.tool}-{name}.log")
        return name, log_path, run_one(name, command, properties, wrapper, args.timeout, log_path)

    # Tests run side by side (one GPU serves several instrumented processes; the sanitizer's cost is
    # mostly on the host); each line is printed as its test ends.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, log_path, (code, seconds, errors) in (future.result() for future in
                                                         concurrent.futures.as_completed(
                                                             [pool.submit(check, test) for test in tests])):
            result = "passed" if code == 0 else "skipped" if code == 77 else "failed"
            counts[result] += 1
            print(f"{args.tool:10s} {name:32s} {result:8s} exit {code!s:8s} sanitizer errors {errors:>3s} "
                  f"{seconds:7.1f} s{'  log: ' + log_path if result == 'failed' else ''}", flush=True)
    print(f"{args.tool}: {len(tests)} tests, {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped")
    if not tests:
        print(f"{args.tool}: no tests matched label '{args.label}' and filter '{args.filter}'")
        return 1
    if args.fail_on_skip and counts["skipped"]:
        print(f"{args.tool}: {counts['skipped']} test(s) skipped although a GPU is present")
        return 1
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
