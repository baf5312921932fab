#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The C types the Rust crates share with the C++ side are generated from their headers at build
time (each crate's build.rs lists them in `types`, src/engine/wasmtime/c_mirrors.rs generates
them), never written by hand: this fails on a `#[repr(C)]` struct or enum of a Rust source below
src/engine or src/serve that has one of their names, the C one or the one the crates give it
(`pub use c::C_NAME as RUST_NAME`), so a mirror copied back by hand fails the test command.
  check_mirrors.py ROOT            exit 1, naming each hand-written mirror
  check_mirrors.py ROOT --catches  the check seen to refuse a mirror planted in a copy of each crate
"""
import os
import re
import shutil
import sys
import tempfile

CRATES = ("src/engine", "src/serve")
REPR_C = re.compile(r"^\s*#\[repr\(C\b")
ITEM = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(struct|enum|union)\s+(\w+)")


def rust_files(root):
    for crate in CRATES:
        for dirpath, dirnames, names in os.walk(os.path.join(root, crate)):
            dirnames[:] = sorted(d for d in dirnames if d != "target")
            for name in sorted(names):
                if name.endswith(".rs"):
                    yield os.path.join(dirpath, name)


def generated_names(root):
    """Every generated type's C name and the Rust names the crates give them."""
    c_names = set()
    sources = {path: open(path, encoding="utf-8").read() for path in rust_files(root)}
    for path, text in sources.items():
        if os.path.basename(path) == "build.rs":
            # `types: &[...]` in a Mirror, or the engine's `let mut types = vec![...]`.
            for listed in re.findall(r"\btypes(?::\s*&|\s*=\s*vec!)\[(.*?)\]", text, re.S):
                c_names.update(re.findall(r'"(\w+)"', listed))
    # What the crates name from their generated module `c` is generated too (the records
    # generated from the WIT, which no build.rs lists, among them).
    rust_names = set()
    for text in sources.values():
        for c_name, rust_name in re.findall(r"\bpub use c::(\w+) as (\w+);", text):
            c_names.add(c_name)
            rust_names.add(rust_name)
    return c_names, rust_names


def hand_mirrors(root):
    c_names, rust_names = generated_names(root)
    if not c_names:
        return ["no build.rs below %s lists the types it generates (`types: &[...]`)" % " or ".join(CRATES)]
    found = []
    for path in rust_files(root):
        lines = open(path, encoding="utf-8").read().splitlines()
        for i, line in enumerate(lines):
            if not REPR_C.match(line):
                continue
            # The item the attribute is on: the next line that is not an attribute or a comment.
            for j in range(i + 1, min(i + 20, len(lines))):
                item = ITEM.match(lines[j])
                if item:
                    if item.group(2) in c_names | rust_names:
                        found.append(
                            "%s:%d: a hand-written #[repr(C)] %s %s: it is generated from its C header "
                            "(build.rs, src/engine/wasmtime/c_mirrors.rs)"
                            % (os.path.relpath(path, root), j + 1, item.group(1), item.group(2))
                        )
                    break
                if not lines[j].strip().startswith(("#[", "//")):
                    break
    return found


# FILE (below the root) | THE MIRROR PLANTED AT ITS END
PLANTS = [
    ("src/serve/http/src/answer.rs",
     "#[repr(C)]\n#[derive(Clone, Copy)]\npub struct ServeRecord {\n    pub struct_size: u32,\n}\n"),
    ("src/engine/wasmtime/src/wit_nn.rs", "/// The status.\n#[repr(C)]\npub enum WitStatus {\n    Ok = 0,\n}\n"),
    ("src/serve/pipeline/src/lib.rs", "#[repr(C)]\nstruct wasinn_pipeline_spec {\n    rank: usize,\n}\n"),
]


def catches(root):
    """The check over a copy of the crates' sources, as they are (passes), then with each plant."""
    with tempfile.TemporaryDirectory() as tmp:
        def not_rust(d, names):
            return [n for n in names if n == "target" or (os.path.isfile(os.path.join(d, n)) and not n.endswith(".rs"))]

        for crate in CRATES:
            shutil.copytree(os.path.join(root, crate), os.path.join(tmp, crate), ignore=not_rust)
        found = hand_mirrors(tmp)
        if found:
            return ["the check refused the crates as they are:"] + found
        for rel, plant in PLANTS:
            path = os.path.join(tmp, rel)
            before = open(path, encoding="utf-8").read()
            with open(path, "a", encoding="utf-8") as f:
                f.write("\n" + plant)
            found = hand_mirrors(tmp)
            name = ITEM.match([l for l in plant.splitlines() if ITEM.match(l)][0]).group(2)
            if not any(rel in f and (" " + name + ":") in f for f in found):
                return ["the check passed %s with a hand-written %s planted (found: %s)" % (rel, name, found)]
            with open(path, "w", encoding="utf-8") as f:
                f.write(before)
    print("check_mirrors: %d hand-written mirrors planted, each refused" % len(PLANTS))
    return []


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--catches"):
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[1])
    if len(sys.argv) == 3:
        problems = catches(root)
    else:
        problems = hand_mirrors(root)
        if not problems:
            c_names, rust_names = generated_names(root)
            print("check_mirrors: %d generated C types (%d named again in Rust), no hand-written mirror"
                  % (len(c_names), len(rust_names)))
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
