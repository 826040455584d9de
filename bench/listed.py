#!/usr/bin/env python3
"""Rewrites BOOK/metadata.toml (a generated novel's) with an explicit chapter list: a
[[chapters]] table with a file and a title for each chapter file, as a hand-kept book has.

    bench/listed.py BOOK

Used by bench/run.sh (the explicit-list rebuilds) and bench/identical.sh."""
import os
import sys

book = sys.argv[1]
head = open(os.path.join(book, "metadata.toml"), encoding="utf-8").read().split("[[chapters]]")[0]
entries = []
for name in sorted(os.listdir(os.path.join(book, "chapters"))):
    with open(os.path.join(book, "chapters", name), encoding="utf-8") as f:
        title = f.readline().strip()
    entries.append(f'[[chapters]]\nfile = "chapters/{name}"\ntitle = "{title}"\n')
with open(os.path.join(book, "metadata.toml"), "w", encoding="utf-8") as f:
    f.write(head + "\n".join(entries))
