#!/usr/bin/env bash
# tools/stress.sh — bounded-resource checks for epubforge (not part of `cargo test`).
#
# Generates extreme books in a temporary folder and builds each with the release binary,
# printing exit status, wall time, peak resident memory (RSS) and the EPUB size (the sections
# after the first two: media, markup, paths, budgets, sealed and boundary, each under its own
# heading):
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

# ---------------------------------------------------------------------------------------------
# Media (issue 13 items 4, 5, 6, 11): pathological images, fonts, SVG and CSS. Each must stop
# with a clear error naming the file, or build, in under 2 s and 200 MB.
media_book() { # folder, chapter Markdown, extra [book] lines, [style] lines
  mkdir -p "$1"
  printf '[book]\ntitle = "Media"\nauthors = ["Stress"]\nlanguage = "en"\n%s\n[style]\n%s\n[[chapters]]\nfile = "one.md"\n' \
    "$3" "$4" >"$1/metadata.toml"
  printf '%s\n' "$2" >"$1/one.md"
}

# A 3.5 MB PNG cover whose pixels (30000x30000, all zero) would take 2.7 GB decoded.
media_book "$tmp/png-bomb" "# One"$'\n\n'"Text." 'cover = "bomb.png"' ""
python3 - "$tmp/png-bomb/bomb.png" <<'PY'
import struct, sys, zlib
w = h = 30000
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
z = zlib.compressobj(9)
row = b"\0" * (1 + 3 * w)
idat = b"".join(z.compress(row) for _ in range(h)) + z.flush()
with open(sys.argv[1], "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
    f.write(chunk(b"IDAT", idat) + chunk(b"IEND", b""))
PY
echo "generated a $(stat -c %s "$tmp/png-bomb/bomb.png")-byte PNG claiming 30000x30000"
measure png-bomb-cover "$tmp/png-bomb"
media_book "$tmp/png-bomb-image" "# One"$'\n\n'"![bomb](bomb.png)" "" ""
cp "$tmp/png-bomb/bomb.png" "$tmp/png-bomb-image/"
measure png-bomb-image "$tmp/png-bomb-image"

# The sample cover with its frame header claiming 60000x60000 (aborted the process before).
media_book "$tmp/jpeg-bomb" "# One"$'\n\n'"Text." 'cover = "bomb.jpg"' ""
python3 - covers/cover.jpg "$tmp/jpeg-bomb/bomb.jpg" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
sof = next(i for i in range(len(d) - 1) if d[i] == 0xFF and d[i + 1] in (0xC0, 0xC1, 0xC2))
d[sof + 5:sof + 9] = (60000).to_bytes(2, "big") * 2
open(sys.argv[2], "wb").write(d)
PY
measure jpeg-bomb-cover "$tmp/jpeg-bomb"

# The sample cover cut to two thirds of its length.
media_book "$tmp/jpeg-cut" "# One"$'\n\n'"Text." 'cover = "cut.jpg"' ""
head -c $(($(stat -c %s covers/cover.jpg) * 2 / 3)) covers/cover.jpg >"$tmp/jpeg-cut/cut.jpg"
measure jpeg-truncated-cover "$tmp/jpeg-cut"

# Images that never end or never open: /dev/zero, and a FIFO inside the project.
media_book "$tmp/dev-zero" "# One"$'\n\n'"![zero](/dev/zero)" "" ""
measure dev-zero-image "$tmp/dev-zero"
media_book "$tmp/fifo" "# One"$'\n\n'"![pipe](pipe.png)" "" ""
mkfifo "$tmp/fifo/pipe.png"
measure fifo-image "$tmp/fifo"

# A 20-byte font collection claiming 4294967295 faces (stalled a build for 50 s before).
media_book "$tmp/ttc" "# One"$'\n\n'"Text." "" 'fonts = ["evil.ttc"]'
printf 'ttcf\0\1\0\0\377\377\377\377\0\0\0\0\0\0\0\0' >"$tmp/ttc/evil.ttc"
measure ttc-four-billion-faces "$tmp/ttc"

# Hostile but buildable: an 11 MB SVG of 400 000 elements with a script and a handler in each
# group, and a 5 MB stylesheet of remote and scripted declarations. Both build, cleaned, with
# warnings.
media_book "$tmp/svg-big" "# One"$'\n\n'"![art](art.svg)" "" 'css = ["x.css"]'
python3 - "$tmp/svg-big/art.svg" "$tmp/svg-big/x.css" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">\n')
    for i in range(100000):
        f.write(f'<g onclick="alert({i})"><script>alert({i})</script><rect x="{i % 100}" y="1" width="1" height="1"/><circle r="1"/></g>\n')
    f.write("</svg>\n")
with open(sys.argv[2], "w") as f:
    for i in range(50000):
        f.write(f".c{i} {{ color: red; background: url(http://evil.example/{i}.png); width: expression(alert({i})) }}\n")
PY
echo "generated a $(stat -c %s "$tmp/svg-big/art.svg")-byte SVG and a $(stat -c %s "$tmp/svg-big/x.css")-byte stylesheet"
measure hostile-svg-and-css "$tmp/svg-big"

# ---------------------------------------------------------------------------------------------
# Markup and EPUBs read back (issue 13 items 9, 10, 12): nesting 100 000 deep, a 100 000-item
# EPUB for inspect and check, and check of a zip bomb with EPUBCheck installed (it must not be
# run). Each must finish in under 2 s and 200 MB, or stop with a clear error.
measure_run() { # name command...
  local name=$1 log=$tmp/$1.log
  shift
  echo "== $name"
  set +e
  python3 - "$@" >"$log" 2>&1 <<'PY'
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"   Maximum resident set size (kbytes): {ru.ru_maxrss}")
print(f"   Elapsed (wall clock) time (s): {time.time() - t:.2f}")
print(f"   CPU time, user + system (s): {ru.ru_utime + ru.ru_stime:.2f}")
print(f"   exit status: {rc}")
PY
  set -e
  grep -E "Maximum resident|Elapsed|CPU time|exit status" "$log"
  if grep -q -v -E "^\s+(Maximum|Elapsed|CPU time|exit status)" "$log"; then
    echo "   output (last lines):"
    grep -v -E "^\s+(Maximum|Elapsed|CPU time|exit status)" "$log" | tail -n 3 | sed 's/^/     /'
  fi
  if grep -q "panicked" "$log"; then echo "   PANIC"; return 1; fi
}

# 100 000 nested <div>s (1.1 MB), and 100 000 nested list markers (200 KB).
mkdir -p "$tmp/deep-html" "$tmp/deep-md"
meta "Deep HTML" "*.html" >"$tmp/deep-html/metadata.toml"
meta "Deep Markdown" "*.md" >"$tmp/deep-md/metadata.toml"
python3 - "$tmp/deep-html/deep.html" "$tmp/deep-md/deep.md" <<'PY'
import sys
n = 100000
open(sys.argv[1], "w").write("<p>Before.</p>\n" + "<div>" * n + "Deep text." + "</div>" * n + "\n<p>After.</p>\n")
open(sys.argv[2], "w").write("Before.\n\n" + "- " * n + "Deep text.\n")
PY
measure_run deep-html "$bin" build "$tmp/deep-html" -o "$tmp/deep-html.epub"
measure_run deep-markdown "$bin" build "$tmp/deep-md" -o "$tmp/deep-md.epub"

# A valid EPUB 3 of 99 990 one-paragraph documents, each in the manifest and the spine (with
# the other entries, just under the 100 000 that inspect accepts).
python3 - "$tmp/wide.epub" 99990 <<'PY'
import sys, zipfile
path, n = sys.argv[1], int(sys.argv[2])
z = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
items = "".join(f'<item id="c{i}" href="text/c{i}.xhtml" media-type="application/xhtml+xml"/>\n' for i in range(n))
refs = "".join(f'<itemref idref="c{i}"/>\n' for i in range(n))
z.writestr("EPUB/package.opf", f'''<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:12345678-1234-5678-1234-567812345678</dc:identifier><dc:title>Wide</dc:title><dc:language>en</dc:language><meta property="dcterms:modified">2024-01-01T00:00:00Z</meta></metadata>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
{items}</manifest><spine>
{refs}</spine></package>''')
page = '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en" xml:lang="en"><head><title>{}</title></head><body>{}</body></html>'
lis = "".join(f'<li><a href="text/c{i}.xhtml">{i}</a></li>\n' for i in range(n))
z.writestr("EPUB/nav.xhtml", page.format("Contents", f'<nav epub:type="toc" id="toc"><ol>{lis}</ol></nav>'))
for i in range(n):
    z.writestr(f"EPUB/text/c{i}.xhtml", page.format(i, f"<p>Document {i}.</p>"))
z.close()
PY
echo "generated a $(stat -c %s "$tmp/wide.epub")-byte EPUB of 99 990 documents"
measure_run inspect-100000-items "$bin" inspect "$tmp/wide.epub"
measure_run check-100000-items "$bin" check --no-epubcheck "$tmp/wide.epub"

# A 100 MB zip bomb (one entry of spaces, deflated to 100 KB): check reports it and does not
# hand it to EPUBCheck, installed or not.
python3 - "$tmp/bomb.epub" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
with z.open("META-INF/container.xml", "w", force_zip64=True) as f:
    for _ in range(100):
        f.write(b" " * (1 << 20))
z.close()
PY
measure_run check-zip-bomb-with-epubcheck "$bin" check "$tmp/bomb.epub"

# ---- paths (issue 13: items 4, 8, 13, 14): hostile paths and long lists --------------------
# Each case runs with a hang guard (30 s) and prints its wall and processor time and peak RSS;
# it must end in under 2 s of processor time and 200 MB, with a book or a clear error, and says
# OK or OVER. The symlink-loop glob walked exponentially, the FIFO metadata.toml and the
# /dev/zero image hung or ate memory, 3000 [[chapters]] tables took 0.4 s to load, and
# -j 100000 started that many threads.
guarded_run() { # section name command...
  local section=$1 name=$2; shift 2
  echo "== $section: $name"
  python3 - "$tmp/$section-$name.log" "$@" <<'PY'
import resource, subprocess, sys, time
log, cmd = sys.argv[1], sys.argv[2:]
start = time.time()
try:
    with open(log, "wb") as out:
        rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=out, timeout=30)
except subprocess.TimeoutExpired:
    rc = "killed after 30 s (a hang)"
wall = time.time() - start
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = ru.ru_maxrss  # KB, the largest child so far
# The one child's processor time: what the 2 s are about (wall time also counts a busy
# machine's other work).
cpu = ru.ru_utime + ru.ru_stime
verdict = "OK" if cpu < 2 and rss < 200_000 and not isinstance(rc, str) else "OVER"
print(f"   wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS {rss / 1000:.1f} MB, exit status {rc}: {verdict}")
lines = open(log, encoding="utf-8", errors="replace").read().strip().splitlines()
for line in lines[-2:]:
    print(f"     {line[:160]}")
PY
}
paths_run() { guarded_run paths "$@"; }

paths_book() { # dir metadata-after-[book]
  mkdir -p "$1/ch"
  echo "The first chapter." >"$1/ch/1.txt"
  printf '[book]\ntitle = "Paths"\nauthors = ["Stress"]\nlanguage = "en"\n%s' "$2" >"$1/metadata.toml"
}

# a. Three symlinks to the project folder under a `**` glob.
paths_book "$tmp/paths-loops" $'[[chapters]]\nglob = "**/*.txt"\n'
for l in a b c; do ln -s . "$tmp/paths-loops/$l"; done
paths_run symlink-loop-glob "$bin" build "$tmp/paths-loops"

# b. 3000 chapters listed one [[chapters]] table each, with titles: clean build, then no-op.
paths_book "$tmp/paths-listed" ""
python3 - "$tmp/paths-listed" <<'PY'
import os, sys
book = sys.argv[1]
with open(os.path.join(book, "metadata.toml"), "a", encoding="utf-8") as meta:
    for i in range(1, 3001):
        with open(os.path.join(book, "ch", f"{i:05d}.txt"), "w", encoding="utf-8") as f:
            f.write(f"第{i}章 某某\n\n这一章很短。\n")
        meta.write(f'[[chapters]]\nfile = "ch/{i:05d}.txt"\ntitle = "第{i}章 某某"\n\n')
PY
rm "$tmp/paths-listed/ch/1.txt"
paths_run explicit-3000-clean "$bin" build "$tmp/paths-listed"
paths_run explicit-3000-noop "$bin" build "$tmp/paths-listed"

# c. metadata.toml is a FIFO.
mkdir -p "$tmp/paths-fifo/ch" && echo "One." >"$tmp/paths-fifo/ch/1.txt" && mkfifo "$tmp/paths-fifo/metadata.toml"
paths_run fifo-metadata "$bin" build "$tmp/paths-fifo"

# d. A Markdown chapter showing /dev/zero (refused before it is opened).
paths_book "$tmp/paths-zero" $'[[chapters]]\nfile = "ch/1.md"\n'
printf '# One\n\n![zero](/dev/zero)\n' >"$tmp/paths-zero/ch/1.md"
paths_run dev-zero-image "$bin" build "$tmp/paths-zero"

# e. -j 100000 for one book.
paths_book "$tmp/paths-jobs" $'[[chapters]]\nfile = "ch/1.txt"\n'
paths_run jobs-100000 "$bin" build "$tmp/paths-jobs" -j 100000

# ---- budgets (issue 27): work that was not bounded ----------------------------------------
# Projects of a few kilobytes that ran for minutes or aborted out of memory. Each must end in
# under 2 s and 200 MB: the first two and the last two stop at a budget with a clear error
# naming the file, the directive or rule, and the budget; the middle two and the seventh build.
budget_book() { # dir chapter-file (the one chapter)
  mkdir -p "$1"
  printf '[book]\ntitle = "Budgets"\nauthors = ["Stress"]\nlanguage = "en"\n[[chapters]]\nfile = "%s"\n' "$2" >"$1/metadata.toml"
}
budget_run() { guarded_run budgets "$@"; }

# a. A file that includes itself six times per level (6^10 copies ten levels down).
budget_book "$tmp/budget-self" ch.md
printf '# Loop\n\n{{#include loop.md}}\n' >"$tmp/budget-self/ch.md"
for _ in 1 2 3 4 5 6; do echo 'x {{#include loop.md}}'; done >"$tmp/budget-self/loop.md"
budget_run include-self-six-times "$bin" build "$tmp/budget-self"

# b. An include after a 50 KB prefix on its line, of 50 000 lines (2.5 GB once repeated).
budget_book "$tmp/budget-prefix" ch.md
python3 - "$tmp/budget-prefix" <<'PY'
import os, sys
d = sys.argv[1]
open(os.path.join(d, "lines.md"), "w").write("\n" * 50000 + "end\n")
open(os.path.join(d, "ch.md"), "w").write("# Prefix\n\n" + "p" * 50000 + "{{#include lines.md}}\n")
PY
budget_run include-after-long-prefix "$bin" build "$tmp/budget-prefix"

# c. 900 KB of `{{ ` and one `}}` (quadratic directive scan).
budget_book "$tmp/budget-braces" ch.md
python3 -c 'import sys; open(sys.argv[1], "w").write("# Braces\n\n" + "{{ " * 300000 + "}}\n")' "$tmp/budget-braces/ch.md"
budget_run directive-scan-900kb "$bin" build "$tmp/budget-braces"

# d. 20 000 identical headings (quadratic id numbering).
budget_book "$tmp/budget-headings" ch.md
python3 -c 'import sys; open(sys.argv[1], "w").write("# Same\n\n" + "## Same\n\nText.\n\n" * 20000)' "$tmp/budget-headings/ch.md"
budget_run identical-headings-20000 "$bin" build "$tmp/budget-headings"

# e. 40 chained cleanup rules replacing a character by itself twice (2^40 growth).
budget_book "$tmp/budget-growth" ch.txt
python3 - "$tmp/budget-growth" <<'PY'
import os, sys
d = sys.argv[1]
open(os.path.join(d, "ch.txt"), "w").write("甲" * 1000)
open(os.path.join(d, "cleanup.toml"), "w").write("[[cleanup]]\npattern = '甲'\nreplace = '$0$0'\n\n" * 40)
PY
budget_run chained-growing-rules "$bin" build "$tmp/budget-growth"

# f. A look-around rule that backtracks tens of thousands of steps at each of 9000 matches.
budget_book "$tmp/budget-backtrack" ch.txt
python3 - "$tmp/budget-backtrack" <<'PY'
import os, sys
d = sys.argv[1]
open(os.path.join(d, "ch.txt"), "w").write(("a" * 20 + "b") * 9000 + "\n")
open(os.path.join(d, "cleanup.toml"), "w").write("[[cleanup]]\npattern = '(?:(?:(?=a)(?:a|aa))+x|a+)(?=b)'\nreplace = 'c'\n")
PY
budget_run backtracking-look-around-rule "$bin" build "$tmp/budget-backtrack"

# g. `split = "auto"` on 100 000 lines that are each a volume heading: 100 000 empty chapters,
#    whose headings now share a few documents (each still in the table of contents).
budget_book "$tmp/budget-volumes" volumes.txt
printf 'split = "auto"\n' >>"$tmp/budget-volumes/metadata.toml"
python3 -c 'import sys; open(sys.argv[1], "w").write("".join(f"第{k}卷\n" for k in range(1, 100001)))' "$tmp/budget-volumes/volumes.txt"
budget_run empty-volumes-100000 "$bin" build "$tmp/budget-volumes"

# ---- sealed (issue 27): what reaches the terminal, a closed pipe, an interrupt ---------------
# a. Control characters in a file name and in metadata: the messages show them escaped
#    (`\u{1b}`), never raw. b. `inspect | head -1` ends quietly (no panic, no exit 101).
#    c. SIGTERM in the middle of a build: exit status 130, a message that says what changed,
#    and no partial file left behind.
sealed_run() { guarded_run sealed "$@"; }
raw_controls() { # log: how many bytes of C0 controls (but newline and tab) and DEL it holds
  python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(sum(1 for b in d if (b < 32 and b not in (9, 10)) or b == 127))' "$1"
}

mkdir -p "$tmp/sealed-controls"
esc=$'\e'
printf '[book]\ntitle = "Title\\u001b]0;pwned\\u0007 here"\nauthors = ["A\\u001b[2J"]\nlanguage = "en"\n[[chapters]]\nfile = "bad%s[31mname.txt"\n' "$esc" >"$tmp/sealed-controls/metadata.toml"
: >"$tmp/sealed-controls/bad${esc}[31mname.txt"
sealed_run control-characters "$bin" build "$tmp/sealed-controls" -o "$tmp/sealed-controls.epub"
echo "   raw control bytes in the messages: $(raw_controls "$tmp/sealed-control-characters.log") (must be 0)"

echo "== sealed: inspect-into-closed-pipe"
mkdir -p "$tmp/sealed-pipe/ch" && echo "One." >"$tmp/sealed-pipe/ch/1.txt"
meta "Pipe" "ch/*.txt" >"$tmp/sealed-pipe/metadata.toml"
"$bin" build -q "$tmp/sealed-pipe" -o "$tmp/sealed-pipe.epub"
set +e
"$bin" inspect "$tmp/sealed-pipe.epub" 2>"$tmp/sealed-pipe.log" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
set -e
echo "   exit status $rc (not 101), panics: $(grep -c panicked "$tmp/sealed-pipe.log" || true)"

echo "== sealed: sigterm-during-build"
mkdir -p "$tmp/sealed-term/ch"
meta "Interrupted" "ch/*.txt" >"$tmp/sealed-term/metadata.toml"
python3 - "$tmp/sealed-term/ch" <<'PY'
import os, sys
for i in range(1, 20001):
    with open(os.path.join(sys.argv[1], f"{i:05d}.txt"), "w") as f:
        f.write(f"Chapter {i}.\n\n" + "Some words in a paragraph. " * 40 + "\n")
PY
set +e
"$bin" build "$tmp/sealed-term" -o "$tmp/sealed-term/out.epub" 2>"$tmp/sealed-term.log" &
pid=$!
# Signal once the build has read its chapters and is at work (its cache folder appears).
for _ in $(seq 1 300); do [ -d "$tmp/sealed-term/build" ] || [ -d "$tmp/sealed-term/.epubforge-cache" ] && break; sleep 0.01; done
kill -TERM "$pid"
wait "$pid"
rc=$?
set -e
echo "   exit status $rc (130 when interrupted, 0 when it finished first)"
tail -n 1 "$tmp/sealed-term.log" | sed 's/^/     /'
echo "   partial files left: $(find "$tmp/sealed-term" -name '*.partial-*' | wc -l) (must be 0)"

# ---- boundary (issue 27): nothing from outside the project reaches the book ------------------
# a. metadata.toml a symlink to a file outside; b. a chapter named by `..`, by an absolute path,
#    and a symlink out; each refused naming the path and --allow-outside-paths. c. The race: a
#    chapter swapped for a symlink to an outside file and back while builds run for 10 s; the
#    outside file's text must be in none of the books.
boundary_run() { guarded_run boundary "$@"; }
mkdir -p "$tmp/outside"
echo "SECRET-OUTSIDE-TEXT" >"$tmp/outside/secret.txt"
meta "Outside" "ch/*.txt" >"$tmp/outside/metadata.toml"

mkdir -p "$tmp/boundary-meta/ch" && echo "Inside." >"$tmp/boundary-meta/ch/1.txt"
ln -s "$tmp/outside/metadata.toml" "$tmp/boundary-meta/metadata.toml"
boundary_run metadata-symlink-out "$bin" build "$tmp/boundary-meta" -o "$tmp/boundary-meta.epub"

for how in dotdot absolute symlink; do
  mkdir -p "$tmp/boundary-$how"
  case $how in
    dotdot) file="../outside/secret.txt" ;;
    absolute) file="$tmp/outside/secret.txt" ;;
    symlink) ln -s "$tmp/outside/secret.txt" "$tmp/boundary-$how/link.txt"; file="link.txt" ;;
  esac
  printf '[book]\ntitle = "Out"\nauthors = ["A"]\nlanguage = "en"\n[[chapters]]\nfile = "%s"\n' "$file" >"$tmp/boundary-$how/metadata.toml"
  boundary_run "chapter-$how" "$bin" build "$tmp/boundary-$how" -o "$tmp/boundary-$how.epub"
  [ -e "$tmp/boundary-$how.epub" ] && echo "   LEAK: an EPUB was written" || true
done

echo "== boundary: symlink-swap-race (10 s)"
mkdir -p "$tmp/boundary-race/ch" "$tmp/boundary-race/out"
meta "Race" "ch/*.txt" >"$tmp/boundary-race/metadata.toml"
echo "Inside text." >"$tmp/boundary-race/inside.txt"
cp "$tmp/boundary-race/inside.txt" "$tmp/boundary-race/ch/1.txt"
python3 - "$tmp/boundary-race" "$tmp/outside/secret.txt" <<'PY' &
import os, sys, time
d, secret = sys.argv[1], sys.argv[2]
ch, tmp = os.path.join(d, "ch", "1.txt"), os.path.join(d, "ch", ".swap")
end = time.time() + 10
while time.time() < end:
    os.symlink(secret, tmp); os.replace(tmp, ch)
    with open(tmp, "w") as f: f.write("Inside text.\n")
    os.replace(tmp, ch)
PY
swapper=$!
builds=0 leaks=0
while kill -0 "$swapper" 2>/dev/null; do
  builds=$((builds + 1))
  out="$tmp/boundary-race/out/$builds.epub"
  "$bin" build -q --no-cache "$tmp/boundary-race" -o "$out" >/dev/null 2>&1 || true
  if [ -e "$out" ] && python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); sys.exit(any(b"SECRET-OUTSIDE" in z.read(n) for n in z.namelist()))' "$out"; then :; elif [ -e "$out" ]; then leaks=$((leaks + 1)); fi
  rm -f "$out"
done
wait "$swapper" || true
echo "   $builds builds while the chapter was swapped; books holding the outside text: $leaks (must be 0)"
