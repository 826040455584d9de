#!/usr/bin/env bash
# bench/run.sh: speed and memory figures for epubforge (figures to read, not a pass/fail test).
#
#   bench/run.sh [RUNS]          RUNS: runs per figure, the median is reported (default 5)
#   BIN=... GEN=... [GEN_CODE=...] bench/run.sh
#                                times that binary (and generators) instead of building them
#   BASE_BIN=path/to/old/epubforge bench/run.sh
#                                also times that binary's clean build, no-op and edit rebuild
#                                in the same interleaved rounds, and prints both side by side
#
# The figures that take milliseconds (no-op rebuild, rebuild after an edit, batch rebuild)
# are run QUICK_RUNS times (default 3 x RUNS): a few milliseconds of scheduling noise on a
# shared machine move a median of five a long way.
#
# Environment: CHAPTERS (3000) and CHARS (about 3000 characters per chapter) size the novel;
# SLICE (500) is the number of chapters given to pandoc and calibre, which are too slow for the
# whole novel (both are asked for a document and a TOC entry per chapter, as epubforge makes,
# with the options of the shared peer-convert tool); BATCH (50) is the number of small books; WORK (/tmp/epubforge-bench) holds
# everything generated. SKIP_CALIBRE=1 skips ebook-convert (about 1 minute). BENCH_VERBOSE=1
# prints every clean, no-op and edit run, not only their medians. REBUILDS_ONLY=1 stops after
# section 6 (the sections that take BASE_BIN).
#
# What it does, all on this machine in one run:
#   1. builds the release binary and the generator (examples/gen_novel.rs);
#   2. generates a deterministic novel (one .txt per chapter + metadata.toml, ~27 MB) and a
#      batch of BATCH small books (20 chapters each);
#   3. times (median of RUNS) epubforge's clean build (--force), no-op rebuild, rebuild after
#      editing one chapter (checked byte-identical to a clean build), batch clean build (--all
#      --force) and batch rebuild after editing one chapter of one book (checked: 1 built);
#      the first three in interleaved rounds (bench/rebuilds.py: a clean build, then no-ops,
#      then edits, RUNS times), so that their ratios compare runs made in the same minutes;
#      then the novel's clean build with the text-fix stage off beside one with the web-novel
#      cleanup preset, s2tw conversion and typography (alternating runs; issue 16 wants at
#      most 1.5 times);
#   4. reports peak memory (RSS high-water mark of the clean build) against the input size;
#   5. times `zip -6 -r` over the chapter files (the floor), and pandoc and calibre's
#      ebook-convert on the SLICE-chapter slice, when installed; prints the ratios;
#   6. makes the same novel with an explicit chapter list (a [[chapters]] table with a file and
#      a title for each chapter, as a hand-kept book has) and times its clean build, no-op and
#      edit rebuild the same way, its no-op printed as a share of its clean build beside the
#      glob book's (loading such a list was quadratic: 3000 entries took 0.4 s to load).
#   7. times a clean build of the novel for all four targets in one run (--target
#      epub,kobo,kindle,apple) beside the plain EPUB alone, interleaved; prints the ratio
#      (issue 17: at most 2.0).
#   8. joins the novel's chapters into one text file, as a download is, and times the one-command
#      build (`epubforge novel.txt`: init's detection, then the build) beside the clean build of
#      the metadata.toml it saves (--save), interleaved; prints the ratio (issue 26: at most 1.1).
#      The same for the folder of chapter files (`epubforge chapters/`) beside the novel's clean
#      build.
#   9. generates a code-heavy Markdown book (examples/gen_code.rs, 2400 fenced blocks) and times
#      its clean build highlighted beside the same without highlighting (issue 28: at most 2.0).
#  11. fix (issue 30): `epubforge fix --no-epubcheck --force` of the novel's EPUB (its clean build) beside
#      that clean build (--no-cache), interleaved (target: at most 1.5), and calibre's
#      `ebook-convert in.epub out.epub` of the same EPUB once (target: fix at least 20x faster;
#      SKIP_CALIBRE=1 skips it).
#  10. with valgrind installed (SKIP_CALLGRIND=1 skips it, about ten minutes): instruction counts
#      under callgrind, which the machine's load does not move: the text ledger's and the
#      outline's shares of the novel's clean build (issue 26: the ledger at most 5%), the
#      one-command build against its saved metadata's, highlighting on against off.
# SOURCE_DATE_EPOCH is fixed so that the byte-identity check is meaningful. Wall-clock figures
# move a lot when other work shares the machine (every tool is timed in the same run, so the
# ratios are fairer than the absolute times); run it on an idle machine for publishable numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
QUICK_RUNS=${QUICK_RUNS:-$((3 * RUNS))}
CHAPTERS=${CHAPTERS:-3000}
CHARS=${CHARS:-3000}
SLICE=${SLICE:-500}
BATCH=${BATCH:-50}
WORK=${WORK:-/tmp/epubforge-bench}
export SOURCE_DATE_EPOCH=1700000000
M="python3 bench/measure.py"

if [ -z "${BIN:-}" ] || [ -z "${GEN:-}" ]; then
  echo "== building (release)" >&2
  cargo build --release --quiet --bin epubforge --example gen_novel --example gen_code
fi
BIN=$(realpath "${BIN:-target/release/epubforge}")
GEN=$(realpath "${GEN:-target/release/examples/gen_novel}")
GEN_CODE=$(realpath "${GEN_CODE:-$(dirname "$GEN")/gen_code}")

rm -rf "$WORK"
mkdir -p "$WORK"
NOVEL=$WORK/novel
"$GEN" "$NOVEL" "$CHAPTERS" "$CHARS" 2>/dev/null
"$GEN" "$WORK/slice" "$SLICE" "$CHARS" 2>/dev/null
for i in $(seq -w 1 "$BATCH"); do
  "$GEN" "$WORK/shelf/book$i" 20 "$CHARS" 2>/dev/null
  sed -i "s/^title = .*/title = \"书$i\"/" "$WORK/shelf/book$i/metadata.toml"
done
INPUT=$(du -cb "$NOVEL"/chapters/*.txt | tail -n1 | cut -f1)
OUT=$NOVEL/build/novel.epub
EDIT=$(printf '%s/chapters/%05d.txt' "$NOVEL" $(( (CHAPTERS + 1) / 2 )))

echo "== measuring ($RUNS runs each, $QUICK_RUNS for rebuilds)" >&2
BINS=("$BIN:$OUT")
if [ -n "${BASE_BIN:-}" ]; then BINS+=("$(realpath "$BASE_BIN"):$NOVEL/build/base.epub"); fi
python3 bench/rebuilds.py "$NOVEL" "$EDIT" "$RUNS" $(( (QUICK_RUNS + RUNS - 1) / RUNS )) "${BINS[@]}" > "$WORK/rebuilds.txt"
read -r CLEAN CLEAN_RSS NOOP NOOP_RSS EDITED EDIT_RSS AFTER _ AGAIN _ < <(sed -n 1p "$WORK/rebuilds.txt")
if [ -n "${BASE_BIN:-}" ]; then
  read -r B_CLEAN _ B_NOOP _ B_EDITED _ B_AFTER _ B_AGAIN _ < <(sed -n 2p "$WORK/rebuilds.txt")
fi
read -r NOCACHE _ < <($M "$RUNS" '' "$BIN" build "$NOVEL" -o "$WORK/nocache.epub" --no-cache)
"$BIN" build "$NOVEL" -o "$OUT" -q >/dev/null  # the baseline's edits came last
"$BIN" build "$NOVEL" -o "$WORK/clean.epub" --no-cache -q >/dev/null
if cmp -s "$OUT" "$WORK/clean.epub"; then IDENTICAL=yes; else IDENTICAL=NO; fi
EPUB_SIZE=$(stat -c %s "$OUT")

# The text-fix stage (issue 16): the same novel with the stage off (plain.toml), and with the
# web-novel cleanup preset, s2tw conversion and typography (fixed.toml), clean builds in
# alternating runs.
python3 - "$NOVEL" <<'PY'
import pathlib, sys
d = pathlib.Path(sys.argv[1])
head, chapters = (d / "metadata.toml").read_text().split("[[chapters]]", 1)
(d / "plain.toml").write_text(head + "[text]\ntypography = false\n\n[[chapters]]" + chapters)
head = head.replace('language = "zh-CN"\n', 'language = "zh-CN"\nconvert = "s2tw"\n')
(d / "fixed.toml").write_text(head + '[text]\ncleanup-preset = "web-novel"\n\n[[chapters]]' + chapters)
PY
PLAIN_RUNS=(); FIXED_RUNS=()
for _ in $(seq "$RUNS"); do
  read -r t _ < <($M 1 '' "$BIN" build "$NOVEL/plain.toml" -o "$WORK/plain.epub" --no-cache -q); PLAIN_RUNS+=("$t")
  read -r t _ < <($M 1 '' "$BIN" build "$NOVEL/fixed.toml" -o "$WORK/fixed.epub" --no-cache -q); FIXED_RUNS+=("$t")
done
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.4f}')" "$@"; }
PLAIN=$(median "${PLAIN_RUNS[@]}"); FIXED=$(median "${FIXED_RUNS[@]}")

read -r BATCH_CLEAN _ < <($M "$RUNS" '' "$BIN" build --all "$WORK/shelf" --force -q)
BOOK=$WORK/shelf/book$(printf "%0${#BATCH}d" $(( BATCH / 2 )))
read -r BATCH_EDIT _ < <($M "$QUICK_RUNS" "echo \"　　第\$RUN次修改。\" >> $BOOK/chapters/00007.txt" "$BIN" build --all "$WORK/shelf")
echo "　　再改一次。" >> "$BOOK/chapters/00007.txt"
REBUILT=$("$BIN" build --all "$WORK/shelf" 2>&1 >/dev/null | grep -c '^built' || true)

rm -f "$WORK/floor.zip"
read -r ZIP _ < <($M "$RUNS" "rm -f $WORK/floor.zip" sh -c "cd $NOVEL/chapters && zip -q -6 -r $WORK/floor.zip .")
ZIP_SIZE=$(stat -c %s "$WORK/floor.zip")

read -r SLICE_T _ < <($M "$RUNS" '' "$BIN" build "$WORK/slice" -o "$WORK/slice.epub" --force)
# The peers are asked for the book epubforge makes: one document and one TOC entry per
# chapter, a paragraph per line of text, title, author and language. They take the chapters
# the way the shared peer-convert tool feeds them (first line the chapter title, paragraphs
# separated by blank lines); preparing that input is not timed.
CHAP_RE='^\s*(第[0-9零〇一二三四五六七八九十百千万两]+[章回节卷集部篇]|序章|序言|楔子|尾声|后记|番外)'
for f in "$WORK"/slice/chapters/*.txt; do sed 's/$/\n/' "$f" | cat -s; printf '\n'; done > "$WORK/slice.txt"
for f in "$WORK"/slice/chapters/*.txt; do sed '1s/^/# /; s/$/\n/' "$f" | cat -s; printf '\n'; done > "$WORK/slice.md"
PANDOC=""
if command -v pandoc >/dev/null; then
  read -r PANDOC _ < <($M 1 '' pandoc -f commonmark -t epub3 "$WORK/slice.md" -o "$WORK/slice-pandoc.epub" \
    --epub-chapter-level=1 --toc --metadata title=slice --metadata author=bench --metadata lang=zh-CN)
fi
CALIBRE=""
if command -v ebook-convert >/dev/null && [ -z "${SKIP_CALIBRE:-}" ]; then
  read -r CALIBRE _ < <(QTWEBENGINE_DISABLE_SANDBOX=1 QT_QPA_PLATFORM=offscreen \
    $M 1 '' ebook-convert "$WORK/slice.txt" "$WORK/slice-calibre.epub" \
      --input-encoding=utf-8 --formatting-type=plain --paragraph-type=block \
      --chapter "//h:p[re:test(., '$CHAP_RE')]" --chapter-mark=pagebreak \
      --level1-toc "//h:p[re:test(., '$CHAP_RE')]" \
      --title slice --authors bench --language zh-CN --epub-version=3 --no-default-epub-cover)
fi

# A child's peak RSS counts the spawning Python's pages until its exec: `true` shows that floor.
read -r _ FLOOR_RSS < <($M 1 '' true)
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.4f}' if b else 'n/a')" "$1" "$2"; }
mb() { python3 -c "import sys; print(f'{int(sys.argv[1])/1e6:.1f} MB')" "$1"; }
echo
echo "epubforge benchmark: $CHAPTERS chapters, input $(mk=$(mb "$INPUT"); echo "$mk"), medians of $RUNS runs ($QUICK_RUNS for rebuilds); $(nproc) cores"
printf '%-44s %8.3f s\n' "clean build (--force, writes the cache)" "$CLEAN"
printf '%-44s %8.3f s\n' "clean build (--no-cache)" "$NOCACHE"
printf '%-44s %8.4f s   %s of clean\n' "no-op rebuild" "$NOOP" "$(ratio "$NOOP" "$CLEAN")"
printf '%-44s %8.4f s   %s of clean, byte-identical: %s\n' "rebuild after editing one chapter" "$EDITED" "$(ratio "$EDITED" "$CLEAN")" "$IDENTICAL"
printf '%-44s %8.4f s   %s of clean\n' "first no-op after an edit" "$AFTER" "$(ratio "$AFTER" "$CLEAN")"
printf '%-44s %8.4f s   %s of clean\n' "second no-op after an edit" "$AGAIN" "$(ratio "$AGAIN" "$CLEAN")"
printf '%-44s %8.3f s\n' "clean build, text fix off (--no-cache)" "$PLAIN"
printf '%-44s %8.3f s   %s of off (target <= 1.5)\n' "  with preset + s2tw + typography" "$FIXED" "$(ratio "$FIXED" "$PLAIN")"
printf '%-44s %8.3f s\n' "batch of $BATCH books, clean (--force)" "$BATCH_CLEAN"
printf '%-44s %8.4f s   %s of clean; books rebuilt: %s\n' "batch, one chapter of one book edited" "$BATCH_EDIT" "$(ratio "$BATCH_EDIT" "$BATCH_CLEAN")" "$REBUILT"
if [ -n "${BASE_BIN:-}" ]; then
  printf '%-44s %8.3f s   (this build: %s of it)\n' "baseline: clean build (--force)" "$B_CLEAN" "$(ratio "$CLEAN" "$B_CLEAN")"
  printf '%-44s %8.4f s   %s of clean (this build: %s)\n' "baseline: no-op rebuild" "$B_NOOP" "$(ratio "$B_NOOP" "$B_CLEAN")" "$(ratio "$NOOP" "$CLEAN")"
  printf '%-44s %8.4f s   %s of clean (this build: %s)\n' "baseline: rebuild after editing one chapter" "$B_EDITED" "$(ratio "$B_EDITED" "$B_CLEAN")" "$(ratio "$EDITED" "$CLEAN")"
  printf '%-44s %8.4f s   %s of clean (this build: %s)\n' "baseline: first no-op after an edit" "$B_AFTER" "$(ratio "$B_AFTER" "$B_CLEAN")" "$(ratio "$AFTER" "$CLEAN")"
  printf '%-44s %8.4f s   %s of clean (this build: %s)\n' "baseline: second no-op after an edit" "$B_AGAIN" "$(ratio "$B_AGAIN" "$B_CLEAN")" "$(ratio "$AGAIN" "$CLEAN")"
fi
printf '%-44s %8s      input %s + 32 MB = %s\n' "peak RSS, clean build" "$(mb $((CLEAN_RSS * 1024)))" "$(mb "$INPUT")" "$(mb $((INPUT + 32000000)))"
printf '%-44s %8s      (not below the harness floor, %s)\n' "peak RSS, no-op / edit rebuild" "$(mb $((NOOP_RSS * 1024))) / $(mb $((EDIT_RSS * 1024)))" "$(mb $((FLOOR_RSS * 1024)))"
printf '%-44s %8.3f s   clean/zip = %s\n' "zip -6 -r over the chapter files (floor)" "$ZIP" "$(ratio "$CLEAN" "$ZIP")"
printf '%-44s %8s      zip -6: %s (EPUB/zip = %s)\n' "EPUB size" "$(mb "$EPUB_SIZE")" "$(mb "$ZIP_SIZE")" "$(ratio "$EPUB_SIZE" "$ZIP_SIZE")"
printf '%-44s %8.3f s\n' "epubforge on the $SLICE-chapter slice" "$SLICE_T"
if [ -n "$PANDOC" ]; then
  printf '%-44s %8.3f s   epubforge is %sx faster\n' "pandoc on the slice (1 run)" "$PANDOC" "$(ratio "$PANDOC" "$SLICE_T")"
fi
if [ -n "$CALIBRE" ]; then
  printf '%-44s %8.3f s   epubforge is %sx faster\n' "ebook-convert on the slice (1 run)" "$CALIBRE" "$(ratio "$CALIBRE" "$SLICE_T")"
fi

# 6. The novel with an explicit chapter list: every chapter its own [[chapters]] table.
LISTED=$WORK/listed
"$GEN" "$LISTED" "$CHAPTERS" "$CHARS" 2>/dev/null
python3 bench/listed.py "$LISTED"
L_EDIT=$(printf '%s/chapters/%05d.txt' "$LISTED" $(( (CHAPTERS + 1) / 2 )))
L_BINS=("$BIN:$LISTED/build/listed.epub")
if [ -n "${BASE_BIN:-}" ]; then L_BINS+=("$(realpath "$BASE_BIN"):$LISTED/build/base.epub"); fi
python3 bench/rebuilds.py "$LISTED" "$L_EDIT" "$RUNS" $(( (QUICK_RUNS + RUNS - 1) / RUNS )) "${L_BINS[@]}" > "$WORK/listed.txt"
read -r L_CLEAN _ L_NOOP _ L_EDITED _ L_AFTER _ L_AGAIN _ < <(sed -n 1p "$WORK/listed.txt")
printf '%-44s %8.3f s\n' "explicit list of $CHAPTERS: clean build" "$L_CLEAN"
printf '%-44s %8.4f s   %s of clean (glob book: %s; target <= 0.03)\n' "explicit list of $CHAPTERS: no-op rebuild" "$L_NOOP" "$(ratio "$L_NOOP" "$L_CLEAN")" "$(ratio "$NOOP" "$CLEAN")"
printf '%-44s %8.4f s   %s of clean (glob book: %s; target <= 0.10)\n' "explicit list of $CHAPTERS: edit rebuild" "$L_EDITED" "$(ratio "$L_EDITED" "$L_CLEAN")" "$(ratio "$EDITED" "$CLEAN")"
printf '%-44s %8.4f s   %s of clean (glob book: %s; target <= 0.03)\n' "explicit list: first no-op after an edit" "$L_AFTER" "$(ratio "$L_AFTER" "$L_CLEAN")" "$(ratio "$AFTER" "$CLEAN")"
printf '%-44s %8.4f s   %s of clean (glob book: %s; target <= 0.03)\n' "explicit list: second no-op after an edit" "$L_AGAIN" "$(ratio "$L_AGAIN" "$L_CLEAN")" "$(ratio "$AGAIN" "$CLEAN")"
if [ -n "${BASE_BIN:-}" ]; then
  read -r LB_CLEAN _ LB_NOOP _ LB_EDITED _ LB_AFTER _ LB_AGAIN _ < <(sed -n 2p "$WORK/listed.txt")
  printf '%-44s %8.3f s   (this build: %s of it)\n' "baseline: explicit list, clean build" "$LB_CLEAN" "$(ratio "$L_CLEAN" "$LB_CLEAN")"
  printf '%-44s %8.4f s   %s of clean\n' "baseline: explicit list, no-op rebuild" "$LB_NOOP" "$(ratio "$LB_NOOP" "$LB_CLEAN")"
  printf '%-44s %8.4f s   %s of clean\n' "baseline: explicit list, edit rebuild" "$LB_EDITED" "$(ratio "$LB_EDITED" "$LB_CLEAN")"
  printf '%-44s %8.4f s   %s of clean\n' "baseline: explicit list, first no-op after" "$LB_AFTER" "$(ratio "$LB_AFTER" "$LB_CLEAN")"
  printf '%-44s %8.4f s   %s of clean\n' "baseline: explicit list, second no-op after" "$LB_AGAIN" "$(ratio "$LB_AGAIN" "$LB_CLEAN")"
fi

# REBUILDS_ONLY=1 stops here: the rebuild figures (sections 3 and 6) and the baseline's.
if [ -n "${REBUILDS_ONLY:-}" ]; then exit 0; fi

# 7. Targets (issue 17): the novel built for all four targets (epub, kobo, kindle, apple) in one
#    run beside the plain EPUB alone, clean builds without a cache, in interleaved rounds so that
#    both medians come from the same minutes. Target: four targets at most 2.0 x one.
ONE=(); FOUR=()
for _ in $(seq "$RUNS"); do
  read -r t _ < <($M 1 '' "$BIN" build "$NOVEL" -o "$WORK/one.epub" --no-cache -q); ONE+=("$t")
  read -r t _ < <($M 1 '' "$BIN" build "$NOVEL" -o "$WORK/four.epub" --no-cache -q --target epub,kobo,kindle,apple); FOUR+=("$t")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
T_ONE=$(median "${ONE[@]}"); T_FOUR=$(median "${FOUR[@]}")
printf '%-44s %8.3f s\n' "one target (epub), clean (--no-cache)" "$T_ONE"
printf '%-44s %8.3f s   %s of one target (target <= 2.0)\n' "four targets in one run, clean (--no-cache)" "$T_FOUR" "$(ratio "$T_FOUR" "$T_ONE")"

# 8. One command (issue 26): the novel as one downloaded text file, built with nothing but its
#    path, beside a clean build of the metadata.toml that the one-command build saves (the same
#    book, through `build`); and the folder of chapter files without its metadata.toml.
ONEFILE=$WORK/onefile
mkdir -p "$ONEFILE"
cat "$NOVEL"/chapters/*.txt > "$ONEFILE/novel.txt"
"$BIN" "$ONEFILE/novel.txt" --save -q >/dev/null
FOLDER=$WORK/folder
cp -r "$NOVEL/chapters" "$FOLDER"
DIRECT=(); SAVED=(); DIRECT_DIR=(); PROJECT=()
for _ in $(seq "$RUNS"); do
  read -r t _ < <($M 1 '' "$BIN" "$ONEFILE/novel.txt" -q); DIRECT+=("$t")
  read -r t _ < <($M 1 '' "$BIN" build "$ONEFILE" -o "$WORK/saved.epub" --no-cache -q); SAVED+=("$t")
  read -r t _ < <($M 1 '' "$BIN" "$FOLDER" -q); DIRECT_DIR+=("$t")
  read -r t _ < <($M 1 '' "$BIN" build "$NOVEL" -o "$WORK/project.epub" --no-cache -q); PROJECT+=("$t")
done
T_DIRECT=$(median "${DIRECT[@]}"); T_SAVED=$(median "${SAVED[@]}")
T_DIRECT_DIR=$(median "${DIRECT_DIR[@]}"); T_PROJECT=$(median "${PROJECT[@]}")
printf '%-44s %8.3f s\n' "one file: build of its metadata (--no-cache)" "$T_SAVED"
printf '%-44s %8.3f s   %s of it (target <= 1.1)\n' "one file: epubforge novel.txt" "$T_DIRECT" "$(ratio "$T_DIRECT" "$T_SAVED")"
printf '%-44s %8.3f s   %s of the project build (%.3f s)\n' "folder: epubforge chapters/" "$T_DIRECT_DIR" "$(ratio "$T_DIRECT_DIR" "$T_PROJECT")" "$T_PROJECT"

# 9. Highlighting (issue 28): a generated code-heavy Markdown book (examples/gen_code.rs: CODE_CHAPTERS
#    chapters of 20 fenced blocks that name their language, 2400 blocks by default) built clean
#    with highlighting on (the default) beside the same book with `[style] highlight = false`,
#    interleaved; prints the ratio (target: at most 2.0).
CODE=$WORK/code
"$GEN_CODE" "$CODE" "${CODE_CHAPTERS:-120}" 20 2>/dev/null
cp "$CODE/metadata.toml" "$CODE/plain.toml"
printf '\n[style]\nhighlight = false\n' >> "$CODE/plain.toml"
LIT=(); UNLIT=()
for _ in $(seq "$RUNS"); do
  read -r t _ < <($M 1 '' "$BIN" build "$CODE" -o "$WORK/code-on.epub" --no-cache -q); LIT+=("$t")
  read -r t _ < <($M 1 '' "$BIN" build "$CODE/plain.toml" -o "$WORK/code-off.epub" --no-cache -q); UNLIT+=("$t")
done
T_LIT=$(median "${LIT[@]}"); T_UNLIT=$(median "${UNLIT[@]}")
printf '%-44s %8.3f s\n' "code book, highlight = false (--no-cache)" "$T_UNLIT"
printf '%-44s %8.3f s   %s of off (target <= 2.0)\n' "code book, highlighted (--no-cache)" "$T_LIT" "$(ratio "$T_LIT" "$T_UNLIT")"

# 11. Fix (issue 30): the novel's EPUB fixed (unpacked, built again, checked before and after by
#     our rules; EPUBCheck is not run, as the build does not run it) beside the novel's clean
#     build, interleaved; then calibre's EPUB-to-EPUB conversion of the same EPUB, once. Each
#     with its CPU time (bench/cputime.py: user and system, children included), which a loaded
#     machine moves far less than the wall time.
FIX_IN=$WORK/fix-in.epub
cp "$WORK/clean.epub" "$FIX_IN"
FIXES=(); BUILDS=(); FIX_CPUS=(); BUILD_CPUS=()
C="python3 bench/cputime.py"
for _ in $(seq "$RUNS"); do
  read -r t c < <($C "$BIN" build "$NOVEL" -o "$WORK/fix-base.epub" --no-cache -q); BUILDS+=("$t"); BUILD_CPUS+=("$c")
  read -r t c < <($C "$BIN" fix "$FIX_IN" -o "$WORK/fix-out.epub" --no-epubcheck --force -q); FIXES+=("$t"); FIX_CPUS+=("$c")
done
T_BUILD=$(median "${BUILDS[@]}"); T_FIX=$(median "${FIXES[@]}")
C_BUILD=$(median "${BUILD_CPUS[@]}"); C_FIX=$(median "${FIX_CPUS[@]}")
printf '%-44s %8.3f s   (CPU %.3f s)\n' "fix: clean build of the novel (--no-cache)" "$T_BUILD" "$C_BUILD"
printf '%-44s %8.3f s   %s of the build (target <= 1.5); CPU %.3f s, %s\n' "fix: epubforge fix of its EPUB" "$T_FIX" "$(ratio "$T_FIX" "$T_BUILD")" "$C_FIX" "$(ratio "$C_FIX" "$C_BUILD")"
# Where a fix's time goes beyond the build (one more run, its -v timings line).
"$BIN" fix "$FIX_IN" -o "$WORK/fix-out.epub" --no-epubcheck --force -v 2>&1 >/dev/null \
  | sed -n 's/^timings: /  fix stages: /p'
if command -v ebook-convert >/dev/null && [ -z "${SKIP_CALIBRE:-}" ]; then
  read -r T_CAL_FIX C_CAL_FIX < <(QTWEBENGINE_DISABLE_SANDBOX=1 QT_QPA_PLATFORM=offscreen \
    $C ebook-convert "$FIX_IN" "$WORK/fix-calibre.epub")
  printf '%-44s %8.3f s   fix is %sx faster (target >= 20); CPU %.3f s, %sx\n' "fix: ebook-convert in.epub out.epub (1 run)" "$T_CAL_FIX" "$(ratio "$T_CAL_FIX" "$T_FIX")" "$C_CAL_FIX" "$(ratio "$C_CAL_FIX" "$C_FIX")"
fi

# 10. Instruction shares (callgrind; skipped without valgrind or with SKIP_CALLGRIND=1): counts
#     that do not move with the machine's load. The novel's clean build, with the text ledger's
#     share (issue 26: at most 5%) and the outline's (its sizes are counted only for `build -v`);
#     the one-command build of the novel as one file against the clean build of its saved
#     metadata (at most 1.1); the code book highlighted against not (at most 2.0).
if command -v valgrind >/dev/null && [ -z "${SKIP_CALLGRIND:-}" ]; then
  S="python3 bench/shares.py $WORK/callgrind.out"
  LEDGER='ledger::account|chapter::account'
  OUTLINE='outline::text_chars|outline::walk'
  read -r CG_ALL CG_LEDGER CG_OUTLINE < <($S "$LEDGER" "$OUTLINE" -- "$BIN" build "$NOVEL" -o "$WORK/cg.epub" --no-cache -q)
  read -r CG_SAVED _ < <($S -- "$BIN" build "$ONEFILE" -o "$WORK/cg-saved.epub" --no-cache -q)
  read -r CG_DIRECT CG_DIRECT_LEDGER < <($S "$LEDGER" -- "$BIN" "$ONEFILE/novel.txt" -q)
  read -r CG_LIT _ < <($S -- "$BIN" build "$CODE" -o "$WORK/cg-on.epub" --no-cache -q)
  read -r CG_UNLIT _ < <($S -- "$BIN" build "$CODE/plain.toml" -o "$WORK/cg-off.epub" --no-cache -q)
  pct() { python3 -c "import sys; print(f'{100 * float(sys.argv[1]) / float(sys.argv[2]):.2f}%')" "$1" "$2"; }
  gi() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1e9:.3f} G')" "$1"; }
  printf '%-44s %10s\n' "instructions: clean build (--no-cache)" "$(gi "$CG_ALL")"
  printf '%-44s %10s   (target <= 5%%)\n' "  of which the text ledger" "$(pct "$CG_LEDGER" "$CG_ALL")"
  printf '%-44s %10s   (sizes only for build -v)\n' "  of which the outline" "$(pct "$CG_OUTLINE" "$CG_ALL")"
  printf '%-44s %10s\n' "instructions: one file, its saved metadata" "$(gi "$CG_SAVED")"
  printf '%-44s %10s   %s of it (target <= 1.1); ledger %s\n' "instructions: epubforge novel.txt" "$(gi "$CG_DIRECT")" "$(ratio "$CG_DIRECT" "$CG_SAVED")" "$(pct "$CG_DIRECT_LEDGER" "$CG_DIRECT")"
  printf '%-44s %10s\n' "instructions: code book, highlight = false" "$(gi "$CG_UNLIT")"
  printf '%-44s %10s   %s of off (target <= 2.0)\n' "instructions: code book, highlighted" "$(gi "$CG_LIT")" "$(ratio "$CG_LIT" "$CG_UNLIT")"
fi
