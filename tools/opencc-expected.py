#!/usr/bin/env python3
"""Writes what OpenCC 1.4.2 makes of two books, for tests/testsuite/cleanup.rs (issue 16, Must show 1):

- tests/fixtures/opencc/sample-s2tw.txt: the sample book (seeds/, metadata.toml) with s2tw;
- tests/fixtures/opencc/big5.txt: a Big5 file, hard-wrapped at 30 characters, made from the
  sample book's chapters with OpenCC's s2tw (our own text) and a paragraph on which the
  ferrous-opencc crate we used before differed, and big5-t2s.txt: it with t2s.

Each book is built WITHOUT conversion by the given epubforge, and every chapter heading
(`# title`) and paragraph, in reading order, goes through OpenCC (the PyPI `opencc` 1.4.2), one
line each: what the book built with `convert` must hold.

usage: /work/corpus/venv/bin/python tools/opencc-expected.py target/debug/epubforge
"""
import os, subprocess, sys, tempfile, zipfile, shutil
import opencc
from lxml import etree

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "opencc")


def chapter_text(epub):
    """As tests/testsuite/cleanup.rs's chapter_text: `# h1` and each p's text, chapter documents only."""
    z = zipfile.ZipFile(epub)
    opf = etree.fromstring(z.read("EPUB/package.opf"))
    ns = {"o": "http://www.idpf.org/2007/opf"}
    items = {i.get("id"): i.get("href") for i in opf.iterfind(".//o:item", ns)}
    out = []
    for ref in opf.iterfind(".//o:itemref", ns):
        href = items[ref.get("idref")]
        if "chapter-" not in href:
            continue
        doc = etree.fromstring(z.read("EPUB/" + href))
        for e in doc.iter():
            tag = e.tag.rsplit("}", 1)[-1] if isinstance(e.tag, str) else ""
            if tag == "h1":
                out.append("# " + "".join(e.itertext()))
            elif tag == "p":
                out.append("".join(e.itertext()))
    return out


def big5able(c):
    """Plain Big5 lacks some characters (矟): the fixture leaves them out."""
    try:
        c.encode("big5")
        return True
    except UnicodeEncodeError:
        return False


def build(bin, project):
    epub = os.path.join(project, "plain.epub")
    subprocess.run([bin, "build", project, "-o", epub, "-q", "--no-cache"], check=True,
                   stdout=subprocess.DEVNULL)
    return epub


def write(name, lines):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    bin = os.path.abspath(sys.argv[1])
    os.makedirs(OUT, exist_ok=True)
    s2tw, t2s = opencc.OpenCC("s2tw.json"), opencc.OpenCC("t2s.json")
    with tempfile.TemporaryDirectory() as tmp:
        sample = os.path.join(tmp, "sample")
        os.makedirs(sample)
        shutil.copy(os.path.join(ROOT, "metadata.toml"), sample)
        for d in ("seeds", "covers"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(sample, d))
        write("sample-s2tw.txt", [s2tw.convert(t) for t in chapter_text(build(bin, sample))])

        # The Big5 file: the seeds' paragraphs in traditional characters, indented, wrapped.
        seeds = sorted(os.listdir(os.path.join(ROOT, "seeds")))
        lines = []
        for name in seeds[:2]:
            for para in open(os.path.join(ROOT, "seeds", name), encoding="utf-8").read().split("\n"):
                para = "".join(c for c in s2tw.convert(para.strip()) if big5able(c))
                if not para:
                    continue
                first = True
                while para:
                    lines.append(("　　" if first else "") + para[:30])
                    para, first = para[30:], False
        # Where the old crate differed: 逕 (径, not 迳), and 沈吟 (沉吟) broken across lines.
        lines += ["　　次日，呼延灼聞報大驚，立於陣前沈", "吟了半晌，率騎二千，逕取東北而去。"]
        text = "\r\n".join(lines) + "\r\n"
        with open(os.path.join(OUT, "big5.txt"), "wb") as f:
            f.write(text.encode("big5"))
        big5 = os.path.join(tmp, "big5")
        os.makedirs(big5)
        shutil.copy(os.path.join(OUT, "big5.txt"), big5)
        with open(os.path.join(big5, "metadata.toml"), "w") as f:
            f.write('[book]\ntitle = "安西烽火"\nauthors = ["佚名"]\nlanguage = "zh-TW"\n'
                    '[[chapters]]\nfile = "big5.txt"\nencoding = "big5"\n')
        write("big5-t2s.txt", [t2s.convert(t) for t in chapter_text(build(bin, big5))])


if __name__ == "__main__":
    main()
