#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the guests of the workspace guest/rust-web (pinned by its Cargo.lock) with the modern Rust
# route (scripts/deps/rust-web.sh): the Spin apps and the WASI 0.3 guests into wasm32-wasip2
# components, the WasmEdge socket guest into a wasm32-wasip1 module.
#   build.sh CARGO_WASM OUT_DIR [TARGET_DIR]   -> OUT_DIR/spin_llm.wasm, spin_key_value.wasm,
#                                                 wasmedge_sockets_rust.wasm, p3_nn.wasm,
#                                                 p3_http.wasm, p3_http_spec.wasm, p3_classify.wasm
#   build.sh --fetch-only CARGO_WASM           -> crates (std's too) fetched, nothing built
# Building runs offline from what --fetch-only fetched (scripts/fetch-deps.sh rust-web).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fetch_only=0
if [[ ${1:-} == --fetch-only ]]; then fetch_only=1; shift; fi
cargo=${1:?usage: build.sh [--fetch-only] CARGO_WASM [OUT_DIR [TARGET_DIR]]}
cache=${WASINN_CACHE:-$HOME/.cache/wasinn}
# package -> target, the file cargo writes, [the guest's name, cargo features]
guests=("spin-llm wasm32-wasip2 spin_llm" "spin-key-value wasm32-wasip2 spin_key_value"
        "wasmedge-sockets-rust wasm32-wasip1 wasmedge_sockets_rust" "p3-nn wasm32-wasip2 p3_nn"
        "p3-http wasm32-wasip2 p3_http" "p3-http wasm32-wasip2 p3_http p3_http_spec spec-only"
        "p3-classify wasm32-wasip2 p3_classify")

if [[ $fetch_only == 1 ]]; then
  # Every platform's crates (the host's build dependencies and proc macros included), then std's
  # own crates for each target (-Zbuild-std builds them too).
  "$cargo" fetch --quiet --locked --manifest-path "$here/Cargo.toml"
  for t in wasm32-wasip2 wasm32-wasip1; do
    "$cargo" fetch --quiet --locked --target "$t" --manifest-path "$here/Cargo.toml"
  done
  exit 0
fi

out=${2:?usage: build.sh CARGO_WASM OUT_DIR [TARGET_DIR]}
# In the cache by default, so a fresh build tree reuses the compiled std and crates.
target=${3:-$cache/rust-web-target/guests}
# Checkouts share the target dir: hold it from the build to the copy, or another checkout's build
# could replace a guest between the two (as scripts/build-engine.sh does for the engine).
mkdir -p "$target" "$out"
exec 9>"$target/.build.lock"
flock 9
for g in "${guests[@]}"; do
  read -r package triple name guest features <<<"$g"
  "$cargo" build --quiet --offline --locked --release --target "$triple" -j "${WASINN_RUST_JOBS:-2}" \
    --manifest-path "$here/Cargo.toml" --target-dir "$target" -p "$package" ${features:+--features "$features"}
  cp -f "$target/$triple/release/$name.wasm" "$out/${guest:-$name}.wasm"
done
