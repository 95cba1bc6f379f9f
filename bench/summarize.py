#!/usr/bin/env python3
"""Prints the short table of a benchmark run from its JSON lines (results.jsonl)."""
import json
import sys


def main(path):
    rows = []
    with open(path) as lines:
        for line in lines:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    print()
    print(f"{'module':<8} {'case':<44} {'device':<6} {'thr':>4} {'seconds':>10}  figure of merit")
    for r in rows:
        print(f"{r.get('module',''):<8} {r.get('case','')[:44]:<44} {r.get('device',''):<6} "
              f"{r.get('threads',0):>4} {r.get('seconds',0):>10.4f}  "
              f"{r.get('value',0):.4g} {r.get('unit','')} {r.get('metric','')}")
    print(f"{len(rows)} measurements")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/bench/results.jsonl")
