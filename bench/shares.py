#!/usr/bin/env python3
"""Instruction counts of one run under callgrind, and the shares of named functions:

    bench/shares.py OUTFILE PATTERN [PATTERN ...] -- CMD [ARGS...]

Runs CMD under `valgrind --tool=callgrind` (its output discarded; the profile written to
OUTFILE), then prints one line: the run's total instructions, then for each PATTERN the
inclusive instructions of the function whose name contains it (the largest figure where
several do: the outermost of them, when one calls the others). A PATTERN may name several
alternatives, `a|b` (a function the compiler inlined into its caller has no figure of its own).
Instruction counts do not move with the machine's load, which timings on a shared machine do:
a share read this way is the same on every run.
"""
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    split = args.index("--")
    out, patterns, cmd = args[0], args[1:split], args[split + 1 :]
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    total = None
    inclusive = {}
    report = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", out],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in report.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
            continue
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+[^:\s]*:(.*?)(?:\s+\[.*\])?$", line)
        if m:
            name = m.group(2)
            inclusive[name] = max(inclusive.get(name, 0), int(m.group(1).replace(",", "")))
    figures = [str(total or 0)]
    for pattern in patterns:
        alternatives = pattern.split("|")
        found = (v for n, v in inclusive.items() if any(a in n for a in alternatives))
        figures.append(str(max(found, default=0)))
    print(" ".join(figures))


if __name__ == "__main__":
    main()
