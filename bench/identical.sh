#!/usr/bin/env bash
# bench/identical.sh: are two builds of epubforge byte-identical in what they write?
#
#   bench/identical.sh OLD_BIN NEW_BIN
#   GEN=... GEN_CODE=... bench/identical.sh OLD_BIN NEW_BIN   generators (else built, release)
#
# Builds the same books with both binaries, SOURCE_DATE_EPOCH fixed and without a build cache
# (--no-cache: nothing is reused, each EPUB is made from its sources), then `cmp`s each pair
# and prints one line per book and the count of books that differ. Exit status 1 when any
# differs (or builds with one binary and not the other), 0 otherwise.
#
# The books, each built from a copy in WORK (default /tmp/epubforge-identical), so nothing is
# written into the repository:
#   - the sample project (the repository's own metadata.toml) and the guide (guide/, mdBook);
#   - every project under tests/fixtures (a folder with a metadata.toml or a book.toml), and
#     every loose chapter file there (.txt, .md, .html) built in one go (`build FILE -o OUT`);
#   - the benchmark books: the generated novel (examples/gen_novel.rs, CHAPTERS chapters,
#     default 3000) with its chapter glob, the same novel with an explicit [[chapters]] list,
#     its text-fix variants (stage off; web-novel preset, s2tw and typography), the same novel
#     for all four targets in one run, one small book of the batch shelf, and the code-heavy
#     Markdown book (examples/gen_code.rs).
# A book that fails with both binaries is listed as "fails (both)", not as a difference.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
  sed -n 2,5p "$0" >&2
  exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
WORK=${WORK:-/tmp/epubforge-identical}
CHAPTERS=${CHAPTERS:-3000}
export SOURCE_DATE_EPOCH=1700000000

if [ -z "${GEN:-}" ] || [ -z "${GEN_CODE:-}" ]; then
  cargo build --release --quiet --example gen_novel --example gen_code
fi
GEN=$(realpath "${GEN:-target/release/examples/gen_novel}")
GEN_CODE=$(realpath "${GEN_CODE:-target/release/examples/gen_code}")

rm -rf "$WORK"
mkdir -p "$WORK/src" "$WORK/old" "$WORK/new"
SRC=$WORK/src

# NAME|ARGS (relative to $SRC; the output goes after -o), one per book.
BOOKS=()
# The sample: the repository's metadata.toml and the files it names (tracked ones).
ROOT=$PWD
git ls-files metadata.toml seeds covers | while IFS= read -r f; do
  mkdir -p "$SRC/sample/$(dirname "$f")"
  cp "$ROOT/$f" "$SRC/sample/$f"
done
[ -f "$SRC/sample/metadata.toml" ] && BOOKS+=("sample|sample")
if [ -d guide ]; then
  cp -r guide "$SRC/guide"
  BOOKS+=("guide|guide")
fi
if [ -d tests/fixtures ]; then
  cp -r tests/fixtures "$SRC/fixtures"
  while IFS= read -r -d '' f; do
    d=$(dirname "$f")
    BOOKS+=("fixture:${d#"$SRC"/fixtures/}|${d#"$SRC"/}")
  done < <(find "$SRC/fixtures" \( -name metadata.toml -o -name book.toml \) -print0 | sort -z)
  while IFS= read -r -d '' f; do
    d=$(dirname "$f")
    # Files inside a project are its chapters, not books of their own.
    inside=$d
    while [ "$inside" != "$SRC/fixtures" ] && [ "$inside" != / ]; do
      if [ -e "$inside/metadata.toml" ] || [ -e "$inside/book.toml" ]; then continue 2; fi
      inside=$(dirname "$inside")
    done
    BOOKS+=("fixture:${f#"$SRC"/fixtures/}|${f#"$SRC"/}")
  done < <(find "$SRC/fixtures" -type f \( -name '*.txt' -o -name '*.md' -o -name '*.html' \) \
    -not -name 'expected*' -not -name 'README.md' -print0 | sort -z)
fi

"$GEN" "$SRC/novel" "$CHAPTERS" 3000 2>/dev/null
BOOKS+=("bench:novel (glob)|novel")
"$GEN" "$SRC/listed" "$CHAPTERS" 3000 2>/dev/null
python3 bench/listed.py "$SRC/listed"
python3 - "$SRC/novel" <<'PY'
import os, sys
novel = sys.argv[1]
# The text-fix variants of bench/run.sh (issue 16): the stage off, and preset + s2tw + typography.
head, chapters = open(os.path.join(novel, "metadata.toml"), encoding="utf-8").read().split("[[chapters]]", 1)
open(os.path.join(novel, "plain.toml"), "w").write(head + "[text]\ntypography = false\n\n[[chapters]]" + chapters)
head = head.replace('language = "zh-CN"\n', 'language = "zh-CN"\nconvert = "s2tw"\n')
open(os.path.join(novel, "fixed.toml"), "w").write(head + '[text]\ncleanup-preset = "web-novel"\n\n[[chapters]]' + chapters)
PY
BOOKS+=("bench:novel (explicit list)|listed")
BOOKS+=("bench:novel, text fix off|novel/plain.toml")
BOOKS+=("bench:novel, preset+s2tw+typography|novel/fixed.toml")
BOOKS+=("bench:novel, four targets|novel --target epub,kobo,kindle,apple")
"$GEN" "$SRC/shelf-book" 20 3000 2>/dev/null
BOOKS+=("bench:shelf book (20 chapters)|shelf-book")
"$GEN_CODE" "$SRC/code" "${CODE_CHAPTERS:-120}" 20 2>/dev/null
BOOKS+=("bench:code book (highlighted)|code")

# Builds book $2 (ARGS) with binary $1 into folder $3; prints the exit status.
build() {
  local bin=$1 args=$2 out=$3 first rest
  mkdir -p "$out"
  first=${args%% *}
  rest=""
  [ "$first" != "$args" ] && rest=${args#* }
  # A folder without metadata.toml (an mdBook such as the guide) is built in one go, without
  # `build` (which wants a project there).
  local cmd=(build)
  [ -d "$SRC/$first" ] && [ ! -e "$SRC/$first/metadata.toml" ] && cmd=()
  # shellcheck disable=SC2086
  (cd "$SRC" && "$bin" "${cmd[@]}" "$first" -o "$out/book.epub" --no-cache -q $rest) \
    >"$out/log" 2>&1 && echo 0 || echo $?
}

DIFFER=0
N=0
printf '%-44s %-8s %s\n' "book" "EPUBs" "result"
for spec in "${BOOKS[@]}"; do
  name=${spec%%|*}
  args=${spec#*|}
  N=$((N + 1))
  o=$WORK/old/$N n=$WORK/new/$N
  rc_old=$(build "$OLD" "$args" "$o")
  rc_new=$(build "$NEW" "$args" "$n")
  if [ "$rc_old" != 0 ] || [ "$rc_new" != 0 ]; then
    if [ "$rc_old" = "$rc_new" ]; then
      printf '%-44s %-8s %s\n' "$name" "-" "fails (both, status $rc_old)"
    else
      printf '%-44s %-8s %s\n' "$name" "-" "DIFFERS: status $rc_old (old) vs $rc_new (new)"
      DIFFER=$((DIFFER + 1))
    fi
    continue
  fi
  files=$( (cd "$o" && ls -- *.epub) | sort)
  if [ "$files" != "$( (cd "$n" && ls -- *.epub) | sort)" ]; then
    printf '%-44s %-8s %s\n' "$name" "-" "DIFFERS: other files written"
    DIFFER=$((DIFFER + 1))
    continue
  fi
  result=identical
  count=0
  for f in $files; do
    count=$((count + 1))
    if ! cmp -s "$o/$f" "$n/$f"; then result="DIFFERS ($f: $(cmp "$o/$f" "$n/$f" 2>&1 | head -c 80 || true))"; fi
  done
  [ "$result" = identical ] || DIFFER=$((DIFFER + 1))
  printf '%-44s %-8s %s\n' "$name" "$count" "$result"
done
echo "$N books, $DIFFER differ"
[ "$DIFFER" = 0 ]
