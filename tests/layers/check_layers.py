#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks every #include of wasinn's own sources against the layer table (src/layers.txt), and
that docs/ARCHITECTURE.md shows that table as it is.

  check_layers.py [ROOT]       exit 0: every include is allowed; 1: each one that is not, as
                               FILE:LINE: LAYER may not include TARGET (LAYER may include: ...)

A layer is a directory of src/ ("core", or "serve/oip" below it when the table names it), a
plugin directory of backends/ ("backends/onnxruntime"; "backends/*" in the table stands for every
plugin) or a library the plugins share, below backends/shared/ ("backends/shared/ggml_common",
included as "ggml_common/log_router.h"). An include "core/graph.h" names the layer core;
"wasinn/host.h" a public header of include/; a bare "x.h" must be beside the including file
(another layer's file is included by its path, "oip/json_codec.h", so that the layer shows).
Generated protobuf headers (*.pb.h) are src/oip's.

An include is resolved as the compiler would find it: "..." beside the file first, then (as
<...>) in the include directories the targets use (src/, include/, backends/shared/, backends/);
the file it reaches decides its layer, so neither <engine/host.h> nor "../engine/host.h" slips
past. A "../" that leaves the file's layer fails even where the layer is allowed (include it by
its path). A <...> that reaches no file of the tree is another project's and is not checked.
A layer's *_impl.h headers (engine/host_impl.h) are its own: no other layer includes them,
whatever the table allows it.

The Rust crates of the Cargo workspace below src/ are held to the same table: a crate's layer is
its directory's (src/serve/http/Cargo.toml: serve/http), and each of its wasinn dependencies (a
path, or a workspace dependency that src/Cargo.toml gives a path) must be a layer it may use.
"""
import fnmatch
import os
import re
import sys
import tomllib

INCLUDE = re.compile(r'^\s*#\s*include\s+(?:"([^"]+)"|<([^>]+)>)', re.M)
# Where the targets look for <...> (and "..." not beside the file), in the compilers' order.
INCLUDE_DIRS = ("src", "include", "backends/shared", "backends")
SOURCES = (".c", ".cc", ".cpp", ".h", ".hpp")


def read_table(path):
    """LAYER -> list of allowed patterns, from the table's 'LAYER: ALLOWED...' lines."""
    table = {}
    for number, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        layer, sep, allowed = line.partition(":")
        if not sep:
            raise SystemExit(f"{path}:{number}: expected 'LAYER: ALLOWED...'")
        table[layer.strip()] = allowed.split()
    return table


def deepest_layer(table, dirs):
    """The table's layer for a directory below src/: the longest of its leading parts the table
    names ('serve/oip' for serve/oip/x.h when the table has it, else 'serve')."""
    for n in range(len(dirs), 0, -1):
        if "/".join(dirs[:n]) in table:
            return "/".join(dirs[:n])
    return dirs[0]


def layer_of(table, rel):
    """The layer of a source file, by its path below the root ('src/core/graph.cpp' -> 'core')."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return deepest_layer(table, parts[1:-1])
    if parts[0] == "backends" and parts[1] == "shared" and len(parts) > 3:
        return "backends/shared/" + parts[2]
    if parts[0] == "backends" and len(parts) > 2:
        return "backends/" + parts[1]
    return None


def allowed_for(table, layer):
    if layer in table:
        return table[layer]
    for pattern, allowed in table.items():
        if fnmatch.fnmatch(layer, pattern) and not pattern.startswith("backends/shared/"):
            return allowed
    return None


def layer_of_path(table, path):
    """The layer a file of the tree belongs to, or 'wasinn/FILE' for a public header of include/."""
    if path.startswith("include/"):
        return path[len("include/"):]
    return layer_of(table, path)


def target_of(table, root, rel, include, angle):
    """What an include names: a layer, 'wasinn/FILE', '?...' for a bad include, '..' for a "../"
    that leaves the layer, '!LAYER' for another layer's private *_impl.h, or None for another
    project's header."""
    bases = ([] if angle else [os.path.dirname(rel)]) + list(INCLUDE_DIRS)
    for base in bases:
        path = os.path.normpath(os.path.join(base, include))
        if path.startswith(".."):
            return "?" + include  # above the tree
        if os.path.isfile(os.path.join(root, path)):
            target = layer_of_path(table, path)
            if ".." in include.split("/") and target != layer_of(table, rel):
                return ".." + include
            if path.endswith("_impl.h") and target != layer_of(table, rel):
                return "!" + target  # another layer's private header
            if base == bases[0] and not angle and target == layer_of(table, rel):
                return None  # beside it (also "sub/x.h" below it)
            return target
    first = include.split("/", 1)[0]
    if ".." in include.split("/"):
        return "?" + include
    if first == "wasinn":
        return include  # generated ones too (wasinn/version.h)
    if angle:
        return None  # another project's
    if "/" in include:
        if os.path.isdir(os.path.join(root, "src", first)):
            return deepest_layer(table, include.split("/")[:-1])
        if os.path.isdir(os.path.join(root, "backends", "shared", first)):
            return "backends/shared/" + first
        if os.path.isdir(os.path.join(root, "backends", first)):
            return "backends/" + first
        return "?" + include
    if include.endswith(".pb.h"):
        return "oip"
    return "?" + include  # another directory's file by its bare name: it hides which layer it is


def matches(target, allowed):
    return any(fnmatch.fnmatch(target, a) for a in allowed)


def crate_dependencies(root):
    """(manifest, dependency name, the directory it is at) for every wasinn crate a member of the
    workspace below src/ depends on, in any section (dev- and build-dependencies too)."""
    workspace = os.path.join(root, "src", "Cargo.toml")
    shared = {}
    if os.path.isfile(workspace):
        deps = tomllib.load(open(workspace, "rb")).get("workspace", {}).get("dependencies", {})
        shared = {n: os.path.join("src", d["path"]) for n, d in deps.items() if isinstance(d, dict) and "path" in d}
    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        rel = os.path.relpath(os.path.join(dirpath, "Cargo.toml"), root)
        if "Cargo.toml" not in names or rel == os.path.join("src", "Cargo.toml"):
            continue
        manifest = tomllib.load(open(os.path.join(root, rel), "rb"))
        for section in ("dependencies", "dev-dependencies", "build-dependencies"):
            for name, dep in manifest.get(section, {}).items():
                if not isinstance(dep, dict):
                    continue
                if "path" in dep:
                    yield rel, name, os.path.normpath(os.path.join(os.path.dirname(rel), dep["path"]))
                elif dep.get("workspace") and name in shared:
                    yield rel, name, os.path.normpath(shared[name])


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    table_path = os.path.join(root, "src", "layers.txt")
    table = read_table(table_path)
    files = []
    for top in ("src", "backends"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.relpath(os.path.join(dirpath, n), root) for n in names if n.endswith(SOURCES)]
    problems = []
    checked = 0
    for rel in sorted(files):
        layer = layer_of(table, rel)
        if layer is None:
            continue
        allowed = allowed_for(table, layer)
        text = open(os.path.join(root, rel), errors="replace").read()
        for m in INCLUDE.finditer(text):
            include = m.group(1) or m.group(2)
            target = target_of(table, root, rel, include, angle=m.group(1) is None)
            if target is None or target == layer:
                continue
            checked += 1
            line = text.count("\n", 0, m.start()) + 1
            if allowed is None:
                problems.append(f"{rel}:{line}: layer {layer} is not in {os.path.relpath(table_path, root)}")
            elif target.startswith(".."):
                problems.append(f"{rel}:{line}: \"{include}\" leaves the layer {layer} by \"..\": include it by "
                                "its path (oip/json_codec.h)")
            elif target.startswith("!") and matches(target[1:], allowed):
                problems.append(f"{rel}:{line}: \"{include}\" is private to {target[1:]} (a layer's *_impl.h is "
                                "its own): use what that layer exports")
            elif target.startswith("?"):
                problems.append(f"{rel}:{line}: \"{include}\" is not beside it: include it by its path "
                                "(oip/json_codec.h, ggml_common/log_router.h)")
            elif not matches(target.lstrip("!"), allowed):
                problems.append(f"{rel}:{line}: {layer} may not include {include} "
                                f"({layer} may include: {' '.join(allowed) or 'nothing of another layer'})")
    # The Rust crates' dependencies on each other, by the same table.
    crate_deps = 0
    for rel, name, path in crate_dependencies(root):
        crate_deps += 1
        layer = layer_of(table, rel)
        target = layer_of(table, os.path.join(path, "Cargo.toml"))
        if target == layer:
            continue
        allowed = allowed_for(table, layer)
        if allowed is None:
            problems.append(f"{rel}: layer {layer} is not in {os.path.relpath(table_path, root)}")
        elif target is None or not matches(target, allowed):
            problems.append(f"{rel}: {layer} may not depend on the crate {name} ({path}; {layer} may use: "
                            f"{' '.join(allowed) or 'nothing of another layer'})")
    # ARCHITECTURE.md shows the table's lines, in a ```text block, as they are.
    doc = open(os.path.join(root, "docs", "ARCHITECTURE.md")).read()
    rows = [l.rstrip() for l in open(table_path) if l.strip() and not l.lstrip().startswith("#")]
    shown = re.search(r"```text\n# src/layers.txt\n(.*?)```", doc, re.S)
    if not shown:
        problems.append("docs/ARCHITECTURE.md: no ```text block starting '# src/layers.txt' showing the layer table")
    elif [l.rstrip() for l in shown.group(1).splitlines() if l.strip()] != rows:
        problems.append("docs/ARCHITECTURE.md: its copy of src/layers.txt differs from the file: copy the table again")
    for p in problems:
        print(p)
    print(f"check_layers: {checked} includes across layers in {len(files)} files, {crate_deps} dependencies "
          f"among the Rust crates; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
