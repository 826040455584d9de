#!/usr/bin/env python3
"""Times a command once: bench/cputime.py CMD [ARGS...]

Prints "WALL_SECONDS CPU_SECONDS": its wall time, and the processor time it used (user and
system, from wait4), which a machine shared with other work moves far less than the wall time.
Its output is discarded; it exits showing the command's stderr if the command fails.
"""
import sys

from measure import spawn


def main():
    wall, usage = spawn(sys.argv[1:])
    print(f"{wall:.4f} {usage.ru_utime + usage.ru_stime:.4f}")


if __name__ == "__main__":
    main()
