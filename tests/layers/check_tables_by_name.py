#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The C function tables and records the C++ side hands the Rust side are filled by name, every
field, so that a field a header gains and the C++ side leaves out, or a field moved, fails the
build rather than leaving a NULL, or a value in another's place (several slots share a signature,
several fields a type). This compiles the real sources with a field dropped and with two swapped,
as the build compiles them (compile_commands.json), and checks that each is refused naming it.
  check_tables_by_name.py BUILD_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

# (source, a field line to drop, two field lines to swap, the field the compiler must name)
TABLES = [
    ("src/engine/wit_nn_imports.cpp", ".context_next = context_next,",
     (".tensor_dimensions = tensor_dimensions,", ".tensor_ty = tensor_ty,"), "context_next"),
    ("src/serve/http/wasi_http_server.cpp", ".close = admission_close,",
     (".leave = admission_leave,", ".close = admission_close,"), "close"),
    ("src/serve/pipeline/component_pipeline.cpp", ".rank = in.tensor.dims.size(),",
     (".dims = in.tensor.dims.data(),", ".rank = in.tensor.dims.size(),"), "rank"),
]


def compile_command(build, source):
    for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
        if entry["file"].endswith(source):
            return entry
    sys.exit(f"check_tables_by_name: {source} is not in {build}/compile_commands.json")


def syntax_check(entry, text, scratch, name, include_first=None):
    """The compiler's exit status and output for `text` compiled as `entry` compiles its file
    (with `include_first` searched before the build's include directories, if given)."""
    planted = os.path.join(scratch, name)
    with open(planted, "w") as f:
        f.write(text)
    args = entry["command"].split()
    out = args.index("-o")
    del args[out:out + 2]
    args = [a for a in args if a not in ("-c", entry["file"])]
    # The file's own directory first, as for the original's quoted includes.
    args += ["-I", os.path.dirname(entry["file"]), "-fsyntax-only", planted]
    if include_first:
        args[1:1] = ["-I", include_first]
    r = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    return r.returncode, r.stderr


def main():
    build = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for source, dropped, (first, second), slot in TABLES:
            entry = compile_command(build, source)
            text = open(entry["file"]).read()
            lines = text.splitlines(keepends=True)
            idx = {key: [i for i, l in enumerate(lines) if key in l] for key in (dropped, first, second)}
            if any(len(v) != 1 for v in idx.values()):
                print(f"FAIL {source}: the fields to plant are not each on one line: {idx}")
                failures += 1
                continue
            without = "".join(l for i, l in enumerate(lines) if i != idx[dropped][0])
            swapped_lines = list(lines)
            a, b = idx[first][0], idx[second][0]
            swapped_lines[a], swapped_lines[b] = lines[b], lines[a]
            swapped = "".join(swapped_lines)
            # The source as it is compiles: the plants, not the setup, are what fail.
            for what, planted, expect in (("as it is", text, None), ("a field dropped", without, "::" + slot),
                                          ("two fields swapped", swapped, "designator order")):
                code, err = syntax_check(entry, planted, scratch, os.path.basename(source))
                if expect is None:
                    ok = code == 0
                else:
                    ok = code != 0 and expect in err
                print(f"{'ok  ' if ok else 'FAIL'} {source}, {what}: exit {code}"
                      + (f", names '{expect}'" if expect and ok else ""))
                if not ok:
                    failures += 1
                    print(err[-2000:])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
