#!/usr/bin/env python3
"""Clean build, no-op rebuild and rebuild after an edit, measured in interleaved rounds:

    bench/rebuilds.py PROJECT EDITED_FILE ROUNDS QUICK BIN:OUTPUT [BIN:OUTPUT ...]

Each round, for each binary in turn: waits until the edited file is old enough that the
binary's next no-op finds every stamp trusted (see incremental::RACY_SECS) and runs one untimed
no-op, so that no timed run starts on a machine idle for seconds; then times one clean build
(`--force`), QUICK no-op rebuilds, and QUICK rebuilds each after appending a paragraph to
EDITED_FILE, each followed at once by the first no-op after that edit (the edited file's stamp
is then too new to trust: see incremental::quick) and the second (its stamp still too new,
but the record just written by the first). The figures of every binary come from the same stretch of time, so a neighbour
loading this shared machine for a while moves them together instead of skewing their ratios;
two binaries (the current one and a baseline) are compared fairly in one run.

Prints one line per binary, in the order given: "CLEAN CLEAN_PEAK_KB NOOP NOOP_PEAK_KB EDIT
EDIT_PEAK_KB AFTER AFTER_PEAK_KB AGAIN AGAIN_PEAK_KB" (AFTER and AGAIN: the first and the second
no-op after an edit): medians in seconds, and the largest peak RSS of each kind's runs (each run's
own: see measure.run).
"""
import os
import statistics
import sys
import time

from measure import run

RACY_SECS = 2
KINDS = ("clean", "noop", "edit", "after", "again")


def main():
    project, edited = sys.argv[1:3]
    rounds, quick = int(sys.argv[3]), int(sys.argv[4])
    binaries = [spec.split(":", 1) for spec in sys.argv[5:]]
    times = [{k: [] for k in KINDS} for _ in binaries]
    peaks = [{k: 0 for k in KINDS} for _ in binaries]
    edits = 0

    def record(b, kind, cmd):
        secs, rss = run(cmd)
        times[b][kind].append(secs)
        peaks[b][kind] = max(peaks[b][kind], rss)

    for _ in range(rounds):
        for b, (binary, output) in enumerate(binaries):
            build = [binary, "build", project, "-o", output, "-q"]
            time.sleep(RACY_SECS + 0.2)
            run(build)
            record(b, "clean", build + ["--force"])
            for _ in range(quick):
                record(b, "noop", build)
            for _ in range(quick):
                edits += 1
                with open(edited, "a", encoding="utf-8") as f:
                    f.write(f"\u3000\u3000第{edits}次修改的一段。\n")
                record(b, "edit", build)
                record(b, "after", build)
                record(b, "again", build)
    for b, (binary, _) in enumerate(binaries):
        if os.environ.get("BENCH_VERBOSE"):
            for kind, values in times[b].items():
                shown = " ".join(f"{v * 1000:.1f}" for v in values)
                print(f"{binary} {kind} (ms): {shown}", file=sys.stderr)
        print(" ".join(f"{statistics.median(times[b][k]):.4f} {peaks[b][k]}" for k in KINDS))


if __name__ == "__main__":
    main()
