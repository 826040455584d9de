#!/usr/bin/env python3
"""Times a command: bench/measure.py RUNS 'PREP SHELL CMD' CMD [ARGS...]

Runs PREP (through the shell, untimed; '' for none) then CMD, RUNS times; prints
"MEDIAN_SECONDS PEAK_RSS_KB" (the peak is the largest of the runs, from getrusage of the
children, measured in a fresh process per run so runs do not mask each other).
"""
import os
import resource
import statistics
import subprocess
import sys
import time


def one(cmd):
    # A fresh child measures its own peak: RUSAGE_CHILDREN is a high-water mark.
    code = (
        "import resource,subprocess,sys,time\n"
        "t=time.perf_counter()\n"
        "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.PIPE)\n"
        "e=time.perf_counter()-t\n"
        "if r.returncode: sys.stderr.buffer.write(r.stderr); sys.exit(r.returncode)\n"
        "print(e, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True, text=True)
    if out.returncode:
        sys.stderr.write(out.stderr)
        sys.exit(f"command failed: {' '.join(cmd)}")
    secs, rss = out.stdout.split()
    return float(secs), int(rss)


def main():
    runs = int(sys.argv[1])
    prep = sys.argv[2]
    cmd = sys.argv[3:]
    times, peak = [], 0
    for i in range(runs):
        if prep:
            subprocess.run(prep, shell=True, check=True, env={**os.environ, "RUN": str(i)})
        secs, rss = one(cmd)
        times.append(secs)
        peak = max(peak, rss)
    print(f"{statistics.median(times):.4f} {peak}")


if __name__ == "__main__":
    main()
