# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes generated sections into docs/benchmarks.md, leaving the hand-written text alone.

A section NAME lies between <!-- bench:NAME --> and <!-- /bench:NAME -->; its body is replaced
whole. A section without markers yet is appended at the end under "## NAME".

    python3 scripts/bench_doc.py DOC OUT_DIR NAME...   (body of NAME read from OUT_DIR/NAME.md)
"""
import pathlib
import re
import sys


def write_sections(doc: pathlib.Path, bodies: dict) -> None:
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    for name, body in bodies.items():
        begin, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
        block = f"{begin}\n{body.rstrip(chr(10))}\n{end}"
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _: block, text, count=1)
        else:
            text = text.rstrip("\n") + f"\n\n## {name}\n\n{block}\n"
    doc.write_text(text)


if __name__ == "__main__":
    doc, out, names = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    write_sections(doc, {n: (out / f"{n}.md").read_text() for n in names})
