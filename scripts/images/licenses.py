#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Helper of scripts/images/licenses.sh: collects the licence texts of many small packages.

  licenses.py crates TREE REGISTRY_SRC OUT GENERIC_DIR FALLBACK_LLVM
      TREE: `cargo tree -f '{p}|{l}'` lines (one crate a line). Copies each crate's licence files
      from REGISTRY_SRC/NAME-VERSION into OUT/NAME-VERSION/ and writes OUT/INDEX.
  licenses.py vendor VENDOR_DIR OUT GENERIC_DIR FALLBACK_LLVM
      The same for the crates of a `cargo vendor` directory (their Cargo.toml's name, version,
      license).
  licenses.py npm NODE_MODULES OUT GENERIC_DIR FALLBACK_LLVM
      The same for every package installed under NODE_MODULES (package.json's name, version,
      license).
  A package that ships no licence file gets a NOTICE saying what it declares, plus the text of
  that licence: FALLBACK_LLVM (Wasmtime's LICENSE, the Bytecode Alliance's text) for
  Apache-2.0 WITH LLVM-exception, which is the case of Wasmtime's own workspace crates and
  jco's packages, else the generic GENERIC_DIR/<SPDX>.txt (the Rust toolchain's copies).
  licenses.py covers ID...    reads SPDX expressions on stdin (one a line); prints those that
      the licence set ID... does not satisfy (an OR needs one branch, an AND all), exits 1 if any.
INDEX lines are tab-separated: name, version, SPDX expression, folder (relative), where from.
"""
import json
import os
import re
import shutil
import sys

LICENSE_FILE = re.compile(r"(?i)^(licen[cs]e|copying|notice|copyright|unlicense)([-._].*)?$")


def licence_files(d):
    """Top-level licence files of a package, plus those in a licenses/ folder."""
    out = []
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if os.path.isfile(p) and LICENSE_FILE.match(name):
            out.append((name, p))
        elif os.path.isdir(p) and name.lower() in ("licenses", "license"):
            for sub in sorted(os.listdir(p)):
                if os.path.isfile(os.path.join(p, sub)):
                    out.append((name + "-" + sub, os.path.join(p, sub)))
    return out


def copy_into(files, dest):
    os.makedirs(dest, exist_ok=True)
    for name, path in files:
        shutil.copyfile(path, os.path.join(dest, name))


def normalise(expr):
    """Old-style 'MIT/Apache-2.0' and 'Apache-2.0 / MIT' as SPDX OR; parentheses kept."""
    expr = (expr or "").strip()
    return re.sub(r"\s*/\s*", " OR ", expr)


def declared_only(dest, name, version, lic, extra, generic, fallback_llvm):
    """NOTICE (+ the licence's text) for a package without licence files; returns 'where'."""
    os.makedirs(dest, exist_ok=True)
    notice = [f"{name} {version}: the package ships no licence file.",
              f"Declared licence: {lic or 'none'}"] + extra
    text = None
    for ident in re.split(r"\s+OR\s+", lic or ""):
        ident = ident.strip("() ")
        if "LLVM-exception" in ident:
            text = (fallback_llvm, "Apache-2.0-WITH-LLVM-exception.txt", "Wasmtime's LICENSE, the Bytecode Alliance's text")
        elif " " not in ident and os.path.isfile(os.path.join(generic, ident + ".txt")):
            text = (os.path.join(generic, ident + ".txt"), ident + ".txt", "a generic copy")
        if text:
            break
    where = "no licence file in the package: NOTICE with its declaration"
    if text:
        shutil.copyfile(text[0], os.path.join(dest, text[1]))
        notice.append(f"The licence's text is in {text[1]} ({text[2]}, not the package's own).")
        where += f" + {text[1]} ({text[2]})"
    with open(os.path.join(dest, "NOTICE"), "w") as f:
        f.write("\n".join(notice) + "\n")
    return where


def cmd_crates(tree, registry, out, generic, fallback_llvm):
    rows = []
    seen = set()
    for line in open(tree):
        line = line.strip()
        if not line or "|" not in line:
            continue
        pkg, lic = line.split("|", 1)
        parts = pkg.split()
        if len(parts) > 2:  # "name vX (path)": a crate of wasinn's workspace, wasinn's own code
            continue
        name, version = parts[0], parts[1].lstrip("v")
        if (name, version) in seen:
            continue
        seen.add((name, version))
        src = os.path.join(registry, f"{name}-{version}")
        folder = f"{name}-{version}"
        if not os.path.isdir(src):
            rows.append((name, version, normalise(lic), "-", f"MISSING: {src} not unpacked (run scripts/fetch-deps.sh wasmtime)"))
            continue
        files = licence_files(src)
        if files:
            copy_into(files, os.path.join(out, folder))
            where = "the crate's own files (.crate from crates.io)"
        else:
            where = declared_only(os.path.join(out, folder), name, version, normalise(lic),
                                  ["Source: crates.io"], generic, fallback_llvm)
        rows.append((name, version, normalise(lic), folder + "/", where))
    rows.sort()
    write_index(out, rows)


def cmd_vendor(vendor, out, generic, fallback_llvm):
    import tomllib
    rows = []
    for entry in sorted(os.listdir(vendor)):
        src = os.path.join(vendor, entry)
        manifest = os.path.join(src, "Cargo.toml")
        if not os.path.isfile(manifest):
            continue
        with open(manifest, "rb") as f:
            pkg = tomllib.load(f).get("package", {})
        name, version = pkg.get("name", entry), str(pkg.get("version", "?"))
        lic = normalise(pkg.get("license", ""))
        folder = f"{name}-{version}"
        files = licence_files(src)
        if files:
            copy_into(files, os.path.join(out, folder))
            where = "the crate's own files (vendored from crates.io)"
        else:
            extra = [f"License file declared in Cargo.toml: {pkg['license-file']}"] if "license-file" in pkg else []
            where = declared_only(os.path.join(out, folder), name, version, lic, extra + ["Source: crates.io"],
                                  generic, fallback_llvm)
        rows.append((name, version, lic or "NOASSERTION", folder + "/", where))
    write_index(out, rows)


def cmd_npm(node_modules, out, generic, fallback_llvm):
    rows = []
    for root, dirs, files in os.walk(node_modules):
        dirs.sort()
        if "package.json" not in files or not re.search(r"node_modules/(@[^/]+/)?[^/@]+$", root):
            continue
        try:
            meta = json.load(open(os.path.join(root, "package.json")))
        except (OSError, ValueError):
            continue
        if "name" not in meta or "version" not in meta:
            continue  # a package.json inside a package (e.g. lib/package.json with "type")
        name, version = meta["name"], meta["version"]
        lic = meta.get("license")
        if isinstance(lic, dict):
            lic = lic.get("type")
        if not lic and isinstance(meta.get("licenses"), list):
            lic = " OR ".join(x.get("type", "") for x in meta["licenses"] if isinstance(x, dict))
        lic = normalise(lic)
        if lic.startswith("(") and lic.endswith(")") and "(" not in lic[1:-1]:
            lic = lic[1:-1]  # "(Apache-2.0 WITH LLVM-exception)", as Bytecode Alliance writes it
        rel = os.path.relpath(root, node_modules)
        folder = rel.replace("node_modules/", "").replace("/", "+")
        found = licence_files(root)
        where = "the package's own files (npm tarball)"
        if not lic and found:
            text = open(found[0][1], errors="replace").read()
            if "Apache License" in text and "LLVM Exceptions" in text:
                lic, where = "Apache-2.0 WITH LLVM-exception", "undeclared in package.json; identified from its LICENSE text"
        if not found:
            extra = []
            author = meta.get("author")
            if isinstance(author, dict):
                author = " ".join(str(author[k]) for k in ("name", "email") if k in author)
            if author:
                extra.append(f"Author: {author}")
            repo = meta.get("repository")
            if isinstance(repo, dict):
                repo = repo.get("url")
            if repo:
                extra.append(f"Repository: {repo}")
            where = declared_only(os.path.join(out, folder), name, version, lic, extra, generic, fallback_llvm)
        else:
            copy_into(found, os.path.join(out, folder))
        rows.append((name, version, lic or "NOASSERTION", folder + "/", where))
    rows.sort()
    write_index(out, rows)


def write_index(out, rows):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "INDEX"), "w") as f:
        f.write("# name\tversion\tSPDX licence\tfolder\twhere the text comes from\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


def satisfied(expr, have):
    """True when the licence set `have` satisfies the SPDX expression (WITH > AND > OR)."""
    tokens = re.findall(r"\(|\)|[A-Za-z0-9.+:-]+", expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def primary():
        if peek() == "(":
            take()
            v = disjunction()
            if peek() == ")":
                take()
            return v
        ident = take()
        if peek() == "WITH":
            take()
            ident += " WITH " + take()
        return ident in have

    def conjunction():
        v = primary()
        while peek() == "AND":
            take()
            v = primary() and v
        return v

    def disjunction():
        v = conjunction()
        while peek() == "OR":
            take()
            v = conjunction() or v
        return v

    return bool(tokens) and disjunction()


def cmd_covers(ids):
    have = set(ids)
    bad = [line.strip() for line in sys.stdin if line.strip() and not satisfied(line.strip(), have)]
    for b in sorted(set(bad)):
        print(b)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 7 and argv[1] == "crates":
        cmd_crates(*argv[2:7])
    elif len(argv) >= 6 and argv[1] == "vendor":
        cmd_vendor(*argv[2:6])
    elif len(argv) >= 6 and argv[1] == "npm":
        cmd_npm(*argv[2:6])
    elif len(argv) >= 2 and argv[1] == "covers":
        return cmd_covers(argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
