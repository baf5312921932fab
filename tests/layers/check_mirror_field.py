#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The request record's Rust type is generated from include/wasinn/request_record.h alone: a field
added to the C struct is in `ServeRecord` (serve/http's `wasinn_request_record_t`), at its offset,
with no other edit. Shown by the build's own generator, serve/http's build script as cargo built
it for this tree's engine (its build-messages.json says where), run over a copy of the headers
with a field planted at the record's end.
  check_mirror_field.py ROOT ENGINE_DIR     (ENGINE_DIR: the build tree's engine/)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

END = "} wasinn_request_record_t;"


def build_script(engine_dir, package="wasinn-serve-http"):
    """PACKAGE's build script, from cargo's messages of the engine's last build."""
    found = None
    for line in open(os.path.join(engine_dir, "build-messages.json"), encoding="utf-8"):
        if not line.strip():
            continue
        m = json.loads(line)
        if (m.get("reason") == "compiler-artifact" and package in m.get("package_id", "")
                and m.get("target", {}).get("kind") == ["custom-build"]):
            found = m["filenames"][0]
    if not found or not os.access(found, os.X_OK):
        sys.exit("no %s build script in %s/build-messages.json (build the engine first)" % (package, engine_dir))
    return found


def generate(script, root, engine_dir, record_h):
    """The Rust the build script writes over a copy of src/'s headers and the given record header,
    with its spaces and line breaks removed (bindgen's formatter may wrap)."""
    with tempfile.TemporaryDirectory() as tmp:
        for rel in ("src/engine/wit_host.h", "src/serve/http/serve_host.h"):
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            shutil.copy(os.path.join(root, rel), os.path.join(tmp, rel))
        os.makedirs(os.path.join(tmp, "include/wasinn"))
        with open(os.path.join(tmp, "include/wasinn/request_record.h"), "w", encoding="utf-8") as f:
            f.write(record_h)
        os.makedirs(os.path.join(tmp, "out"))
        env = dict(os.environ, CARGO_MANIFEST_DIR=os.path.join(tmp, "src/serve/http"),
                   OUT_DIR=os.path.join(tmp, "out"),
                   DEP_WASMTIME_C_API_INCLUDE=os.path.join(engine_dir, "include"))
        run = subprocess.run([script], env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("serve/http's build script failed:\n" + run.stdout + run.stderr)
        return "".join(open(os.path.join(tmp, "out/serve_host.rs"), encoding="utf-8").read().split())


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, engine_dir = (os.path.abspath(a) for a in sys.argv[1:])
    script = build_script(engine_dir)
    header = open(os.path.join(root, "include/wasinn/request_record.h"), encoding="utf-8").read()
    if END not in header:
        sys.exit("request_record.h has no line '%s' to plant a field before" % END)
    planted = header.replace(END, "  const char* planted_field;\n" + END, 1)
    real = generate(script, root, engine_dir, header)
    changed = generate(script, root, engine_dir, planted)
    # The real record's last field ends at 88 bytes; the planted one follows it, and bindgen's
    # layout asserts (which the build compiles) move with it.
    checks = [
        ("the real header gives no planted_field", "planted_field" not in real),
        ("the real record is 88 bytes", "size_of::<wasinn_request_record_t>()-88usize" in real),
        ("the field is in the generated struct", "pubplanted_field:*const" in changed),
        ("at offset 88", "offset_of!(wasinn_request_record_t,planted_field)-88usize" in changed),
        ("the record is 96 bytes", "size_of::<wasinn_request_record_t>()-96usize" in changed),
    ]
    failed = [what for what, ok in checks if not ok]
    for what in failed:
        print("FAIL: " + what)
    if not failed:
        print("check_mirror_field: a field planted in request_record.h is in ServeRecord, at offset 88")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
