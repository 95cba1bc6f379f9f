#!/usr/bin/env python3
"""bench/compare_ace.py — parac's arc consistency against ACE's root propagation, value by value.

For each XCSP3 instance it runs
  * ACE (the solver pycsp3 ships, pycsp3/solvers/ace/ACE-*.jar) with `-search=false -rap`:
    preprocessing only (ACE's root propagation: AC, with its own propagator per constraint), then
    "Domain State (removals after preprocessing)" lists the values each variable lost; a second
    run with -v=2 gives each variable's domain as loaded;
  * `parac ac FILE --domains OUT --json`: the values left by parac (GAC, or the documented strength).
It fails when parac keeps a value ACE removes (or ACE wipes out and parac does not): ACE's removals
are sound, and on the constraints where ACE's propagator is exact they are the GAC closure, which
parac must reach. Values parac removes and ACE keeps are counted ("parac removes more"): that is
fine where parac is exact and ACE is not (ACE reports such constraints as nNotAC).

usage: compare_ace.py --parac PATH --ace JAR [--markdown] [--jobs N] FILE.xml...
Prints one line per instance (a Markdown table with --markdown); exits 1 on any value parac keeps
that ACE removes, 2 when a tool fails.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

VARIABLE_LINE = re.compile(r"^Variable (\S+) with num=\d+, degree=\d+, (\d+) values \{([^}]*)\}", re.M)
REMOVAL_LINE = re.compile(r"^\s+(\S+) : #(\d+) --> (.*)$")


def parse_values(text):
    """ACE's compact value list ("0..2 5 7..8") as a set of integers."""
    values = set()
    for token in text.split():
        if ".." in token:
            low, high = token.split("..")
            values.update(range(int(low), int(high) + 1))
        else:
            values.add(int(token))
    return values


def ace_output(jar, path, timeout, verbosity):
    # a short-lived JVM: the client compiler only and the serial collector start fastest
    command = ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar, path, "-search=false", "-rap", "-npc=true", f"-v={verbosity}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    # ACE colours its output with ANSI escapes unless told otherwise; strip them.
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)


def run_ace(jar, path, timeout):
    """Two runs: -v=2 lists each variable with its domain after loading (ACE may already have
    reduced it then) before it describes the constraints (where it may stop with an error), -v=1 runs
    the preprocessing and lists the removals since the file's domain. ACE's domain after its root
    propagation is the first less the second."""
    loaded, removed, not_ac, unsat, in_state = {}, {}, 0, False, False
    out = ace_output(jar, path, timeout, 2)
    if "Problem when parsing" in out:
        return "its parser refuses the file"  # e.g. forms.xml's mixed <occurs>: nothing to compare
    if "! ERROR" in out and not VARIABLE_LINE.search(out):
        return "it stops with an error while loading: " + out[out.index("! ERROR"):].splitlines()[0][:100]
    for line in out.splitlines():
        match = VARIABLE_LINE.match(line)
        if match and not match.group(1).startswith("_ax"):
            loaded[match.group(1)] = parse_values(match.group(3))
            if len(loaded[match.group(1)]) != int(match.group(2)):
                raise RuntimeError(f"{path}: ACE's domain of {match.group(1)} is cut: {line!r}")
    if not loaded:
        raise RuntimeError(f"{path}: ACE printed no variables: {out[-400:]}")
    out = ace_output(jar, path, timeout, 1)
    if "Domain State" not in out:
        raise RuntimeError(f"{path}: ACE did not finish its preprocessing: {out[-400:]}")
    for line in out.splitlines():
        if "nNotAC:" in line:
            not_ac = int(re.search(r"nNotAC:(\d+)", line).group(1))
        if re.search(r"\bunsat:true\b", line) or line.startswith("s UNSATISFIABLE"):
            unsat = True
        if "Domain State" in line:
            in_state = True
            continue
        if in_state:
            match = REMOVAL_LINE.match(line)
            if match and match.group(1).startswith("_ax"):
                continue  # ACE's own auxiliary variables (not compared; their counts do not always match)
            if match:
                values = parse_values(match.group(3))
                if len(values) != int(match.group(2)):
                    raise RuntimeError(f"{path}: ACE's removal line for {match.group(1)} is cut: {line!r}")
                removed[match.group(1)] = values
            elif line.strip():
                in_state = False
    return {"loaded": loaded, "removed": removed, "not_ac": not_ac, "unsat": unsat}


def run_parac(parac, path, timeout):
    with tempfile.TemporaryDirectory() as folder:
        domains_path = os.path.join(folder, "domains.json")
        done = subprocess.run([parac, "ac", path, "--domains", domains_path, "--json"], capture_output=True,
                              text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{path}: parac ac exit {done.returncode}: {done.stderr.strip()[-400:]}")
        summary = json.loads(done.stdout.strip().splitlines()[-1])
        with open(domains_path) as f:
            domains = {name: set(values) for name, values in json.load(f).items()}
    return {"domains": domains, "summary": summary}


def compare(ace, parac):
    """Counts over the variables both know (ACE's own auxiliary variables are left out)."""
    kept_removed, extra, ace_removes, parac_removes, values = [], 0, 0, 0, 0
    for name, remaining in parac["domains"].items():
        if name not in ace["loaded"]:
            continue
        loaded, removed_by_ace = ace["loaded"][name], ace["removed"].get(name, set())
        initial = loaded | removed_by_ace  # the file's domain (as far as the two runs show it)
        ace_left = set() if ace["unsat"] else loaded - removed_by_ace
        values += len(initial)
        ace_removes += len(initial) - len(ace_left)
        parac_removes += len(initial - remaining)
        kept = remaining - ace_left
        if kept:
            kept_removed.append((name, sorted(kept)[:5]))
        else:
            extra += len(ace_left - remaining)
    return {"values": values, "ace_removes": ace_removes, "parac_removes": parac_removes, "extra": extra,
            "kept_removed": kept_removed}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parac", required=True)
    parser.add_argument("--ace", required=True, help="ACE's jar")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--jobs", type=int, default=2, help="instances compared at once")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    failures, rows = 0, []

    def run_both(path):
        try:
            return run_ace(args.ace, path, args.timeout), run_parac(args.parac, path, args.timeout), None
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as problem:
            return None, None, problem

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run_both, args.files))
    for path, (ace, parac, problem) in zip(args.files, results):
        name = os.path.basename(path)
        if problem:
            print(f"ERROR {name}: {problem}", file=sys.stderr)
            return 2
        if isinstance(ace, str):
            print(f"{name}: ACE cannot read it ({ace}): not compared", file=sys.stderr)
            rows.append((name,) + ("-",) * 4 + (parac["summary"]["removed"],
                                                "yes" if parac["summary"]["wipeout"] else "no", "-", "-",
                                                "ACE cannot load the file"))
            continue
        result = compare(ace, parac)
        consistency = ",".join(f"{k}:{v}" for k, v in parac["summary"]["consistency"].items() if v != "gac")
        rows.append((name, result["values"], result["ace_removes"], ace["not_ac"], "yes" if ace["unsat"] else "no",
                     result["parac_removes"], "yes" if parac["summary"]["wipeout"] else "no",
                     len(result["kept_removed"]), result["extra"], consistency or "all gac"))
        if result["kept_removed"]:
            failures += 1
            for variable, values in result["kept_removed"]:
                print(f"KEPT {name}: parac keeps {variable} = {values} that ACE removes", file=sys.stderr)
    header = ("instance", "values", "ACE removes", "ACE nNotAC", "ACE wipe-out", "parac removes", "parac wipe-out",
              "variables where parac keeps an ACE removal", "values parac removes more", "parac below gac")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(str(cell) for cell in row) + " |")
    else:
        print("\t".join(header))
        for row in rows:
            print("\t".join(str(cell) for cell in row))
    print(f"{len(rows)} instances, {failures} where parac keeps a value ACE removes", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
