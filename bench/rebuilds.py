#!/usr/bin/env python3
"""Clean build, no-op rebuild and rebuild after an edit, measured in interleaved rounds:

    bench/rebuilds.py BIN PROJECT OUTPUT EDITED_FILE ROUNDS QUICK

Each round times one clean build (`--force`), then QUICK no-op rebuilds, then QUICK rebuilds
each after appending a paragraph to EDITED_FILE, then waits until the edited file is old
enough that the next round's no-op finds every stamp trusted (see incremental::RACY_SECS),
and runs one untimed no-op so that no timed run starts on a machine idle for seconds. The
three figures come from the same stretch of time, so a neighbour loading this shared machine
for a while moves them together instead of skewing their ratios.

Prints "CLEAN CLEAN_PEAK_KB NOOP NOOP_PEAK_KB EDIT EDIT_PEAK_KB": medians in seconds, and the
largest peak RSS of each kind's runs (each run's own: see measure.run).
"""
import os
import statistics
import sys
import time

from measure import run

RACY_SECS = 2


def main():
    binary, project, output, edited = sys.argv[1:5]
    rounds, quick = int(sys.argv[5]), int(sys.argv[6])
    build = [binary, "build", project, "-o", output, "-q"]
    times = {"clean": [], "noop": [], "edit": []}
    peaks = {"clean": 0, "noop": 0, "edit": 0}

    def record(kind, cmd):
        secs, rss = run(cmd)
        times[kind].append(secs)
        peaks[kind] = max(peaks[kind], rss)

    def settle():
        time.sleep(RACY_SECS + 0.2)
        run(build)

    edits = 0
    settle()  # the project was just written: let its stamps be trusted
    for _ in range(rounds):
        record("clean", build + ["--force"])
        for _ in range(quick):
            record("noop", build)
        for _ in range(quick):
            edits += 1
            with open(edited, "a", encoding="utf-8") as f:
                f.write(f"\u3000\u3000第{edits}次修改的一段。\n")
            record("edit", build)
        settle()
    if os.environ.get("BENCH_VERBOSE"):
        for kind, values in times.items():
            shown = " ".join(f"{v * 1000:.1f}" for v in values)
            print(f"{kind} (ms): {shown}", file=sys.stderr)
    print(
        " ".join(
            f"{statistics.median(times[k]):.4f} {peaks[k]}" for k in ("clean", "noop", "edit")
        )
    )


if __name__ == "__main__":
    main()
