#!/usr/bin/env bash
# tools/fuzz.sh — run epubforge's fuzz targets (src/tests/fuzz.rs) for a bounded time.
#
# Stable Rust has no cargo-fuzz, so the targets are proptest property tests: metadata parsing,
# source::decode + the text converter, the Markdown and HTML converters, inspect/verify on
# randomly damaged EPUBs, and the budgets of issue 27: includes that include each other, chains
# of cleanup rules that grow the text or backtrack, and heading detection, each asserting that
# its output stays within the bound its budget sets (work counted in steps, not time).
# `cargo test` runs 128 cases each; this script runs many more.
#
# Usage: tools/fuzz.sh [SECONDS] [CASES]
#   SECONDS  wall-clock budget (default 300); rounds of CASES cases run until it is spent
#   CASES    cases per target per round (default 5000; PROPTEST_CASES)
# Each round uses a fresh random seed. A failure prints proptest's minimal failing input and
# stops with status 1: copy it into a named regression test at the bottom of src/tests/fuzz.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-300}
cases=${2:-5000}
cargo test --release --lib --no-run >/dev/null 2>&1 || cargo test --release --lib --no-run
end=$(( $(date +%s) + budget ))
round=0
total=0
while [ "$(date +%s)" -lt "$end" ]; do
  round=$((round + 1))
  start=$(date +%s)
  if ! PROPTEST_CASES=$cases cargo test --release --lib tests::fuzz -q 2>&1 | tail -n 25 > /tmp/epubforge-fuzz.$$; then
    cat /tmp/epubforge-fuzz.$$
    echo "fuzz: FAILURE in round $round" >&2
    exit 1
  fi
  total=$((total + cases))
  echo "fuzz: round $round ok ($cases cases per target, $(( $(date +%s) - start ))s)"
done
rm -f /tmp/epubforge-fuzz.$$
echo "fuzz: $round round(s), $total cases per target, no failure"
