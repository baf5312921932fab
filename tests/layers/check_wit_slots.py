#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The wit_host table's slots and records are generated from the WIT files alone: a function or a
record field added to a .wit file is a slot (or field) in C and in Rust with no other edit, and
the C++ side that fills the table is refused until it fills it; a shape no lowering rule covers
fails the build naming the function. Shown by the build's own generator, the engine crate's
build script as cargo built it for this tree (build-messages.json says where), run over a copy
of wit/ and of the table's headers with a function or a field planted in nn-ext.wit, and by
engine/wit_nn_imports.cpp compiled as the build compiles it against what that run generated.
  check_wit_slots.py ROOT BUILD_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

from check_mirror_field import build_script
from check_tables_by_name import compile_command, syntax_check

NN_EXT = "wit/wasinn-nn-ext/nn-ext.wit"
# Planted after the line that declares set-context-property, in the properties interface.
ANCHOR = "    set-context-property: func("
FUNCTION = "    reset-properties: func(graph: borrow<graph>, names: list<string>) -> result<string, error>;\n"
SLOT = ("wasinn_wit_status (*properties_reset_properties)(void* guest, uint32_t graph, "
        "const wasinn_wit_str* names, size_t names_len, wasinn_wit_out* out);")
NO_RULE = "    peek-property: func(graph: borrow<graph>, name: option<string>) -> result<_, error>;\n"
FIELD_ANCHOR = "        name: string,\n"
FIELD = "        layout: string,\n"


def generate(script, root, engine_dir, nn_ext, tmp):
    """Runs the engine's build script over a copy of wit/ (nn-ext.wit as given) and the table's
    headers: (exit status, output, the generated header, the generated Rust)."""
    shutil.copytree(os.path.join(root, "wit"), os.path.join(tmp, "wit"))
    with open(os.path.join(tmp, NN_EXT), "w", encoding="utf-8") as f:
        f.write(nn_ext)
    os.makedirs(os.path.join(tmp, "src/engine/wasmtime"))
    for header in ("wit_host.h", "wit_host_table.h"):
        shutil.copy(os.path.join(root, "src/engine", header), os.path.join(tmp, "src/engine"))
    os.makedirs(os.path.join(tmp, "out"))
    env = dict(os.environ, CARGO_MANIFEST_DIR=os.path.join(tmp, "src/engine/wasmtime"),
               OUT_DIR=os.path.join(tmp, "out"), DEP_WASMTIME_C_API_INCLUDE=os.path.join(engine_dir, "include"))
    run = subprocess.run([script], env=env, capture_output=True, text=True)

    def read(rel):
        path = os.path.join(tmp, "out", rel)
        return open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    return run.returncode, run.stdout + run.stderr, read("include/wasinn_wit_slots.h"), read("wit_host.rs")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, build = (os.path.abspath(a) for a in sys.argv[1:])
    engine_dir = os.path.join(build, "engine")
    script = build_script(engine_dir, "wasinn-engine")
    nn_ext = open(os.path.join(root, NN_EXT), encoding="utf-8").read()
    if nn_ext.count(ANCHOR) != 1 or nn_ext.count(FIELD_ANCHOR) != 1:
        sys.exit(f"{NN_EXT} has no single '{ANCHOR.strip()}' / '{FIELD_ANCHOR.strip()}' to plant beside")
    at = nn_ext.index("\n", nn_ext.index(ANCHOR))
    while not nn_ext[:at].rstrip().endswith(";"):  # the declaration may wrap
        at = nn_ext.index("\n", at + 1)
    with_function = nn_ext[:at + 1] + FUNCTION + nn_ext[at + 1:]
    with_no_rule = nn_ext[:at + 1] + NO_RULE + nn_ext[at + 1:]
    with_field = nn_ext.replace(FIELD_ANCHOR, FIELD_ANCHOR + FIELD, 1)
    table_source = compile_command(build, "src/engine/wit_nn_imports.cpp")
    source_text = open(table_source["file"], encoding="utf-8").read()
    built_header = open(os.path.join(engine_dir, "include/wasinn_wit_slots.h"), encoding="utf-8").read()

    checks = []
    with tempfile.TemporaryDirectory() as scratch:
        def run(name, text):
            tmp = os.path.join(scratch, name)
            os.makedirs(tmp)
            return tmp, generate(script, root, engine_dir, text, tmp)

        def refused(tmp, expect):
            """wit_nn_imports.cpp compiled against TMP's generated header: refused naming EXPECT."""
            code, err = syntax_check(table_source, source_text, tmp, "wit_nn_imports.cpp",
                                     include_first=os.path.join(tmp, "out/include"))
            return code != 0 and expect in err

        _, (code, _, header, _) = run("as_is", nn_ext)
        checks.append(("the WIT as it is gives the build's own header", code == 0 and header == built_header))

        tmp, (code, out, header, rust) = run("function", with_function)
        checks += [
            ("a planted function generates", code == 0),
            ("its slot, lowered by the rules, is in the C header", SLOT in header),
            ("and in the Rust table", "pub properties_reset_properties:" in rust),
            ("its comment says where the answer comes back",
             "/* OK: out->data, chars[len]; ERR: out->rep, the error */" in header.split(SLOT)[0].splitlines()[-2]),
            ("the C++ table is refused until it fills the slot", refused(tmp, "::properties_reset_properties")),
        ]

        _, (code, out, _, _) = run("no_rule", with_no_rule)
        checks.append(("a parameter no rule lowers fails the build, naming the function and the shape",
                       code != 0 and "peek-property(" in out and "name: option<string>" in out))

        tmp, (code, out, header, rust) = run("field", with_field)
        checks += [
            ("a planted record field generates", code == 0),
            ("the record's C struct has it", "wasinn_wit_str layout;" in header),
            ("and its Rust mirror", "pub layout: wasinn_wit_str" in rust),
            ("the C++ side is refused until it fills the field", refused(tmp, "::layout")),
        ]
    failed = [what for what, ok in checks if not ok]
    for what, ok in checks:
        print(("ok   " if ok else "FAIL ") + what)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
