#!/usr/bin/env python3
"""The library's public API as `cargo doc` lists it, for the section "The public API" of
guide/src/architecture.md (issue 29, Must show 3).

Reads target/doc/epubforge/all.html, which

    cargo doc --no-deps --no-default-features

writes (the library as a user of the crate sees it: without the default `cli` feature), and
prints one Markdown line per kind of item: `- **Structs** (N): `A`, `B`, …`.

usage: python3 .ci/public-api.py              print the lines
       python3 .ci/public-api.py --check      exit 1 when the guide's lines differ (CI)
       python3 .ci/public-api.py --write      put them into the guide
"""
import html
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")  # .ci/ is one below
ALL = os.path.join(ROOT, "target", "doc", "epubforge", "all.html")
GUIDE = os.path.join(ROOT, "guide", "src", "architecture.md")
SECTION = "## The public API"


def api_lines(all_html):
    """One line per section of rustdoc's list of all items, in its order."""
    lines = []
    sections = re.finditer(
        r'<h3 id="[a-z-]+">([^<]+)</h3>\s*<ul class="all-items">(.*?)</ul>', all_html, re.S
    )
    for m in sections:
        items = [html.unescape(i) for i in re.findall(r"<a [^>]*>([^<]+)</a>", m.group(2))]
        shown = ", ".join(f"`{i}`" for i in items)
        lines.append(f"- **{m.group(1)}** ({len(items)}): {shown}")
    return lines


def split_guide(text):
    """The guide before the list of the section, the list's lines, and what follows."""
    start = text.index(SECTION)
    first = text.index("\n- **", start) + 1
    end = first
    while text.startswith("- **", end):
        end = text.index("\n", end) + 1
    return text[:first], text[first:end].splitlines(), text[end:]


def main():
    with open(ALL, encoding="utf-8") as f:
        lines = api_lines(f.read())
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if not lines:
        # rustdoc's page layout is not a stable interface: a toolchain that writes it otherwise
        # must not turn CI red, but says that the list was not compared.
        print(f"{ALL}: no list of items found in this rustdoc's layout; not compared",
              file=sys.stderr)
        sys.exit(1 if mode == "--write" else 0)
    if mode not in ("--check", "--write"):
        print("\n".join(lines))
        return
    with open(GUIDE, encoding="utf-8") as f:
        before, listed, after = split_guide(f.read())
    if mode == "--write":
        with open(GUIDE, "w", encoding="utf-8") as f:
            f.write(before + "\n".join(lines) + "\n" + after)
    elif listed != lines:
        print("guide/src/architecture.md lists another public API than cargo doc:", file=sys.stderr)
        for line in sorted(set(listed) ^ set(lines)):
            print(("  guide: " if line in listed else "  cargo doc: ") + line, file=sys.stderr)
        print("run: python3 .ci/public-api.py --write", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
