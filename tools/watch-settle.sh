#!/usr/bin/env bash
# tools/watch-settle.sh — does `epubforge watch` settle? (issue 13, Must show 3)
#
# Copies the sample book (seeds/, covers/, metadata.toml) to a temporary folder, starts
# `epubforge watch` on it, waits for the first build, appends a line to one chapter, waits for
# the "changed:" line and the rebuild's status line, then leaves it alone for IDLE seconds
# (default 30). Prints the number of rebuilds after the edit (must be 1) and the watcher's CPU
# time over the edit and the idle window together, from /proc/PID/stat (utime + stime).
#
# Usage: tools/watch-settle.sh [BIN] [IDLE]   (BIN defaults to target/release/epubforge)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/epubforge}")
idle=${2:-30}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/epubforge-watch.XXXXXX")
book=$tmp/book log=$tmp/watch.log
mkdir -p "$book"
cp -r seeds covers metadata.toml "$book/"
"$bin" watch "$book" >/dev/null 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT

lines() { grep -c "${1:-}" "$log" || true; }
wait_until() { # description, command: polls the log, gives up after 60 s (a hang)
  local what=$1; shift
  for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
  echo "timed out waiting for $what; log:" >&2; cat "$log" >&2; exit 1
}
has_status() { [ "$(lines '^built\|^up to date\|^failed')" -ge "$1" ]; }
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

wait_until "the first build" has_status 1
before=$(cpu)
start=$(date +%s.%N)
printf '\n　　又补一句。\n' >>"$book/seeds/001_c5c754fed1430e80.txt"
wait_until "the rebuild" has_status 2
sleep "$idle"
after=$(cpu)
end=$(date +%s.%N)
tck=$(getconf CLK_TCK)
echo "watch log:"
sed 's/^/   /' "$log"
echo "rebuilds after one edit: $(( $(lines '^built\|^up to date\|^failed') - 1 )) (changed: lines $(lines '^changed:'))"
python3 -c "import sys; t, c = float(sys.argv[2]) - float(sys.argv[1]), (int(sys.argv[4]) - int(sys.argv[3])) / int(sys.argv[5]); print(f'watcher CPU over the edit and {t:.1f} s after it: {c:.2f} s (utime+stime from /proc/$pid/stat)')" "$start" "$end" "$before" "$after" "$tck"
