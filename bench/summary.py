#!/usr/bin/env python3
"""The one summary every bench/ script prints: for each case, the conditions every tool ran under,
then each tool's median and spread (min-max) over the runs, and storebench's ratio to each peer: the
ratio of the medians, with the range of the per-run ratios (run i of storebench against run i of the
peer, the runs interleaved so that both saw the same machine).

usage: summary.py RESULTS [REFERENCE_TOOL]
RESULTS holds tab-separated lines: case, conditions, metric, tool, run, value. A metric's name ends
in "(higher)" or "(lower)", which says which way is better; it is printed as given.
"""
import collections
import statistics
import sys


def fmt(v):
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def main():
    path = sys.argv[1]
    ref = sys.argv[2] if len(sys.argv) > 2 else "storebench"
    cases = collections.OrderedDict()
    for line in open(path):
        if not line.strip():
            continue
        case, cond, metric, tool, run, value = line.rstrip("\n").split("\t")
        c = cases.setdefault(case, {"cond": cond, "metrics": collections.OrderedDict()})
        c["metrics"].setdefault(metric, collections.OrderedDict()).setdefault(tool, {})[run] = float(value)
    for case, c in cases.items():
        print(f"\n{case}\n  same for every tool: {c['cond']}")
        for metric, tools in c["metrics"].items():
            runs = max(len(v) for v in tools.values())
            print(f"  {metric}, median (min-max) of {runs} run(s):")
            order = sorted(tools, key=lambda t: t != ref)
            for tool in order:
                vals = list(tools[tool].values())
                print(f"    {tool:<22} {fmt(statistics.median(vals)):>10}  ({fmt(min(vals))}-{fmt(max(vals))})")
            mine = tools.get(ref)
            if not mine:
                continue
            for tool, by_run in tools.items():
                if tool == ref:
                    continue
                paired = [mine[r] / by_run[r] for r in mine if r in by_run and by_run[r] > 0]
                peer = statistics.median(by_run.values())
                if not paired or peer <= 0:
                    continue
                ratio = statistics.median(mine.values()) / peer
                print(
                    f"    {ref} / {tool}: {ratio:.2f}x (per-run ratios {min(paired):.2f}-{max(paired):.2f})"
                )


if __name__ == "__main__":
    main()
