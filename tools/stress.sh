#!/usr/bin/env bash
# tools/stress.sh — bounded-resource checks for epubforge (not part of `cargo test`).
#
# Generates two extreme books in a temporary folder and builds each with the release binary,
# printing exit status, wall time, peak resident memory (RSS) and the EPUB size:
#   1. one-line: a single 200 MB chapter that is one line with no newline;
#   2. many:     100 000 tiny chapters listed by one glob.
# Each must either build or fail with a clear error (no panic, no crash). Peak memory comes from
# `/usr/bin/time -v` when present, else from python3's resource.getrusage(RUSAGE_CHILDREN).
#
# Usage: tools/stress.sh [ONE_LINE_MB] [CHAPTERS]     (defaults: 200 100000)
# Builds target/release/epubforge first if needed. The temporary folder is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-200}
chapters=${2:-100000}
cargo build --release -q
bin=$PWD/target/release/epubforge
tmp=$(mktemp -d "${TMPDIR:-/tmp}/epubforge-stress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

meta() { # title glob
  printf '[book]\ntitle = "%s"\nauthors = ["Stress"]\nlanguage = "en"\n[[chapters]]\nglob = "%s"\n' "$1" "$2"
}

measure() { # name project
  local name=$1 project=$2 out=$tmp/$1.epub log=$tmp/$1.log
  echo "== $name"
  if [ -x /usr/bin/time ]; then
    set +e
    /usr/bin/time -v "$bin" build "$project" -o "$out" >"$log" 2>&1
    local rc=$?
    set -e
    grep -E "Maximum resident set size|Elapsed \(wall clock\)" "$log" | sed 's/^\s*/   /'
  else
    set +e
    python3 - "$bin" "$project" "$out" >"$log" 2>&1 <<'PY'
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call([sys.argv[1], "build", sys.argv[2], "-o", sys.argv[3]])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"   Maximum resident set size (kbytes): {ru.ru_maxrss}")
print(f"   Elapsed (wall clock) time (s): {time.time() - t:.1f}")
sys.exit(rc)
PY
    local rc=$?
    set -e
    grep -E "Maximum resident|Elapsed" "$log"
  fi
  echo "   exit status: $rc"
  if [ "$rc" -eq 0 ]; then
    echo "   EPUB size: $(stat -c %s "$out") bytes"
  else
    echo "   output (last lines):"; grep -v -E "^\s+(Command|User|System|Percent|Elapsed|Average|Maximum|Major|Minor|Voluntary|Involuntary|Swaps|File|Socket|Signals|Page|Exit)" "$log" | tail -n 5 | sed 's/^/     /'
  fi
  if grep -q "panicked" "$log"; then echo "   PANIC"; return 1; fi
}

# 1. One 200 MB line.
mkdir -p "$tmp/one-line/ch"
meta "One line" "ch/*.txt" >"$tmp/one-line/metadata.toml"
python3 - "$tmp/one-line/ch/1.txt" "$mb" <<'PY'
import sys
chunk = ("The quick brown fox jumps over the lazy dog, " * 1000).encode()
target = int(sys.argv[2]) * 1000 * 1000
with open(sys.argv[1], "wb") as f:
    written = 0
    while written < target:
        piece = chunk[: target - written]
        f.write(piece)
        written += len(piece)
PY
echo "generated $(stat -c %s "$tmp/one-line/ch/1.txt") bytes in one line"
measure one-line "$tmp/one-line"

# 2. 100 000 chapters.
mkdir -p "$tmp/many/ch"
meta "Many chapters" "ch/*.txt" >"$tmp/many/metadata.toml"
python3 - "$tmp/many/ch" "$chapters" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(1, n + 1):
    with open(os.path.join(d, f"{i:06d}.txt"), "w") as f:
        f.write(f"Chapter {i} begins here. It is short, and it ends here.\n")
PY
echo "generated $chapters chapter files"
measure many "$tmp/many"
