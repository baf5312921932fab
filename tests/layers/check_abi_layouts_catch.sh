#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The layout checks of src/wasmtime_library/abi_layouts.def are seen to fail the build when a
# struct changes on one side only: the C side (abi_layouts_check.cpp) over copies of the request
# record, the wit_host table and the pipeline table each with a field added, and the Rust side
# (build.rs's asserts) over serve/http's real ServeRecord with a field added; each passes as it is.
#   check_abi_layouts_catch.sh CXX WASMTIME_INCLUDE_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CXX=${1:?usage: check_abi_layouts_catch.sh CXX WASMTIME_INCLUDE_DIR}
WASMTIME_INCLUDE=${2:?usage: check_abi_layouts_catch.sh CXX WASMTIME_INCLUDE_DIR}
CRATE=$ROOT/src/wasmtime_library
command -v rustc >/dev/null || PATH=$HOME/.cargo/bin:$PATH
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# C: the check over the real headers, then over a copy of one header ahead of it on the path.
check_c() { "$CXX" -std=c++20 -fsyntax-only -I"$1" -I"$ROOT/include" -I"$ROOT/src" -I"$WASMTIME_INCLUDE" \
  "$CRATE/abi_layouts_check.cpp" 2>&1; }
mkdir -p "$tmp/none"
check_c "$tmp/none" >/dev/null || { echo "the C check failed on the real headers:"; check_c "$tmp/none"; exit 1; }
# HEADER (below include/ or src/) STRUCT-END-LINE FIELD: the field goes in before the struct's end.
plants=(
  "include/wasinn/request_record.h|} wasinn_request_record_t;|const char* added;|wasinn_request_record_t"
  "src/engine/wit_host.h|} wasinn_wit_host;|void (*added)(void);|wasinn_wit_host"
  "src/serve/pipeline/pipeline_host.h|} wasinn_pipeline_answer;|size_t added;|wasinn_pipeline_answer"
)
for plant in "${plants[@]}"; do
  IFS='|' read -r header end field type <<<"$plant"
  rel=${header#include/}; rel=${rel#src/}
  mkdir -p "$tmp/c/$(dirname "$rel")"
  grep -qF "$end" "$ROOT/$header" || { echo "$header has no line '$end' to plant before"; exit 1; }
  awk -v end="$end" -v field="$field" 'index($0, end) == 1 { print "  " field } { print }' "$ROOT/$header" \
    > "$tmp/c/$rel"
  out=$(check_c "$tmp/c") && { echo "the C check passed $header with a field added"; exit 1; }
  grep -qF "abi_layouts.def: the size of $type" <<<"$out" || { echo "not the size of $type:"; echo "$out"; exit 1; }
  rm -rf "$tmp/c"
done

# Rust: build.rs's asserts (run as cargo would) of ServeRecord, over the struct as serve/http has it.
rustc --edition 2021 -O -o "$tmp/build_rs" "$CRATE/build.rs" 2>&1
mkdir -p "$tmp/out"
CARGO_MANIFEST_DIR=$CRATE OUT_DIR=$tmp/out "$tmp/build_rs" >/dev/null
record=$(awk '/^#\[repr\(C\)\]$/ { held = $0; next }
              /^pub struct ServeRecord \{/ { print held; on = 1 }
              on { print } on && /^\}/ { exit } { held = "" }' "$ROOT/src/serve/http/src/lib.rs")
grep -q '^pub struct ServeRecord' <<<"$record" || { echo "no ServeRecord in serve/http/src/lib.rs"; exit 1; }
asserts=$(grep -F 'crate::serve::ServeRecord' "$tmp/out/abi_layouts.rs")
check_rust() {
  printf 'pub mod serve {\n%s\n}\n%s\n' "$1" "$asserts" > "$tmp/lib.rs"
  rustc --edition 2021 --crate-type lib --emit metadata -o "$tmp/lib.rmeta" "$tmp/lib.rs" 2>&1
}
check_rust "$record" >/dev/null || { echo "the Rust check failed on serve/http's ServeRecord:"; check_rust "$record"; exit 1; }
out=$(check_rust "$(sed 's/^}$/    pub added: u32,\n}/' <<<"$record")") &&
  { echo "the Rust check passed ServeRecord with a field added"; exit 1; }
grep -qF "abi_layouts.def: the size of serve::ServeRecord" <<<"$out" || { echo "not ServeRecord's size:"; echo "$out"; exit 1; }
echo "check_abi_layouts_catch: ${#plants[@]} C structs and 1 Rust struct with a field added, each refused"
