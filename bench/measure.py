#!/usr/bin/env python3
"""Times a command: bench/measure.py RUNS 'PREP SHELL CMD' CMD [ARGS...]

Runs PREP (through the shell, untimed; '' for none) then CMD, RUNS times; prints
"MEDIAN_SECONDS PEAK_RSS_KB" (the peak is the largest of the runs' own, from wait4).
`run` is the timing every bench script uses. A peak is never below this Python process's own
size: Linux counts the spawning process's pages in the child's high-water mark until its exec
(`bench/measure.py 1 '' true` shows that floor, about 14 MB).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def spawn(cmd):
    """Wall time and resource usage (wait4's) of one run of `cmd` (looked up in PATH), its
    output discarded; exits showing its stderr if it fails."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    with tempfile.TemporaryFile() as errors:
        try:
            start = time.perf_counter()
            pid = os.posix_spawnp(
                cmd[0],
                cmd,
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, devnull, 1),
                    (os.POSIX_SPAWN_DUP2, errors.fileno(), 2),
                ],
            )
            _, status, usage = os.wait4(pid, 0)
            secs = time.perf_counter() - start
        finally:
            os.close(devnull)
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            sys.stderr.buffer.write(errors.read())
            sys.exit(f"command failed: {' '.join(cmd)}")
    return secs, usage


def run(cmd):
    """Wall time and peak RSS (KB) of one run of `cmd` (see `spawn`)."""
    secs, usage = spawn(cmd)
    return secs, usage.ru_maxrss


def main():
    runs = int(sys.argv[1])
    prep = sys.argv[2]
    cmd = sys.argv[3:]
    times, peak = [], 0
    for i in range(runs):
        if prep:
            subprocess.run(prep, shell=True, check=True, env={**os.environ, "RUN": str(i)})
        secs, rss = run(cmd)
        times.append(secs)
        peak = max(peak, rss)
    print(f"{statistics.median(times):.4f} {peak}")


if __name__ == "__main__":
    main()
