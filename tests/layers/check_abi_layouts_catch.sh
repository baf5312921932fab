#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The checks of src/wasmtime_library/abi_layouts.def are seen to fail the build when a mirrored
# struct or enum changes on one side only: the C side (abi_layouts_check.cpp) over copies of the
# request record, the wit_host table, the pipeline table and the serving config each edited one
# way (a field added, moved or retyped, a callback's signature changed, a value changed, an
# enumerator added), and the Rust side (build.rs's asserts) over serve/http's real ServeRecord
# and the engine's real WitStatus edited likewise; each passes as it is.
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
# HEADER (below include/ or src/) | LINE IT HAS | THE LINE IN ITS PLACE (\n: more lines) | THE ERROR EXPECTED
plants=(
  "include/wasinn/request_record.h|} wasinn_request_record_t;|  const char* added;\n} wasinn_request_record_t;|the size of wasinn_request_record_t"
  "include/wasinn/request_record.h|  int32_t status;|  uint32_t status;|the type of wasinn_request_record_t.status"
  "include/wasinn/request_record.h|  const char* method;|  const char* path;\n  const char* method;|the offset of wasinn_request_record_t.method"
  "src/engine/wit_host.h|} wasinn_wit_host;|  void (*added)(void);\n} wasinn_wit_host;|the size of wasinn_wit_host"
  "src/engine/wit_host.h|  void (*guest_release)(void* shared);|  void (*guest_release)(const void* shared);|the type of wasinn_wit_host.guest_release"
  "src/engine/wit_host.h|  WASINN_WIT_ERROR = 3|  WASINN_WIT_ERROR = 4|the value of WASINN_WIT_ERROR"
  "src/serve/pipeline/pipeline_host.h|} wasinn_pipeline_answer;|  size_t added;\n} wasinn_pipeline_answer;|the size of wasinn_pipeline_answer"
  "src/serve/http/serve_host.h|  WASINN_ADMISSION_REFUSED = 2,|  WASINN_ADMISSION_REFUSED = 2,\n  WASINN_ADMISSION_LATER = 3,|not handled in switch"
)
for plant in "${plants[@]}"; do
  IFS='|' read -r header line replacement expected <<<"$plant"
  rel=${header#include/}; rel=${rel#src/}
  mkdir -p "$tmp/c/$(dirname "$rel")"
  grep -qxF "$line" "$ROOT/$header" || { echo "$header has no line '$line' to replace"; exit 1; }
  awk -v line="$line" -v repl="$replacement" '$0 == line { gsub(/\\n/, "\n", repl); print repl; next } { print }' \
    "$ROOT/$header" > "$tmp/c/$rel"
  out=$(check_c "$tmp/c") && { echo "the C check passed $header with '$line' made '$replacement'"; exit 1; }
  grep -qF "$expected" <<<"$out" || { echo "not '$expected':"; echo "$out"; exit 1; }
  rm -rf "$tmp/c"
done

# Rust: build.rs's asserts (run as cargo would) of ServeRecord and WitStatus, over the types as
# their crates have them.
rustc --edition 2021 -O -o "$tmp/build_rs" "$CRATE/build.rs" 2>&1
mkdir -p "$tmp/out"
CARGO_MANIFEST_DIR=$CRATE OUT_DIR=$tmp/out "$tmp/build_rs" >/dev/null
# The item `pub struct|enum NAME {` of FILE, with the attributes before it.
item() { awk -v start="pub $2 $3 {" '/^#\[/ { held = held $0 "\n"; next }
                                      index($0, start) == 1 { printf "%s", held; on = 1 }
                                      on { print } on && /^\}/ { exit } { held = "" }' "$1"; }
record=$(item "$ROOT/src/serve/http/src/lib.rs" struct ServeRecord)
status=$(item "$ROOT/src/engine/wasmtime/src/host.rs" enum WitStatus)
grep -q '^pub struct ServeRecord' <<<"$record" || { echo "no ServeRecord in serve/http/src/lib.rs"; exit 1; }
grep -q '^pub enum WitStatus' <<<"$status" || { echo "no WitStatus in engine/wasmtime/src/host.rs"; exit 1; }
asserts=$(grep -E 'crate::(serve::ServeRecord|host::WitStatus)' "$tmp/out/abi_layouts.rs")
check_rust() {
  printf 'pub mod serve {\n%s\n}\npub mod host {\n%s\n}\n%s\n' "$1" "$2" "$asserts" > "$tmp/lib.rs"
  rustc --edition 2021 --crate-type lib --emit metadata -o "$tmp/lib.rmeta" "$tmp/lib.rs" 2>&1
}
check_rust "$record" "$status" >/dev/null ||
  { echo "the Rust check failed on ServeRecord and WitStatus as they are:"; check_rust "$record" "$status"; exit 1; }
# WHICH (record or status) | SED EXPRESSION | THE ERROR EXPECTED
rust_plants=(
  'record|s/^}$/    pub added: u32,\n}/|abi_layouts.def: the size of serve::ServeRecord'
  'record|s/pub status: i32/pub status: u32/|&r.status'
  'record|/pub method:/{h;d};/pub path:/{p;x}|abi_layouts.def: the offset of serve::ServeRecord.method'
  'status|s/Trap = 2/Trap = 3/|abi_layouts.def: the value of host::WitStatus::Trap'
  'status|s/^}$/    Later = 3,\n}/|`WitStatus::Later` not covered'
)
for plant in "${rust_plants[@]}"; do
  IFS='|' read -r which edit expected <<<"$plant"
  if [[ $which == record ]]; then
    out=$(check_rust "$(sed "$edit" <<<"$record")" "$status") && { echo "the Rust check passed ServeRecord with $edit"; exit 1; }
  else
    out=$(check_rust "$record" "$(sed "$edit" <<<"$status")") && { echo "the Rust check passed WitStatus with $edit"; exit 1; }
  fi
  grep -qF "$expected" <<<"$out" || { echo "not '$expected':"; echo "$out"; exit 1; }
done
echo "check_abi_layouts_catch: ${#plants[@]} C edits and ${#rust_plants[@]} Rust edits, each refused"
