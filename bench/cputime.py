#!/usr/bin/env python3
"""Times a command once: bench/cputime.py CMD [ARGS...]

Prints "WALL_SECONDS CPU_SECONDS": its wall time, and the processor time it used (user and
system, from wait4), which a machine shared with other work moves far less than the wall time.
Its output is discarded; it exits showing the command's stderr if the command fails.
"""
import os
import sys
import tempfile
import time


def main():
    cmd = sys.argv[1:]
    devnull = os.open(os.devnull, os.O_WRONLY)
    with tempfile.TemporaryFile() as errors:
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
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            sys.stderr.buffer.write(errors.read())
            sys.exit(f"command failed: {' '.join(cmd)}")
    print(f"{wall:.4f} {usage.ru_utime + usage.ru_stime:.4f}")


if __name__ == "__main__":
    main()
